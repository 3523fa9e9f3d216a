"""rattler's answers for the conditional-dependency differential test.

Reads a JSON list of requests on stdin, each {"channel": path, "specs": [...],
"virtual_packages": [[name, version], ...], "platform": "linux-64"}, solves
each with py-rattler (which reads CEP 43 `when` and CEP 44 `extras`), and
prints a JSON list of answers: {"packages": ["name version build", ...]} or
{"error": "..."}.
"""
import asyncio
import json
import sys

import rattler
from rattler import BuildString, GenericVirtualPackage, PackageName, Platform, Version


async def solve(request):
    virtual = [GenericVirtualPackage(PackageName(name), Version(version), BuildString("0"))
               for name, version in request["virtual_packages"]]
    try:
        records = await rattler.solve(sources=["file://" + request["channel"]], specs=request["specs"],
                                      platforms=[Platform(request["platform"]), Platform("noarch")],
                                      virtual_packages=virtual)
    except Exception as error:  # rattler's own refusal is an answer too
        return {"error": str(error)}
    return {"packages": sorted(f"{r.name.normalized} {r.version} {r.build}" for r in records)}


async def main():
    requests = json.load(sys.stdin)
    print(json.dumps([await solve(request) for request in requests]))


asyncio.run(main())
