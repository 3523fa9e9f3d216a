#!/usr/bin/env python3
"""gpuenv generate-recipe pypi against rattler-build's generator (py-rattler-build
in the test-tools venv), on real PyPI packages: Dask's and distributed's
dependency tree and its neighbours.

For each package both write a recipe for PyPI's latest release; compared:
  version, sha256, the sdist's file name (the url's last part, version
  substituted), the noarch decision, and the run requirements: names after
  the conda name mapping (rattler-build is asked without its mapping, which
  cannot be fetched offline; gpuenv's mapping is applied to its names here),
  and each name's version constraints as a set of conda constraints.
Every recipe gpuenv writes must lint clean (with the project's variant
config: stdlib('c') and python_min come from it, as from conda-forge's). Every difference must match an allow-list entry (generate_recipe_allow_list.tsv:
package or *, field, the reason -- each reason is a documented improvement in
docs/generate-recipe.md), else the run fails. Needs the network to PyPI: run
with GPUENV_PYPI_DIFFERENTIAL=1 (ctest skips it, exit 77, otherwise).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77
PACKAGES = [
    # dask and distributed, and what they need at run time, recursively
    "dask", "distributed", "click", "cloudpickle", "fsspec", "packaging", "partd", "pyyaml", "toolz",
    "importlib-metadata", "zipp", "jinja2", "markupsafe", "locket", "msgpack", "psutil", "sortedcontainers",
    "tblib", "tornado", "zict", "urllib3",
    # their optional extras' and neighbours' packages
    "six", "python-dateutil", "idna", "requests", "charset-normalizer", "tzdata", "narwhals", "xyzservices",
    "attrs", "platformdirs", "filelock", "typing-extensions", "lz4", "bokeh",
]


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def load_mapping(path):
    mapping = {}
    for line in Path(path).read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("pypi_name\t"):
            continue
        pypi, conda, _ = line.split("\t", 2)
        mapping[pypi] = conda
    return mapping


def conda_constraints(specifiers):
    """PEP 440 specifiers as a set of conda constraints (what gpuenv writes)."""
    out = set()
    for part in specifiers.replace(" ", "").split(","):
        if not part:
            continue
        if part.startswith("~="):
            version = part[2:]
            numbers = [int(n) for n in re.match(r"[\d.]+", version).group(0).strip(".").split(".")]
            upper = numbers[:-1]
            upper[-1] += 1
            out |= {">=" + version, "<" + ".".join(map(str, upper))}
        elif part.startswith("===" ):
            out.add("==" + part[3:])
        elif part.startswith("==") and part.endswith(".*"):
            out.add(part[2:])
        else:
            out.add(part)
    return out


def split_requirement(text):
    """'name >=1,<2' -> (name, specifier text)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)", text)
    return match.group(1), match.group(3).strip()


def rattler_recipe(venv, package):
    code = ("import sys; from rattler_build import _rattler_build as r; "
            "print(r.generate_pypi_recipe_string_py(sys.argv[1], use_mapping=False))")
    done = subprocess.run([str(venv / "bin/python"), "-c", code, package], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
    return done.stdout, None


def load_yaml(venv, text):
    code = ("import sys, json; from ruamel.yaml import YAML; "
            "print(json.dumps(YAML(typ='safe').load(sys.stdin.read()), default=str))")
    done = subprocess.run([str(venv / "bin/python"), "-c", code], input=text, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def summary(recipe, mapping, own_names):
    """What is compared, from a parsed recipe."""
    source = recipe["source"][0] if isinstance(recipe["source"], list) else recipe["source"]
    urls = source["url"] if isinstance(source["url"], list) else [source["url"]]
    version = str(recipe["context"]["version"])
    run = {}
    for entry in recipe.get("requirements", {}).get("run", []) or []:
        if isinstance(entry, dict):  # a selector: judged per Python, compared by name
            entry = entry["then"]
        name, specifiers = split_requirement(entry)
        if name == "python":
            continue
        conda = name if own_names else mapping.get(normalize(name), normalize(name))
        run[conda] = sorted(conda_constraints(specifiers) if not own_names else
                            {c for c in specifiers.replace(" ", "").split(",") if c})
    return {
        "version": version,
        "sha256": source["sha256"],
        "file": urls[0].rsplit("/", 1)[-1].replace("${{ version }}", version),
        "noarch": recipe.get("build", {}).get("noarch") == "python",
        "run": run,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuenv", required=True)
    parser.add_argument("--venv", required=True, type=Path)
    parser.add_argument("--mapping", required=True)
    parser.add_argument("--variants", required=True, help="the variant config recipes are linted with")
    parser.add_argument("--allow-list", required=True)
    parser.add_argument("--report", help="write the comparison as JSON here")
    parser.add_argument("packages", nargs="*")
    args = parser.parse_args()
    if os.environ.get("GPUENV_PYPI_DIFFERENTIAL") != "1" and not args.packages:
        print("skipped: set GPUENV_PYPI_DIFFERENTIAL=1 to compare against rattler-build on PyPI (network)")
        return SKIP
    if not (args.venv / "bin/python").exists():
        print(f"skipped: no test-tools venv at {args.venv}")
        return SKIP
    mapping = load_mapping(args.mapping)
    allowed = []
    for line in Path(args.allow_list).read_text().splitlines():
        if line and not line.startswith("#"):
            package, field, _reason = line.split("\t", 2)
            allowed.append((package, field))
    packages = args.packages or PACKAGES
    unexplained = []
    report = {}
    with tempfile.TemporaryDirectory() as work:
        for package in packages:
            theirs_text, why = rattler_recipe(args.venv, package)
            ours_run = subprocess.run([args.gpuenv, "generate-recipe", "pypi", package, "--output-dir", work,
                                       "--overwrite", "--json"], capture_output=True, text=True, timeout=600)
            if ours_run.returncode != 0:
                unexplained.append(f"{package}: gpuenv failed: {ours_run.stderr.strip()}")
                continue
            written = json.loads(ours_run.stdout)["written"][0]
            lint = subprocess.run([args.gpuenv, "lint", "-m", args.variants, str(Path(written["recipe"]).parent)],
                                  capture_output=True, text=True)
            if lint.returncode != 0 or "0 errors, 0 warnings" not in lint.stdout:
                unexplained.append(f"{package}: gpuenv lint: {lint.stdout.strip()}")
            ours = summary(load_yaml(args.venv, Path(written["recipe"]).read_text()), mapping, True)
            entry = {"ours": ours}
            if theirs_text is None:
                entry["theirs_error"] = why
                differences = [("rattler-build", why)]
            else:
                theirs = summary(load_yaml(args.venv, theirs_text), mapping, False)
                entry["theirs"] = theirs
                differences = []
                for field in ("version", "sha256", "file", "noarch"):
                    if ours[field] != theirs[field]:
                        differences.append((field, f"gpuenv {ours[field]!r}, rattler-build {theirs[field]!r}"))
                for name in sorted(set(ours["run"]) | set(theirs["run"])):
                    if name not in theirs["run"]:
                        differences.append(("run-extra", f"gpuenv has {name} {ours['run'][name]}"))
                    elif name not in ours["run"]:
                        differences.append(("run-missing", f"rattler-build has {name} {theirs['run'][name]}"))
                    elif set(ours["run"][name]) != set(theirs["run"][name]):
                        differences.append(("run-version", f"{name}: gpuenv {ours['run'][name]}, rattler-build "
                                                           f"{theirs['run'][name]}"))
            entry["differences"] = [f"{field}: {text}" for field, text in differences]
            report[package] = entry
            status = "same" if not differences else "differs"
            print(f"{package:22} {ours['version']:12} noarch={str(ours['noarch']):5} run={len(ours['run']):2}  {status}")
            for field, text in differences:
                explained = any(p in (package, "*") and f == field for p, f in allowed)
                print(f"    {'allowed' if explained else 'UNEXPLAINED'} {field}: {text}")
                if not explained:
                    unexplained.append(f"{package}: {field}: {text}")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=2))
    same = sum(1 for entry in report.values() if not entry["differences"])
    print(f"{len(report)} packages: {same} the same, {len(report) - same} with differences, "
          f"{len(unexplained)} unexplained")
    for line in unexplained:
        print("UNEXPLAINED", line)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
