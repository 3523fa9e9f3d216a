"""What py-rattler makes of a channel gpuenv indexed (channel_index_rattler_test.cpp).

Reads one JSON request on stdin:
  {"channel": DIR, "subdirs": [...], "archives": [PATH, ...], "specs": [...], "platform": "linux-64"}
and prints one JSON answer on stdout:
  {"repodata": {subdir: [record, ...]},     # rattler's strict parse of DIR/<subdir>/repodata.json
   "archives": {file name: record},          # rattler's own record for each package file
                                            # (its md5 from hashlib: rattler computes only sha256)
   "solution": [record, ...]}                # rattler's solve of `specs` from the channel
or {"error": "..."} when rattler refused something (exit status 1).
"""

import asyncio
import hashlib
import json
import pathlib
import sys
import tempfile

import rattler


def as_dict(record):
    return json.loads(record.to_json())


async def answer(request):
    channel_dir = pathlib.Path(request["channel"]).resolve()
    channel = rattler.Channel(channel_dir.as_uri())
    repodata = {}
    for subdir in request["subdirs"]:
        parsed = rattler.RepoData.from_path(str(channel_dir / subdir / "repodata.json"))
        repodata[subdir] = [as_dict(record) for record in parsed.into_repo_data(channel)]
    archives = {}
    for path in request["archives"]:
        record = await rattler.RepoDataRecord.from_package_archive(path)
        fields = as_dict(record)
        if fields.get("md5") is None:
            fields["md5"] = hashlib.md5(pathlib.Path(path).read_bytes()).hexdigest()
        archives[pathlib.Path(path).name] = fields
    with tempfile.TemporaryDirectory() as cache:
        solution = await rattler.solve(
            sources=[channel],
            specs=request["specs"],
            gateway=rattler.Gateway(cache_dir=cache),
            platforms=[request["platform"], "noarch"],
            virtual_packages=[],
        )
    return {
        "repodata": repodata,
        "archives": archives,
        "solution": [as_dict(record) | {"url": record.url} for record in solution],
    }


def main():
    request = json.load(sys.stdin)
    try:
        result = asyncio.run(answer(request))
    except Exception as error:  # report rattler's refusal to the test
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
