"""rattler-build's variants of recipes, for variants_differential_test.cpp.
Reads a list of {"recipe" (a path) or "recipe_text", "variant_files": [paths,
merged in order; conda_build_config* in conda-build's format], "platform",
"environment": {name: value} set while rendering} on stdin and prints, for each, {"variants": [{"output", "variant",
"build_string", "hash"}, ...]} in rattler-build's order, or {"error"}."""
import json
import os
import sys

from rattler_build import PlatformConfig, RenderConfig, Stage0Recipe, VariantConfig
from rattler_build.jinja_config import JinjaConfig


BASE_ENVIRONMENT = {name: value for name, value in os.environ.items() if name in ("HOME", "PATH", "LANG", "TMPDIR")}


def variant_config(files, platform_config):
    config = None
    for path in files:
        jinja = JinjaConfig(platform=platform_config)
        if os.path.basename(path).startswith("conda_build_config"):
            loaded = VariantConfig.from_conda_build_config(path, jinja)
        else:
            loaded = VariantConfig.from_file_with_context(path, jinja)
        config = loaded if config is None else config.merge(loaded)
    return config if config is not None else VariantConfig()


def answer(request):
    os.environ.clear()
    os.environ.update(BASE_ENVIRONMENT)
    os.environ.update(request.get("environment") or {})
    try:
        platform = request["platform"]
        platform_config = PlatformConfig(target_platform=platform, build_platform=platform, host_platform=platform)
        recipe = (Stage0Recipe.from_yaml(request["recipe_text"]) if "recipe_text" in request
                  else Stage0Recipe.from_file(request["recipe"]))
        rendered = recipe.render(variant_config(request["variant_files"], platform_config),
                                 RenderConfig(platform=platform_config))
        result = []
        for each in rendered:
            d = each.recipe.to_dict()
            result.append({"output": d["package"]["name"], "variant": dict(each.variant),
                           "build_string": (d.get("build") or {}).get("string"), "hash": each.hash_info.hash})
        return {"variants": result}
    except Exception as error:  # noqa: BLE001 - refusals are answers
        return {"error": str(error)}


print(json.dumps([answer(request) for request in json.load(sys.stdin)]))
