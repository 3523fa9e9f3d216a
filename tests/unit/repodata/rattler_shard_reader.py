"""What py-rattler's Gateway reads from a channel's sharded repodata (CEP 16)
(channel_index_rattler_test.cpp): the channel is served over HTTP without
repodata.json, so rattler can only have used the shards gpuenv index wrote.

Reads one JSON request on stdin:
  {"url": CHANNEL_URL, "platform": "linux-64", "specs": [...]}
and prints one JSON answer on stdout:
  {"records": [record, ...]}    # every record the Gateway returned (recursive query)
or {"error": "..."} when rattler refused something (exit status 1).
"""

import asyncio
import json
import sys
import tempfile

import rattler


async def answer(request):
    with tempfile.TemporaryDirectory() as cache:
        gateway = rattler.Gateway(cache_dir=cache, default_config=rattler.SourceConfig(sharded_enabled=True))
        per_subdir = await gateway.query(
            [rattler.Channel(request["url"])], [request["platform"], "noarch"], request["specs"], recursive=True
        )
    records = []
    for subdir in per_subdir:
        for record in subdir:
            records.append(json.loads(record.to_json()) | {"url": record.url})
    return {"records": records}


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
