"""CuPy's CUDA libraries on a GPU (issue 30): one call into each library the
`cupy` package brings -- cuBLAS (a matrix product), cuSOLVER (a QR and a
symmetric eigensolve), cuFFT (a 2-D FFT), cuRAND (normal samples),
cuSPARSE (a CSR matrix-vector product) and NVRTC (an ElementwiseKernel) --
each checked against NumPy, and the version each library reports, so a run
says which CUDA release's libraries the environment loaded. Exits 1 when a
result differs or a library cannot be loaded.

    python cupy_libs_gpu.py [--label NAME] [--cuda MAJOR.MINOR]

With --cuda, the CUDA runtime CuPy loaded must be that release (12.4 ->
runtimeGetVersion 12040). Run by bench/python_stack/gpu_check_part2.sh in
the gpuenv environment; needs NumPy and CuPy only (no SciPy).
"""
import argparse
import sys

import numpy as np
import cupy as cp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="cupy")
    parser.add_argument("--cuda", help="the CUDA release the runtime must be, e.g. 12.4")
    args = parser.parse_args()
    label = args.label
    ok = True
    rng = np.random.default_rng(1)

    runtime = cp.cuda.runtime.runtimeGetVersion()
    nvrtc = cp.cuda.nvrtc.getVersion()
    print(f"{label}: CUDA runtime {runtime}, driver {cp.cuda.runtime.driverGetVersion()}, "
          f"NVRTC {nvrtc[0]}.{nvrtc[1]}")
    if args.cuda:
        major, minor = (int(part) for part in args.cuda.split("."))
        wanted = major * 1000 + minor * 10
        same = runtime == wanted and tuple(nvrtc) == (major, minor)
        ok &= same
        print(f"{label}: runtime and NVRTC are CUDA {args.cuda}: {same}")

    def report(name, version, equal):
        nonlocal ok
        ok &= bool(equal)
        print(f"{label}: {name} {version}: equal: {bool(equal)}")

    # cuBLAS: a float64 matrix product.
    from cupy_backends.cuda.libs import cublas
    a = rng.random((512, 512))
    b = rng.random((512, 512))
    product = cp.asnumpy(cp.asarray(a) @ cp.asarray(b))
    report("cuBLAS", cublas.getVersion(cp.cuda.device.get_cublas_handle()), np.allclose(product, a @ b))

    # cuSOLVER: QR of a tall matrix (R's diagonal up to sign) and the
    # eigenvalues of a symmetric one.
    from cupy_backends.cuda.libs import cusolver
    tall = rng.random((2048, 64))
    _, r_gpu = cp.linalg.qr(cp.asarray(tall))
    _, r_cpu = np.linalg.qr(tall)
    symmetric = tall.T @ tall
    eigen_gpu = cp.asnumpy(cp.linalg.eigvalsh(cp.asarray(symmetric)))
    eigen_cpu = np.linalg.eigvalsh(symmetric)
    equal = (np.allclose(np.abs(np.diag(cp.asnumpy(r_gpu))), np.abs(np.diag(r_cpu)))
             and np.allclose(eigen_gpu, eigen_cpu))
    report("cuSOLVER", cusolver._getVersion(), equal)

    # cuFFT: a complex 2-D FFT.
    from cupy.cuda import cufft
    signal = rng.random((256, 256)) + 1j * rng.random((256, 256))
    spectrum = cp.asnumpy(cp.fft.fft2(cp.asarray(signal)))
    report("cuFFT", cufft.getVersion(), np.allclose(spectrum, np.fft.fft2(signal)))

    # cuRAND: a million normal samples from its host API (CuPy's legacy
    # RandomState; the newer Generator runs CuPy's own kernels), mean 0 and
    # standard deviation 1.
    from cupy_backends.cuda.libs import curand
    samples = cp.random.RandomState(seed=7).standard_normal(1_000_000)
    mean, std = float(samples.mean()), float(samples.std())
    report("cuRAND", curand.getVersion(), abs(mean) < 0.01 and abs(std - 1) < 0.01)

    # cuSPARSE: a CSR matrix (10% filled) times a vector.
    import cupyx.scipy.sparse as sparse
    from cupy_backends.cuda.libs import cusparse
    dense = rng.random((1000, 1000))
    dense[dense > 0.1] = 0
    vector = rng.random(1000)
    csr = sparse.csr_matrix(cp.asarray(dense))
    report("cuSPARSE", cusparse.getVersion(cp.cuda.device.get_cusparse_handle()),
           np.allclose(cp.asnumpy(csr @ cp.asarray(vector)), dense @ vector))

    # NVRTC: an ElementwiseKernel compiled at run time.
    kernel = cp.ElementwiseKernel("float64 x", "float64 y", "y = x * x + 1", "square_plus_one")
    values = rng.random(1000)
    report("NVRTC", f"{nvrtc[0]}.{nvrtc[1]}", np.allclose(cp.asnumpy(kernel(cp.asarray(values))), values * values + 1))

    print(f"{label}: {'every library answered and agreed with NumPy' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
