"""Dask Array with CuPy chunks on a GPU (issue 30): the same chunked code on
NumPy chunks and on CuPy chunks -- the 3x3 smoothing stencil through
map_overlap, reductions (sum, mean along an axis, standard deviation) and,
where CuPy's cuSOLVER works, the SVD of a tall-and-skinny array
(da.linalg.svd) -- each result compared, each speedup printed, and one
`RESULT {...}` JSON line. Exits 1 when a result differs.

    python dask_cupy_gpu.py [--size N] [--chunk C]

Run by bench/python_stack/gpu_check_part2.sh with the gpuenv environment's
Python (dask-core and CuPy both from the channel gpuenv built).
"""
import argparse
import json
import sys
import time

import cupy as cp
import dask
import dask.array as da
import numpy as np


def smooth(block):
    """The 3x3 mean of the interior; works on NumPy and CuPy blocks alike."""
    out = block.copy()
    out[1:-1, 1:-1] = (block[:-2, :-2] + block[:-2, 1:-1] + block[:-2, 2:] +
                       block[1:-1, :-2] + block[1:-1, 1:-1] + block[1:-1, 2:] +
                       block[2:, :-2] + block[2:, 1:-1] + block[2:, 2:]) / 9
    return out


def best(runs, function):
    """Best wall time of `function` (which must wait for its own result)."""
    function()  # compiles CuPy's kernels, fills Dask's caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def to_numpy(value):
    return cp.asnumpy(value) if isinstance(value, cp.ndarray) else np.asarray(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--chunk", type=int, default=2048)
    parser.add_argument("--tall", type=int, default=400_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"Dask {dask.__version__}, CuPy {cp.__version__}, NumPy {np.__version__}, {device}")
    print(f"Dask from {dask.__file__}")
    dask.config.set(scheduler="threads")
    rng = np.random.default_rng(0)
    host = rng.random((args.size, args.size))
    on_cpu = da.from_array(host, chunks=args.chunk)
    on_gpu = da.from_array(cp.asarray(host), chunks=args.chunk, asarray=False)
    ok = True
    result = {"size": args.size, "chunk": args.chunk}

    def compare(name, numpy_code, cupy_code, rtol=1e-9):
        nonlocal ok
        cpu_value = numpy_code()
        gpu_value = cupy_code()
        equal = np.allclose(to_numpy(gpu_value), to_numpy(cpu_value), rtol=rtol)
        cpu_s = best(args.runs, numpy_code)
        gpu_s = best(args.runs, lambda: (cupy_code(), cp.cuda.Device().synchronize()))
        ok &= equal
        result[name] = {"numpy_chunks_s": round(cpu_s, 4), "cupy_chunks_s": round(gpu_s, 4),
                        "speedup": round(cpu_s / gpu_s, 1), "equal": bool(equal)}
        print(f"{name}: NumPy chunks {cpu_s * 1e3:.1f} ms, CuPy chunks {gpu_s * 1e3:.1f} ms, "
              f"{cpu_s / gpu_s:.1f}x, {'equal' if equal else 'DIFFERENT'}")

    compare("map_overlap_stencil",
            lambda: da.map_overlap(smooth, on_cpu, depth=1, boundary="none").compute(),
            lambda: da.map_overlap(smooth, on_gpu, depth=1, boundary="none").compute())
    compare("sum", lambda: on_cpu.sum().compute(), lambda: on_gpu.sum().compute())
    compare("mean_axis0", lambda: on_cpu.mean(axis=0).compute(), lambda: on_gpu.mean(axis=0).compute())
    compare("std", lambda: on_cpu.std().compute(), lambda: on_gpu.std().compute())

    # The SVD of a tall-and-skinny array: QR of each row block (cuSOLVER's
    # geqrf/orgqr), then the small SVD. Singular values are compared.
    tall_host = rng.random((args.tall, 64))
    tall_cpu = da.from_array(tall_host, chunks=(args.tall // 8, 64))
    tall_gpu = da.from_array(cp.asarray(tall_host), chunks=(args.tall // 8, 64), asarray=False)
    try:
        compare("svd_tall_skinny",
                lambda: da.linalg.svd(tall_cpu)[1].compute(),
                lambda: da.linalg.svd(tall_gpu)[1].compute(), rtol=1e-7)
    except Exception as error:  # cuSOLVER missing or failing: say so, fail
        ok = False
        result["svd_tall_skinny"] = {"error": f"{type(error).__name__}: {error}"}
        print(f"svd_tall_skinny: FAILED: {type(error).__name__}: {error}")

    # distributed: two worker processes, CuPy chunks moved between them over
    # TCP (distributed's CuPy serializers), the stencil's sum checked.
    try:
        from distributed import Client, LocalCluster
        start = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            small = da.from_array(cp.asarray(host[:4096, :4096]), chunks=1024, asarray=False)
            # A bounded wait: a chunk that cannot be serialised (distributed's
            # CuPy serializer imports numba.cuda) would be retried forever.
            total = float(client.compute(da.map_overlap(smooth, small, depth=1, boundary="none").sum())
                          .result(timeout=300))
        expected = float(smooth(host[:4096, :4096]).sum())
        equal = bool(np.isclose(total, expected, rtol=1e-9))
        ok &= equal
        result["distributed_two_workers"] = {"s": round(time.perf_counter() - start, 2), "equal": equal}
        print(f"distributed, two worker processes: stencil sum {'equal' if equal else 'DIFFERENT'} "
              f"({time.perf_counter() - start:.1f} s with the cluster's start)")
    except Exception as error:
        ok = False
        result["distributed_two_workers"] = {"error": f"{type(error).__name__}: {error}"}
        print(f"distributed: FAILED: {type(error).__name__}: {error}")

    result["all_equal"] = bool(ok)
    print("RESULT " + json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
