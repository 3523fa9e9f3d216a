#!/usr/bin/env python3
"""Checks a generated benchmark channel and measures the request's closure.

1. Validity: both repodata.json files parse as strict JSON and have the conda
   repodata layout; every record has the fields conda-forge records have, with
   the right types; file names are <name>-<version>-<build>.<ext> in the right
   section; noarch records sit in noarch/; every dependency names a package in
   the channel or a virtual package (__cuda, __glibc, ...).
2. The request's dependency closure by name, two ways:
   - full: every record of every reachable name contributes its depends;
   - newest compatible: per reachable name, only the newest version (highest
     build number) among the records that fit a python 3.12 / CUDA 12 world
     (python 3.12 cpython, python_abi *_cp312, cuda-version 12.x, no
     cudatoolkit, no track_features when a record without them exists).
   The second is what a solver ends up near; the first bounds its search.
3. With --solve, runs build/bench/solve_request (libsolv in conda mode, see
   solve_request.c) on the channel and prints the solution size.

Python 3 standard library only.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import time

HEX = re.compile(r"^[0-9a-f]+$")
NAME = re.compile(r"^[a-z0-9_][a-z0-9_.\-]*$")
REQUIRED = {"name": str, "version": str, "build": str, "build_number": int, "depends": list,
            "subdir": str, "md5": str, "sha256": str, "size": int, "timestamp": int,
            "license": str}
OPTIONAL = {"constrains": list, "noarch": str, "track_features": str, "license_family": str}


# -- conda version ordering and version specs (enough of CEP 33 for this channel) --
def _parse_version(v):
    v = v.lower().strip()
    epoch = 0
    if "!" in v:
        e, v = v.split("!", 1)
        epoch = int(e)
    v = v.split("+", 1)[0].replace("-", "_").replace("_", ".")
    comps = []
    for part in v.split("."):
        pieces = re.findall(r"\d+|[a-z]+|\*", part) or ["0"]
        comp = []
        for p in pieces:
            if p.isdigit():
                comp.append(int(p))
            elif p == "post":
                comp.append(float("inf"))
            elif p == "dev":
                comp.append("DEV")
            else:
                comp.append(p)
        if isinstance(comp[0], str):
            comp.insert(0, 0)
        comps.append(comp)
    return epoch, comps


def _cmp_atom(a, b):
    if a == b:
        return 0
    if a == "DEV":
        return -1
    if b == "DEV":
        return 1
    sa, sb = isinstance(a, str), isinstance(b, str)
    if sa and not sb:
        return -1
    if sb and not sa:
        return 1
    return -1 if a < b else 1


class Version:
    __slots__ = ("epoch", "comps", "text")

    def __init__(self, text):
        self.text = text
        self.epoch, self.comps = _parse_version(text)

    def cmp(self, other):
        if self.epoch != other.epoch:
            return -1 if self.epoch < other.epoch else 1
        n = max(len(self.comps), len(other.comps))
        for i in range(n):
            a = self.comps[i] if i < len(self.comps) else [0]
            b = other.comps[i] if i < len(other.comps) else [0]
            for j in range(max(len(a), len(b))):
                x = a[j] if j < len(a) else 0
                y = b[j] if j < len(b) else 0
                c = _cmp_atom(x, y)
                if c:
                    return c
        return 0

    def __lt__(self, other):
        return self.cmp(other) < 0

    def startswith(self, prefix):
        p = Version(prefix)
        if len(p.comps) > len(self.comps) or p.epoch != self.epoch:
            return False
        for i, pc in enumerate(p.comps):
            sc = self.comps[i]
            if i + 1 < len(p.comps):
                if pc != sc:
                    return False
            elif sc[:len(pc)] != pc:
                return False
        return True


_VCACHE = {}


def V(text):
    v = _VCACHE.get(text)
    if v is None:
        v = _VCACHE[text] = Version(text)
    return v


def version_matches(spec, version):
    """conda VersionSpec: '|' or, ',' and, operators, x.* globs, bare = exact."""
    spec = spec.strip()
    if spec in ("", "*"):
        return True
    if "|" in spec:
        return any(version_matches(s, version) for s in spec.split("|"))
    if "," in spec:
        return all(version_matches(s, version) for s in spec.split(","))
    v = V(version)
    m = re.match(r"^(>=|<=|==|!=|~=|>|<|=)?\s*(.*)$", spec)
    op, rhs = m.group(1), m.group(2)
    if rhs.endswith(".*") or rhs.endswith("*"):
        prefix = rhs.rstrip("*").rstrip(".")
        if op in (None, "=", "=="):
            return v.startswith(prefix)
        if op == "!=":
            return not v.startswith(prefix)
        rhs = prefix
    if op == "=" and not rhs.endswith("*"):
        return v.startswith(rhs)
    c = v.cmp(V(rhs))
    if op in (None, "=="):
        return c == 0
    return {">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "!=": c != 0,
            "~=": c >= 0 and v.startswith(rhs.rsplit(".", 1)[0])}[op]


def split_spec(dep):
    """'name ver build' or 'name' or 'name==1.2=b' -> (name, version spec, build glob)."""
    parts = dep.split()
    name = parts[0]
    m = re.match(r"^([A-Za-z0-9_.\-]+)(.*)$", name)
    if m and m.group(2):
        name, rest = m.group(1), m.group(2)
        parts = [name, rest] + parts[1:]
    ver = parts[1] if len(parts) > 1 else ""
    build = parts[2] if len(parts) > 2 else ""
    if "=" in ver[2:] and not build and not ver.startswith(("<", ">")):
        # ==14.2.0=*_1
        head = ver[:2] if ver.startswith(("==", "!=")) else ""
        rest = ver[len(head):]
        if "=" in rest:
            ver, build = head + rest.split("=", 1)[0], rest.split("=", 1)[1]
    return name, ver, build


# -- loading and validation ------------------------------------------------------
def load_channel(channel, problems):
    records = []
    sizes = {}
    for subdir in ("linux-64", "noarch"):
        path = os.path.join(channel, subdir, "repodata.json")
        sizes[subdir] = os.path.getsize(path)
        with open(path, "rb") as f:
            data = json.loads(f.read())
        if data.get("info", {}).get("subdir") != subdir:
            problems.append(f"{path}: info.subdir is {data.get('info')}")
        if data.get("repodata_version") != 1:
            problems.append(f"{path}: repodata_version {data.get('repodata_version')!r}")
        if data.get("removed") != []:
            problems.append(f"{path}: removed is not []")
        for section, ext in (("packages", ".tar.bz2"), ("packages.conda", ".conda")):
            pk = data.get(section)
            if not isinstance(pk, dict):
                problems.append(f"{path}: {section} missing")
                continue
            for fn, rec in pk.items():
                bad = validate(fn, rec, subdir, ext)
                if bad and len(problems) < 50:
                    problems.append(f"{subdir}/{fn}: {bad}")
                records.append(rec)
        del data
    return records, sizes


def validate(fn, r, subdir, ext):
    for k, t in REQUIRED.items():
        if not isinstance(r.get(k), t):
            return f"field {k} missing or not {t.__name__}"
    for k, t in OPTIONAL.items():
        if k in r and not isinstance(r[k], t):
            return f"field {k} not {t.__name__}"
    if fn != f"{r['name']}-{r['version']}-{r['build']}{ext}":
        return "file name does not match name-version-build"
    if r["subdir"] != subdir:
        return f"subdir {r['subdir']}"
    if (subdir == "noarch") != ("noarch" in r):
        return "noarch field does not match the subdir"
    if "noarch" in r and r["noarch"] not in ("python", "generic"):
        return f"noarch {r['noarch']}"
    if len(r["md5"]) != 32 or not HEX.match(r["md5"]):
        return "md5"
    if len(r["sha256"]) != 64 or not HEX.match(r["sha256"]):
        return "sha256"
    if not NAME.match(r["name"]):
        return "name"
    for d in r["depends"] + r.get("constrains", []):
        if not isinstance(d, str) or not d.strip():
            return f"dependency {d!r}"
    return None


# -- closures ----------------------------------------------------------------------
def index_by_name(records):
    by = {}
    for r in records:
        by.setdefault(r["name"], []).append(r)
    return by


def full_closure(by, roots):
    seen = []
    todo = list(roots)
    done = set()
    while todo:
        n = todo.pop()
        if n in done or n.startswith("__") or n not in by:
            continue
        done.add(n)
        seen.append(n)
        for r in by[n]:
            for d in r["depends"]:
                todo.append(split_spec(d)[0])
    return seen


WORLD = {
    "python": ("3.12.7", "h0000000_0_cpython"),
    "python_abi": ("3.12", "5_cp312"),
    "cuda-version": ("12.6", "h0000000_3"),
    "__cuda": ("12.4", "0"),
    "__glibc": ("2.35", "0"),
    "__unix": ("0", "0"),
    "__linux": ("6.1", "0"),
}
EXCLUDED = {"cudatoolkit", "__win", "__osx"}   # cuda-version 12.x constrains cudatoolkit away


def fits_world(r):
    name = r["name"]
    if name in WORLD:
        v, b = WORLD[name]
        if name == "python":
            return r["version"].startswith("3.12.") and r["build"].endswith("_cpython")
        if name == "cuda-version":
            return r["version"].startswith("12.")
        return r["version"] == v and (name != "python_abi" or r["build"].endswith("_cp312"))
    for d in r["depends"]:
        n, ver, build = split_spec(d)
        if n in EXCLUDED:
            return False
        if n in WORLD:
            v, b = WORLD[n]
            if ver and not version_matches(ver, v):
                return False
            if build and n != "cuda-version" and not fnmatch.fnmatchcase(b, build):
                return False
    return True


def newest_closure(by, roots):
    order = []
    done = set()
    todo = list(roots)
    chosen = {}
    while todo:
        n = todo.pop(0)
        if n in done or n.startswith("__") or n not in by:
            continue
        done.add(n)
        cands = [r for r in by[n] if fits_world(r)]
        if not cands:
            continue
        plain = [r for r in cands if not r.get("track_features")]
        cands = plain or cands
        best = max(cands, key=lambda r: (V(r["version"]), r["build_number"]), default=None)
        top = [r for r in cands if V(r["version"]).cmp(V(best["version"])) == 0
               and r["build_number"] == best["build_number"]]
        chosen[n] = top
        order.append(n)
        for r in top:
            for d in r["depends"]:
                todo.append(split_spec(d)[0])
    return order, chosen


Version.__lt__ = lambda a, b: a.cmp(b) < 0
Version.__gt__ = lambda a, b: a.cmp(b) > 0
Version.__eq__ = lambda a, b: a.cmp(b) == 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("channel", nargs="?", default=os.path.join(root, "build", "bench", "channel"))
    ap.add_argument("--solve", action="store_true",
                    help="also run build/bench/solve_request (libsolv) on the channel")
    ap.add_argument("--list", action="store_true", help="print the closures' names")
    args = ap.parse_args()

    t0 = time.monotonic()
    problems = []
    records, sizes = load_channel(args.channel, problems)
    t_load = time.monotonic() - t0
    by = index_by_name(records)
    with open(os.path.join(args.channel, "request.txt")) as f:
        request = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    roots = [split_spec(s.replace("=", " ", 1) if "=" in s and " " not in s else s)[0]
             for s in request]

    dangling = {}
    n_deps = 0
    for r in records:
        for d in r["depends"]:
            n_deps += 1
            n = split_spec(d)[0]
            if not n.startswith("__") and n not in by:
                dangling[n] = dangling.get(n, 0) + 1

    full = full_closure(by, roots)
    newest, chosen = newest_closure(by, roots)
    pool_full = sum(len(by[n]) for n in full)
    pool_newest = sum(len(by[n]) for n in newest)

    print(f"channel {args.channel}: {len(records)} records, {len(by)} names, "
          f"{sum(sizes.values()) / 1e6:.1f} MB; parsed and checked in {t_load:.1f} s")
    for subdir, size in sizes.items():
        n = sum(1 for r in records if r["subdir"] == subdir)
        print(f"  {subdir}: {n} records, {size / 1e6:.1f} MB")
    print(f"  {n_deps / len(records):.2f} depends per record; "
          f"{sum(1 for r in records if r.get('constrains'))} records with constrains, "
          f"{sum(1 for r in records if r.get('track_features'))} with track_features")
    if problems:
        print(f"INVALID: {len(problems)} problem(s)")
        for p in problems[:20]:
            print("  -", p)
    else:
        print("  valid: layout, fields, file names, subdirs")
    if dangling:
        print(f"  dependencies on names not in the channel: {len(dangling)} names, e.g. "
              + ", ".join(sorted(dangling)[:10]))
    else:
        print("  every dependency names a package in the channel or a virtual package")
    print(f"request: {' '.join(request)}")
    print(f"  closure by name, all records:           {len(full):4d} names ({pool_full} records)")
    print(f"  closure by name, newest py3.12/CUDA 12: {len(newest):4d} names ({pool_newest} records)")
    if args.list:
        print("  all-records closure:", " ".join(sorted(full)))
        print("  newest closure:", " ".join(
            f"{n}={chosen[n][0]['version']}" for n in sorted(newest)))
    rc = 1 if problems else 0
    if args.solve:
        exe = os.path.join(root, "build", "bench", "solve_request")
        if not os.path.exists(exe):
            print(f"  --solve: {exe} is not built (see solve_request.c)")
            return 1
        out = subprocess.run([exe, args.channel, "--quiet"], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            print("  libsolv:", line)
        rc = rc or out.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
