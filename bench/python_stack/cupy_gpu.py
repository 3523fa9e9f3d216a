"""CuPy on a GPU (issue 30): an elementwise kernel, a reduction and a
RawKernel of the 3x3 smoothing stencil on an 8192x8192 array, each equal to
NumPy's result; the best time of each on the GPU and NumPy's on the CPU, and
one `RESULT {...}` JSON line. Exits 1 when a result differs.

    python cupy_gpu.py [--size N] [--label NAME]

Run by bench/python_stack/gpu_check_part2.sh with the gpuenv environment's
Python and with the machine's own pip-installed cupy-cuda13x, in the same call.
"""
import argparse
import json
import sys
import timeit

import numpy as np
import cupy as cp

STENCIL = r"""
extern "C" __global__ void smooth(const long long* x, long long* out, int m, int n) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < m - 1 && j >= 1 && j < n - 1) {
        long long s = 0;
        for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj)
                s += x[(i + di) * n + (j + dj)];
        out[i * n + j] = s / 9;
    }
}
"""


def smooth_numpy(x):
    out = np.zeros_like(x)
    out[1:-1, 1:-1] = (x[:-2, :-2] + x[:-2, 1:-1] + x[:-2, 2:] +
                       x[1:-1, :-2] + x[1:-1, 1:-1] + x[1:-1, 2:] +
                       x[2:, :-2] + x[2:, 1:-1] + x[2:, 2:]) // 9
    return out


def gpu_best(runs, function):
    """Best time of `function` on the GPU, by CUDA events."""
    function()  # compile and warm up
    best = float("inf")
    for _ in range(runs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        function()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return best


def cpu_best(runs, function):
    return min(timeit.repeat(function, number=1, repeat=runs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--label", default="cupy")
    args = parser.parse_args()
    n = args.size
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"{args.label}: CuPy {cp.__version__}, NumPy {np.__version__}, CUDA runtime "
          f"{cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()}, {device}")
    print(f"{args.label}: CuPy from {cp.__file__}")
    rng = np.random.default_rng(0)
    ok = True

    # Elementwise: z = x * x + y, float32.
    x = rng.random((n, n), dtype=np.float32)
    y = rng.random((n, n), dtype=np.float32)
    fma = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "square_add")
    gx, gy = cp.asarray(x), cp.asarray(y)
    gz = cp.empty_like(gx)
    elementwise_s = gpu_best(10, lambda: fma(gx, gy, gz))
    equal = np.allclose(cp.asnumpy(gz), x * x + y, rtol=1e-6)
    numpy_elementwise_s = cpu_best(3, lambda: x * x + y)
    ok &= equal
    print(f"{args.label}: elementwise {elementwise_s * 1e3:.3f} ms (NumPy {numpy_elementwise_s * 1e3:.1f} ms), "
          f"equal: {equal}")

    # Reduction: the sum of squares, float64.
    d = rng.random((n, n))
    gd = cp.asarray(d)
    reduction_s = gpu_best(10, lambda: cp.sum(gd * gd))
    gpu_sum = float(cp.sum(gd * gd))
    cpu_sum = float(np.sum(d * d))
    equal = abs(gpu_sum - cpu_sum) <= 1e-9 * abs(cpu_sum)
    numpy_reduction_s = cpu_best(3, lambda: np.sum(d * d))
    ok &= equal
    print(f"{args.label}: reduction {reduction_s * 1e3:.3f} ms (NumPy {numpy_reduction_s * 1e3:.1f} ms), "
          f"{gpu_sum:.6f} vs {cpu_sum:.6f}, equal: {equal}")

    # RawKernel: the 3x3 smoothing stencil, int64, // 9 on the interior.
    image = rng.integers(0, 256, size=(n, n), dtype=np.int64)
    kernel = cp.RawKernel(STENCIL, "smooth")
    gimage = cp.asarray(image)
    gout = cp.zeros_like(gimage)
    block = (32, 8)
    grid = ((n + block[0] - 1) // block[0], (n + block[1] - 1) // block[1])
    stencil_s = gpu_best(10, lambda: kernel(grid, block, (gimage, gout, cp.int32(n), cp.int32(n))))
    expected = smooth_numpy(image)
    equal = bool(np.array_equal(cp.asnumpy(gout), expected))
    numpy_stencil_s = cpu_best(3, lambda: smooth_numpy(image))
    ok &= equal
    print(f"{args.label}: RawKernel stencil {stencil_s * 1e3:.3f} ms (NumPy {numpy_stencil_s * 1e3:.1f} ms, "
          f"{numpy_stencil_s / stencil_s:.0f}x), equal: {equal}")

    print("RESULT " + json.dumps({"label": args.label, "cupy": cp.__version__, "device": device, "size": n,
                                  "elementwise_s": elementwise_s, "reduction_s": reduction_s,
                                  "stencil_s": stencil_s, "numpy_stencil_s": numpy_stencil_s,
                                  "all_equal": bool(ok)}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
