"""rattler-build's render of recipes, each for one platform and variant, as
JSON, for rattler_differential_test.cpp. Reads a list of {"recipe",
"platform", "variant", "specs"} on stdin (one process for all: starting
Python is most of the cost); prints a list of {"outputs": [...],
"normalized": {spec: printed}} or {"error": message} ("recipe_text" may
stand for "recipe": the recipe itself). A request
{"expression", "platform"} instead renders that `${{ }}` expression in a
small recipe (the context of expression_cases.hpp) and answers {"printed"}
or {"error"}. `normalized` is how rattler prints each of gpuenv's
match spec strings, so the two sides compare in one dialect."""
import json
import os
import sys

import rattler
from rattler_build import PlatformConfig, RenderConfig, Stage0Recipe, VariantConfig


def dependency(item):
    if isinstance(item, dict):
        (kind, pin), = item.items()
        return f"{kind}:{pin['name']}"
    return str(item)


def output_of(rendered):
    d = rendered.recipe.to_dict()
    requirements = d.get("requirements") or {}
    run_exports = requirements.get("run_exports") or {}
    ignore = requirements.get("ignore_run_exports") or {}
    sources = []
    for source in d.get("source") or []:
        url = source.get("url")
        sources.append({"url": url if isinstance(url, list) else ([url] if url else []),
                        "sha256": source.get("sha256"), "md5": source.get("md5"),
                        "git": source.get("git"), "path": source.get("path"),
                        "patches": source.get("patches") or [],
                        "target_directory": source.get("target_directory")})
    about = d.get("about") or {}
    return {
        "name": d["package"]["name"],
        "version": str(d["package"]["version"]),
        "number": (d.get("build") or {}).get("number", 0),
        "noarch": (d.get("build") or {}).get("noarch"),
        "requirements": {key: [dependency(x) for x in requirements.get(key) or []]
                         for key in ("build", "host", "run", "run_constraints")},
        "run_exports": {key: [dependency(x) for x in run_exports.get(key) or []]
                        for key in ("weak", "strong", "noarch", "weak_constraints", "strong_constraints")},
        "ignore_run_exports": {key: ignore.get(key) or [] for key in ("by_name", "from_package")},
        "sources": sources,
        "about": {key: about.get(key) for key in ("summary", "license", "homepage", "repository", "documentation")},
        "tests": [next(iter(test)) for test in d.get("tests") or []],
    }


EXPRESSION_RECIPE = """context:
  version: "1.2.3"
  name: foo
  lst: [1, 2, 3]
  num: 5
  flag: true
package:
  name: testpkg
  version: "1.0"
about:
  summary: %s
"""
EXPRESSION_VARIANT = {"cuda_compiler_version": "12.9", "c_compiler": "gcc", "c_compiler_version": "13",
                      "c_stdlib": "sysroot", "c_stdlib_version": "2.17", "cuda_compiler": "cuda-nvcc"}


def expression_answer(request):
    os.environ["HOME"] = "/root"
    for name in ("NOPE", "NOPE_X"):
        os.environ.pop(name, None)
    try:
        recipe = Stage0Recipe.from_yaml(EXPRESSION_RECIPE % json.dumps("${{ " + request["expression"] + " }}"))
        variants = "".join(f"{key}: [{json.dumps(value)}]\n" for key, value in EXPRESSION_VARIANT.items())
        platform = request["platform"]
        config = RenderConfig(platform=PlatformConfig(target_platform=platform, build_platform=platform,
                                                      host_platform=platform))
        rendered = recipe.render(VariantConfig.from_yaml(variants), config)
        return {"printed": rendered[0].recipe.to_dict()["about"].get("summary", "")}
    except Exception as error:  # noqa: BLE001 - refusals are answers
        return {"error": str(error)}


def answer(request):
    if "expression" in request:
        return expression_answer(request)
    normalized = {}
    for spec in request.get("specs", []):
        try:
            normalized[spec] = str(rattler.MatchSpec(spec))
        except Exception as error:  # noqa: BLE001 - reported, not fatal
            normalized[spec] = f"invalid: {error}"
    try:
        recipe = (Stage0Recipe.from_yaml(request["recipe_text"]) if "recipe_text" in request
                  else Stage0Recipe.from_file(request["recipe"]))
        variants = "".join(f"{key}: [{json.dumps(value)}]\n" for key, value in request["variant"].items())
        platform = request["platform"]
        config = RenderConfig(platform=PlatformConfig(target_platform=platform, build_platform=platform,
                                                      host_platform=platform))
        rendered = recipe.render(VariantConfig.from_yaml(variants) if variants else VariantConfig(), config)
        return {"outputs": [output_of(r) for r in rendered], "normalized": normalized}
    except Exception as error:  # noqa: BLE001 - the test compares refusals too
        return {"error": str(error), "normalized": normalized}


print(json.dumps([answer(request) for request in json.load(sys.stdin)]))
