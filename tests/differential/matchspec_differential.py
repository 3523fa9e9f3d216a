#!/usr/bin/env python3
"""MatchSpec: gpuenv against conda itself.

Takes the depends/constrains strings of the real repodata in the testdata
folder, adds mutations of them (the forms users, pinning tools and old
channels write), and asks conda's oracle (../shared/oracle/conda_driver.py)
and gpuenv's driver (gpuenv_spec_driver, the same line protocol) the same
questions: does the text parse, what are its fields and printed forms
(str, conda_build_form, conda_env_form), and does it match real records.

Every difference must be covered by an entry of the allow-list, and every
entry names the docs/spec-deviations.md section that explains it; anything
else fails the test. Exit 77 (ctest SKIP_RETURN_CODE) when the oracle or its
venv is missing.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

SKIP = 77

# Which fields of the oracle's answer are compared. conda's `fields` also
# holds values gpuenv does not keep in the same shape (license, features).
COMPARED_FIELDS = ("name", "version", "build", "channel", "subdir", "build_number", "fn", "url",
                   "md5", "sha256", "exact_name", "exact_version", "exact_build", "strictness",
                   "optional", "conda_build_form", "conda_env_form")

SPEC_SAMPLE = 1500       # real strings (all of them today: the testdata holds ~1,350)
MUTATION_SAMPLE = 3000   # generated strings, a stable sample
RECORDS_PER_SPEC = 3     # records of the same name each spec is matched against


def stable_key(text):
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def stable_sample(items, limit, key=lambda item: item):
    return sorted(items, key=lambda item: stable_key(key(item)))[:limit]


def channel_of(path):
    """The `channel` a record of this repodata file carries, as conda records do."""
    text = str(path)
    if "r_linux-64" in text:
        return "pkgs/r"
    if "main_noarch" in text:
        return "pkgs/main"
    if "conda-forge" in text:
        return "conda-forge"
    return "https://conda.anaconda.org/" + path.parent.name


def read_repodata(testdata):
    """(spec strings, records by name) of every plain repodata JSON file."""
    specs, records = set(), {}
    files = sorted(list((testdata / "repodata").rglob("*.json")) +
                   list((testdata / "channels").rglob("repodata.json")))
    for path in files:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        subdir = (data.get("info") or {}).get("subdir", "")
        for key in ("packages", "packages.conda"):
            for filename, record in sorted((data.get(key) or {}).items()):
                if not isinstance(record, dict) or "name" not in record:
                    continue
                for spec in (record.get("depends") or []) + (record.get("constrains") or []):
                    if isinstance(spec, str):
                        specs.add(spec)
                records.setdefault(record["name"].lower(), []).append({
                    "name": record["name"], "version": str(record.get("version", "")),
                    "build": record.get("build", ""), "build_number": record.get("build_number", 0),
                    "subdir": record.get("subdir", subdir), "channel": channel_of(path), "fn": filename})
    return sorted(specs), records


NAME_RE = re.compile(r"^([A-Za-z0-9_.\-]+)(.*)$")


def mutations(spec):
    """Forms of a real spec that users, tools and old channels write."""
    match = NAME_RE.match(spec)
    if not match:
        return []
    name, rest = match.group(1), match.group(2).strip()
    parts = rest.split()
    version = parts[0] if parts else ""
    build = parts[1] if len(parts) > 1 else ""
    out = [
        f"{name} (optional)", f"{spec} (optional)", f"{name} ({version})", f"{name}(target=x)",
        f"conda-forge::{spec}", f"https://conda.anaconda.org/conda-forge::{spec}",
        f"https://conda.anaconda.org/conda-forge/label/dev::{name}",
        f"{name}[channel='https://conda.anaconda.org/conda-forge/linux-64']",
        f"pkgs/main::{spec}", f"pkgs/r/noarch::{name}", f"*/linux-64::{name}",
        f"conda-forge::{name}[subdir=linux-64]", f" {spec}", f"#{spec}", f"{name}:: {rest}",
        f"{name.upper()}", f"{name}[build_number='=0']", f"{name}[BUILD_NUMBER=0]",
        f"{name} *", f"{name}=*", f"{name}==*",
    ]
    if version:
        plain = version.lstrip("=<>!~")
        out += [
            f"{name}==={plain}", f"{name}=={plain}", f"{name}={plain}", f"{name} {plain}*",
            f"{name}=={plain}.*", f"{name} =={plain} 3", f"{name}[version='={plain}']",
            f"{name}[version='{version}']", f"{name} {version} bld py*", f"{name}={plain}=py* *",
            f"{name} ={plain} | ={plain}*", f"{name} {plain}==", f"{name}>={plain}",
            f"{name} >= {plain}", f"{name} >=  {plain}", f"{name}[version='>={plain}']", f"{name} {plain}.*",
            f"{name}={plain}=0", f"{name} {plain} *", f"{name}[{version}]",
        ]
    if build:
        out += [f"{name} {version} {build}*", f"{name} * {build}", f"{name}[build={build}]"]
    return out


EXTRA_INPUTS = [
    # The classes of issue 10, verbatim.
    "r (optional)", "dask (>=0.9)", "astroid 1.2.1 (optional)", "mkl(target=x)",
    "https://conda.anaconda.org/conda-forge::tk",
    "tk[channel='https://conda.anaconda.org/conda-forge/linux-64']",
    "https://conda.anaconda.org/conda-forge/label/dev::tk", "pkgs/main::idna 2.0",
    "pkgs/r/noarch::scipy", "x===1.0", "x 1.0 bld py*", "x=1.0=py* *", "x =1.0 | =1.1*",
    "NUMPY[VERSION=1.0]", "x[BUILD_NUMBER=0]", "*[MD5=d41d8cd98f00b204e9800998ecf8427e]",
    "#numpy >=1.0", "x 1.0==", "tk:: 8.5*", " numpy", "r ==3.1.2 3", "x[version='=2.14']",
    "numpy 1.7*", "py*", "bar>=1", "jpeg 9*", "dask *", "*/LINUX-64::x", "x[build_number='=0']",
    "conda-forge::x[subdir=foo]", "x ==1.2.*", "x >= 1.0",
]


def match_requests(spec, records):
    match = NAME_RE.match(spec.strip().lstrip("#"))
    if not match:
        return []
    candidates = records.get(match.group(1).lower(), [])
    return stable_sample(candidates, RECORDS_PER_SPEC,
                         key=lambda r: spec + r["channel"] + r["fn"]) if candidates else []


def run_driver(command, requests, env=None, cwd=None):
    text = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(command, input=text, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=300)
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(answers) != len(requests):
        sys.exit(f"{command[0]} answered {len(answers)} of {len(requests)} requests")
    return answers


def differences(request, conda, gpuenv):
    """(what, conda's value, gpuenv's value) for each difference."""
    if conda.get("ok") != gpuenv.get("ok"):
        return [("accepted", conda.get("ok"), gpuenv.get("ok"))]
    if not conda.get("ok"):
        return []
    if request["op"] == "match":
        return [] if conda["r"] == gpuenv["r"] else [("match", conda["r"], gpuenv["r"])]
    out = []
    if conda["str"] != gpuenv["str"]:
        out.append(("str", conda["str"], gpuenv["str"]))
    for field in COMPARED_FIELDS:
        if conda["fields"].get(field) != gpuenv["fields"].get(field):
            out.append((field, conda["fields"].get(field), gpuenv["fields"].get(field)))
    return out


SUBJECTS = ("input", "conda", "gpuenv", "conda_err", "gpuenv_err")


def read_allow_list(path, docs):
    """Entries: what differs (a compared field, `str`, `accepted` or `match`),
    the subject its regex looks at (the input, conda's or gpuenv's value, or
    their error text), the regex (full match), the docs/spec-deviations.md
    section that explains the difference, and a short why."""
    headings = {line.lstrip("#").strip() for line in docs.read_text().splitlines()
                if line.startswith("#")}
    entries = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        what, subject, pattern, section, why = line.split("\t")
        if subject not in SUBJECTS:
            sys.exit(f"{path}:{number}: subject '{subject}' is not one of {SUBJECTS}")
        if section not in headings:
            sys.exit(f"{path}:{number}: no section '{section}' in {docs}")
        entries.append({"what": what, "subject": subject, "re": re.compile(pattern, re.S),
                        "section": section, "why": why, "line": number, "used": 0})
    return entries


def allowed(entries, difference, request, conda, gpuenv):
    what, conda_value, gpuenv_value = difference
    subjects = {"input": request["s"], "conda": str(conda_value), "gpuenv": str(gpuenv_value),
                "conda_err": conda.get("err") or "", "gpuenv_err": gpuenv.get("err") or ""}
    for entry in entries:
        if entry["what"] == what and entry["re"].fullmatch(subjects[entry["subject"]]):
            entry["used"] += 1
            return True
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", required=True)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--oracle", required=True)
    parser.add_argument("--testdata", required=True)
    parser.add_argument("--allow-list", required=True)
    parser.add_argument("--dump", help="write every unexplained difference here (JSON lines)")
    parser.add_argument("--show", type=int, default=40, help="differences printed per kind")
    args = parser.parse_args()

    python = Path(args.venv).absolute() / "bin" / "python"
    oracle = Path(args.oracle).resolve()
    if not python.exists():
        print(f"SKIP: no test-tools venv at {args.venv} (scripts/setup.sh installs it)")
        return SKIP
    if not (oracle / "conda_driver.py").exists():
        print(f"SKIP: conda's oracle is missing at {oracle} (../shared/oracle)")
        return SKIP
    testdata = Path(os.environ.get("GPUENV_TESTDATA") or args.testdata)
    if not (testdata / "repodata").is_dir():
        print(f"SKIP: no repodata under {testdata} (set GPUENV_TESTDATA)")
        return SKIP
    allow_path = Path(args.allow_list)
    docs = Path(__file__).resolve().parents[2] / "docs" / "spec-deviations.md"
    entries = read_allow_list(allow_path, docs)

    real, records = read_repodata(testdata)
    real = stable_sample(real, SPEC_SAMPLE)
    generated = {m for spec in real for m in mutations(spec)} - set(real)
    inputs = real + stable_sample(generated, MUTATION_SAMPLE) + EXTRA_INPUTS
    inputs = list(dict.fromkeys(inputs))
    requests = [{"id": i, "op": "matchspec", "s": s} for i, s in enumerate(inputs)]
    for spec in inputs:
        for record in match_requests(spec, records):
            requests.append({"id": len(requests), "op": "match", "s": spec, "rec": record})

    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"gpuenv-oracle-home-{os.getpid()}"
    home.mkdir(parents=True, exist_ok=True)
    (home / "condarc").write_text("")
    env = {"HOME": str(home), "CONDARC": str(home / "condarc"), "PYTHONPATH": str(oracle),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    conda = run_driver([str(python), str(oracle / "conda_driver.py")], requests, env=env, cwd=home)
    gpuenv = run_driver([str(Path(args.driver).absolute())], requests)

    counts = {"matchspec": [0, 0, 0], "match": [0, 0, 0]}  # same, allowed, failed
    failures, shown = [], {}
    dump = open(args.dump, "w") if args.dump else None
    for request, c, g in zip(requests, conda, gpuenv):
        found = differences(request, c, g)
        bucket = counts[request["op"]]
        if not found:
            bucket[0] += 1
            continue
        unexplained = [d for d in found if not allowed(entries, d, request, c, g)]
        if unexplained:
            bucket[2] += 1
            for what, conda_value, gpuenv_value in unexplained:
                if dump:
                    dump.write(json.dumps({"what": what, "s": request["s"], "rec": request.get("rec"),
                                           "conda": conda_value, "gpuenv": gpuenv_value,
                                           "conda_err": c.get("err"), "gpuenv_err": g.get("err")}) + "\n")
                shown[what] = shown.get(what, 0) + 1
                if shown[what] <= args.show:
                    extra = f" record {request['rec']}" if request["op"] == "match" else ""
                    failures.append(f"  {what}: {request['s']!r}{extra}: conda {conda_value!r}, "
                                    f"gpuenv {gpuenv_value!r}")
        else:
            bucket[1] += 1

    print(f"inputs: {len(inputs)} ({len(real)} from repodata, {len(inputs) - len(real)} generated "
          f"or from issue 10); match questions: {sum(counts['match'])}")
    for op, (same, allow, failed) in counts.items():
        total = max(same + allow + failed, 1)
        print(f"{op}: {same} identical ({100.0 * same / total:.2f}%), {allow} allowed differences, "
              f"{failed} unexplained")
    for entry in entries:
        print(f"  allow-list line {entry['line']} ({entry['section']}): {entry['used']} answers")
    if shown:
        print("differences not in the allow-list (" + str(allow_path) + "), by kind: " +
              ", ".join(f"{what} {count}" for what, count in sorted(shown.items())))
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
