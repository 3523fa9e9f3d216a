"""The numeric GPU stack: BLAS + numpy, llvmlite + numba, the CUDA toolkit
packages, cupy / cupy-core, ucx / ucx-py and what sits next to them (nccl,
cutensor, cudnn, cuda-python).

Shapes follow the recipes in ../shared/testdata/recipes (cupy-feedstock,
numba-feedstock, cuda-version-feedstock, ucx-split-feedstock,
rapidsai-ucx-py, ...) and conda-forge's repodata.
"""
from . import eras
from .builders import clib, pyext, pyext_matrix, fill_patches
from .core_base import zlib_pin
from .records import ts, NOW, DAY, hash7

NV_LICENSE = "LicenseRef-NVIDIA-End-User-License-Agreement"


def _expand(series):
    """[(x.y, [(patch, date), ...], lo, hi)] -> [(x.y.patch, date, lo, hi)]."""
    out = []
    for base, patches, lo, hi in series:
        for p, d in patches:
            out.append((f"{base}.{p}", d, lo, hi))
    return out


NUMPY = _expand([
    ("1.11", [(1, "2016-06-25"), (2, "2016-10-03"), (3, "2016-12-18")], "2.7", "3.6"),
    ("1.12", [(0, "2017-01-15"), (1, "2017-03-18")], "2.7", "3.6"),
    ("1.13", [(0, "2017-06-07"), (1, "2017-07-06"), (3, "2017-10-01")], "2.7", "3.6"),
    ("1.14", [(0, "2018-01-06"), (2, "2018-03-12"), (5, "2018-06-12"), (6, "2018-09-23")],
     "2.7", "3.7"),
    ("1.15", [(0, "2018-07-23"), (1, "2018-08-21"), (2, "2018-09-23"), (4, "2018-11-04")],
     "2.7", "3.7"),
    ("1.16", [(0, "2019-01-15"), (2, "2019-02-28"), (4, "2019-05-30"), (5, "2019-08-28"),
              (6, "2019-12-30")], "2.7", "3.7"),
    ("1.17", [(0, "2019-07-26"), (2, "2019-09-06"), (3, "2019-10-18"), (5, "2020-01-01")],
     "3.6", "3.8"),
    ("1.18", [(1, "2020-01-06"), (4, "2020-05-04"), (5, "2020-06-05")], "3.6", "3.8"),
    ("1.19", [(0, "2020-06-21"), (1, "2020-07-22"), (2, "2020-09-11"), (4, "2020-11-03"),
              (5, "2021-01-06")], "3.6", "3.9"),
    ("1.20", [(0, "2021-01-31"), (1, "2021-02-08"), (2, "2021-03-29"), (3, "2021-05-11")],
     "3.7", "3.9"),
    ("1.21", [(0, "2021-06-22"), (1, "2021-07-18"), (2, "2021-08-15"), (4, "2021-11-04"),
              (5, "2021-12-20"), (6, "2022-04-13")], "3.7", "3.10"),
    ("1.22", [(0, "2022-01-01"), (1, "2022-01-14"), (2, "2022-02-04"), (3, "2022-03-08"),
              (4, "2022-05-20")], "3.8", "3.10"),
    ("1.23", [(0, "2022-06-22"), (1, "2022-07-08"), (2, "2022-08-14"), (3, "2022-09-09"),
              (4, "2022-10-12"), (5, "2022-11-20")], "3.8", "3.11"),
    ("1.24", [(0, "2022-12-18"), (1, "2022-12-26"), (2, "2023-02-05"), (3, "2023-04-22"),
              (4, "2023-06-26")], "3.8", "3.11"),
    ("1.25", [(0, "2023-06-17"), (1, "2023-07-08"), (2, "2023-07-31")], "3.9", "3.11"),
    ("1.26", [(0, "2023-09-16"), (2, "2023-11-12"), (3, "2024-01-02"), (4, "2024-02-05")],
     "3.9", "3.12"),
    ("2.0", [(0, "2024-06-16"), (1, "2024-07-21"), (2, "2024-08-26")], "3.9", "3.12"),
    ("2.1", [(0, "2024-08-18"), (1, "2024-09-03"), (2, "2024-10-05"), (3, "2024-11-02")],
     "3.10", "3.13"),
])

# the numpy each python was built against, by era (conda-forge's pinning)
_NUMPY_FLOOR = {"2.7": "1.16.6", "3.5": "1.16.6", "3.6": "1.16.6", "3.7": "1.16.6", "3.8": "1.16.6",
                "3.9": "1.19.5", "3.10": "1.21.6", "3.11": "1.23.5", "3.12": "1.26.4",
                "3.13": "2.1.3"}
_NUMPY_ERA = [("2019-01", "1.16.6"), ("2021-01", "1.18.5"), ("2022-02", "1.19.5"),
              ("2022-09", "1.20.3"), ("2023-03", "1.21.6"), ("2023-09", "1.22.4")]
NUMPY2_ERA = ts("2024-06-20")


def _vt(v):
    return tuple(int(x) for x in v.split("."))


def numpy_pin(py, t):
    """The run_exports of numpy for an extension built at t for python py."""
    if t >= NUMPY2_ERA:
        return "numpy >=1.21,<3" if py == "3.13" else "numpy >=1.19,<3"
    era = "1.16.6"
    for d, v in _NUMPY_ERA:
        if t >= ts(d):
            era = v
    floor = _NUMPY_FLOOR[py]
    v = max(era, floor, key=_vt)
    return f"numpy >={v},<2.0a0"


OPENBLAS = [("0.3.10", "2020-07-10"), ("0.3.12", "2020-10-25"), ("0.3.15", "2021-05-10"),
            ("0.3.18", "2021-10-25"), ("0.3.20", "2022-02-25"), ("0.3.21", "2022-08-20"),
            ("0.3.23", "2023-04-10"), ("0.3.24", "2023-09-10"), ("0.3.25", "2023-11-20"),
            ("0.3.26", "2024-01-10"), ("0.3.27", "2024-04-10"), ("0.3.28", "2024-08-20")]
MKL = [("2020.4", "2020-11-10"), ("2022.1.0", "2022-05-10"), ("2023.2.0", "2023-08-20"),
       ("2024.2.2", "2024-10-20")]


def _bump_last(v):
    head, _, last = v.rpartition(".")
    return f"{head}.{int(last) + 1}"


def blas(ctx):
    cat = ctx.cat
    clib(ctx, "libopenblas", OPENBLAS, fortran=True, policy="x.x.x", license="BSD-3-Clause",
         size=(5000000, 6000000), prefix="pthreads_", rebuild_prob=0.4,
         constrains=lambda v, t, bn: [f"openblas >={v},<{_bump_last(v)}.0a0"])
    clib(ctx, "mkl", MKL, policy="x", license="LicenseRef-IntelSimplifiedSoftwareOct2022",
         size=(190000000, 210000000), gcc=False, rebuild_prob=0.0,
         deps=["_openmp_mutex * *_llvm", "_openmp_mutex >=4.5", "llvm-openmp",
               lambda t: ["tbb 2021.*"]])
    cat.add("libblas", [("3.8.0", ts("2019-01-10")), ("3.9.0", ts("2020-11-05"))], "x")
    for n in ("libcblas", "liblapack", "liblapacke", "blas"):
        cat.add(n, [("3.8.0", ts("2019-01-10")), ("3.9.0", ts("2020-11-05"))], "x")
    # one libblas build number per openblas/mkl release, for both implementations
    bn = 0
    events = [("openblas", v, ts(d)) for v, d in OPENBLAS] + [("mkl", v, ts(d)) for v, d in MKL]
    events.sort(key=lambda e: e[2])
    for impl, v, t in events:
        bn += 1
        bv = "3.9.0" if t >= ts("2020-11-05") else "3.8.0"
        build = f"{bn}_linux64_{impl}" if bv == "3.9.0" else f"{bn}_{impl}"
        if impl == "openblas":
            up = _bump_last(v)
            base = [f"libopenblas >={v},<{up}.0a0", f"libopenblas >={v},<1.0a0"]
            tf = None
        else:
            base = [cat.pin("mkl", t)]
            tf = "blas_mkl"
        others = ["liblapacke", "libcblas", "liblapack"]
        cons = [f"{o} {bv} {build}" for o in others] + [f"blas * {impl}"]
        ctx.emit("libblas", bv, build, bn, base, t, license="BSD-3-Clause", size=14600 + bn,
                 constrains=cons, track_features=tf)
        for o in others:
            cons = [f"{x} {bv} {build}" for x in others + ["libblas"] if x != o] + [f"blas * {impl}"]
            deps = [f"libblas {bv} {build}"]
            if o == "liblapacke":
                deps += [f"libcblas {bv} {build}", f"liblapack {bv} {build}"]
            ctx.emit(o, bv, build, bn, deps, t, license="BSD-3-Clause", size=14500 + bn,
                     constrains=cons, track_features=tf)
        ctx.emit("blas", f"2.{100 + bn}", impl, bn,
                 [f"{x} {bv} {build}" for x in ["libblas", "libcblas", "liblapack", "liblapacke"]]
                 + eras.gcc_deps(t, fortran=True), t, license="BSD-3-Clause", size=15000 + bn,
                 track_features="blas_mkl" if impl == "mkl" else None)


def numpy(ctx):
    cat = ctx.cat
    cat.add("numpy", [(v, ts(d) if isinstance(d, str) else d)
                      for v, d, _, _ in fill_patches(NUMPY)], "lower")

    def deps(v, py, t, var):
        bv = "3.9.0" if t >= ts("2020-11-05") else "3.8.0"
        return [f"libblas >={bv},<4.0a0", f"libcblas >={bv},<4.0a0", f"liblapack >={bv},<4.0a0"]

    def cons(v, py, t, var):
        return ["numpy-base <0a0"] if _vt(v) >= (1, 20, 0) else None

    pyext(ctx, "numpy", fill_patches(NUMPY), deps=deps, constrains=cons, license="BSD-3-Clause",
          size=(6000000, 9000000), rebuild_prob=0.7)


LLVMLITE = [
    ("0.31.0", "2020-01-03", "3.6", "3.8"), ("0.32.1", "2020-05-08", "3.6", "3.8"),
    ("0.33.0", "2020-06-10", "3.6", "3.8"), ("0.34.0", "2020-08-12", "3.6", "3.8"),
    ("0.35.0", "2020-12-01", "3.6", "3.9"), ("0.36.0", "2021-03-12", "3.7", "3.9"),
    ("0.37.0", "2021-08-20", "3.7", "3.9"), ("0.38.0", "2022-01-14", "3.7", "3.10"),
    ("0.38.1", "2022-05-20", "3.7", "3.10"), ("0.39.0", "2022-07-26", "3.7", "3.10"),
    ("0.39.1", "2022-09-02", "3.7", "3.10"), ("0.40.0", "2023-05-02", "3.8", "3.11"),
    ("0.40.1", "2023-06-16", "3.8", "3.11"), ("0.41.0", "2023-09-22", "3.8", "3.11"),
    ("0.41.1", "2023-10-18", "3.8", "3.12"), ("0.42.0", "2024-01-31", "3.9", "3.12"),
    ("0.43.0", "2024-06-14", "3.9", "3.12"),
]
# numba version, date, python range, llvmlite x.y, numpy range
NUMBA = [
    ("0.48.0", "2020-01-27", "3.6", "3.8", "0.31", ">=1.15"),
    ("0.49.1", "2020-05-14", "3.6", "3.8", "0.32", ">=1.15"),
    ("0.50.1", "2020-06-25", "3.6", "3.8", "0.33", ">=1.15"),
    ("0.51.2", "2020-09-02", "3.6", "3.8", "0.34", ">=1.15"),
    ("0.52.0", "2020-12-01", "3.6", "3.9", "0.35", ">=1.15"),
    ("0.53.1", "2021-03-25", "3.6", "3.9", "0.36", ">=1.15"),
    ("0.54.1", "2021-10-08", "3.7", "3.9", "0.37", ">=1.17,<1.21"),
    ("0.55.1", "2022-01-28", "3.7", "3.10", "0.38", ">=1.18,<1.22"),
    ("0.55.2", "2022-05-25", "3.7", "3.10", "0.38", ">=1.18,<1.23"),
    ("0.56.0", "2022-07-25", "3.7", "3.10", "0.39", ">=1.18,<1.23"),
    ("0.56.3", "2022-10-14", "3.7", "3.10", "0.39", ">=1.18,<1.24"),
    ("0.56.4", "2022-11-21", "3.7", "3.10", "0.39", ">=1.18,<1.24"),
    ("0.57.0", "2023-05-03", "3.8", "3.11", "0.40", ">=1.21,<1.25"),
    ("0.57.1", "2023-06-21", "3.8", "3.11", "0.40", ">=1.21,<1.25"),
    ("0.58.0", "2023-09-21", "3.8", "3.11", "0.41", ">=1.22,<1.26"),
    ("0.58.1", "2023-10-18", "3.8", "3.12", "0.41", ">=1.22,<1.27"),
    ("0.59.0", "2024-02-01", "3.9", "3.12", "0.42", ">=1.22,<1.27"),
    ("0.59.1", "2024-03-19", "3.9", "3.12", "0.42", ">=1.22,<1.27"),
    ("0.60.0", "2024-06-14", "3.9", "3.12", "0.43", ">=1.22.3,<2.1"),
]


def numba(ctx):
    pyext(ctx, "llvmlite", LLVMLITE, license="BSD-2-Clause", size=(3000000, 4000000), pypy=False,
          deps=lambda v, py, t, var: [zlib_pin(ctx, t)] if t >= ts("2021-05-01") else [])
    rows = [(v, d, lo, hi) for v, d, lo, hi, _, _ in NUMBA]
    info = {v: (ll, np) for v, _, _, _, ll, np in NUMBA}

    def deps(v, py, t, var):
        ll, np = info[v]
        a, b = ll.split(".")
        d = [f"llvmlite >={ll}.0,<{a}.{int(b) + 1}.0a0", f"numpy {np}"]
        if t >= NUMPY2_ERA:
            d.append(numpy_pin(py, t))
        if _vt(v) < (0, 57, 0):
            d.append("setuptools")
        if _vt(v) >= (0, 54, 0) and py in ("3.7", "3.8") and _vt(v) < (0, 58, 0):
            d.append("importlib-metadata")
        return d

    def cons(v, py, t, var):
        if _vt(v) >= (0, 57, 0):
            return ["cuda-version >=11.2", "cudatoolkit >=11.2", "scipy >=1.0",
                    "cuda-python >=11.6", "libopenblas !=0.3.6", "tbb >=2021.6.0"]
        return ["cudatoolkit >=9.2", "libopenblas !=0.3.6", "scipy >=1.0", "tbb >=2021"]

    pyext(ctx, "numba", rows, deps=deps, constrains=cons, openmp=True, license="BSD-2-Clause",
          pypy=False,
          size=(3500000, 4500000))


CUDA_VERSION_DATES = [
    ("9.2", "2023-01-20"), ("10.0", "2023-01-20"), ("10.1", "2023-01-20"),
    ("10.2", "2023-01-20"), ("11.0", "2023-01-20"), ("11.1", "2023-01-20"),
    ("11.2", "2023-01-20"), ("11.3", "2023-01-20"), ("11.4", "2023-01-20"),
    ("11.5", "2023-01-20"), ("11.6", "2023-01-20"), ("11.7", "2023-01-20"),
    ("11.8", "2023-01-20"), ("12.0", "2023-01-20"), ("12.1", "2023-04-20"),
    ("12.2", "2023-07-20"), ("12.3", "2023-11-20"), ("12.4", "2024-03-10"),
    ("12.5", "2024-06-10"), ("12.6", "2024-08-10"),
]
CUDATOOLKIT = [
    ("9.2.148", "2019-03-10"), ("10.0.130", "2019-03-10"), ("10.1.243", "2019-10-10"),
    ("10.2.89", "2020-01-20"), ("11.0.221", "2020-08-10"), ("11.0.3", "2021-06-10"),
    ("11.1.1", "2020-11-20"), ("11.2.0", "2021-01-20"), ("11.2.1", "2021-02-20"),
    ("11.2.2", "2021-03-20"), ("11.3.1", "2021-06-10"), ("11.4.1", "2021-08-20"),
    ("11.4.2", "2021-09-20"), ("11.4.3", "2021-12-10"), ("11.5.0", "2021-11-10"),
    ("11.5.1", "2022-01-20"), ("11.5.2", "2022-03-10"), ("11.6.0", "2022-02-10"),
    ("11.6.1", "2022-03-20"), ("11.6.2", "2022-05-10"), ("11.7.0", "2022-06-10"),
    ("11.7.1", "2022-08-10"), ("11.8.0", "2022-10-20"),
]

# per CUDA 12 minor: date and component versions
CUDA12 = {
    "12.0": ("2023-01-25", dict(cudart="12.0.107", nvrtc="12.0.76", cublas="12.0.1.189",
                                cufft="11.0.0.21", curand="10.3.1.50", cusolver="11.4.2.57",
                                cusparse="12.0.0.76", nvjitlink="12.0.76", npp="12.0.0.30",
                                nvjpeg="12.0.0.28", cufile="1.5.0.59", release="12.0.0")),
    "12.1": ("2023-04-20", dict(cudart="12.1.105", nvrtc="12.1.105", cublas="12.1.3.1",
                                cufft="11.0.2.54", curand="10.3.2.106", cusolver="11.4.5.107",
                                cusparse="12.1.0.106", nvjitlink="12.1.105", npp="12.1.0.40",
                                nvjpeg="12.2.0.2", cufile="1.6.1.9", release="12.1.1")),
    "12.2": ("2023-07-20", dict(cudart="12.2.140", nvrtc="12.2.140", cublas="12.2.5.6",
                                cufft="11.0.8.103", curand="10.3.3.141", cusolver="11.5.2.141",
                                cusparse="12.1.2.141", nvjitlink="12.2.140", npp="12.2.1.4",
                                nvjpeg="12.2.2.4", cufile="1.7.2.10", release="12.2.2")),
    "12.3": ("2023-11-20", dict(cudart="12.3.101", nvrtc="12.3.107", cublas="12.3.4.1",
                                cufft="11.0.12.1", curand="10.3.4.107", cusolver="11.5.4.101",
                                cusparse="12.2.0.103", nvjitlink="12.3.101", npp="12.2.3.2",
                                nvjpeg="12.3.0.81", cufile="1.8.1.2", release="12.3.2")),
    "12.4": ("2024-03-10", dict(cudart="12.4.127", nvrtc="12.4.127", cublas="12.4.5.8",
                                cufft="11.2.1.3", curand="10.3.5.147", cusolver="11.6.1.9",
                                cusparse="12.3.1.170", nvjitlink="12.4.127", npp="12.2.5.30",
                                nvjpeg="12.3.1.117", cufile="1.9.1.3", release="12.4.1")),
    "12.5": ("2024-06-10", dict(cudart="12.5.82", nvrtc="12.5.82", cublas="12.5.3.2",
                                cufft="11.2.3.61", curand="10.3.6.82", cusolver="11.6.3.83",
                                cusparse="12.5.1.3", nvjitlink="12.5.82", npp="12.3.0.159",
                                nvjpeg="12.3.2.81", cufile="1.10.1.7", release="12.5.1")),
    "12.6": ("2024-08-10", dict(cudart="12.6.77", nvrtc="12.6.77", cublas="12.6.3.3",
                                cufft="11.3.0.4", curand="10.3.7.77", cusolver="11.7.1.2",
                                cusparse="12.5.4.2", nvjitlink="12.6.77", npp="12.3.1.54",
                                nvjpeg="12.3.3.54", cufile="1.11.1.6", release="12.6.2")),
}


def cv_range(minor):
    a, b = minor.split(".")
    return f"cuda-version >={minor},<{a}.{int(b) + 1}.0a0"


def cudatoolkit_range(var):
    """What a cudatoolkit-era package built for CUDA `var` depends on."""
    a, b = var.split(".")
    if a == "11" and int(b) >= 2:
        return f"cudatoolkit >={var},<12"
    return f"cudatoolkit >={var},<{a}.{int(b) + 1}"


def cuda_base(ctx):
    cat = ctx.cat
    for v, d in CUDA_VERSION_DATES:
        t0 = ts(d)
        major = v.split(".")[0]
        for bn in range(4):
            t = t0 + bn * 70 * DAY
            if t >= NOW:
                break
            cons = [f"cudatoolkit {v}|{v}.*"]
            if bn >= 1 or int(major) >= 12:
                cons.insert(0, f"__cuda >={major}")
            ctx.emit("cuda-version", v, f"h{hash7('cuda-version', v, str(bn))}_{bn}", bn, [], t,
                     subdir="noarch", noarch="generic", license=NV_LICENSE, size=20900 + bn,
                     constrains=cons)
    cat.add("cuda-version", [(v, ts(d)) for v, d in CUDA_VERSION_DATES], "x.x")

    def tk_deps(v, t):
        return ["__glibc >=2.17,<3.0.a0"] if t >= ts("2021-03-01") else []

    def tk_cons(v, t, bn):
        return [f"__cuda >={v.split('.')[0]}"] if t >= ts("2021-09-01") else None

    clib(ctx, "cudatoolkit", CUDATOOLKIT, cxx=True, policy=None, license=NV_LICENSE,
         size=(300000000, 900000000), bn_base=6, rebuild_prob=0.6, extra_deps=tk_deps,
         constrains=tk_cons)


def cuda12(ctx):
    """CUDA 12 as conda-forge splits it: one package per component, pinned via cuda-version."""
    rng = ctx.rng
    for minor, (date, V) in CUDA12.items():
        t0 = ts(date)
        nbuilds = 1 + rng.randint(0, 2)
        cv = cv_range(minor)
        for bn in range(nbuilds):
            t = min(t0 + bn * 50 * DAY, NOW - DAY)
            gcc = eras.gcc_deps(t, cxx=True)
            built = {}

            def mk(name, version, deps, noarch=False, size=(20000, 400000000)):
                d = [cv] + list(deps) + ([] if noarch else gcc)
                b = f"h{hash7(name, version, minor, str(bn))}_{bn}"
                ctx.emit(name, version, b, bn, d, t, subdir="noarch" if noarch else "linux-64",
                         noarch="generic" if noarch else None, license=NV_LICENSE,
                         size=ctx.size(*size))
                built[name] = f"{name} {version} {b}"
                return built[name]

            cudart = V["cudart"]
            mk("cuda-cudart_linux-64", cudart, [], noarch=True, size=(180000, 200000))
            mk("cuda-cudart-static_linux-64", cudart, [], noarch=True, size=(700000, 800000))
            mk("cuda-cudart-dev_linux-64", cudart, ["cuda-cudart-static_linux-64",
                                                    "cuda-cudart_linux-64"], noarch=True,
               size=(360000, 380000))
            mk("cuda-cudart", cudart, [built["cuda-cudart_linux-64"]], size=(21000, 23000))
            mk("cuda-cudart-static", cudart, [built["cuda-cudart-static_linux-64"]],
               size=(21000, 23000))
            mk("cuda-cudart-dev", cudart, [built["cuda-cudart"], built["cuda-cudart-static"],
                                           built["cuda-cudart-dev_linux-64"]], size=(21000, 23000))
            mk("cuda-driver-dev_linux-64", cudart, [], noarch=True, size=(30000, 40000))
            mk("cuda-driver-dev", cudart, [built["cuda-driver-dev_linux-64"]], size=(20000, 22000))
            mk("cuda-crt-dev_linux-64", V["nvrtc"], [], noarch=True, size=(80000, 90000))
            mk("cuda-crt-tools", V["nvrtc"], [], size=(20000, 30000))
            mk("cuda-nvvm-dev_linux-64", V["nvrtc"], [], noarch=True, size=(20000, 30000))
            mk("cuda-nvvm-impl", V["nvrtc"], [], size=(7000000, 8000000))
            mk("cuda-nvvm-tools", V["nvrtc"], [], size=(10000000, 11000000))
            mk("cuda-nvcc-dev_linux-64", V["nvrtc"], [built["cuda-crt-dev_linux-64"],
                                                      built["cuda-nvvm-dev_linux-64"]],
               noarch=True, size=(11000000, 12000000))
            mk("cuda-nvcc-tools", V["nvrtc"], [built["cuda-crt-tools"], built["cuda-nvvm-tools"]],
               size=(23000000, 25000000))
            mk("cuda-nvcc-impl", V["nvrtc"], [f"cuda-cudart >={cudart}",
                                              f"cuda-cudart-dev", built["cuda-nvcc-dev_linux-64"],
                                              built["cuda-nvcc-tools"], built["cuda-nvvm-impl"]],
               size=(20000, 22000))
            mk("cuda-nvcc_linux-64", V["nvrtc"], ["cuda-cudart-dev_linux-64",
                                                  "cuda-driver-dev_linux-64",
                                                  built["cuda-nvcc-dev_linux-64"],
                                                  built["cuda-nvcc-impl"],
                                                  built["cuda-nvcc-tools"]],
               noarch=True, size=(23000, 25000))
            mk("cuda-nvcc", V["nvrtc"], [built["cuda-nvcc_linux-64"]], size=(20000, 22000))
            mk("cuda-nvrtc", V["nvrtc"], [], size=(17000000, 19000000))
            mk("cuda-nvrtc-dev", V["nvrtc"], [built["cuda-nvrtc"]], size=(30000, 35000))
            mk("cuda-nvrtc-static", V["nvrtc"], [], size=(20000000, 22000000))
            mk("libnvjitlink", V["nvjitlink"], [], size=(15000000, 17000000))
            mk("libnvjitlink-dev", V["nvjitlink"], [built["libnvjitlink"]], size=(20000, 22000))
            mk("libcublas", V["cublas"], ["cuda-nvrtc"], size=(250000000, 270000000))
            mk("libcublas-dev", V["cublas"], [built["libcublas"], "cuda-crt-dev_linux-64",
                                              "cuda-cudart-dev"], size=(80000, 90000))
            mk("libcublas-static", V["cublas"], [], size=(300000000, 310000000))
            for lib in ("cufft", "curand", "npp", "nvjpeg", "cufile"):
                mk(f"lib{lib}", V[lib], [], size=(2000000, 200000000))
                mk(f"lib{lib}-dev", V[lib], [built[f"lib{lib}"]], size=(20000, 90000))
                mk(f"lib{lib}-static", V[lib], [], size=(2000000, 200000000))
            mk("libcusparse", V["cusparse"], [f"libnvjitlink >={V['nvjitlink']}"],
               size=(100000000, 120000000))
            mk("libcusparse-dev", V["cusparse"], [built["libcusparse"],
                                                  f"libnvjitlink-dev >={V['nvjitlink']}"],
               size=(40000, 50000))
            mk("libcusolver", V["cusolver"], [f"libcublas >={V['cublas']}",
                                              f"libcusparse >={V['cusparse']}",
                                              f"libnvjitlink >={V['nvjitlink']}"],
               size=(110000000, 130000000))
            mk("libcusolver-dev", V["cusolver"], [built["libcusolver"]], size=(50000, 60000))
            for tool in ("cuda-nvtx", "cuda-cupti", "cuda-sanitizer-api", "cuda-cuobjdump",
                         "cuda-cuxxfilt", "cuda-nvdisasm", "cuda-nvprune", "cuda-gdb",
                         "cuda-opencl", "cuda-nvml-dev", "cuda-profiler-api", "cuda-nvprof"):
                mk(tool, cudart, [], size=(30000, 9000000))
            for tool in ("cuda-nvtx", "cuda-cupti", "cuda-opencl"):
                mk(f"{tool}-dev", cudart, [built[tool]], size=(30000, 90000))
            mk("cuda-cccl_linux-64", cudart, [], noarch=True, size=(1000000, 1200000))
            mk("cuda-cccl", cudart, [built["cuda-cccl_linux-64"]], size=(20000, 22000))
            rel = V["release"]

            def meta(name, members):
                d = []
                for m in members:
                    if m in built:      # exact component version of this release
                        d.append(f"{m} {built[m].split()[1]}.*")
                    else:
                        d.append(m)
                b = f"h{hash7(name, rel, str(bn))}_{bn}"
                ctx.emit(name, rel, b, bn, d, t, subdir="noarch", noarch="generic",
                         license=NV_LICENSE, size=20000 + bn)

            libs = ["cuda-cudart", "cuda-nvrtc", "cuda-opencl", "libcublas", "libcufft",
                    "libcufile", "libcurand", "libcusolver", "libcusparse", "libnpp",
                    "libnvjitlink", "libnvjpeg"]
            meta("cuda-libraries", libs)
            meta("cuda-libraries-dev", [f"{x}-dev" for x in libs])
            meta("cuda-runtime", ["__linux", f"cuda-libraries {rel}.*"])
            meta("cuda-compiler", ["c-compiler", "cxx-compiler", "cuda-cuobjdump", "cuda-cuxxfilt",
                                   "cuda-nvcc", "cuda-nvprune"])
            meta("cuda-toolkit", [f"cuda-compiler {rel}.*", f"cuda-libraries-dev {rel}.*",
                                  "cuda-nvml-dev", "cuda-profiler-api", "cuda-cupti-dev",
                                  "cuda-sanitizer-api", "cuda-gdb", "cuda-nvtx-dev"])
            meta("cuda", ["__linux", f"cuda-runtime {rel}.*", f"cuda-toolkit {rel}.*"])
    # tie the c-compiler/cxx-compiler metas named by cuda-compiler to something solvable
    for n in ("c-compiler", "cxx-compiler"):
        for k, (v, d) in enumerate([("1.5.2", "2023-02-10"), ("1.7.0", "2024-01-10"),
                                    ("1.8.0", "2024-08-10")]):
            ctx.emit(n, v, f"h{hash7(n, v)}_{k}", 0, [], ts(d), license="BSD-3-Clause",
                     size=6300)
    cat = ctx.cat
    for key in ("cudart", "nvrtc", "cublas", "cufft", "curand", "cusolver", "cusparse",
                "nvjitlink"):
        name = {"cudart": "cuda-cudart", "nvrtc": "cuda-nvrtc"}.get(key, f"lib{key}")
        cat.add(name, [(V[key], ts(d)) for d, V in CUDA12.values()], "x")


def cuda_extras(ctx):
    """nccl, cutensor, cudnn, cuda-python: CUDA packages the request does not need."""
    def cuda_variants(t):
        if t >= ts("2023-05-01"):
            return ["11.8", "12.0"]
        if t >= ts("2021-03-01"):
            return ["10.2", "11.0", "11.1", "11.2"]
        return ["10.0", "10.1", "10.2"]

    def series(name, versions, policy, size):
        ctx.cat.add(name, [(v, ts(d)) for v, d in versions], policy)
        for v, d in versions:
            t0 = ts(d)
            for var in cuda_variants(t0):
                for bn in range(1 + ctx.rng.randint(0, 1)):
                    t = min(t0 + bn * 40 * DAY, NOW - DAY)
                    deps = eras.gcc_deps(t, cxx=True)
                    if var.startswith("12"):
                        deps += ["cuda-version >=12.0,<13", "cuda-nvrtc", "libcublas"]
                    elif var == "11.8":
                        deps += ["cuda-version >=11.8,<12.0a0", "cudatoolkit >=11.8,<12"]
                    else:
                        deps += [cudatoolkit_range(var)]
                    b = f"h{hash7(name, v, var, str(bn))}_{bn}"
                    ctx.emit(name, v, b, bn, deps, t, license=NV_LICENSE, size=ctx.size(*size))

    series("nccl", [("2.8.3.1", "2020-12-10"), ("2.11.4.1", "2021-09-20"), ("2.12.12.1", "2022-06-10"),
                    ("2.14.3.1", "2022-09-20"), ("2.16.2.1", "2022-12-10"), ("2.18.1.1", "2023-05-10"),
                    ("2.18.5.1", "2023-08-20"), ("2.19.4.1", "2023-11-20"), ("2.20.5.1", "2024-03-20"),
                    ("2.21.5.1", "2024-04-20"), ("2.22.3.1", "2024-07-20"), ("2.23.4.1", "2024-09-20")],
           "x", (100000000, 200000000))
    series("cutensor", [("1.2.2.5", "2021-02-10"), ("1.4.0.6", "2021-12-10"), ("1.5.0.3", "2022-03-10"),
                        ("1.6.2.3", "2022-12-10"), ("1.7.0.1", "2023-04-10"), ("2.0.1.2", "2024-03-10"),
                        ("2.0.2.5", "2024-07-10")], "x", (200000000, 400000000))
    series("cudnn", [("7.6.5", "2020-01-10"), ("8.0.5", "2020-12-10"), ("8.2.1", "2021-07-10"),
                     ("8.4.1.50", "2022-07-10"), ("8.8.0.121", "2023-03-10"), ("8.9.7.29", "2024-01-10"),
                     ("9.3.0.75", "2024-09-10")], "x.x", (400000000, 900000000))

    def cp_deps(v, py, t, var):
        if v.startswith("12"):
            return ["cuda-version >=12.0,<13", "cuda-nvrtc >=12.0.76", "cuda-cudart"]
        return ["cudatoolkit >=11.2,<12"]

    pyext(ctx, "cuda-python", [
        ("11.7.1", "2022-07-10", "3.8", "3.10"), ("11.8.2", "2023-05-10", "3.8", "3.11"),
        ("12.0.0", "2023-03-10", "3.8", "3.11"), ("12.2.0", "2023-07-10", "3.8", "3.11"),
        ("12.3.0", "2023-11-10", "3.9", "3.12"), ("12.4.0", "2024-03-10", "3.9", "3.12"),
        ("12.5.0", "2024-06-10", "3.9", "3.12"), ("12.6.0", "2024-08-10", "3.9", "3.13")],
        deps=cp_deps, license=NV_LICENSE, size=(10000000, 20000000), pypy=False)


CUPY = [
    ("9.0.0", "2021-04-29"), ("9.1.0", "2021-05-27"), ("9.2.0", "2021-06-30"),
    ("9.3.0", "2021-07-29"), ("9.4.0", "2021-08-26"), ("9.5.0", "2021-09-30"),
    ("9.6.0", "2021-10-28"), ("10.0.0", "2021-12-02"), ("10.1.0", "2022-01-06"),
    ("10.2.0", "2022-02-24"), ("10.3.1", "2022-04-07"), ("10.4.0", "2022-04-28"),
    ("10.5.0", "2022-05-26"), ("10.6.0", "2022-06-30"), ("11.0.0", "2022-07-28"),
    ("11.1.0", "2022-08-31"), ("11.2.0", "2022-09-30"), ("11.3.0", "2022-11-01"),
    ("11.4.0", "2022-12-01"), ("11.5.0", "2023-01-05"), ("11.6.0", "2023-02-02"),
    ("12.0.0", "2023-03-27"), ("12.1.0", "2023-05-31"), ("12.2.0", "2023-08-03"),
    ("12.3.0", "2023-11-16"), ("13.0.0", "2024-02-20"), ("13.1.0", "2024-04-10"),
    ("13.2.0", "2024-06-14"), ("13.3.0", "2024-08-22"),
]


def _cupy_pyrange(v):
    major = int(v.split(".")[0])
    if major == 9:
        return "3.6", "3.9"
    if major == 10:
        return "3.7", "3.10"
    if major == 11:
        return "3.7", "3.11"
    if major == 12:
        return "3.8", "3.12" if _vt(v) >= (12, 2, 0) else "3.11"
    return "3.9", "3.13" if v == "13.3.0" else "3.12"


CUDA12_LIB_FLOORS = ["cuda-nvrtc >=12.0.76,<13.0a0", "libcublas >=12.0.1.189,<13.0a0",
                     "libcufft >=11.0.0.21,<12.0a0", "libcurand >=10.3.1.50,<11.0a0",
                     "libcusolver >=11.4.2.57,<12.0a0", "libcusparse >=12.0.0.76,<13.0a0"]


def cupy(ctx):
    pyext(ctx, "fastrlock", [("0.5", "2020-06-10", "3.6", "3.8"), ("0.6", "2021-03-10", "3.6", "3.9"),
                             ("0.8", "2021-10-20", "3.7", "3.10"), ("0.8.1", "2022-11-10", "3.8", "3.11"),
                             ("0.8.2", "2023-08-10", "3.8", "3.13")],
          license="MIT", size=(40000, 60000))
    rng = ctx.rng
    mono = [r for r in CUPY if _vt(r[0]) < (13, 0, 0)]
    split = [r for r in CUPY if _vt(r[0]) >= (13, 0, 0)]

    def variants_for(v):
        major = int(v.split(".")[0])
        if major <= 11:
            return ["10.2", "11.0", "11.1", "11.2"]
        return ["11.2", "12.0"]

    rows = [(v, ts(d), *_cupy_pyrange(v)) for v, d in mono]
    for v, py, t, bn, pp in pyext_matrix(ctx, rows, rebuild_prob=0.3, pypy=False):
        for var in variants_for(v):
            d = eras.gcc_deps(t, cxx=True) + eras.py_ext_deps(py, t)
            d += ["fastrlock >=0.5", numpy_pin(py, t)]
            if var == "12.0":
                d += ["cuda-version >=12,<13.0a0"] + CUDA12_LIB_FLOORS
            else:
                d.append(cudatoolkit_range(var))
                if t >= ts("2023-01-20"):
                    d.append(f"cuda-version >={var},<12.0a0")
            if int(v.split(".")[0]) <= 10:
                d.append("setuptools")
            build = f"py{eras.pytag(py)}h{hash7('cupy', var, *sorted(d))}_{bn}"
            cons = ["cutensor >=1.3,<2.0a0", "nccl >=2.8,<3.0a0", "scipy >=1.4", "optuna >=2.0"]
            if var == "12.0":
                cons.append("__cuda >=12.0")
            ctx.emit("cupy", v, build, bn, d, t, license="MIT", size=60000000 + rng.randint(0, 9999999),
                     constrains=cons)

    rows = [(v, ts(d), *_cupy_pyrange(v)) for v, d in split]
    for v, py, t, bn, pp in pyext_matrix(ctx, rows, rebuild_prob=0.4, pypy=False):
        for var in ("11.8", "12.0"):
            np_spec = "numpy >=1.22,<3.0.0a0" if _vt(v) >= (13, 2, 0) else "numpy >=1.22,<2.0a0"
            core_d = eras.gcc_deps(t, cxx=True) + eras.py_ext_deps(py, t)
            core_d += ["fastrlock >=0.5", np_spec]
            mm = v.rsplit(".", 1)[0]
            a, b = mm.split(".")
            if var == "12.0":
                core_c = ["cuda-version >=12,<13.0a0", "cuda-nvrtc >=12,<13.0a0",
                          "libcublas >=12,<13.0a0", "libcufft >=11,<12.0a0",
                          "libcurand >=10,<11.0a0", "libcusolver >=11,<12.0a0",
                          "libcusparse >=12,<13.0a0", "__cuda >=12.0"]
            else:
                core_c = ["cuda-version >=11.8,<12.0a0", "cudatoolkit >=11.8,<12", "__cuda >=11.0"]
            core_c += ["scipy ~=1.7", "optuna ~=3.0", f"cupy >={v},<{a}.{int(b) + 1}.0a0",
                       "nccl >=2.16.5.1,<3.0a0", "cutensor >=2.0.2.5,<3.0a0"]
            tag = f"py{eras.pytag(py)}"
            core_b = f"{tag}h{hash7('cupy-core', var, *sorted(core_d))}_{bn}"
            ctx.emit("cupy-core", v, core_b, bn, core_d, t, license="MIT",
                     size=50000000 + rng.randint(0, 9999999), constrains=core_c)
            d = eras.py_ext_deps(py, t) + [f"cupy-core {v} {core_b}"]
            if var == "12.0":
                d += ["cuda-cudart-dev_linux-64", "cuda-nvrtc", "cuda-version >=12,<13.0a0",
                      "libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse"]
            else:
                d += ["cuda-version >=11.8,<12.0a0", "cudatoolkit >=11.8,<12"]
            b = f"{tag}h{hash7('cupy', var, *sorted(d))}_{bn}"
            ctx.emit("cupy", v, b, bn, d, t, license="MIT", size=35000 + rng.randint(0, 999))


UCX = [("1.12.1", "2022-04-20"), ("1.13.0", "2022-07-20"), ("1.13.1", "2022-09-10"),
       ("1.14.0", "2023-03-01"), ("1.14.1", "2023-05-20"), ("1.15.0", "2023-10-20"),
       ("1.16.0", "2024-04-05"), ("1.17.0", "2024-07-25")]
# ucx-py version, date, python range, ucx spec
UCX_PY = [
    ("0.30.0", "2023-02-10", "3.8", "3.10", ">=1.13.0,<1.15.0a0"),
    ("0.31.0", "2023-04-10", "3.8", "3.10", ">=1.14.0,<1.15.0a0"),
    ("0.32.0", "2023-06-10", "3.9", "3.10", ">=1.14.0,<1.15.0a0"),
    ("0.33.0", "2023-08-10", "3.9", "3.10", ">=1.14.1,<1.15.0a0"),
    ("0.34.0", "2023-10-15", "3.9", "3.10", ">=1.15.0,<1.16.0a0"),
    ("0.35.0", "2023-12-10", "3.9", "3.10", ">=1.15.0,<1.16.0a0"),
    ("0.36.0", "2024-02-15", "3.9", "3.11", ">=1.15.0,<1.16.0a0"),
    ("0.37.0", "2024-04-15", "3.9", "3.11", ">=1.15.0,<1.17.0a0"),
    ("0.38.0", "2024-06-10", "3.9", "3.11", ">=1.15.0,<1.17.0a0"),
    ("0.39.0", "2024-08-10", "3.10", "3.12", ">=1.15.0,<1.18"),
    ("0.40.0", "2024-10-15", "3.10", "3.12", ">=1.15.0,<1.18"),
]


def ucx(ctx):
    cat = ctx.cat
    cat.add("ucx", [(v, ts(d)) for v, d in UCX], "x.x")
    for v, d in UCX:
        t0 = ts(d)
        if _vt(v) >= (1, 15, 0):
            variants = ["11.8", "12.0"]
        elif _vt(v) >= (1, 14, 0):
            variants = ["11.2", "12.0"]
        else:
            variants = ["11.2"]
        for bn in range(1 + ctx.rng.randint(0, 3)):
            t = min(t0 + bn * 30 * DAY, NOW - DAY)
            for var in variants:
                deps = eras.gcc_deps(t, cxx=True) + [cat.pin("rdma-core", t)]
                if var == "12.0":
                    cons = ["cuda-version >=12,<13.0a0", "cuda-cudart", "__cuda >=12"]
                else:
                    deps.append(cudatoolkit_range(var))
                    cons = [f"cuda-version >={var},<12.0a0"] if t >= ts("2023-01-20") else None
                b = f"h{hash7('ucx', v, var, *sorted(deps))}_{bn}"
                ctx.emit("ucx", v, b, bn, deps, t, license="BSD-3-Clause",
                         size=ctx.size(7000000, 9000000), constrains=cons)

    from .builders import noarch_py
    noarch_py(ctx, "pynvml", [("11.0.0", "2021-06-10"), ("11.4.1", "2022-01-20"),
                              ("11.5.0", "2023-02-10"), ("11.5.3", "2024-07-20")],
              license="BSD-3-Clause", size=(40000, 60000))
    info = {v: spec for v, _, _, _, spec in UCX_PY}

    def deps(v, py, t, var):
        np_spec = "numpy >=1.23,<3.0a0" if v == "0.40.0" else "numpy >=1.23,<2.0a0"
        d = ["__cuda", f"ucx {info[v]}", np_spec, "pynvml >=11.4.1"]
        if var == "12.0":
            d.append("cuda-version >=12,<13.0a0")
        else:
            d += ["cuda-version >=11.2,<12.0a0", "cudatoolkit >=11.2,<12"]
        return d

    pyext(ctx, "ucx-py", [(v, d, lo, hi) for v, d, lo, hi, _ in UCX_PY], deps=deps,
          variants=("11.8", "12.0"), license="BSD-3-Clause", size=(700000, 900000), pypy=False)


def build_gpu(ctx):
    blas(ctx)
    numpy(ctx)
    numba(ctx)
    cuda_base(ctx)
    cuda12(ctx)
    cuda_extras(ctx)
    cupy(ctx)
    ucx(ctx)
