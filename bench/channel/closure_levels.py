#!/usr/bin/env python3
"""How many dependent round trips a CEP 16 client needs for the benchmark
request: the levels of its dependency closure by name, as a sharded client
walks them (a name's shard is requested once a shard naming it arrived).

Two walks:
- every record of a reached name contributes its dependencies (what gpuenv
  and rattler do);
- only the records that can still be chosen contribute: a record matching a
  spec that reached its name (the request's, or a live record's dependency)
  whose virtual-package dependencies the machine meets (CUDA 12.4, glibc
  2.36). A pruned walk could only save round trips if this one were shorter.

The network floor of a cold run is then the shard index plus one round trip
per level. Python 3 standard library only; uses check_request_closure.py's
version matching.

    bench/channel/closure_levels.py [CHANNEL_DIR]
"""
import fnmatch
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_request_closure as crc  # noqa: E402

MACHINE = {"__cuda": "12.4", "__glibc": "2.36", "__unix": "0", "__linux": "6.1", "__archspec": "1"}


def matches(spec, version):
    try:
        return crc.version_matches(spec, version)
    except (ValueError, IndexError):
        return True  # a spec this reader cannot parse: keep the record (never prune wrongly)


def machine_allows(record):
    for dependency in record["depends"]:
        name, version, _ = crc.split_spec(dependency)
        if name.startswith("__"):
            if name not in MACHINE or (version and not matches(version, MACHINE[name])):
                return False
    return True


def every_record_levels(by_name, roots):
    level = {crc.split_spec(root)[0] for root in roots}
    seen, levels = set(level), []
    while level:
        levels.append(sorted(level))
        following = set()
        for name in level:
            for record in by_name.get(name, []):
                for dependency in record["depends"]:
                    reached = crc.split_spec(dependency)[0]
                    if reached in by_name and reached not in seen:
                        seen.add(reached)
                        following.add(reached)
        level = following
    return levels


def live_record_levels(by_name, roots):
    specs = {}
    for root in roots:
        name, _, version = root.partition("=")
        specs.setdefault(name, []).append((version, ""))
    fetched, live, levels = set(), set(), []
    pending = {name for name in specs if name in by_name}
    while pending:
        levels.append(sorted(pending))
        fetched |= pending
        pending = set()
        changed = True
        while changed:
            changed = False
            for name in list(fetched):
                for index, record in enumerate(by_name[name]):
                    if (name, index) in live or not machine_allows(record):
                        continue
                    if not any((not v or matches(v, record["version"])) and
                               (not b or fnmatch.fnmatchcase(record["build"], b)) for v, b in specs.get(name, [])):
                        continue
                    live.add((name, index))
                    changed = True
                    for dependency in record["depends"]:
                        reached, version, build = crc.split_spec(dependency)
                        if reached.startswith("__"):
                            continue
                        if (version, build) not in specs.setdefault(reached, []):
                            specs[reached].append((version, build))
                        if reached in by_name and reached not in fetched:
                            pending.add(reached)
    return levels, len(live)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    channel = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "build", "bench", "channel")
    problems = []
    records, _ = crc.load_channel(channel, problems)
    by_name = crc.index_by_name(records)
    with open(os.path.join(channel, "request.txt")) as f:
        roots = [line.strip() for line in f if line.strip()]
    levels = every_record_levels(by_name, roots)
    print(f"every record: {len(levels)} levels, names per level {[len(level) for level in levels]}, "
          f"{sum(len(by_name[name]) for level in levels for name in level)} records")
    for depth, level in enumerate(levels):
        print(f"  {depth}: {' '.join(level[:10])}{' ...' if len(level) > 10 else ''}")
    live_levels, live = live_record_levels(by_name, roots)
    print(f"live records only: {len(live_levels)} levels, names per level {[len(level) for level in live_levels]}, "
          f"{live} live records")


if __name__ == "__main__":
    main()
