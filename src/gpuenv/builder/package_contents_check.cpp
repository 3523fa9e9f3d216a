#include "gpuenv/builder/package_contents_check.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace gpuenv::build {

namespace {

// One expectation: any of `alternatives` matching some path meets it.
struct Expectation {
  std::string described;
  std::vector<std::string> alternatives;
};

bool has_glob(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

std::vector<Expectation> expectations_of(const recipe::PackageContentsTest& test, bool noarch_python) {
  std::vector<Expectation> expected;
  for (const auto& glob : test.files) expected.push_back({"files: " + glob, {glob}});
  const std::string site_packages = noarch_python ? "site-packages" : "lib/python*/site-packages";
  for (const auto& module : test.site_packages) {
    if (module.find('/') != std::string::npos || has_glob(module)) {
      expected.push_back({"site_packages: " + module, {site_packages + "/" + module}});
      continue;
    }
    std::string relative = module;
    std::replace(relative.begin(), relative.end(), '.', '/');
    expected.push_back({"site_packages: " + module,
                        {site_packages + "/" + relative + "/__init__.py", site_packages + "/" + relative + ".py",
                         site_packages + "/" + relative + ".*.so", site_packages + "/" + relative + ".so"}});
  }
  for (const auto& name : test.bin) expected.push_back({"bin: " + name, {"bin/" + name}});
  for (const auto& name : test.lib) {
    if (name.find('.') != std::string::npos || has_glob(name)) {
      expected.push_back({"lib: " + name, {"lib/" + name}});
    } else {
      expected.push_back({"lib: " + name, {"lib/lib" + name + ".so", "lib/lib" + name + ".so.*", "lib/lib" + name + ".a"}});
    }
  }
  for (const auto& glob : test.include) expected.push_back({"include: " + glob, {"include/" + glob}});
  return expected;
}

bool any_matches(const std::vector<std::string>& patterns, const std::string& path) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return path_glob_matches(pattern, path); });
}

}  // namespace

bool path_glob_matches(const std::string& pattern, const std::string& path) {
  if (::fnmatch(pattern.c_str(), path.c_str(), 0) == 0) return true;
  return pattern.starts_with("**/") && ::fnmatch(pattern.c_str() + 3, path.c_str(), 0) == 0;
}

std::vector<std::string> package_contents_failures(const recipe::PackageContentsTest& test,
                                                   const std::vector<std::string>& paths, bool noarch_python) {
  std::vector<std::string> failures;
  std::set<std::string> matched;
  for (const auto& expectation : expectations_of(test, noarch_python)) {
    bool found = false;
    for (const auto& path : paths) {
      if (any_matches(expectation.alternatives, path)) {
        found = true;
        matched.insert(path);
      }
    }
    if (!found) failures.push_back("no file in the package matches " + expectation.described);
  }
  for (const auto& glob : test.files_not_existing) {
    for (const auto& path : paths) {
      if (path_glob_matches(glob, path)) failures.push_back("the package holds " + path + ", which not_exists " + glob + " forbids");
    }
  }
  if (test.strict) {
    for (const auto& path : paths) {
      if (!matched.contains(path)) failures.push_back("strict: the package holds " + path + ", which no glob of the test lists");
    }
  }
  return failures;
}

}  // namespace gpuenv::build
