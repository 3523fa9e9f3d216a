#!/usr/bin/env python3
"""Regenerates channelgen/conda_forge_names.txt from ../shared/testdata.

The generator does not read shared/testdata at run time (so that its output
depends on --seed alone); this script is how the list of real conda-forge /
defaults package names it uses was made. Each line is `name<TAB>hint`, where
hint is what the sources say about the package: `r` (an R package), `py` (it
depends on python in the defaults indexes), `lib` (it does not), or `-`.
Sources: conda-forge's pinning (conda_build_config.yaml keys and the
migration_support lists) and the defaults indexes under repodata/conda-tests.
"""
import argparse
import json
import os
import re
import sys

NAME_RE = re.compile(r"[a-z0-9][a-z0-9_.\-]*")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_testdata = os.environ.get(
        "GPUENV_TESTDATA", os.path.join(here, "..", "..", "..", "shared", "testdata"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--testdata", default=default_testdata)
    ap.add_argument("--out", default=os.path.join(here, "channelgen", "conda_forge_names.txt"))
    args = ap.parse_args()
    td = args.testdata

    order = []          # first-seen order, no sets: output must be stable
    hints = {}

    def add(name, hint="-"):
        name = name.strip().lower()
        if not name or not NAME_RE.fullmatch(name):
            return
        if name not in hints:
            order.append(name)
            hints[name] = hint
        elif hints[name] == "-" and hint != "-":
            hints[name] = hint

    ms = os.path.join(td, "pinning", "migration_support")
    for fname in ("arch_rebuild.txt", "osx_arm64.txt", "free-threaded-314.txt",
                  "win_arm64.txt", "linux_riscv64.txt"):
        with open(os.path.join(ms, fname)) as f:
            for line in f:
                line = line.split("#")[0].strip()
                if line:
                    add(line, "py" if fname == "free-threaded-314.txt" else "-")
    with open(os.path.join(ms, "packages_to_migrate_together.yaml")) as f:
        for line in f:
            m = re.match(r"^\s*-?\s*([A-Za-z0-9_.\-]+):?\s*$", line)
            if m:
                add(m.group(1))
    with open(os.path.join(td, "pinning", "conda_build_config.yaml")) as f:
        for line in f:
            m = re.match(r"^([a-z0-9_]+):", line)
            if m:
                # pinning keys spell dashes as underscores; they are mostly C/C++ libraries
                add(m.group(1).replace("_", "-"), "lib")
    for rel in ("r_linux-64.json", "main_noarch.json", "legacy-index/index4.json",
                "legacy-index/index2.json"):
        with open(os.path.join(td, "repodata", "conda-tests", rel)) as f:
            d = json.load(f)
        pk = d.get("packages", d)
        for rec in pk.values():
            if not isinstance(rec, dict) or "name" not in rec:
                continue
            n = rec["name"]
            deps = rec.get("depends") or []
            if n.startswith("r-"):
                hint = "r"
            elif any(x.split()[0] == "python" for x in deps):
                hint = "py"
            else:
                hint = "lib"
            add(n, hint)
    for n in order:
        if n.startswith("r-"):
            hints[n] = "r"
    with open(args.out, "w") as f:
        f.write("# name<TAB>hint; made by bench/channel/extract_names.py from ../shared/testdata\n")
        for n in order:
            f.write(f"{n}\t{hints[n]}\n")
    print(f"{len(order)} names -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
