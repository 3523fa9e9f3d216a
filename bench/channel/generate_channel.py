#!/usr/bin/env python3
"""Generates a conda-forge-scale benchmark channel for gpuenv's solver work.

Writes <out>/linux-64/repodata.json, <out>/noarch/repodata.json (repodata
format 1, .tar.bz2 records under "packages" and .conda ones under
"packages.conda") and <out>/request.txt, the GPU-stack request
(cupy numba dask distributed ucx-py python=3.12), one spec per line.

The output depends only on --seed and --records (and --noarch-share, --indent).
Python 3 standard library only. See README.md in this directory.
"""
import argparse
import os
import sys
import time

sys.dont_write_bytecode = True     # keep __pycache__ out of the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from channelgen.builders import Ctx          # noqa: E402
from channelgen import core_base, core_gpu, core_dask  # noqa: E402
from channelgen.bulk import Bulk              # noqa: E402

REQUEST = ["cupy", "numba", "dask", "distributed", "ucx-py", "python=3.12"]
DEFAULT_RECORDS = 620_000


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.normpath(os.path.join(here, "..", "..", "build", "bench", "channel"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=default_out,
                    help="output channel directory (default: build/bench/channel)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--records", type=int, default=DEFAULT_RECORDS,
                    help=f"total records over linux-64 and noarch (default {DEFAULT_RECORDS})")
    ap.add_argument("--noarch-share", type=float, default=0.24,
                    help="fraction of the records in noarch (default 0.24)")
    ap.add_argument("--indent", action="store_true",
                    help="write conda-index's indent=2 layout instead of compact JSON "
                         "(about 30%% larger)")
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    ctx = Ctx(args.seed, compact=not args.indent)
    core_base.build_base(ctx)
    core_gpu.build_gpu(ctx)
    core_dask.build_dask(ctx)
    n_core = ctx.ch.count()
    core_names = len(set(ctx.ch.names["linux-64"]) | set(ctx.ch.names["noarch"]))
    if args.records < n_core:
        print(f"note: --records {args.records} is below the core stack's {n_core} records; "
              "writing the core only", file=sys.stderr)
    bulk = Bulk(ctx, args.records, args.noarch_share)
    bulk.run()
    t_gen = time.monotonic() - t0

    written = ctx.ch.write(args.out)
    with open(os.path.join(args.out, "request.txt"), "w") as f:
        f.write("\n".join(REQUEST) + "\n")
    t_all = time.monotonic() - t0

    ch = ctx.ch
    total_bytes = 0
    print(f"channel: {args.out}  (seed {args.seed}, {'indent=2' if args.indent else 'compact'} JSON)")
    for subdir in ("linux-64", "noarch"):
        path, size = written[subdir]
        total_bytes += size
        n_tar = len(ch.buckets[(subdir, "packages")])
        n_conda = len(ch.buckets[(subdir, "packages.conda")])
        print(f"  {subdir:9s} {n_tar + n_conda:8d} records ({n_tar} .tar.bz2, {n_conda} .conda), "
              f"{len(ch.names[subdir]):6d} names, {size / 1e6:8.1f} MB  {path}")
    names = len(set(ch.names["linux-64"]) | set(ch.names["noarch"]))
    print(f"  total     {ch.count():8d} records, {names:6d} names, {total_bytes / 1e6:8.1f} MB")
    print(f"  core (GPU stack and its base): {n_core} records, {core_names} names; "
          f"bulk kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(bulk.kinds.items())))
    print(f"  request: {' '.join(REQUEST)}  -> {os.path.join(args.out, 'request.txt')}")
    print(f"  time: {t_gen:.1f} s generating, {t_all - t_gen:.1f} s writing, {t_all:.1f} s total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
