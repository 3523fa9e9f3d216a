"""What conda-forge built with, when: python and R variants, compilers, glibc.

These decide the dependency shapes of every compiled record from its build
date, so that old records look like old conda-forge records and new ones like
new ones (libgcc-ng >=9.3.0 in 2020, __glibc + libgcc >=13 after the 2024
libgcc split, python_abi pins from 2019 on, ...).
"""
from .records import ts, NOW

# python minor -> (first build, last build) on conda-forge linux-64
PY_WINDOWS = [
    ("2.7", ts("2016-01"), ts("2020-01-15")),
    ("3.5", ts("2016-01"), ts("2018-12-01")),
    ("3.6", ts("2016-12-23"), ts("2021-10-15")),
    ("3.7", ts("2018-06-27"), ts("2023-07-15")),
    ("3.8", ts("2019-10-15"), ts("2024-10-01")),
    ("3.9", ts("2020-10-06"), NOW + 1),
    ("3.10", ts("2021-10-05"), NOW + 1),
    ("3.11", ts("2022-10-25"), NOW + 1),
    ("3.12", ts("2023-10-03"), NOW + 1),
    ("3.13", ts("2024-10-08"), NOW + 1),
]
PY_START = {m: a for m, a, _ in PY_WINDOWS}


def pykey(minor):
    a, b = minor.split(".")
    return (int(a), int(b))


def pythons_at(t, lo="2.7", hi="3.99"):
    lo_k, hi_k = pykey(lo), pykey(hi)
    return [m for m, a, b in PY_WINDOWS if a <= t < b and lo_k <= pykey(m) <= hi_k]


def new_pythons_between(t0, t1, lo="2.7", hi="3.99"):
    """Python minors whose conda-forge migration started in (t0, t1]."""
    lo_k, hi_k = pykey(lo), pykey(hi)
    return [m for m, a, _ in PY_WINDOWS if t0 < a <= t1 and lo_k <= pykey(m) <= hi_k]


def pytag(minor):
    return minor.replace(".", "")


PYTHON_ABI_FROM = ts("2019-09-01")


def py_abi_spec(minor):
    tag = pytag(minor)
    if minor == "2.7":
        suffix = f"cp{tag}mu"
    elif pykey(minor) <= (3, 7):
        suffix = f"cp{tag}m"
    else:
        suffix = f"cp{tag}"
    return f"python_abi {minor}.* *_{suffix}"


def py_pin(minor):
    a, b = pykey(minor)
    return f"python >={minor},<{a}.{b + 1}.0a0"


def py_ext_deps(minor, t, pypy=False):
    if pypy:
        return [py_pin(minor) + " *_73_pypy", f"python_abi {minor}.* *_pypy{pytag(minor)}_pp73"]
    deps = [py_pin(minor)]
    if t >= PYTHON_ABI_FROM:
        deps.append(py_abi_spec(minor))
    return deps


# conda-forge built PyPy variants of compiled python packages from mid-2020 to mid-2024
PYPY_WINDOWS = [
    ("3.6", ts("2020-06-15"), ts("2021-06-01")),
    ("3.7", ts("2020-06-15"), ts("2023-06-01")),
    ("3.8", ts("2022-03-01"), ts("2024-08-01")),
    ("3.9", ts("2022-12-15"), ts("2024-08-01")),
    ("3.10", ts("2024-01-15"), ts("2024-08-01")),
]
PYPY_ACTIVE = {m: (a, b) for m, a, b in PYPY_WINDOWS}


def pypy_active(minor, t):
    w = PYPY_ACTIVE.get(minor)
    return w is not None and w[0] <= t < w[1]


def noarch_python_min(t):
    """The `python >=X` lower bound a noarch: python recipe had at time t."""
    if t < ts("2019-06"):
        return None
    if t < ts("2020-09"):
        return "3.6"
    if t < ts("2022-03"):
        return "3.7"
    if t < ts("2023-09"):
        return "3.8"
    if t < ts("2024-10"):
        return "3.9"
    return "3.9"


def noarch_build(t, bn, h="hd8ed1ab"):
    """conda-forge's noarch python build strings: py_N before 2020, pyhd8ed1ab_N since."""
    if t < ts("2020-03"):
        return f"py_{bn}"
    return f"py{h}_{bn}"


# R versions conda-forge built for (r-base x.y -> window)
R_WINDOWS = [
    ("3.5", ts("2018-05"), ts("2019-12")),
    ("3.6", ts("2019-05"), ts("2021-01")),
    ("4.0", ts("2020-06"), ts("2022-01")),
    ("4.1", ts("2021-06"), ts("2023-01")),
    ("4.2", ts("2022-06"), ts("2024-01")),
    ("4.3", ts("2023-06"), ts("2024-12")),
    ("4.4", ts("2024-06"), NOW + 1),
]


def r_at(t):
    return [m for m, a, b in R_WINDOWS if a <= t < b]


def r_pin(minor):
    a, b = minor.split(".")
    return f"r-base >={minor},<{a}.{int(b) + 1}.0a0"


LIBGCC_SPLIT = ts("2024-07-20")   # libgcc/libstdcxx split from libgcc-ng/libstdcxx-ng


def gcc_floor(t):
    if t < ts("2019-10"):
        return "7.3.0"
    if t < ts("2020-09"):
        return "7.5.0"
    if t < ts("2021-09"):
        return "9.3.0"
    if t < ts("2022-04"):
        return "9.4.0"
    if t < ts("2022-10"):
        return "10.3.0"
    if t < ts("2024-05"):
        return "12"
    return "13"


def gcc_deps(t, cxx=False, fortran=False, openmp=False):
    """The run_exports of conda-forge's compilers for a build at time t."""
    deps = []
    if t >= LIBGCC_SPLIT:
        deps.append("__glibc >=2.17,<3.0.a0")
        deps.append("libgcc >=13")
        if cxx:
            deps.append("libstdcxx >=13")
        if fortran:
            deps.append("libgfortran")
            deps.append("libgfortran5 >=13.3.0")
    else:
        v = gcc_floor(t)
        deps.append(f"libgcc-ng >={v}")
        if cxx:
            deps.append(f"libstdcxx-ng >={v}")
        if fortran:
            deps.append("libgfortran-ng")
            deps.append(f"libgfortran5 >={v if '.' in v else v + '.3.0'}")
    if openmp:
        deps.append("_openmp_mutex >=4.5")
    return deps


# Dates at which conda-forge rebuilt much of the channel (compiler bumps,
# libzlib split, openssl 3, zlib 1.3, the libgcc split): libraries get new
# build numbers with new pins then.
MIGRATIONS = [ts(d) for d in (
    "2019-10-15", "2020-09-20", "2021-06-10", "2021-11-05", "2022-04-20",
    "2022-10-12", "2023-08-25", "2024-02-15", "2024-08-05",
)]


def migrations_between(t0, t1):
    return [m for m in MIGRATIONS if t0 < m < t1]
