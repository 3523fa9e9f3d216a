"""The 3x3 smoothing stencil of the Numba-on-GPU tutorials, four ways, on an
8192x8192 integer image: pure Python (on a slice, scaled to the whole image),
@numba.jit, @numba.stencil and the @numba.cuda.jit kernel smooth_gpu(x, out)
(i, j = cuda.grid(2); the nine-point sum // 9 on the interior). Every result
must equal the others; prints each time, the speedups over pure Python and
the GPU kernel's over one CPU core, and one `RESULT {...}` JSON line.

    python stencil_gpu.py [--size N] [--label NAME]

Run by bench/python_stack/gpu_check.sh with the gpuenv environment's Python
and with the machine's own pip-installed numba-cuda, in the same call.
"""
import argparse
import json
import sys
import time

import numpy as np

# numba-cuda 0.30 registers an overload of np.row_stack at import, which
# NumPy 2.5 removed (an alias of vstack): the GPU machine's own pip stack
# (numba-cuda 0.30.4 with numpy 2.5.2) fails there without this shim.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

import numba  # noqa: E402
from numba import cuda  # noqa: E402


def smooth_python(x, out):
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] +
                         x[i, j - 1] + x[i, j] + x[i, j + 1] +
                         x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) // 9


smooth_jit = numba.jit(nopython=True)(smooth_python)


@numba.stencil
def smooth_kernel(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] +
            x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) // 9


@numba.jit(nopython=True)
def smooth_stencil(x):
    return smooth_kernel(x)


@cuda.jit
def smooth_gpu(x, out):
    i, j = cuda.grid(2)
    m, n = x.shape
    if 1 <= i < m - 1 and 1 <= j < n - 1:
        out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] +
                     x[i, j - 1] + x[i, j] + x[i, j + 1] +
                     x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) // 9


def numba_cuda_version():
    try:
        import numba_cuda
        return numba_cuda.__version__
    except (ImportError, AttributeError):
        return "(built into numba)"


def best_of(runs, function):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--python-slice", type=int, default=256)
    parser.add_argument("--label", default="")
    arguments = parser.parse_args()
    n = arguments.size
    image = np.random.default_rng(2024).integers(0, 256, size=(n, n), dtype=np.int64)
    print(f"{arguments.label}: python {sys.version.split()[0]} at {sys.executable}, numpy {np.__version__}, "
          f"numba {numba.__version__}, numba-cuda {numba_cuda_version()}", flush=True)

    # Pure Python on a slice, scaled by the pixel count.
    s = arguments.python_slice
    piece = image[:s, :s].copy()
    out_python = np.zeros_like(piece)
    python_seconds = best_of(1, lambda: smooth_python(piece, out_python)) * (n - 2) ** 2 / (s - 2) ** 2

    out_jit = np.zeros_like(image)
    smooth_jit(image[:8, :8], np.zeros((8, 8), dtype=image.dtype))  # compile
    jit_seconds = best_of(3, lambda: smooth_jit(image, out_jit))

    smooth_stencil(image[:8, :8])  # compile
    holder = {}
    stencil_seconds = best_of(3, lambda: holder.__setitem__("out", smooth_stencil(image)))
    out_stencil = holder["out"]

    device_image = cuda.to_device(image)
    device_out = cuda.device_array_like(image)
    threads = (16, 16)
    blocks = ((n + threads[0] - 1) // threads[0], (n + threads[1] - 1) // threads[1])
    smooth_gpu[blocks, threads](device_image, device_out)  # compile and load
    cuda.synchronize()

    def run_kernel():
        smooth_gpu[blocks, threads](device_image, device_out)
        cuda.synchronize()

    gpu_seconds = best_of(20, run_kernel)
    out_gpu = np.zeros_like(image)
    device_out.copy_to_host(out_gpu)
    out_gpu[0, :] = out_gpu[-1, :] = 0
    out_gpu[:, 0] = out_gpu[:, -1] = 0

    equal = {
        "jit == python (slice)": bool(np.array_equal(out_jit[1:s - 1, 1:s - 1], out_python[1:s - 1, 1:s - 1])),
        "stencil == jit": bool(np.array_equal(out_stencil, out_jit)),
        "gpu == jit": bool(np.array_equal(out_gpu, out_jit)),
    }
    device = cuda.get_current_device()
    name = getattr(device, "name", "the CUDA simulator")
    result = {
        "label": arguments.label,
        "size": n,
        "gpu": name.decode() if isinstance(name, bytes) else name,
        "python_s_scaled": python_seconds,
        "jit_s": jit_seconds,
        "stencil_s": stencil_seconds,
        "gpu_kernel_s": gpu_seconds,
        "speedup_jit_over_python": python_seconds / jit_seconds,
        "speedup_stencil_over_python": python_seconds / stencil_seconds,
        "speedup_gpu_over_python": python_seconds / gpu_seconds,
        "speedup_gpu_over_one_cpu_core": jit_seconds / gpu_seconds,
        "equal": equal,
    }
    for name, value in equal.items():
        print(f"{'PASS' if value else 'FAIL'}  {arguments.label}: {name}")
    print(f"{arguments.label}: pure Python {python_seconds:.1f} s (scaled from {s}x{s}), @jit {jit_seconds * 1e3:.1f} ms, "
          f"@stencil {stencil_seconds * 1e3:.1f} ms, @cuda.jit kernel {gpu_seconds * 1e3:.3f} ms on {result['gpu']}")
    print(f"{arguments.label}: speedups over pure Python: jit {result['speedup_jit_over_python']:.0f}x, stencil "
          f"{result['speedup_stencil_over_python']:.0f}x, GPU {result['speedup_gpu_over_python']:.0f}x; "
          f"GPU over one CPU core (jit) {result['speedup_gpu_over_one_cpu_core']:.0f}x")
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if all(equal.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
