"""The bulk of the channel: tens of thousands of synthetic packages shaped like
conda-forge's, so that the pool is as big and as densely connected as the real
one while the GPU request still only reaches the core.

Every bulk package gets a kind (noarch python, compiled python extension,
C/C++ library, R package, perl module, command line tool, data/fonts, CUDA
extension), a name (first the real conda-forge / defaults names from
conda_forge_names.txt, then names made from their fragments), a version
history over 2016-2024 and dependencies on packages generated before it
(hubs first: early packages are picked much more often) and on the core
(python, numpy, libzlib, openssl, the CUDA libraries, ...). Nothing in the
core depends on a bulk package, which is what keeps the request's closure at
the size of the real GPU stack.
"""
import bisect
import os
import re

from . import eras
from .catalog import upper_bound
from .core_base import openssl_pin, zlib_pin
from .core_gpu import numpy_pin
from .records import ts, NOW, DAY, hash7

HERE = os.path.dirname(os.path.abspath(__file__))
T_FIRST = ts("2016-01-15")

LICENSES_PY = ["MIT"] * 6 + ["BSD-3-Clause"] * 4 + ["Apache-2.0"] * 4 + [
    "GPL-3.0-or-later", "LGPL-2.1-or-later", "MPL-2.0", "BSD-2-Clause", "PSF-2.0", "ISC"]
LICENSES_C = ["MIT", "BSD-3-Clause", "Apache-2.0", "GPL-2.0-or-later", "LGPL-2.1-or-later",
              "Zlib", "BSD-2-Clause", "GPL-3.0-or-later", "MPL-2.0", "LGPL-3.0-or-later"]
LICENSES_R = ["GPL-2.0-or-later", "GPL-3.0-only", "MIT", "GPL-2.0-or-later OR GPL-3.0-or-later",
              "GPL-2.0-only", "LGPL-2.1-or-later", "BSD-3-Clause"]

# names that are hubs on conda-forge: generated first, so they are picked most often
HUB_LIBS = [
    "libcurl", "libxml2", "libpng", "libjpeg-turbo", "libiconv", "icu", "freetype", "fontconfig",
    "libtiff", "libwebp-base", "pcre2", "libglib", "gettext", "libintl", "krb5", "libssh2",
    "libnghttp2", "c-ares", "libev", "libedit", "keyutils", "libcap", "libevent", "lerc",
    "libdeflate", "libaec", "hdf5", "libnetcdf", "libboost", "libprotobuf", "libabseil",
    "libgrpc", "re2", "snappy", "gflags", "glog", "fmt", "spdlog", "eigen", "openmpi", "mpich",
    "fftw", "gsl", "geos", "proj", "libgdal", "cairo", "pango", "harfbuzz", "pixman",
    "xorg-libx11", "xorg-libxext", "xorg-libxrender", "xorg-libxau", "xorg-libxdmcp", "libxcb",
    "libllvm15", "libclang-cpp15", "libarrow", "libthrift", "libutf8proc", "aws-c-common",
    "aws-sdk-cpp", "orc", "giflib", "openjpeg", "lcms2", "libaio", "libsodium", "libzmq",
    "libuv", "libpq", "libssh", "libarchive", "libsolv", "libmamba", "libxslt", "libopus",
]
HUB_PY = [
    "typing_extensions", "requests", "charset-normalizer", "attrs", "pydantic", "anyio",
    "sniffio", "h11", "httpx", "httpcore", "pluggy", "iniconfig", "pytest", "tqdm", "rich",
    "pygments", "markdown-it-py", "mdurl", "platformdirs", "filelock", "jsonschema",
    "referencing", "traitlets", "jupyter_core", "tomli", "exceptiongroup", "decorator",
    "wcwidth", "prompt-toolkit", "ipython", "matplotlib-inline", "jedi", "parso", "pexpect",
    "ptyprocess", "asttokens", "executing", "stack_data", "pure_eval", "typing-extensions",
    "scipy", "matplotlib-base", "pillow", "kiwisolver", "contourpy", "h5py", "lxml", "regex",
    "pyzmq", "ujson", "orjson", "pyarrow", "scikit-learn", "numexpr", "bottleneck", "shapely",
    "pyproj", "netcdf4", "cftime", "statsmodels", "grpcio", "protobuf", "aiohttp", "frozenlist",
    "multidict", "yarl", "ruamel.yaml", "xarray", "networkx", "sympy", "mpmath", "bokeh",
    "xyzservices", "fonttools", "cycler", "joblib", "threadpoolctl", "pyparsing",
]
HUB_R = ["r-rcpp", "r-rlang", "r-cli", "r-glue", "r-magrittr", "r-lifecycle", "r-vctrs",
         "r-tibble", "r-dplyr", "r-ggplot2", "r-stringi", "r-stringr", "r-jsonlite", "r-curl",
         "r-digest", "r-r6", "r-withr", "r-fansi", "r-utf8", "r-pillar", "r-pkgconfig",
         "r-tidyselect", "r-purrr", "r-scales", "r-matrix", "r-mass", "r-data.table"]

PY_PREFIXES = ["pytest-", "sphinx-", "jupyterlab-", "django-", "flake8-", "types-", "mkdocs-",
               "napari-", "py", "python-", "pyobjc-", "azure-", "google-cloud-", "opentelemetry-",
               "ipython-", "jupyter-", "dask-", "xarray-", "pandas-", "scikit-", "fastapi-",
               "pydantic-", "aws-", "mypy-", "ros-", "tensorflow-", "torch", "ansible-"]
PY_SUFFIXES = ["-python", "-py", "-api", "-client", "-utils", "-tools", "-core", "-plugin",
               "-sdk", "-cli", "-base", "-lite", "-extras", "-io", "-server", ""]
LIB_PATTERNS = ["lib{a}", "lib{a}-{b}", "{a}-cpp", "{a}", "lib{a}{b}", "{a}-{b}", "lib{a}-devel",
                "{a}-c", "{a}lib"]
TOOL_PATTERNS = ["{a}", "{a}-cli", "go-{a}", "rust-{a}", "{a}-{b}", "{a}tool", "{a}-bin"]
GENERIC_PATTERNS = ["font-ttf-{a}", "{a}-data", "{a}-headers", "{a}-doc", "{a}-assets",
                    "{a}-schemas", "{a}-{b}-data"]


class Target:
    """A package bulk records can depend on: its release times and how it is pinned."""
    __slots__ = ("name", "times", "versions", "pins", "pinfn", "kind", "mono")

    def __init__(self, name, kind, versions=None, times=None, policy=None, pinfn=None):
        self.name = name
        self.kind = kind
        self.versions = versions or []
        self.times = times or []
        self.pinfn = pinfn
        self.mono = self.times == sorted(self.times)
        if policy and versions:
            self.pins = [f"{name} >={v},<{upper_bound(v, policy)}" for v in versions]
        else:
            self.pins = None

    def index_at(self, t):
        return max(bisect.bisect_right(self.times, t) - 1, 0)

    def pin(self, t):
        if self.pinfn:
            return self.pinfn(t)
        if self.pins:
            return self.pins[self.index_at(t)]
        return self.name

    def version_at(self, t):
        return self.versions[self.index_at(t)] if self.versions else None


def _load_names():
    out = []
    with open(os.path.join(HERE, "conda_forge_names.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _, hint = line.rstrip("\n").partition("\t")
            out.append((name, hint or "-"))
    return out


class Names:
    """Real names first (hubs, then the extracted list), then made-up ones."""

    def __init__(self, rng, taken):
        self.rng = rng
        self.taken = taken          # set of names already used (membership only)
        real = _load_names()
        self.real = [(n, "lib") for n in HUB_LIBS] + [(n, "py") for n in HUB_PY] + \
                    [(n, "r") for n in HUB_R] + real
        self.pos = 0
        frags = {}
        skip = {"lib", "python", "cpp", "dev", "devel", "cos6", "cos7", "i686", "x86", "ppc64le",
                "aarch64", "linux", "conda", "forge", "static"}
        for n, _ in real:
            for p in re.split(r"[-_.0-9]+", n):
                if len(p) >= 3 and p not in skip:
                    frags[p] = None
        self.frags = list(frags)

    def next_real(self):
        while self.pos < len(self.real):
            n, hint = self.real[self.pos]
            self.pos += 1
            if n not in self.taken and not n.startswith("_") and not n.startswith("__"):
                return n, hint
        return None

    def make(self, kind):
        rng = self.rng
        fr = self.frags
        for _ in range(1000):
            a, b = rng.choice(fr), rng.choice(fr)
            if kind in ("pynoarch", "pyext", "pycuda"):
                r = rng.random()
                if r < 0.45:
                    n = rng.choice(PY_PREFIXES) + a
                elif r < 0.8:
                    n = a + rng.choice(PY_SUFFIXES)
                else:
                    n = f"{a}-{b}" if rng.random() < 0.6 else a + b
            elif kind in ("rnoarch", "rext"):
                n = "r-" + (a if rng.random() < 0.6 else a + b)
            elif kind == "perl":
                n = f"perl-{a}-{b}" if rng.random() < 0.6 else f"perl-{a}"
            elif kind == "tool":
                n = rng.choice(TOOL_PATTERNS).format(a=a, b=b)
            elif kind == "generic":
                n = rng.choice(GENERIC_PATTERNS).format(a=a, b=b)
            else:
                n = rng.choice(LIB_PATTERNS).format(a=a, b=b)
            if n not in self.taken:
                return n
        raise RuntimeError("name space exhausted")


def make_versions(rng, scheme, n, t_first, t_last, gap_days):
    """n versions of one package between t_first and t_last, as [(version, time)]."""
    out = []
    t = t_first
    if scheme == "calver":
        seen = {}
        for _ in range(n):
            y, m = _ym(t)
            k = seen.get((y, m), 0)
            seen[(y, m)] = k + 1
            out.append((f"{y}.{m}.{k}", t))
            t += int(gap_days * DAY * (0.3 + rng.expovariate(1.0)))
            if t > t_last:
                break
        return out
    if scheme == "perl":
        major, minor = rng.choice([0, 0, 1, 2]), rng.randint(1, 40)
        for _ in range(n):
            out.append((f"{major}.{minor:03d}" if rng.random() < 0.9 else f"{major}.{minor:02d}", t))
            minor += rng.randint(1, 3)
            if minor >= 999:
                major, minor = major + 1, 1
            t += int(gap_days * DAY * (0.3 + rng.expovariate(1.0)))
            if t > t_last:
                break
        return out
    major = rng.choice([0, 0, 0, 1, 1, 2, 3, 4, 5, 7, 10, 20])
    minor = rng.randint(0, 12)
    patch = rng.randint(0, 3)
    build = 0
    sep = "_" if scheme == "r" and rng.random() < 0.5 else "."
    for _ in range(n):
        if scheme == "two":
            v = f"{major}.{minor}"
        elif scheme == "four":
            v = f"{major}.{minor}.{patch}.{build}"
        elif scheme == "r":
            v = f"{major}.{minor}{sep}{patch}"
        else:
            v = f"{major}.{minor}.{patch}"
        out.append((v, t))
        if scheme != "r" and rng.random() < 0.015:
            out.append((v + ".post1", t + 3 * DAY))
        r = rng.random()
        if scheme == "four" and r < 0.3:
            build += 1
        elif r < 0.62 and scheme != "two":
            patch += 1
        elif r < 0.93:
            minor, patch = minor + 1, 0
        else:
            major, minor, patch = major + 1, 0, 0
        t += int(gap_days * DAY * (0.3 + rng.expovariate(1.0)))
        if t > t_last:
            break
    return out


def _ym(t):
    import time
    g = time.gmtime(t)
    return g.tm_year, g.tm_mon


class Bulk:
    def __init__(self, ctx, target_total, noarch_share):
        self.ctx = ctx
        self.rng = ctx.rng
        self.cat = ctx.cat
        self.target_total = target_total
        self.noarch_target = int(target_total * noarch_share)
        self.linux_target = target_total - self.noarch_target
        self.taken = set()
        for s in ("linux-64", "noarch"):
            self.taken.update(ctx.ch.names[s])
        self.names = Names(self.rng, self.taken)
        self.pools = {"lib": [], "py": [], "r": [], "perl": []}
        self.by_name = {}
        self._seed_core_targets()
        self.kinds = {}

    # -- targets -----------------------------------------------------------------
    def _seed_core_targets(self):
        cat = self.cat
        # libzlib pins as zlib before the 2021 split
        self._add_target(Target("libzlib", "lib", pinfn=lambda t: zlib_pin(self.ctx, t)))
        for name in ("zstd", "bzip2", "libffi", "ncurses", "readline", "libsqlite",
                     "libexpat", "lz4-c", "yaml", "libuuid", "tk", "libhwloc", "tbb", "libnl",
                     "rdma-core", "liblzma", "libopenblas", "llvm-openmp", "libxcrypt"):
            self._add_target(Target(name, "lib", pinfn=(lambda n: lambda t: cat.pin(n, t))(name)))
        self._add_target(Target("openssl", "lib", pinfn=lambda t: openssl_pin(self.ctx, t)))
        for name in ("libblas", "libcblas", "liblapack"):
            self._add_target(Target(name, "lib", pinfn=(lambda n: lambda t: f"{n} >=3.9.0,<4.0a0"
                                                        if t >= ts("2020-11-05")
                                                        else f"{n} >=3.8.0,<4.0a0")(name)))
        for name in ("six", "packaging", "setuptools", "pyyaml", "importlib-metadata",
                     "python-dateutil", "pytz", "jinja2", "click", "toolz", "cloudpickle",
                     "fsspec", "psutil", "tornado", "urllib3", "certifi", "idna", "cffi",
                     "cryptography", "pandas", "msgpack-python", "markupsafe", "pyparsing",
                     "zipp", "colorama", "pycparser", "numpy", "pip", "wheel", "dask-core",
                     "distributed", "numba", "cupy", "psutil", "lz4", "pyopenssl"):
            if name in self.by_name:
                continue
            e = cat.entries.get(name)
            tgt = Target(name, "py", versions=list(e.versions) if e else None,
                         times=list(e.times) if e else None)
            self._add_target(tgt)

    def _add_target(self, tgt, register=True):
        self.pools[tgt.kind].append(tgt)
        if register:
            self.by_name[tgt.name] = tgt

    def _offer(self, tgt):
        """A freshly generated package becomes a dependency target if it has records."""
        self._pending = tgt

    def pick(self, pool, k, exclude):
        """k distinct targets from pool, early (hub) entries much more likely."""
        rng = self.rng
        items = self.pools[pool]
        if not items:
            return []
        out = []
        seen = {exclude}
        tries = 0
        while len(out) < k and tries < k * 6:
            tries += 1
            i = int(len(items) * rng.random() ** 2.6)
            tgt = items[i]
            if tgt.name in seen:
                continue
            seen.add(tgt.name)
            out.append(tgt)
        return out

    def py_spec(self, tgt, shape, t):
        """A python dependency in one of the shapes conda-forge recipes use."""
        if shape == "bare" or not tgt.versions:
            return tgt.name
        v = _version_at(tgt, t - 400 * DAY)
        if shape == "lower":
            return f"{tgt.name} >={v}"
        if shape == "range":
            return f"{tgt.name} >={v},<{upper_bound(v, 'x')}"
        if shape == "compat":
            return f"{tgt.name} >={v},<{upper_bound(v, 'x.x')}"
        return f"{tgt.name} >={v},!={_version_at(tgt, t - 200 * DAY)}.1"

    # -- packages ----------------------------------------------------------------
    def choose_kind(self, hint, name=None):
        kind = self._choose_kind(hint)
        if name is not None:
            # keep the ecosystems' naming conventions for real names
            if name.startswith("r-") and kind not in ("rnoarch", "rext"):
                kind = "rnoarch" if kind in ("pynoarch", "generic") else "rext"
            elif kind in ("rnoarch", "rext") and not name.startswith("r-"):
                kind = "pynoarch" if kind == "rnoarch" else "pyext"
            elif kind == "perl" and not name.startswith("perl-"):
                kind = "tool"
        return kind

    def _choose_kind(self, hint):
        rng = self.rng
        ch = self.ctx.ch
        noarch_full = ch.count("noarch") >= self.noarch_target
        linux_full = ch.count("linux-64") >= self.linux_target
        if hint == "r":
            kind = "rnoarch" if rng.random() < 0.55 else "rext"
        elif hint == "py":
            kind = "pynoarch" if rng.random() < 0.55 else "pyext"
        elif hint == "lib":
            kind = "clib"
        else:
            kind = rng.choices(
                ["pynoarch", "pyext", "clib", "rnoarch", "rext", "generic", "tool", "perl", "pycuda"],
                [34, 20, 20, 8, 6, 4, 5, 2, 1])[0]
        noarch_kinds = ("pynoarch", "rnoarch", "generic")
        if kind in noarch_kinds and noarch_full:
            kind = {"pynoarch": "pyext", "rnoarch": "rext", "generic": "tool"}[kind]
        elif kind not in noarch_kinds and linux_full:
            kind = {"rext": "rnoarch", "clib": "generic", "tool": "generic", "perl": "generic"}.get(
                kind, "pynoarch")
        return kind

    def history(self, kind):
        rng = self.rng
        t_first = T_FIRST + int((NOW - 30 * DAY - T_FIRST) * (1 - rng.random() ** 1.5))
        t_last = NOW - DAY if rng.random() < 0.7 else t_first + int((NOW - t_first) * rng.random())
        gap = rng.choice([20, 35, 50, 80, 120, 200])
        mu = {"pynoarch": 2.7, "pyext": 2.2, "clib": 2.5, "rnoarch": 2.4, "rext": 2.1,
              "generic": 1.7, "tool": 2.6, "perl": 1.8, "pycuda": 1.9}[kind]
        n = max(1, min(400, int(rng.lognormvariate(mu, 1.05))))
        if kind in ("rnoarch", "rext"):
            scheme = "r"
        elif kind == "perl":
            scheme = "perl"
        else:
            scheme = rng.choices(["semver", "two", "calver", "four"], [70, 15, 10, 5])[0]
        return make_versions(rng, scheme, n, t_first, t_last, gap)

    def run(self):
        ch = self.ctx.ch
        if ch.count() >= self.target_total:
            return
        self.r_base()
        self.perl_base()
        gen = {"pynoarch": self.pynoarch, "pyext": self.pyext, "clib": self.clib,
               "rnoarch": self.rnoarch, "rext": self.rext, "generic": self.generic,
               "tool": self.tool, "perl": self.perl, "pycuda": self.pycuda}
        while ch.count() < self.target_total:
            got = self.names.next_real()
            if got:
                name, hint = got
            else:
                name, hint = None, "-"
            kind = self.choose_kind(hint, name)
            if name is None:
                name = self.names.make(kind)
            self.taken.add(name)
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            self.ctx.license_family = None if self.rng.random() < 0.65 else False
            before = ch.count()
            self._pending = None
            gen[kind](name)
            if self._pending is not None and ch.count() > before:
                self._add_target(self._pending)
        self.ctx.license_family = None

    # R and perl interpreters: hubs of their own ecosystems
    def r_base(self):
        ctx = self.ctx
        for v, d in (("1.0.0", "2017-01-10"), ("1.0.1", "2019-06-10")):
            ctx.emit("_r-mutex", v, "anacondar_1", 1, [], ts(d), license="BSD-3-Clause",
                     size=3500, note=False)
        rows = [("3.5.1", "2018-07-10"), ("3.6.3", "2020-03-10"), ("4.0.5", "2021-04-10"),
                ("4.1.3", "2022-03-20"), ("4.2.3", "2023-03-20"), ("4.3.3", "2024-03-01"),
                ("4.4.2", "2024-11-01")]
        vs = []
        for v, d in rows:
            t0 = ts(d)
            for j, tb in enumerate([t0] + eras.migrations_between(t0, NOW)[:4]):
                deps = eras.gcc_deps(tb, cxx=True, fortran=True, openmp=True)
                deps += ["_r-mutex 1.* anacondar_1", self.cat.pin("readline", tb),
                         self.cat.pin("ncurses", tb), self.cat.pin("tk", tb),
                         zlib_pin(ctx, tb), self.cat.pin("bzip2", tb),
                         "libblas >=3.9.0,<4.0a0" if tb >= ts("2020-11-05") else "libblas >=3.8.0,<4.0a0",
                         "liblapack >=3.9.0,<4.0a0" if tb >= ts("2020-11-05") else "liblapack >=3.8.0,<4.0a0"]
                b = f"h{hash7('r-base', v, *sorted(deps))}_{j}"
                ctx.emit("r-base", v, b, j, deps, min(tb, NOW - DAY), license="GPL-2.0-or-later",
                         size=ctx.size(25000000, 28000000), note=False)
            vs.append((v, t0))
        self._add_target(Target("r-base", "r", versions=[v for v, _ in vs],
                                times=[t for _, t in vs]))
        self.taken.add("r-base")
        self.taken.add("_r-mutex")

    def perl_base(self):
        ctx = self.ctx
        rows = [("5.26.2", "2018-06-10"), ("5.32.0", "2020-11-10"), ("5.32.1", "2021-02-10")]
        for v, d in rows:
            t0 = ts(d)
            times = [t0] + eras.migrations_between(t0, NOW)
            for j, tb in enumerate(times):
                deps = eras.gcc_deps(tb)
                b = f"{j}_h{hash7('perl', v, *sorted(deps))}_perl5"
                ctx.emit("perl", v, b, j, deps, min(tb, NOW - DAY), license="GPL-1.0-or-later",
                         size=ctx.size(15000000, 16000000), note=False)
        self.taken.add("perl")

    # -- kinds -------------------------------------------------------------------
    def _evolving(self, deps, nver):
        """Per dependency: the version index it appears at and the one it is dropped at."""
        rng = self.rng
        out = []
        for d in deps:
            start = 0 if rng.random() < 0.6 else rng.randrange(nver)
            stop = nver if rng.random() < 0.9 else rng.randint(start + 1, nver)
            out.append((d, start, stop))
        return out

    def _constrains(self, name, t):
        rng = self.rng
        if rng.random() < 0.9:
            return None
        py = self.pools["py"]
        other = py[int(len(py) * rng.random() ** 2)]
        if rng.random() < 0.5 or not other.versions:
            return [f"{name}-base <0a0"]
        return [f"{other.name} >={_version_at(other, t - 300 * DAY)}"]

    def _license(self, pool):
        return self.rng.choice(pool)

    def pynoarch(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("pynoarch")
        k = min(int(rng.expovariate(1 / 3.0)), 14)
        deps = self.pick("py", k, name)
        shapes = [rng.choices(["bare", "lower", "range", "compat", "ne"], [40, 42, 9, 6, 3])[0]
                  for _ in deps]
        evo = self._evolving(list(zip(deps, shapes)), len(vers))
        pymin_bump = rng.choice([0, 0, 1])
        lic = self._license(LICENSES_PY)
        sz = ctx.size(5000, 3000000)
        # some packages were built per python before they went noarch
        switch = ts("2019-06") + int(rng.random() * (NOW - ts("2019-06"))) if rng.random() < 0.08 else 0
        unix_win = rng.random() < 0.02
        for i, (v, t) in enumerate(vers):
            d = [self.py_spec(tgt, shape, t) for (tgt, shape), a, b in evo if a <= i < b]
            if t < switch:
                for py in eras.pythons_at(t):
                    dd = d + eras.py_ext_deps(py, t)
                    b = f"py{eras.pytag(py)}h{hash7(name, py, str(len(dd)))}_0"
                    ctx.emit(name, v, b, 0, dd, t, license=lic, size=sz, note=False)
                continue
            pymin = eras.noarch_python_min(t)
            if pymin and pymin_bump:
                pymin = f"3.{int(pymin.split('.')[1]) + pymin_bump}"
            dd = d + [f"python >={pymin}" if pymin else "python"]
            nb = 2 if rng.random() < 0.12 else 1
            for bn in range(nb):
                tb = min(t + bn * 40 * DAY, NOW - DAY)
                if unix_win and tb >= ts("2022-01"):
                    ctx.emit(name, v, f"unix_pyh707e725_{bn}", bn, dd + ["__unix"], tb,
                             subdir="noarch", noarch="python", license=lic, size=sz, note=False)
                    ctx.emit(name, v, f"win_pyh7428d3b_{bn}", bn, dd + ["__win"], tb,
                             subdir="noarch", noarch="python", license=lic, size=sz, note=False)
                else:
                    ctx.emit(name, v, eras.noarch_build(tb, bn), bn, dd, tb, subdir="noarch",
                             noarch="python", license=lic, size=sz + bn,
                             constrains=self._constrains(name, tb), note=False)
        self._offer(Target(name, "py", versions=[v for v, _ in vers],
                                times=[t for _, t in vers]))

    def _py_matrix(self, vers, pypy_ok):
        """Like builders.pyext_matrix for synthetic histories (fewer rebuilds)."""
        rng = self.rng
        out = []
        drop_old = rng.random() < 0.5
        for i, (v, t0) in enumerate(vers):
            t1 = vers[i + 1][1] if i + 1 < len(vers) else NOW
            pys = eras.pythons_at(t0)
            if drop_old and len(pys) > 3:
                pys = pys[1:]
            m = [(py, t0, 0) for py in pys]
            if i + 1 == len(vers) and t1 - t0 > 30 * DAY:
                for py in eras.new_pythons_between(t0, t1):
                    m.append((py, eras.PY_START[py] + rng.randint(5, 90) * DAY, 0))
            if rng.random() < 0.25:
                ms = eras.migrations_between(t0 + 10 * DAY, t1)
                if ms:
                    tr = ms[-1] + rng.randint(0, 20) * DAY
                    m += [(py, tr, 1) for py in eras.pythons_at(tr)[-3:]]
            for py, tb, bn in m:
                tb = min(tb, NOW - DAY)
                out.append((i, v, py, tb, bn, False))
                if pypy_ok and eras.pypy_active(py, tb):
                    out.append((i, v, py, tb, bn, True))
        return out

    def pyext(self, name, cuda=False):
        ctx, rng = self.ctx, self.rng
        vers = self.history("pycuda" if cuda else "pyext")
        k = min(int(rng.expovariate(1 / 2.5)), 10)
        pydeps = self.pick("py", k, name)
        shapes = [rng.choices(["bare", "lower", "range", "compat", "ne"], [40, 42, 9, 6, 3])[0]
                  for _ in pydeps]
        libdeps = self.pick("lib", min(int(rng.expovariate(1 / 1.5)), 6), name)
        uses_numpy = rng.random() < 0.35
        cxx = rng.random() < 0.6
        evo = self._evolving([(x, s) for x, s in zip(pydeps, shapes)] + [(x, None) for x in libdeps],
                             len(vers))
        lic = self._license(LICENSES_PY)
        sz = ctx.size(30000, 30000000)
        variants = [None]
        if cuda:
            variants = ["cpu", "cuda118", "cuda120"]
        pypy_ok = not cuda and rng.random() < 0.5
        hashes = {}
        for i, v, py, tb, bn, pp in self._py_matrix(vers, pypy_ok):
            base = eras.gcc_deps(tb, cxx=cxx)
            for (tgt, shape), a, b in evo:
                if a <= i < b:
                    base.append(tgt.pin(tb) if shape is None else self.py_spec(tgt, shape, tb))
            if uses_numpy:
                base.append(numpy_pin(py, tb))
            base += eras.py_ext_deps(py, tb, pp)
            era = len(eras.migrations_between(0, tb))
            for var in variants:
                d = base
                tag = f"py{eras.pytag(py)}"
                bnv = bn
                if var == "cpu":
                    tag = f"cpu_{tag}"
                elif var == "cuda118":
                    d = base + ["__cuda", "cuda-version >=11.8,<12.0a0", "cudatoolkit >=11.8,<12"]
                    tag = f"cuda118{tag}"
                    bnv = bn + 200
                elif var == "cuda120":
                    if tb < ts("2023-05-01"):
                        continue
                    d = base + ["__cuda", "cuda-version >=12.0,<13", "cuda-cudart >=12.0.107,<13.0a0",
                                "libcublas >=12.0.1.189,<13.0a0", "cuda-nvrtc >=12.0.76,<13.0a0",
                                "libcurand >=10.3.1.50,<11.0a0"]
                    tag = f"cuda120{tag}"
                    bnv = bn + 200
                key = (py, pp, var, era)
                h = hashes.get(key) or hashes.setdefault(key, hash7(name, py, str(pp), str(var), str(era)))
                ctx.emit(name, v, f"{tag}h{h}_{bnv}", bnv, d, tb, license=lic, size=sz + bn,
                         constrains=self._constrains(name, tb) if bn == 0 else None, note=False)
        self._offer(Target(name, "py", versions=[v for v, _ in vers],
                                times=[t for _, t in vers]))

    def pycuda(self, name):
        self.pyext(name, cuda=True)

    def clib(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("clib")
        libdeps = self.pick("lib", min(int(rng.expovariate(1 / 2.6)), 12), name)
        evo = self._evolving(libdeps, len(vers))
        cxx = rng.random() < 0.55
        fortran = rng.random() < 0.04
        policy = rng.choices(["x", "x.x", "x.x.x"], [35, 50, 15])[0]
        lic = self._license(LICENSES_C)
        sz = ctx.size(20000, 40000000)
        variants = [("", 0, [])]
        r = rng.random()
        if r < 0.04 and "openmpi" in self.by_name and "mpich" in self.by_name:
            variants = [("nompi_", 100, []),
                        ("mpi_openmpi_", 0, ["openmpi"]), ("mpi_mpich_", 0, ["mpich"])]
        elif r < 0.07:
            variants = [("", 0, []), ("cuda120_", 0, ["__cuda", "cuda-version >=12.0,<13",
                                                      "cuda-cudart >=12.0.107,<13.0a0"])]
        elif r < 0.075:
            variants = [("", 0, []), ("debug_", 0, [])]
        rebuild_p = rng.choice([0.2, 0.4, 0.7])
        for i, (v, t0) in enumerate(vers):
            t1 = vers[i + 1][1] if i + 1 < len(vers) else NOW
            times = [t0] + [m + rng.randint(0, 10) * DAY for m in eras.migrations_between(t0, t1)
                            if rng.random() < rebuild_p]
            for j, tb in enumerate(times):
                tb = min(tb, NOW - DAY)
                d = eras.gcc_deps(tb, cxx=cxx, fortran=fortran)
                d += [tgt.pin(tb) for tgt, a, b in evo if a <= i < b]
                era = str(len(eras.migrations_between(0, tb)))
                for prefix, offset, extra in variants:
                    dd = d + [self.by_name[x].pin(tb) if x in self.by_name else x for x in extra]
                    b = f"{prefix}h{hash7(name, prefix, era, str(len(dd)))}_{j + offset}"
                    ctx.emit(name, v, b, j + offset, dd, tb, license=lic, size=sz + j,
                             constrains=[f"{name}-static <0a0"] if rng.random() < 0.03 else None,
                             track_features="debug" if prefix == "debug_" else None, note=False)
        self._offer(Target(name, "lib", versions=[v for v, _ in vers],
                                times=[t for _, t in vers], policy=policy))

    def tool(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("tool")
        lic = self._license(LICENSES_C)
        sz = ctx.size(500000, 60000000)
        libdeps = self.pick("lib", min(int(rng.expovariate(1 / 1.0)), 4), name)
        static = rng.random() < 0.4
        for v, t in vers:
            if static:
                d, c = [], ["__glibc >=2.17"]
            else:
                d, c = eras.gcc_deps(t) + [x.pin(t) for x in libdeps], None
            ctx.emit(name, v, f"h{hash7(name, str(len(d)), str(t // (400 * DAY)))}_0", 0, d, t,
                     license=lic, size=sz, constrains=c, note=False)
        self._offer(Target(name, "lib", versions=[v for v, _ in vers],
                                times=[t for _, t in vers], policy="x.x"))

    def generic(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("generic")
        lic = self._license(LICENSES_C)
        h = hash7(name)
        for v, t in vers:
            d = []
            if rng.random() < 0.3 and self.pools["lib"]:
                d = [self.pools["lib"][int(len(self.pools["lib"]) * rng.random() ** 3)].name]
            ctx.emit(name, v, f"h{h}_0", 0, d, t, subdir="noarch", noarch="generic",
                     license=lic, size=ctx.size(2000, 5000000), note=False)

    def _r_versions_at(self, t):
        return eras.r_at(t)

    def rnoarch(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("rnoarch")
        deps = self.pick("r", min(int(rng.expovariate(1 / 3.5)), 16), name)
        shapes = [rng.choice(["bare", "lower", "lower"]) for _ in deps]
        evo = self._evolving(list(zip(deps, shapes)), len(vers))
        lic = self._license(LICENSES_R)
        sz = ctx.size(20000, 3000000)
        bn0 = rng.choice([0, 0, 1000, 1005])
        for i, (v, t) in enumerate(vers):
            rv = self._r_versions_at(t)
            if not rv:
                continue
            d = [self.py_spec(tgt, shape, t) for (tgt, shape), a, b in evo if a <= i < b]
            d.append(f"r-base >={rv[0]}")
            rtag = rv[-1].replace(".", "")
            ctx.emit(name, v, f"r{rtag}hc72bb7e_{bn0}", bn0, d, t, subdir="noarch",
                     noarch="generic", license=lic, size=sz, note=False)
        self._offer(Target(name, "r", versions=[v for v, _ in vers],
                                times=[t for _, t in vers]))

    def rext(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("rext")
        deps = self.pick("r", min(int(rng.expovariate(1 / 3.0)), 14), name)
        shapes = [rng.choice(["bare", "lower", "lower"]) for _ in deps]
        libdeps = self.pick("lib", min(int(rng.expovariate(1 / 1.0)), 4), name)
        evo = self._evolving(list(zip(deps, shapes)) + [(x, None) for x in libdeps], len(vers))
        lic = self._license(LICENSES_R)
        sz = ctx.size(50000, 8000000)
        bn0 = rng.choice([0, 0, 0, 1])
        for i, (v, t) in enumerate(vers):
            d = [tgt.pin(t) if shape is None else self.py_spec(tgt, shape, t)
                 for (tgt, shape), a, b in evo if a <= i < b]
            d += eras.gcc_deps(t, cxx=True)
            for rv in self._r_versions_at(t):
                dd = d + [eras.r_pin(rv)]
                rtag = rv.replace(".", "")
                ctx.emit(name, v, f"r{rtag}h{hash7(name, rv, str(len(dd)))}_{bn0}", bn0, dd, t,
                         license=lic, size=sz, note=False)
        self._offer(Target(name, "r", versions=[v for v, _ in vers],
                                times=[t for _, t in vers]))

    def perl(self, name):
        ctx, rng = self.ctx, self.rng
        vers = self.history("perl")
        deps = self.pick("perl", min(int(rng.expovariate(1 / 2.0)), 8), name)
        lic = rng.choice(["GPL-1.0-or-later", "Artistic-1.0-Perl", "GPL-1.0-or-later OR Artistic-1.0-Perl"])
        compiled = rng.random() < 0.3
        for v, t in vers:
            d = [x.name for x in deps]
            if t >= ts("2021-02-10"):
                d.append("perl >=5.32.1,<6.0a0 *_perl5")
                tag = "pl5321"
            else:
                d.append("perl >=5.26.2,<5.27.0a0")
                tag = "pl526"
            if compiled:
                d += eras.gcc_deps(t)
                ctx.emit(name, v, f"{tag}h{hash7(name, tag, str(len(d)))}_0", 0, d, t,
                         license=lic, size=ctx.size(10000, 500000), note=False)
            else:
                ctx.emit(name, v, f"{tag}hd8ed1ab_0", 0, d, t, license=lic,
                         size=ctx.size(5000, 200000), note=False)
        self._offer(Target(name, "perl", versions=[v for v, _ in vers],
                                times=[t for _, t in vers]))


def _version_at(tgt, t):
    if tgt.mono:
        return tgt.version_at(t)
    # core entries in version order: the newest released by t
    best = tgt.versions[0]
    for v, rt in zip(tgt.versions, tgt.times):
        if rt <= t:
            best = v
    return best
