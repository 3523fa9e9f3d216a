"""Record series: one package's history of versions, variants and rebuilds.

The three shapes below cover what conda-forge publishes: compiled libraries
(`h1234567_0` builds, rebuilt at channel-wide migrations), compiled python
extensions (`py312h1234567_0`, one build per python in the build matrix of the
day, new pythons added by migration), and noarch python (`pyhd8ed1ab_0`).
"""
import random

from . import eras
from .catalog import Catalog
from .records import Channel, NOW, DAY, hash7


class Ctx:
    def __init__(self, seed, compact=False):
        self.rng = random.Random(seed)
        self.ch = Channel(seed, compact=compact)
        self.cat = Catalog()
        # None: license_family from the license (most recipes set it); False: omitted
        self.license_family = None

    def size(self, lo, hi):
        """A package size between lo and hi bytes, log-uniform."""
        r = self.rng.random()
        return int(lo * (hi / lo) ** r)

    def emit(self, name, version, build, bn, depends, t, *, subdir="linux-64", license="MIT",
             size=100000, constrains=None, noarch=None, track_features=None, note=True):
        depends = sorted(set(depends))
        if constrains:
            constrains = sorted(set(constrains))
        ok = self.ch.add(name, version, build, bn, depends, t, subdir=subdir, license=license,
                         size=size, constrains=constrains, noarch=noarch,
                         track_features=track_features, license_family=self.license_family)
        if ok and note:
            self.cat.note_build(name, version, t, build)
        return ok


def _pin_all(ctx, names, t):
    cat = ctx.cat
    out = []
    for d in names:
        if callable(d):
            out.extend(d(t))
        elif d in cat:
            out.append(cat.pin(d, t))
        else:
            out.append(d)
    return out


def build_times(ctx, t0, t1, rebuild_prob, extra=()):
    """First build at t0, then rebuilds at the migrations before t1."""
    times = [t0]
    for m in eras.migrations_between(t0 + 7 * DAY, t1):
        if ctx.rng.random() < rebuild_prob:
            times.append(m + ctx.rng.randint(0, 20) * DAY)
    for e in extra:
        if t0 < e < t1:
            times.append(e)
    times = sorted(set(min(x, NOW - DAY) for x in times))
    return times


def clib(ctx, name, versions, *, deps=(), cxx=False, fortran=False, openmp=False,
         policy="x.x", license="MIT", size=(50000, 2000000), constrains=None,
         extra_deps=None, subdir="linux-64", rebuild_prob=1.0, prefix="", bn_base=0,
         register=True, gcc=True, noarch=None, last_only_rebuilds=False):
    """A compiled library. versions: [(version, 'YYYY-MM-DD')] in version order."""
    from .records import ts
    vt = [(v, ts(d) if isinstance(d, str) else d) for v, d in versions]
    if register:
        ctx.cat.add(name, vt, policy)
    order = sorted(range(len(vt)), key=lambda i: vt[i][1])
    for pos, i in enumerate(order):
        v, t0 = vt[i]
        t1 = vt[order[pos + 1]][1] if pos + 1 < len(order) else NOW
        if last_only_rebuilds and pos + 1 < len(order):
            times = [t0]
        else:
            times = build_times(ctx, t0, t1 if pos + 1 < len(order) else NOW, rebuild_prob)
        sz = ctx.size(*size)
        for j, tb in enumerate(times):
            bn = bn_base + j
            d = []
            if gcc and subdir != "noarch":
                d += eras.gcc_deps(tb, cxx=cxx, fortran=fortran, openmp=openmp)
            d += _pin_all(ctx, deps, tb)
            if extra_deps:
                d += extra_deps(v, tb)
            build = f"{prefix}h{hash7(name, *sorted(d))}_{bn}"
            c = constrains(v, tb, bn) if callable(constrains) else constrains
            ctx.emit(name, v, build, bn, d, tb, subdir=subdir, license=license,
                     size=sz + j * 17, constrains=c, noarch=noarch)


def fill_patches(rows):
    """Adds the patch releases a hand-written history skips: 1.26.0 .. 1.26.2 gets 1.26.1.

    rows: [(version, 'YYYY-MM-DD', ...)] in version order; inserted rows copy the
    extra fields of the row before them and get dates spread between the two.
    """
    from .records import ts
    out = []
    for i, row in enumerate(rows):
        out.append(row)
        if i + 1 == len(rows):
            break
        v, d = row[0], row[1]
        nv, nd = rows[i + 1][0], rows[i + 1][1]
        a, b = v.rsplit(".", 1), nv.rsplit(".", 1)
        if a[0] != b[0] or not (a[1].isdigit() and b[1].isdigit()):
            continue
        lo, hi = int(a[1]), int(b[1])
        t0 = ts(d) if isinstance(d, str) else d
        t1 = ts(nd) if isinstance(nd, str) else nd
        for k in range(lo + 1, hi):
            tk = t0 + (t1 - t0) * (k - lo) // (hi - lo)
            out.append((f"{a[0]}.{k}", tk) + tuple(row[2:]))
    return out


def pyext_matrix(ctx, rows, rebuild_prob=0.35, migrate=True, pypy=True, maintained_days=240):
    """(version, python, build time, build number, is_pypy) of every build of a python extension.

    rows: [(version, t, py_lo, py_hi)] in version order. Each version is built for
    the pythons of the day (and their PyPy twins while conda-forge built those); a
    python released later is added by its migration while the version is still the
    newest; channel-wide migrations add rebuilds with the next build number.
    """
    rng = ctx.rng
    out = []
    for i, (v, t0, lo, hi) in enumerate(rows):
        t1 = rows[i + 1][1] if i + 1 < len(rows) else NOW
        matrix = [(py, t0, 0) for py in eras.pythons_at(t0, lo, hi)]
        if migrate:
            for py in eras.new_pythons_between(t0, max(t1, t0), lo, hi):
                matrix.append((py, eras.PY_START[py] + rng.randint(5, 60) * DAY, 0))
        bn = 0
        # superseded versions still get rebuilt for a while (maintenance branches)
        for m in eras.migrations_between(t0 + 10 * DAY, max(t1, t0 + maintained_days * DAY)):
            if rng.random() < rebuild_prob:
                bn += 1
                tr = m + rng.randint(0, 15) * DAY
                matrix += [(py, tr, bn) for py in eras.pythons_at(tr, lo, hi)]
        for py, tb, b in matrix:
            tb = min(tb, NOW - DAY)
            out.append((v, py, tb, b, False))
            if pypy and eras.pypy_active(py, tb):
                out.append((v, py, tb, b, True))
    return out


def pyext(ctx, name, versions, *, deps=None, variants=(None,), variant_tag=None,
          constrains=None, license="MIT", size=(100000, 5000000), cxx=True, fortran=False,
          openmp=False, rebuild_prob=0.6, migrate=True, track_features=None, gcc=True,
          pypy=True, maintained_days=420):
    """A compiled python extension.

    versions: [(version, date, py_lo, py_hi)]; deps(v, py, t, variant) -> [specs];
    variant_tag(variant, py) -> build string prefix before 'h<hash>' (default 'py312').
    """
    from .records import ts
    rows = [(v, ts(d) if isinstance(d, str) else d, lo, hi) for v, d, lo, hi in versions]
    if name not in ctx.cat:
        ctx.cat.add(name, [(v, t) for v, t, _, _ in rows], "lower")
    sizes = {}
    for v, py, tb, bn, pp in pyext_matrix(ctx, rows, rebuild_prob, migrate, pypy,
                                               maintained_days):
        sz = sizes.get(v) or sizes.setdefault(v, ctx.size(*size))
        for var in variants:
            d = eras.gcc_deps(tb, cxx=cxx, fortran=fortran, openmp=openmp) if gcc else []
            d += eras.py_ext_deps(py, tb, pp)
            if deps:
                d += deps(v, py, tb, var)
            tag = variant_tag(var, py) if variant_tag else f"py{eras.pytag(py)}"
            build = f"{tag}h{hash7(name, str(var), *sorted(d))}_{bn}"
            c = constrains(v, py, tb, var) if constrains else None
            tf = track_features(var) if track_features else None
            ctx.emit(name, v, build, bn, d, tb, license=license, size=sz + bn * 101,
                     constrains=c, track_features=tf)


def noarch_py(ctx, name, versions, *, deps=None, license="MIT", size=(10000, 800000),
              rebuild_prob=0.12, python_min=None, constrains=None, builds=None):
    """A noarch: python package. versions: [(version, date)]; deps(v, t) -> [specs].

    builds(v, t) may return [(build_stem, extra_deps)] variants such as click's
    unix_pyh707e725 / win_pyh7428d3b builds; the default is one plain build.
    """
    from .records import ts
    rng = ctx.rng
    rows = [(v, ts(d) if isinstance(d, str) else d) for v, d in versions]
    ctx.cat.add_or_extend(name, rows)
    for i, (v, t0) in enumerate(rows):
        t1 = rows[i + 1][1] if i + 1 < len(rows) else NOW
        times = [(t0, 0)]
        if rng.random() < rebuild_prob and t1 - t0 > 20 * DAY:
            times.append((t0 + rng.randint(3, max(4, (t1 - t0) // DAY - 1)) * DAY, 1))
        sz = ctx.size(*size)
        for tb, bn in times:
            tb = min(tb, NOW - DAY)
            pymin = python_min(v, tb) if python_min else eras.noarch_python_min(tb)
            d = [f"python >={pymin}" if pymin else "python"]
            if deps:
                d += deps(v, tb)
            variants = builds(v, tb) if builds else [(None, [])]
            for stem, extra in variants:
                b = f"{stem}_{bn}" if stem else eras.noarch_build(tb, bn)
                c = constrains(v, tb) if constrains else None
                ctx.emit(name, v, b, bn, d + list(extra), tb, subdir="noarch", noarch="python",
                         license=license, size=sz + bn * 13, constrains=c)


def noarch_generic(ctx, name, versions, *, deps=None, license="MIT", size=(2000, 200000),
                   bns=(0,), constrains=None, register=False, policy=None):
    from .records import ts
    rows = [(v, ts(d) if isinstance(d, str) else d) for v, d in versions]
    if register:
        ctx.cat.add(name, rows, policy)
    for v, t0 in rows:
        for k, bn in enumerate(bns):
            tb = min(t0 + k * 45 * DAY, NOW - DAY)
            d = deps(v, tb) if deps else []
            c = constrains(v, tb) if constrains else None
            build = f"h{hash7(name, v, *sorted(d))}_{bn}"
            ctx.emit(name, v, build, bn, d, tb, subdir="noarch", noarch="generic",
                     license=license, size=ctx.size(*size), constrains=c)
