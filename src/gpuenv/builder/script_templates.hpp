// `${{ }}` in inline script lines, rendered when the build runs, as
// rattler-build does: the names are the recipe's context, the variant's keys,
// the platform selectors (unix, linux, ...) and the variables the script
// gets (PREFIX, SRC_DIR, PKG_VERSION, ...), plus PYTHON, the host
// environment's interpreter ($PREFIX/bin/python) -- so conda-forge's
// `${{ PYTHON }} -m pip install . -vv` works.
//
// Unlike rattler-build, a name that is not defined is an error, as
// everywhere else in a recipe (docs/spec-deviations.md): a misspelt name
// would otherwise become an empty word in a shell command.
#pragma once

#include <expected>
#include <map>
#include <string>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

struct ScriptTemplateNames {
  const recipe::RenderedVariant* variant = nullptr;
  std::map<std::string, std::string> script_variables;  // what the script's environment gets
  std::string target_platform, build_platform, host_platform;
  std::map<std::string, std::string, std::less<>> environment;  // what env.get() sees
};

// `script` with its inline lines rendered; a file script is left as it is
// (rattler-build does not render script files either). `what` names the
// script in errors ("the build script", "test 2's script").
std::expected<recipe::Script, BuildError> render_script_templates(const recipe::Script& script,
                                                                  const ScriptTemplateNames& names,
                                                                  const std::string& what);

}  // namespace gpuenv::build
