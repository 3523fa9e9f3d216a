#!/usr/bin/env python3
"""Generates the install benchmark's channel (issue 5).

100 real .conda packages chained by dependencies (perf-000 depends on
perf-001, ... , perf-099), 200 files each: 20,000 files, about 350 MB of
mostly incompressible data, 10% of the files text with the prefix
placeholder (paths.json file_mode text), the way conda-build writes them.
Installing `perf-000` therefore installs all 100.

Python 3 standard library plus the `zstd` command line tool (scripts/setup.sh
installs it). The output is a function of --seed and the options only.

    python3 bench/install/generate_install_channel.py [--out DIR] [--packages N]
"""
import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import tarfile
import zipfile

PLACEHOLDER = "/opt/anaconda1anaconda2anaconda3"
FILES_PER_PACKAGE = 200
TEXT_EVERY = 10            # every 10th file is a text file with the placeholder
BINARY_SIZE = 19_400       # 350 MB over the 18,000 binary files
MTIME = 1_700_000_000


def tar_zst(members):
    """members: list of (path, bytes, mode) -> bytes of a .tar.zst."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data, mode in members:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = mode
            info.mtime = MTIME
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    # Level 3, as conda-build's default for .conda inner archives is fast
    # enough to generate; the payload is incompressible anyway.
    return subprocess.run(["zstd", "-q", "-3", "-c"], input=raw.getvalue(),
                          check=True, stdout=subprocess.PIPE).stdout


def package_files(rng, index):
    files = []
    for f in range(FILES_PER_PACKAGE):
        directory = f"lib/perf{index:03d}/d{f // 20}"
        if f % TEXT_EVERY == 0:
            lines = [f"# perf{index:03d} file {f}: a script that knows its prefix\n",
                     f"PREFIX={PLACEHOLDER}\n",
                     f"export PATH={PLACEHOLDER}/bin:$PATH\n"]
            lines += [f"echo {rng.getrandbits(64):016x} {PLACEHOLDER}/lib\n" for _ in range(40)]
            files.append((f"{directory}/script{f}.sh", "".join(lines).encode(), 0o755, True))
        else:
            files.append((f"{directory}/data{f}.bin", rng.randbytes(BINARY_SIZE), 0o644, False))
    return files


def write_package(out_dir, index, count, rng):
    name = f"perf-{index:03d}"
    version, build = "1.0", "0"
    stem = f"{name}-{version}-{build}"
    depends = [f"perf-{index + 1:03d} >=1.0"] if index + 1 < count else []
    files = package_files(rng, index)

    index_json = {"name": name, "version": version, "build": build, "build_number": 0,
                  "depends": depends, "license": "MIT", "subdir": "linux-64",
                  "arch": "x86_64", "platform": "linux", "timestamp": MTIME * 1000}
    paths = []
    for path, data, _mode, is_text in files:
        entry = {"_path": path, "path_type": "hardlink",
                 "sha256": hashlib.sha256(data).hexdigest(), "size_in_bytes": len(data)}
        if is_text:
            entry.update({"prefix_placeholder": PLACEHOLDER, "file_mode": "text"})
        paths.append(entry)
    info_members = [
        ("info/index.json", json.dumps(index_json, indent=2, sort_keys=True).encode(), 0o644),
        ("info/paths.json", json.dumps({"paths": paths, "paths_version": 1}, indent=2).encode(), 0o644),
        ("info/files", "".join(p[0] + "\n" for p in files).encode(), 0o644),
        ("info/has_prefix", "".join(f"{PLACEHOLDER} text {p[0]}\n" for p in files if p[3]).encode(), 0o644),
    ]
    pkg_members = [(path, data, mode) for path, data, mode, _ in files]

    target = os.path.join(out_dir, "linux-64", stem + ".conda")
    with zipfile.ZipFile(target + ".part", "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
        archive.writestr(f"pkg-{stem}.tar.zst", tar_zst(pkg_members))
        archive.writestr(f"info-{stem}.tar.zst", tar_zst(info_members))
    os.replace(target + ".part", target)

    with open(target, "rb") as handle:
        data = handle.read()
    record = dict(index_json)
    record.update({"md5": hashlib.md5(data).hexdigest(), "sha256": hashlib.sha256(data).hexdigest(),
                   "size": len(data)})
    return stem + ".conda", record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/bench/install-channel")
    parser.add_argument("--packages", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    for subdir in ("linux-64", "noarch"):
        os.makedirs(os.path.join(args.out, subdir), exist_ok=True)
    records = {}
    for index in range(args.packages):
        filename, record = write_package(args.out, index, args.packages, rng)
        records[filename] = record
    for subdir, packages in (("linux-64", records), ("noarch", {})):
        repodata = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": packages,
                    "removed": [], "repodata_version": 1}
        with open(os.path.join(args.out, subdir, "repodata.json"), "w") as handle:
            json.dump(repodata, handle, indent=1, sort_keys=True)
    total = sum(r["size"] for r in records.values())
    print(f"{len(records)} packages, {len(records) * FILES_PER_PACKAGE} files, "
          f"{total / 1e6:.1f} MB of .conda files in {args.out}")


if __name__ == "__main__":
    main()
