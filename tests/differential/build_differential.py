#!/usr/bin/env python3
"""gpuenv build against rattler-build (py-rattler-build in the test-tools venv).

Builds each recipe under build_recipes/ with both, with the same
SOURCE_DATE_EPOCH, offline (the recipes need no channel), and compares for
every package: the file name (name, version, build string), info/index.json
(every key but timestamp), and info/paths.json (per path: path_type, sha256,
size_in_bytes, prefix_placeholder, file_mode, no_link). Every difference is printed;
each must match an entry of the allow-list (build_differential_allow_list.tsv:
recipe, what differs, the docs/spec-deviations.md section that explains it),
else the test fails. Exit 77 (ctest SKIP_RETURN_CODE) when the venv or
rattler-build is missing.
"""
import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

SKIP = 77
EPOCH = "1700000000"
PATH_FIELDS = ("path_type", "sha256", "size_in_bytes", "prefix_placeholder", "file_mode", "no_link")


def read_members(package, prefix):
    """{member name: bytes} of the files in a .conda's info- or pkg- tarball."""
    with zipfile.ZipFile(package) as archive:
        name = next(n for n in archive.namelist() if n.startswith(prefix))
        compressed = archive.read(name)
    tar_bytes = subprocess.run(["zstd", "-dc"], input=compressed, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def without_placeholder(content, placeholder):
    """A prefix file's content with its build's placeholder replaced, so the
    two builders' files compare (their work directories differ)."""
    return hashlib.sha256(content.replace(placeholder.encode(), b"@PREFIX@")).hexdigest()


def packages_in(output_dir):
    """{(subdir, name-version-build): path} of the .conda files built."""
    found = {}
    for path in Path(output_dir).glob("*/*.conda"):
        found[(path.parent.name, path.name[: -len(".conda")])] = path
    return found


def build_with_rattler(venv, recipe, output_dir, env):
    code = ("import sys, warnings, rattler_build\n"
            "warnings.simplefilter('ignore')\n"
            "rattler_build.build_recipes([sys.argv[1]], output_dir=sys.argv[2], test='skip')\n")
    return subprocess.run([str(venv / "bin/python"), "-c", code, str(recipe), str(output_dir)], env=env,
                          capture_output=True, text=True, timeout=300)


def build_with_gpuenv(gpuenv, recipe, output_dir, channel, env):
    return subprocess.run([gpuenv, "build", str(recipe), "--output-dir", str(output_dir), "-c",
                           "file://" + str(channel), "--override-channels"],
                          env=env, capture_output=True, text=True, timeout=300)


def compare_package(ours, theirs):
    """Differences as (what, gpuenv's, rattler-build's). index.json's
    timestamp is left out: rattler-build 0.73 writes the time of the build
    even with SOURCE_DATE_EPOCH set. A prefix placeholder is the builder's
    own work directory: its length and padding are compared, and the
    content of the files holding it with it replaced."""
    differences = []
    mine, reference = read_members(ours, "info-"), read_members(theirs, "info-")
    index_mine = json.loads(mine["info/index.json"])
    index_reference = json.loads(reference["info/index.json"])
    for key in sorted((set(index_mine) | set(index_reference)) - {"timestamp"}):
        if index_mine.get(key) != index_reference.get(key):
            differences.append(("index.json " + key, index_mine.get(key), index_reference.get(key)))
    paths_mine = {p["_path"]: p for p in json.loads(mine["info/paths.json"])["paths"]}
    paths_reference = {p["_path"]: p for p in json.loads(reference["info/paths.json"])["paths"]}
    content_mine = content_reference = None
    for path in sorted(set(paths_mine) | set(paths_reference)):
        if path not in paths_mine or path not in paths_reference:
            differences.append(("paths.json path " + path, path in paths_mine, path in paths_reference))
            continue
        a, b = dict(paths_mine[path]), dict(paths_reference[path])
        if a.get("prefix_placeholder") and b.get("prefix_placeholder"):
            if content_mine is None:
                content_mine, content_reference = read_members(ours, "pkg-"), read_members(theirs, "pkg-")
            placeholder_a, placeholder_b = a.pop("prefix_placeholder"), b.pop("prefix_placeholder")
            shape_a = (len(placeholder_a), "host_env_placehold" in placeholder_a)
            shape_b = (len(placeholder_b), "host_env_placehold" in placeholder_b)
            if shape_a != shape_b:
                differences.append(("paths.json " + path + " prefix_placeholder (length, padded)", shape_a, shape_b))
            content_a = without_placeholder(content_mine[path], placeholder_a)
            content_b = without_placeholder(content_reference[path], placeholder_b)
            if content_a != content_b:
                differences.append(("paths.json " + path + " content with the placeholder replaced", content_a,
                                    content_b))
            for field in ("sha256", "size_in_bytes"):
                a.pop(field, None)
                b.pop(field, None)
        for field in PATH_FIELDS:
            if a.get(field) != b.get(field):
                differences.append(("paths.json " + path + " " + field, a.get(field), b.get(field)))
    return differences


def read_allow_list(path):
    allowed = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        recipe, what, section = line.split("\t")
        allowed[(recipe, what)] = section
    return allowed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuenv", required=True)
    parser.add_argument("--venv", required=True, type=Path)
    parser.add_argument("--recipes", required=True, type=Path)
    parser.add_argument("--allow-list", required=True)
    arguments = parser.parse_args()
    venv_python = arguments.venv / "bin/python"
    if not venv_python.exists() or subprocess.run([str(venv_python), "-c", "import rattler_build"],
                                                  capture_output=True).returncode != 0:
        print("skipped: py-rattler-build is not installed in " + str(arguments.venv) + " (scripts/setup.sh)")
        return SKIP
    if shutil.which("zstd") is None:
        print("skipped: the zstd program is missing (Debian: zstd)")
        return SKIP
    allowed = read_allow_list(arguments.allow_list)
    unexplained, compared = [], 0
    with tempfile.TemporaryDirectory(prefix="gpuenv-build-differential-") as scratch:
        scratch = Path(scratch)
        channel = scratch / "channel"
        for subdir in ("noarch", "linux-64"):
            (channel / subdir).mkdir(parents=True)
            (channel / subdir / "repodata.json").write_text(
                json.dumps({"info": {"subdir": subdir}, "packages": {}, "packages.conda": {}}))
        env = {key: value for key, value in os.environ.items() if not key.startswith(("CONDA", "GPUENV", "RATTLER"))}
        env.update({"SOURCE_DATE_EPOCH": EPOCH, "HOME": str(scratch / "home"), "CONDA_OVERRIDE_CUDA": "",
                    "GPUENV_ROOT_PREFIX": str(scratch / "root"), "GPUENV_CACHE_DIR": str(scratch / "cache"),
                    "RATTLER_CACHE_DIR": str(scratch / "rattler-cache")})
        for recipe_dir in sorted(p for p in arguments.recipes.iterdir() if (p / "recipe.yaml").exists()):
            name = recipe_dir.name
            ours_dir, theirs_dir = scratch / "gpuenv" / name, scratch / "rattler-build" / name
            theirs = build_with_rattler(arguments.venv, recipe_dir / "recipe.yaml", theirs_dir, env)
            if theirs.returncode != 0:
                print(f"{name}: rattler-build failed:\n{theirs.stderr[-3000:]}")
                return 1
            ours = build_with_gpuenv(arguments.gpuenv, recipe_dir, ours_dir, channel, env)
            if ours.returncode != 0:
                print(f"{name}: gpuenv build failed:\n{ours.stderr[-3000:]}")
                return 1
            mine, reference = packages_in(ours_dir), packages_in(theirs_dir)
            differences = []
            for key in sorted(set(mine) | set(reference)):
                if key not in mine or key not in reference:
                    differences.append(("package " + "/".join(key), key in mine, key in reference))
                    continue
                compared += 1
                differences += [(key[1] + ": " + what, a, b) for what, a, b in compare_package(mine[key], reference[key])]
            for what, a, b in differences:
                section = allowed.get((name, what.split(": ", 1)[-1])) or allowed.get((name, what))
                status = "allowed (" + section + ")" if section else "DIFFERENT"
                print(f"{name}: {what}: gpuenv {json.dumps(a)} rattler-build {json.dumps(b)}: {status}")
                if not section:
                    unexplained.append((name, what))
    print(f"compared {compared} packages; {len(unexplained)} unexplained differences")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
