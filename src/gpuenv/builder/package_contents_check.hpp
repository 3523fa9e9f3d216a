// The package_contents test (CEP 14 / rattler-build): globs checked against
// the paths a package holds, without installing it. files: globs over every
// path; site_packages: modules ("pkg.sub") under site-packages (noarch:
// python layout, else lib/python*/site-packages); bin: bin/<name>; lib:
// lib/lib<name>.so* or .a (a name with a dot or a glob: lib/<name>); include:
// include/<glob>; not_exists: globs that must match nothing; strict: every
// path must be matched by one of the globs above. Each glob must match at
// least one path.
#pragma once

#include <string>
#include <vector>

#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

// What is wrong, one line per unmet expectation; empty when the test passes.
std::vector<std::string> package_contents_failures(const recipe::PackageContentsTest& test,
                                                   const std::vector<std::string>& paths, bool noarch_python);

// fnmatch(3) over whole paths (`*` crosses `/`), and a leading `**/` also
// matches nothing, so "**/*.pyc" holds top-level .pyc files too.
bool path_glob_matches(const std::string& pattern, const std::string& path);

}  // namespace gpuenv::build
