# cuda-nvcc_linux-64's activation, as conda-forge's: point CUDA tooling
# (CMake's CUDACXX, setup.py's CUDA_HOME, Makefiles' NVCC) at this
# environment's nvcc, and nvcc at the environment's C++ compiler. In a build
# (CONDA_BUILD=1) the compiler lives in the build environment.
if [ "${CONDA_BUILD:-0}" = 1 ] && [ -n "${BUILD_PREFIX:-}" ]; then
  gpuenv_cuda_root=$BUILD_PREFIX
else
  gpuenv_cuda_root=${CONDA_PREFIX:-}
fi
if [ -n "$gpuenv_cuda_root" ]; then
  export CONDA_BACKUP_CUDA_HOME="${CUDA_HOME:-}"
  export CONDA_BACKUP_NVCC_PREPEND_FLAGS="${NVCC_PREPEND_FLAGS:-}"
  export CUDA_HOME="$gpuenv_cuda_root" CUDA_PATH="$gpuenv_cuda_root"
  export NVCC="$gpuenv_cuda_root/bin/nvcc" CUDACXX="$gpuenv_cuda_root/bin/nvcc"
  if [ -n "${CXX:-}" ]; then
    export NVCC_PREPEND_FLAGS="${NVCC_PREPEND_FLAGS:-} -ccbin=${CXX}"
  fi
fi
unset gpuenv_cuda_root
