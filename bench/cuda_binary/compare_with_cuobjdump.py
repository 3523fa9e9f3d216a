#!/usr/bin/env python3
"""Compares `gpuenv inspect` with NVIDIA's cuobjdump, file by file.

For every file: the machine-code (ELF) and PTX entries of the fatbins the CUDA
runtime registers (.nv_fatbin, __nv_relfatbin) must be the same multiset of
architectures as `cuobjdump --list-elf --list-ptx` lists, and the PTX ISA
versions the same multiset as the `.version` lines of `cuobjdump --dump-ptx`.
Entries gpuenv finds elsewhere (fatbins kept in data sections, which cuobjdump
does not list) are reported apart, and proven by writing their containers out
as one .fatbin file that cuobjdump then lists on its own.

  compare_with_cuobjdump.py --gpuenv build/dev/src/cli/gpuenv \
      --cuobjdump $(python3 -c 'import nvidia.cu13, os; print(os.path.dirname(nvidia.cu13.__file__))')/bin/cuobjdump \
      [FILES...]   (default: every regular file in /usr/local/cuda/lib64)
Exit status 0 when everything matches.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

CUOBJDUMP_NAME = re.compile(r"^(ELF|PTX) file\s+\d+: .*\.(sm_\d+[af]?)\.(cubin|ptx)$")


def cuobjdump_list(cuobjdump, path):
    run = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", path], capture_output=True, text=True)
    listed = collections.Counter()
    for line in run.stdout.splitlines():
        match = CUOBJDUMP_NAME.match(line.strip())
        if match:
            listed[(match.group(1).lower(), match.group(2))] += 1
    return listed, run.returncode, run.stderr.strip()


def cuobjdump_ptx_versions(cuobjdump, path):
    run = subprocess.run([cuobjdump, "--dump-ptx", path], capture_output=True, text=True, errors="replace")
    return collections.Counter(m.group(1) for m in re.finditer(r"^\.version (\d+\.\d+)", run.stdout, re.M))


def gpuenv_entries(gpuenv, path, registered_only):
    command = [gpuenv, "inspect", "--json", "--entries", path]
    if registered_only:
        command.insert(2, "--registered-only")
    run = subprocess.run(command, capture_output=True, text=True)
    document = json.loads(run.stdout)
    if document["errors"]:
        raise RuntimeError(document["errors"][0]["message"])
    return document["files"][0]["entries"]


def as_cuobjdump_names(entries):
    """cuobjdump's spelling: family machine code (sm_100f) is listed as sm_100."""
    listed = collections.Counter()
    for entry in entries:
        if entry["kind"] == "sass":
            listed[("elf", re.sub(r"f$", "", entry["arch"]))] += 1
        elif entry["kind"] == "ptx":
            listed[("ptx", entry["arch"].replace("compute_", "sm_"))] += 1
    return listed


def prove_scanned(gpuenv, cuobjdump, path, scanned):
    """Writes the containers found by scanning into one .fatbin and lists it with cuobjdump."""
    wanted_offsets = {format(e["container_offset"], "x") for e in scanned}
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run([gpuenv, "inspect", "--extract-containers", directory, path], capture_output=True, check=True)
        wanted = [part for part in sorted(glob.glob(os.path.join(directory, "*.fatbin")))
                  if part.rsplit(".", 2)[-2] in wanted_offsets]
        joined = os.path.join(directory, "scanned.fatbin.all")
        with open(joined, "wb") as out:
            for part in wanted:
                with open(part, "rb") as f:
                    out.write(f.read())
        listed, _, _ = cuobjdump_list(cuobjdump, joined)
        return listed, len(wanted)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpuenv", required=True)
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--no-ptx-versions", action="store_true", help="skip the --dump-ptx comparison")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(
        p for p in glob.glob("/usr/local/cuda/lib64/*") if os.path.isfile(p) and not os.path.islink(p))
    mismatches = 0
    for path in files:
        registered = gpuenv_entries(args.gpuenv, path, True)
        everything = gpuenv_entries(args.gpuenv, path, False)
        ours = as_cuobjdump_names(registered)
        theirs, _, _ = cuobjdump_list(args.cuobjdump, path)
        status = "same" if ours == theirs else "DIFFERENT"
        detail = f"{sum(theirs.values())} entries ({len([k for k in theirs if k[0] == 'elf'])} SASS archs, " \
                 f"{len([k for k in theirs if k[0] == 'ptx'])} PTX archs)"
        if ours != theirs:
            mismatches += 1
            detail += f"; only gpuenv: {dict(ours - theirs)}; only cuobjdump: {dict(theirs - ours)}"
        ptx_ours = collections.Counter(e["ptx_isa"] for e in registered if e["kind"] == "ptx")
        if ptx_ours and not args.no_ptx_versions:
            ptx_theirs = cuobjdump_ptx_versions(args.cuobjdump, path)
            if ptx_ours == ptx_theirs:
                detail += f"; PTX ISA versions same ({dict(ptx_ours)})"
            else:
                mismatches += 1
                status = "DIFFERENT"
                detail += f"; PTX ISA versions differ: gpuenv {dict(ptx_ours)}, cuobjdump {dict(ptx_theirs)}"
        print(f"{status:9} {os.path.basename(path)}: {detail}")
        scanned = [e for e in everything if not e["registered"]]
        if scanned:
            proven, containers = prove_scanned(args.gpuenv, args.cuobjdump, path, scanned)
            expected = as_cuobjdump_names(scanned)
            verdict = "confirmed by cuobjdump" if proven == expected else "NOT confirmed"
            if proven != expected:
                mismatches += 1
                verdict += f" (only gpuenv: {dict(expected - proven)}; only cuobjdump: {dict(proven - expected)})"
            kinds = collections.Counter(e["kind"] for e in scanned)
            print(f"          beyond cuobjdump: {len(scanned)} entries {dict(kinds)} in {containers} containers "
                  f"not registered ({sorted({e['location'] for e in scanned})}); {verdict}")
    print(f"{len(files)} files, {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
