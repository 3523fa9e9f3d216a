"""The base of every conda-forge environment: compiler runtimes, C libraries, python.

Versions, build strings and dependency shapes follow conda-forge's records
(see ../shared/testdata/repodata/mamba-tests/conda-forge-numpy-linux-64.json
for the 2024 shapes and the defaults indexes there for the older ones).
"""
from . import eras
from .builders import clib, noarch_generic
from .catalog import upper_bound
from .records import ts, NOW, DAY, hash7

GCC = [
    ("7.3.0", "2018-10-10"), ("7.5.0", "2020-03-10"), ("9.1.0", "2019-08-05"),
    ("9.2.0", "2019-11-20"), ("9.3.0", "2020-07-25"), ("9.4.0", "2021-09-01"),
    ("10.3.0", "2021-06-10"), ("11.1.0", "2021-06-20"), ("11.2.0", "2021-09-25"),
    ("12.1.0", "2022-05-20"), ("12.2.0", "2022-09-20"), ("12.3.0", "2023-06-15"),
    ("13.1.0", "2023-05-15"), ("13.2.0", "2023-08-20"), ("14.1.0", "2024-07-15"),
    ("14.2.0", "2024-09-10"),
]
GPL_RT = "GPL-3.0-only WITH GCC-exception-3.1"


def gcc_family(ctx):
    """libgcc-ng & co; from 14.1 the -ng names are shims over libgcc/libstdcxx/libgfortran."""
    rng = ctx.rng
    emit = ctx.emit
    vt = [(v, ts(d)) for v, d in GCC]
    for n in ("libgcc-ng", "libstdcxx-ng", "libgomp", "libgfortran5", "libgfortran-ng"):
        ctx.cat.add(n, vt, "lower")
    split = [(v, t) for v, t in vt if v >= "14"]
    for n in ("libgcc", "libstdcxx", "libgfortran"):
        ctx.cat.add(n, split, "lower")

    emit("_libgcc_mutex", "0.1", "main", 0, [], ts("2018-08-20"), license="None", size=3121)
    emit("_libgcc_mutex", "0.1", "conda_forge", 0, [], ts("2020-01-06"), license="None", size=2562)
    t_omp = [("0_gnu", 0, "2019-08-10"), ("1_gnu", 1, "2020-05-10"), ("2_gnu", 16, "2022-04-27"),
             ("1_llvm", 1, "2020-05-10"), ("2_kmp_llvm", 2, "2022-04-27")]
    for build, bn, d in t_omp:
        if "llvm" in build:
            deps = ["_libgcc_mutex 0.1 conda_forge", "llvm-openmp >=9.0.1"]
        else:
            deps = ["_libgcc_mutex 0.1 conda_forge", "libgomp >=7.5.0"]
        emit("_openmp_mutex", "4.5", build, bn, deps, ts(d), license="BSD-3-Clause",
             size=23621, constrains=["openmp_impl 9999"])

    for v, t0 in vt:
        nbuilds = 1 + rng.randint(1, 5) if v not in ("7.3.0", "9.1.0") else 2
        shim = v >= "14"
        for bn in range(nbuilds):
            t = min(t0 + bn * 35 * DAY, NOW - 2 * DAY)
            h = hash7("gcc", v, str(bn))
            hg = hash7("gomp", v, str(bn))
            hf = hash7("gfortran5", v, str(bn))
            hs = hash7("stdcxx", v, str(bn))
            mutex = "_libgcc_mutex 0.1 conda_forge" if t >= ts("2020-01-06") else "_libgcc_mutex 0.1 main"
            emit("libgomp", v, f"h{hg}_{bn}", bn, [mutex], t, license=GPL_RT, size=460000 + bn)
            if shim:
                emit("libgcc", v, f"h{h}_{bn}", bn, [mutex, "_openmp_mutex >=4.5"], t,
                     license=GPL_RT, size=846000 + bn,
                     constrains=[f"libgomp {v} h{hg}_{bn}", f"libgcc-ng =={v}=*_{bn}"])
                emit("libgcc-ng", v, f"h{hash7('gccng', v, str(bn))}_{bn}", bn,
                     [f"libgcc {v} h{h}_{bn}"], t, license=GPL_RT, size=54000 + bn)
                emit("libstdcxx", v, f"h{hs}_{bn}", bn, [f"libgcc {v} h{h}_{bn}"], t,
                     license=GPL_RT, size=3890000 + bn)
                emit("libstdcxx-ng", v, f"h{hash7('stdcxxng', v, str(bn))}_{bn}", bn,
                     [f"libstdcxx {v} h{hs}_{bn}"], t, license=GPL_RT, size=54000 + bn)
                emit("libgfortran5", v, f"h{hf}_{bn}", bn, [f"libgcc >={v}"], t, license=GPL_RT,
                     size=1460000 + bn, constrains=[f"libgfortran {v} *_{bn}"])
                hl = hash7("gfortran", v, str(bn))
                emit("libgfortran", v, f"h{hl}_{bn}", bn, [f"libgfortran5 {v} h{hf}_{bn}"], t,
                     license=GPL_RT, size=53000 + bn)
                emit("libgfortran-ng", v, f"h{hash7('gfortranng', v, str(bn))}_{bn}", bn,
                     [f"libgfortran {v} h{hl}_{bn}"], t, license=GPL_RT, size=53000 + bn)
            else:
                deps = [mutex] + (["_openmp_mutex >=4.5"] if v >= "9" else [])
                emit("libgcc-ng", v, f"h{h}_{bn}", bn, deps, t, license=GPL_RT,
                     size=770000 + bn, constrains=[f"libgomp {v} h{hg}_{bn}"])
                emit("libstdcxx-ng", v, f"h{hs}_{bn}", bn, [], t, license=GPL_RT,
                     size=3830000 + bn)
                emit("libgfortran5", v, f"h{hf}_{bn}", bn, [f"libgcc-ng >={v}"], t,
                     license=GPL_RT, size=1440000 + bn, constrains=[f"libgfortran-ng {v}"])
                emit("libgfortran-ng", v, f"h{hash7('gfortranng', v, str(bn))}_{bn}", bn,
                     [f"libgfortran5 {v} h{hf}_{bn}"], t, license=GPL_RT, size=23800 + bn)

    clib(ctx, "ld_impl_linux-64",
         [("2.34", "2020-04-10"), ("2.35.1", "2020-10-20"), ("2.36.1", "2021-06-20"),
          ("2.38", "2022-03-10"), ("2.39", "2022-08-15"), ("2.40", "2023-01-30"),
          ("2.43", "2024-09-25")],
         policy="lower", license="GPL-3.0-only", size=(600000, 700000), gcc=False,
         rebuild_prob=0.3, constrains=lambda v, t, bn: [f"binutils_impl_linux-64 {v}"])


def _libffi_policy(v):
    if v.startswith("3.4"):
        return ">=3.4,<4.0a0"
    return f">={v},<{upper_bound(v, 'x.x')}"


def _libzlib_policy(v):
    if v.startswith("1.2"):
        return f">={v},<1.3.0a0"
    return f">={v},<2.0a0"


OPENSSL_102 = [("1.0.2" + c, d) for c, d in (
    ("h", "2016-05-05"), ("j", "2016-09-30"), ("k", "2017-01-30"), ("l", "2017-05-30"),
    ("m", "2017-11-05"), ("n", "2017-12-10"), ("o", "2018-03-30"), ("p", "2018-08-20"),
    ("r", "2019-02-28"), ("s", "2019-06-01"), ("t", "2019-09-15"), ("u", "2019-12-25"))]
OPENSSL_111 = [("1.1.1" + c, d) for c, d in (
    ("a", "2018-11-21"), ("b", "2019-02-27"), ("c", "2019-05-29"), ("d", "2019-09-11"),
    ("e", "2020-03-18"), ("f", "2020-04-01"), ("g", "2020-04-22"), ("h", "2020-09-23"),
    ("i", "2020-12-09"), ("j", "2021-02-17"), ("k", "2021-03-26"), ("l", "2021-08-25"),
    ("n", "2021-12-15"), ("o", "2022-05-04"), ("p", "2022-06-22"), ("q", "2022-07-06"),
    ("s", "2022-11-02"), ("t", "2023-02-08"), ("u", "2023-05-31"), ("v", "2023-08-02"),
    ("w", "2023-09-12"))]
OPENSSL_3 = [
    ("3.0.0", "2021-09-08"), ("3.0.1", "2021-12-15"), ("3.0.2", "2022-03-16"),
    ("3.0.3", "2022-05-04"), ("3.0.5", "2022-07-06"), ("3.0.7", "2022-11-02"),
    ("3.0.8", "2023-02-08"), ("3.1.0", "2023-03-15"), ("3.1.1", "2023-05-31"),
    ("3.1.2", "2023-08-02"), ("3.1.3", "2023-09-20"), ("3.1.4", "2023-10-25"),
    ("3.2.0", "2023-11-24"), ("3.2.1", "2024-01-31"), ("3.3.0", "2024-04-10"),
    ("3.3.1", "2024-06-05"), ("3.3.2", "2024-09-04"), ("3.4.0", "2024-10-23"),
]
OPENSSL3_ERA = ts("2022-09-01")


def openssl_pin(ctx, t):
    if t >= OPENSSL3_ERA:
        return ctx.cat.pin("openssl", t, policy="x", prefix="3.")
    if t < ts("2019-01-15"):
        return ctx.cat.pin("openssl", t, policy="openssl1", prefix="1.0.2")
    return ctx.cat.pin("openssl", t, policy="openssl1", prefix="1.1.1")


def zlib_pin(ctx, t):
    if t >= ts("2021-05-01"):
        return ctx.cat.pin("libzlib", t)
    return ctx.cat.pin("zlib", t)


SQLITE = [
    ("3.26.0", "2018-12-05"), ("3.30.1", "2019-10-15"), ("3.33.0", "2020-08-20"),
    ("3.34.0", "2020-12-05"), ("3.35.5", "2021-04-25"), ("3.36.0", "2021-06-25"),
    ("3.37.0", "2021-11-30"), ("3.38.2", "2022-03-30"), ("3.39.2", "2022-07-25"),
    ("3.39.4", "2022-10-01"), ("3.40.0", "2022-11-20"), ("3.41.2", "2023-03-25"),
    ("3.42.0", "2023-05-20"), ("3.43.0", "2023-08-28"), ("3.44.2", "2023-11-28"),
    ("3.45.1", "2024-02-02"), ("3.45.3", "2024-04-17"), ("3.46.0", "2024-05-25"),
    ("3.46.1", "2024-08-15"), ("3.47.0", "2024-10-25"),
]
LIBSQLITE_FROM = ts("2022-11-20")


def base_libs(ctx):
    cat = ctx.cat
    ca = [("2019.11.28", "2019-11-28"), ("2020.4.5.1", "2020-04-10"), ("2020.6.20", "2020-06-20"),
          ("2020.11.8", "2020-11-08"), ("2020.12.5", "2020-12-05"), ("2021.5.30", "2021-05-30"),
          ("2021.10.8", "2021-10-08"), ("2022.5.18.1", "2022-05-18"), ("2022.6.15", "2022-06-15"),
          ("2022.9.14", "2022-09-14"), ("2022.9.24", "2022-09-24"), ("2022.12.7", "2022-12-07"),
          ("2023.5.7", "2023-05-07"), ("2023.7.22", "2023-07-22"), ("2023.11.17", "2023-11-17"),
          ("2024.2.2", "2024-02-02"), ("2024.6.2", "2024-06-02"), ("2024.7.4", "2024-07-04"),
          ("2024.8.30", "2024-08-30")]
    clib(ctx, "ca-certificates", ca, policy=None, license="ISC", size=(140000, 160000),
         gcc=False, rebuild_prob=0.0)

    clib(ctx, "openssl", OPENSSL_102 + OPENSSL_111 + OPENSSL_3, deps=["ca-certificates"], policy="x",
         license="Apache-2.0", size=(2500000, 3200000), rebuild_prob=0.5,
         last_only_rebuilds=True,
         constrains=lambda v, t, bn: ["pyopenssl >=22.1"] if v.startswith("3") else None)

    clib(ctx, "bzip2", [("1.0.8", "2019-09-15")], policy="x", license="bzip2-1.0.6",
         size=(250000, 260000))
    clib(ctx, "libzlib", [("1.2.11", "2021-04-20"), ("1.2.12", "2022-03-28"),
                          ("1.2.13", "2022-10-14"), ("1.3", "2023-08-20"), ("1.3.1", "2024-01-24")],
         policy=_libzlib_policy, license="Zlib", size=(58000, 62000), bn_base=0,
         constrains=lambda v, t, bn: [f"zlib {v} *"])
    # zlib: before the 2021 split a library of its own, afterwards a shim over libzlib
    zvt = [("1.2.11", "2017-01-15"), ("1.2.12", "2022-03-28"), ("1.2.13", "2022-10-14"),
           ("1.3", "2023-08-20"), ("1.3.1", "2024-01-24")]
    clib(ctx, "zlib", zvt, policy="x.x", license="Zlib", size=(90000, 110000),
         extra_deps=lambda v, t: [cat.exact("libzlib", t, v)] if t >= ts("2021-04-20") else [])

    xz = [("5.2.4", "2018-05-10"), ("5.2.5", "2020-04-20"), ("5.2.6", "2022-08-15"),
          ("5.4.2", "2023-04-20"), ("5.4.5", "2023-11-05"), ("5.4.6", "2024-01-28"),
          ("5.6.2", "2024-06-10"), ("5.6.3", "2024-10-05")]
    clib(ctx, "liblzma", xz[-2:], policy="x", license="0BSD", size=(110000, 120000))
    for sub in ("liblzma-devel", "xz-tools", "xz-gpl-tools"):
        clib(ctx, sub, xz[-2:], policy="x", license="0BSD", size=(20000, 120000),
             extra_deps=lambda v, t: [cat.exact("liblzma", t, v)], register=True)
    clib(ctx, "xz", xz, policy="x", license="LGPL-2.1 and GPL-2.0", size=(400000, 420000),
         extra_deps=lambda v, t: ([cat.exact(n, t, v) for n in
                                   ("liblzma", "liblzma-devel", "xz-tools", "xz-gpl-tools")]
                                  if v >= "5.6" else []))

    clib(ctx, "libffi", [("3.2.1", "2018-03-10"), ("3.3", "2020-08-15"), ("3.4.2", "2021-11-09"),
                         ("3.4.4", "2023-05-20")], policy=_libffi_policy, license="MIT",
         size=(55000, 60000), rebuild_prob=0.6)
    ncurses = [("6.1", "2018-09-15"), ("6.2", "2020-02-20"), ("6.3", "2021-11-20"),
               ("6.4", "2023-01-05"), ("6.4.20240210", "2024-02-12"), ("6.5", "2024-04-20")]
    clib(ctx, "ncurses", ncurses, policy="x", license="X11 AND BSD-3-Clause",
         size=(880000, 1000000), rebuild_prob=0.6)
    clib(ctx, "readline", [("7.0", "2017-11-10"), ("8.0", "2019-06-20"), ("8.1", "2021-03-15"),
                           ("8.1.2", "2022-07-10"), ("8.2", "2022-10-12")],
         deps=["ncurses"], policy="x", license="GPL-3.0-only", size=(280000, 300000),
         rebuild_prob=0.6)
    clib(ctx, "tk", [("8.6.8", "2018-05-10"), ("8.6.10", "2020-01-20"), ("8.6.11", "2021-08-25"),
                     ("8.6.12", "2021-11-25")], deps=[lambda t: [zlib_pin(ctx, t)]],
         policy="x.x", license="TCL", size=(3200000, 3400000), rebuild_prob=0.6)
    # the current tk builds are the noxft_ ones with build numbers from 100
    tk = cat.entries["tk"]
    tk.versions.append("8.6.13")
    tk.times.append(ts("2023-02-15"))
    clib(ctx, "tk", [("8.6.13", "2023-02-15")], deps=["libzlib"], policy="x.x", license="TCL",
         size=(3300000, 3320000), prefix="noxft_", bn_base=100, register=False)
    clib(ctx, "libuuid", [("2.32.1", "2019-01-10"), ("2.38.1", "2022-10-10")], policy="x",
         license="BSD-3-Clause", size=(33000, 34000))
    clib(ctx, "libnsl", [("2.0.0", "2021-01-10"), ("2.0.1", "2023-09-25")], policy="x.x",
         license="LGPL-2.1-only", size=(33000, 34000))
    clib(ctx, "libxcrypt", [("4.4.28", "2022-05-10"), ("4.4.33", "2023-01-10"),
                            ("4.4.36", "2023-09-10")], policy="lower",
         license="LGPL-2.1-or-later", size=(100000, 101000))
    clib(ctx, "libexpat", [("2.5.0", "2023-01-10"), ("2.6.2", "2024-03-15"),
                           ("2.6.3", "2024-09-05"), ("2.6.4", "2024-11-07")], policy="x",
         license="MIT", size=(73000, 78000),
         constrains=lambda v, t, bn: [f"expat {v}.*"])
    clib(ctx, "expat", [("2.2.9", "2019-10-10"), ("2.4.1", "2021-05-25"), ("2.4.8", "2022-04-05"),
                        ("2.5.0", "2022-10-30"), ("2.6.2", "2024-03-15"), ("2.6.3", "2024-09-05"),
                        ("2.6.4", "2024-11-07")], policy="x", license="MIT",
         size=(130000, 140000),
         extra_deps=lambda v, t: [cat.exact("libexpat", t, v)] if t >= ts("2023-01-10") else [])
    clib(ctx, "libsqlite", [s for s in SQLITE if ts(s[1]) >= LIBSQLITE_FROM], policy="x",
         deps=["libzlib"], license="Unlicense", size=(840000, 900000))
    clib(ctx, "sqlite", SQLITE, policy="x", license="Unlicense", size=(850000, 900000),
         deps=["ncurses", "readline", lambda t: [zlib_pin(ctx, t)]],
         extra_deps=lambda v, t: [cat.exact("libsqlite", t, v)] if t >= LIBSQLITE_FROM else [])
    clib(ctx, "libmpdec", [("4.0.0", "2024-05-20")], policy="x", license="BSD-2-Clause",
         size=(89000, 90000))
    clib(ctx, "lz4-c", [("1.9.2", "2019-09-10"), ("1.9.3", "2020-11-20"), ("1.9.4", "2023-01-05")],
         cxx=True, policy="x.x", license="BSD-2-Clause", size=(140000, 150000))
    clib(ctx, "zstd", [("1.4.5", "2020-06-10"), ("1.4.9", "2021-03-10"), ("1.5.0", "2021-06-10"),
                       ("1.5.2", "2022-01-25"), ("1.5.5", "2023-04-10"), ("1.5.6", "2024-04-10")],
         cxx=True, deps=[lambda t: [zlib_pin(ctx, t)]], policy="x.x.x",
         license="BSD-3-Clause", size=(540000, 560000))
    clib(ctx, "yaml", [("0.2.5", "2020-06-20")], policy="x.x", license="MIT",
         size=(89000, 90000))
    clib(ctx, "libnl", [("3.7.0", "2022-10-20"), ("3.8.0", "2023-07-25"), ("3.9.0", "2023-11-20"),
                        ("3.10.0", "2024-07-20")], policy="x", license="LGPL-2.1-or-later",
         size=(740000, 760000))
    clib(ctx, "rdma-core", [("28.0", "2020-04-15"), ("31.0", "2020-10-20"), ("37.0", "2021-09-20"),
                            ("41.0", "2022-07-20"), ("44.0", "2023-01-20"), ("48.0", "2023-07-20"),
                            ("49.0", "2023-10-20"), ("51.0", "2024-03-20"), ("52.0", "2024-05-20"),
                            ("53.0", "2024-08-20"), ("54.0", "2024-10-20")],
         cxx=True, deps=[lambda t: [ctx.cat.pin("libnl", t)] if t >= ts("2022-10-20") else []],
         policy="lower", license="Linux-OpenIB", size=(4500000, 5000000), rebuild_prob=0.4)
    clib(ctx, "libhwloc", [("2.8.0", "2022-07-20"), ("2.9.1", "2023-04-20"), ("2.9.3", "2023-09-20"),
                           ("2.11.1", "2024-07-10"), ("2.11.2", "2024-10-01")],
         cxx=True, policy="x.x.x", license="BSD-3-Clause", size=(2300000, 2500000),
         rebuild_prob=0.4)
    clib(ctx, "llvm-openmp", [("9.0.1", "2020-01-10"), ("11.1.0", "2021-03-10"),
                              ("14.0.6", "2022-06-25"), ("15.0.7", "2023-01-15"),
                              ("16.0.6", "2023-06-25"), ("17.0.6", "2023-12-10"),
                              ("18.1.8", "2024-06-25"), ("19.1.3", "2024-11-01")],
         deps=[lambda t: [ctx.cat.pin("libzlib", t)] if t >= ts("2023-09-01") else []],
         policy="lower", license="Apache-2.0 WITH LLVM-exception", size=(3000000, 3300000),
         rebuild_prob=0.3, constrains=lambda v, t, bn: [f"openmp {v}|{v}.*"])
    clib(ctx, "tbb", [("2020.2", "2020-08-10"), ("2021.5.0", "2021-12-20"), ("2021.7.0", "2022-11-05"),
                      ("2021.10.0", "2023-08-10"), ("2021.12.0", "2024-04-25"),
                      ("2021.13.0", "2024-06-20")],
         cxx=True, deps=[lambda t: [ctx.cat.pin("libhwloc", t)] if t >= ts("2022-07-20") else []],
         policy="x", license="Apache-2.0", size=(170000, 190000), rebuild_prob=0.3)
    noarch_generic(ctx, "tzdata", [
        ("2019c", "2019-10-01"), ("2020a", "2020-04-25"), ("2020f", "2020-12-30"),
        ("2021a", "2021-01-25"), ("2021e", "2021-10-25"), ("2022a", "2022-03-20"),
        ("2022c", "2022-08-20"), ("2022f", "2022-11-01"), ("2022g", "2022-12-01"),
        ("2023c", "2023-03-28"), ("2024a", "2024-02-03"), ("2024b", "2024-09-05")],
        license="LicenseRef-Public-Domain", size=(110000, 125000), bns=(0, 1))


# patch releases per python minor: (version, date)
PYTHON = {
    "2.7": [("2.7.12", "2016-07-01"), ("2.7.13", "2017-01-10"), ("2.7.14", "2017-10-01"),
            ("2.7.15", "2018-05-05"), ("2.7.16", "2019-03-10"), ("2.7.18", "2020-04-25")],
    "3.5": [("3.5.2", "2016-07-01"), ("3.5.3", "2017-01-20"), ("3.5.4", "2017-08-10"),
            ("3.5.5", "2018-03-10"), ("3.5.6", "2018-08-05")],
    "3.6": [("3.6.0", "2016-12-25"), ("3.6.1", "2017-03-25"), ("3.6.2", "2017-07-20"),
            ("3.6.3", "2017-10-05"), ("3.6.4", "2017-12-20"), ("3.6.5", "2018-03-30"),
            ("3.6.6", "2018-06-30"), ("3.6.7", "2018-11-01"), ("3.6.9", "2019-07-10"), ("3.6.10", "2020-01-10"),
            ("3.6.11", "2020-07-05"), ("3.6.12", "2020-09-01"), ("3.6.13", "2021-02-20"),
            ("3.6.15", "2021-09-10")],
    "3.7": [("3.7.0", "2018-06-28"), ("3.7.1", "2018-11-01"), ("3.7.3", "2019-04-01"), ("3.7.6", "2019-12-25"),
            ("3.7.8", "2020-07-01"), ("3.7.9", "2020-08-20"), ("3.7.10", "2021-02-20"),
            ("3.7.12", "2021-09-10")],
    "3.8": [("3.8.0", "2019-10-20"), ("3.8.1", "2019-12-20"), ("3.8.2", "2020-03-01"),
            ("3.8.3", "2020-05-20"), ("3.8.5", "2020-07-25"), ("3.8.6", "2020-09-25"),
            ("3.8.8", "2021-02-20"), ("3.8.10", "2021-05-05"), ("3.8.12", "2021-09-01"),
            ("3.8.13", "2022-03-20"), ("3.8.15", "2022-10-15"), ("3.8.16", "2022-12-10"),
            ("3.8.17", "2023-06-10"), ("3.8.18", "2023-08-28"), ("3.8.19", "2024-03-22"),
            ("3.8.20", "2024-09-08")],
    "3.9": [("3.9.0", "2020-10-06"), ("3.9.1", "2020-12-10"), ("3.9.2", "2021-02-20"),
            ("3.9.4", "2021-04-05"), ("3.9.5", "2021-05-05"), ("3.9.6", "2021-06-30"),
            ("3.9.7", "2021-09-01"), ("3.9.9", "2021-11-20"), ("3.9.10", "2022-01-15"),
            ("3.9.12", "2022-03-25"), ("3.9.13", "2022-05-20"), ("3.9.15", "2022-10-15"),
            ("3.9.16", "2022-12-10"), ("3.9.17", "2023-06-10"), ("3.9.18", "2023-08-28"),
            ("3.9.19", "2024-03-22"), ("3.9.20", "2024-09-08")],
    "3.10": [("3.10.0", "2021-10-05"), ("3.10.1", "2021-12-08"), ("3.10.2", "2022-01-15"),
             ("3.10.4", "2022-03-25"), ("3.10.5", "2022-06-08"), ("3.10.6", "2022-08-05"),
             ("3.10.8", "2022-10-15"), ("3.10.9", "2022-12-10"), ("3.10.10", "2023-02-10"),
             ("3.10.11", "2023-04-10"), ("3.10.12", "2023-06-10"), ("3.10.13", "2023-08-28"),
             ("3.10.14", "2024-03-22"), ("3.10.15", "2024-09-08")],
    "3.11": [("3.11.0", "2022-10-25"), ("3.11.1", "2022-12-10"), ("3.11.2", "2023-02-10"),
             ("3.11.3", "2023-04-10"), ("3.11.4", "2023-06-10"), ("3.11.5", "2023-08-28"),
             ("3.11.6", "2023-10-05"), ("3.11.7", "2023-12-08"), ("3.11.8", "2024-02-10"),
             ("3.11.9", "2024-04-05"), ("3.11.10", "2024-09-08")],
    "3.12": [("3.12.0", "2023-10-03"), ("3.12.1", "2023-12-10"), ("3.12.2", "2024-02-10"),
             ("3.12.3", "2024-04-12"), ("3.12.4", "2024-06-10"), ("3.12.5", "2024-08-10"),
             ("3.12.6", "2024-09-10"), ("3.12.7", "2024-10-05")],
    "3.13": [("3.13.0", "2024-10-08")],
}


def python_deps(ctx, minor, t):
    cat = ctx.cat
    d = []
    if t >= eras.LIBGCC_SPLIT:
        d += ["__glibc >=2.17,<3.0.a0", "libgcc >=13"]
    else:
        d.append(f"libgcc-ng >={eras.gcc_floor(t)}")
        if t < ts("2023-01-01"):
            d.append(f"libstdcxx-ng >={eras.gcc_floor(t)}")
    d.append(cat.pin("bzip2", t))
    d.append(cat.pin("libffi", t))
    d.append(cat.pin("ncurses", t))
    d.append(openssl_pin(ctx, t))
    d.append(cat.pin("readline", t))
    d.append(cat.pin("tk", t))
    d.append(zlib_pin(ctx, t))
    if minor == "2.7":
        d.append(cat.pin("sqlite", t))
        return d
    d.append(cat.pin("libsqlite", t) if t >= LIBSQLITE_FROM else cat.pin("sqlite", t))
    d.append(cat.pin("liblzma", t) if t >= ts("2024-08-01") else cat.pin("xz", t, prefix="5."))
    if t >= ts("2021-05-01"):
        d.append("ld_impl_linux-64 >=2.36.1")
        d.append(cat.pin("libnsl", t))
    if t >= ts("2020-06-01"):
        d.append(cat.pin("libuuid", t))
    if t >= ts("2023-09-15"):
        d.append("libxcrypt >=4.4.36")
    if t >= ts("2023-01-10"):
        d.append(cat.pin("libexpat", t))
    if t >= ts("2022-03-01"):
        d.append("tzdata")
    if minor == "3.13":
        d.append(cat.pin("libmpdec", t))
    return d


def python(ctx):
    rng = ctx.rng
    versions = []
    for minor, rows in PYTHON.items():
        versions += [(v, ts(d)) for v, d in rows]
    versions.sort(key=lambda r: [int(x) for x in r[0].split(".")])
    ctx.cat.add("python", versions, "x.x")
    for minor, rows in PYTHON.items():
        for k, (v, d) in enumerate(rows):
            t0 = ts(d)
            t1 = ts(rows[k + 1][1]) if k + 1 < len(rows) else NOW
            nb = 1 + sum(1 for _ in eras.migrations_between(t0, t1)) + rng.randint(0, 3)
            nb = min(nb, 7)
            step = max((t1 - t0) // (nb + 1), DAY)
            first_bn = 100 if minor == "3.13" else 0
            for j in range(nb):
                t = min(t0 + j * step, NOW - DAY)
                bn = first_bn + j
                deps = python_deps(ctx, minor, t)
                h = hash7("python", v, *sorted(deps))
                con = None
                if t >= ts("2023-01-01"):
                    tag = "cp313" if minor == "3.13" else "cp" + eras.pytag(minor)
                    con = [f"python_abi {minor}.* *_{tag}"]
                if minor == "3.13":
                    build = f"h{h}_{bn}_cp313"
                elif t >= ts("2020-01-20"):
                    build = f"h{h}_{bn}_cpython"
                else:
                    build = f"h{h}_{bn}"
                size = 25000000 + rng.randint(0, 8000000)
                ctx.emit("python", v, build, bn, deps, t, license="Python-2.0", size=size,
                         constrains=con)
                if minor == "3.13":
                    ctx.emit("python", v, f"h{hash7('ft', h)}_{bn}_cp313t", bn, deps, t,
                             license="Python-2.0", size=size + 1000,
                             constrains=["python_abi 3.13.* *_cp313t"],
                             track_features="py_freethreading")
    # python_abi: one build number per year of conda-forge's python_abi feedstock
    epochs = [(1, "2019-09-01"), (2, "2021-10-01"), (3, "2022-10-20"), (4, "2023-09-25"),
              (5, "2024-07-20")]
    for minor, a, b in eras.PY_WINDOWS:
        if minor == "3.5":
            continue
        tag = eras.py_abi_spec(minor).split("*_")[1]
        for bn, d in epochs:
            t = max(ts(d), a)
            if t >= b or t >= NOW:
                continue
            pytag = "cp313" if minor == "3.13" else "cpython"
            ctx.emit("python_abi", minor, f"{bn}_{tag}", bn, [], t, license="BSD-3-Clause",
                     size=6300 + bn, constrains=[f"python {minor}.* *_{pytag}"])
            if minor == "3.13":
                ctx.emit("python_abi", minor, f"{bn}_cp313t", bn, [], t, license="BSD-3-Clause",
                         size=6400 + bn, constrains=["python 3.13.* *_cp313t"],
                         track_features="py_freethreading")


# PyPy releases conda-forge shipped: (python minor, pypy version, date, python version)
PYPY = [
    ("3.6", "7.3.1", "2020-06-15", "3.6.9"), ("3.6", "7.3.3", "2020-12-10", "3.6.12"),
    ("3.7", "7.3.1", "2020-06-15", "3.7.9"), ("3.7", "7.3.3", "2020-12-10", "3.7.9"),
    ("3.7", "7.3.5", "2021-06-01", "3.7.10"), ("3.7", "7.3.7", "2021-10-30", "3.7.12"),
    ("3.8", "7.3.8", "2022-03-01", "3.8.12"), ("3.8", "7.3.9", "2022-04-01", "3.8.13"),
    ("3.8", "7.3.11", "2023-01-10", "3.8.16"), ("3.9", "7.3.11", "2023-01-10", "3.9.16"),
    ("3.9", "7.3.12", "2023-06-20", "3.9.17"), ("3.9", "7.3.13", "2023-10-01", "3.9.18"),
    ("3.9", "7.3.15", "2024-01-15", "3.9.18"), ("3.10", "7.3.15", "2024-01-15", "3.10.13"),
    ("3.10", "7.3.17", "2024-08-30", "3.10.14"),
]


def pypy(ctx):
    """PyPy interpreters and the python/python_abi records that select them."""
    for minor, r, d, pv in PYPY:
        tag = eras.pytag(minor)
        abi = f"python_abi {minor}.* *_pypy{tag}_pp73"
        for bn in range(2):
            t = min(ts(d) + bn * 60 * DAY, NOW - DAY)
            deps = [x for x in python_deps(ctx, minor, t) if not x.startswith("tzdata")]
            deps.append(abi)
            h = hash7("pypy", minor, r, *sorted(deps))
            ctx.emit(f"pypy{minor}", r, f"h{h}_{bn}", bn, deps, t, license="MIT",
                     size=33000000 + bn)
            ctx.emit("python", pv, f"{bn}_73_pypy", bn, [f"pypy{minor} {r}.*", abi], t,
                     license="Python-2.0", size=35000 + bn, track_features="pypy")
    for minor, a, b in eras.PYPY_WINDOWS:
        tag = eras.pytag(minor)
        for bn, d in ((2, "2021-10-01"), (3, "2022-10-20"), (4, "2023-09-25")):
            t = max(ts(d), a)
            if t >= b:
                continue
            ctx.emit("python_abi", minor, f"{bn}_pypy{tag}_pp73", bn, [], t,
                     license="BSD-3-Clause", size=6300 + bn,
                     constrains=[f"python {minor}.* *_73_pypy"])


def build_base(ctx):
    gcc_family(ctx)
    base_libs(ctx)
    python(ctx)
    pypy(ctx)
