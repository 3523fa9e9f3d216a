#!/usr/bin/env python3
"""Copies a generated benchmark channel with CEP 43 conditions on its dependencies.

For the solve-time figure with and without conditions (docs/conditional-dependencies.md):
every Nth dependency of every record gets a `when` -- alternately on a virtual
package (`__cuda>=12`, decided by the machine) and on a package
(`python>=3.10`, decided by the solution) -- and moves to the record's `v3`
section, as CEP 48 publishes such records. Python 3 standard library only.

    python3 bench/channel/add_conditions.py build/bench/channel-100k build/bench/channel-100k-when --every 5
"""
import argparse
import json
import os
import re

CONDITIONS = ['__cuda>=12', 'python>=3.10']


def conditional(dependency, n):
    # `name version build` -> `name[version=..., build=..., when=...]`; CEP 48
    # asks for the bracket form in v3 records.
    parts = dependency.split()
    fields = []
    if len(parts) > 1 and parts[1] != '*':
        fields.append(f"version='{parts[1]}'")
    if len(parts) > 2 and parts[2] != '*':
        fields.append(f"build='{parts[2]}'")
    fields.append(f'when="{CONDITIONS[n % len(CONDITIONS)]}"')
    return f"{parts[0]}[{','.join(fields)}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--every', type=int, default=5, help='condition every Nth dependency (default 5)')
    args = ap.parse_args()
    count = 0
    for subdir in ('linux-64', 'noarch'):
        with open(os.path.join(args.source, subdir, 'repodata.json')) as f:
            repodata = json.load(f)
        v3 = {'conda': {}, 'tar.bz2': {}}
        for section, extension in (('packages', 'tar.bz2'), ('packages.conda', 'conda')):
            for filename in list(repodata.get(section, {})):
                record = repodata[section][filename]
                depends = record.get('depends', [])
                changed = False
                for i, dependency in enumerate(depends):
                    if re.match(r'^__', dependency) or (count + i) % args.every != 0:
                        continue
                    depends[i] = conditional(dependency, count + i)
                    changed = True
                count += len(depends)
                if changed:
                    v3[extension][filename[: -len(extension) - 1]] = repodata[section].pop(filename)
        repodata['v3'] = v3
        os.makedirs(os.path.join(args.out, subdir), exist_ok=True)
        with open(os.path.join(args.out, subdir, 'repodata.json'), 'w') as f:
            json.dump(repodata, f, sort_keys=True, separators=(',', ':'))
    print(f'{count} dependencies, every {args.every}th conditional -> {args.out}')


if __name__ == '__main__':
    main()
