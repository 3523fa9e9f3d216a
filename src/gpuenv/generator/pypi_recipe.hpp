// A v1 recipe.yaml for one PyPI release, written from PyPI's project JSON
// and what its sdist holds (sdist_inspection.hpp): noarch: python unless
// something is compiled, host requirements from [build-system] requires, run
// requirements from the core metadata under their conda names, python >=
// from Requires-Python, entry points, import tests and pip check, about.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/generator/pypi_project.hpp"
#include "gpuenv/generator/sdist_inspection.hpp"

namespace gpuenv::generate {

// PyPI names whose conda-forge package is called otherwise
// (metadata/pypi_conda_names.tsv), keyed by the PEP 503 normalized name.
struct CondaNames {
  std::map<std::string, std::string, std::less<>> by_pypi_name;
};

// A table of metadata/pypi_conda_names.tsv's form ('#' comments, a header,
// then normalized-pypi-name TAB conda-name TAB source). Errors name the line.
std::expected<CondaNames, std::string> parse_conda_names(std::string_view tsv);

// metadata/pypi_conda_names.tsv as compiled into gpuenv.
const CondaNames& shipped_conda_names();

// The conda name of a PyPI name: the mapping's, else the normalized name.
std::string conda_name(const CondaNames& names, std::string_view pypi_name);

struct GeneratedRecipe {
  std::string name;     // the conda package name
  std::string version;
  bool noarch = false;
  std::string text;     // recipe.yaml
  // Conda names of the host and run requirements (python and pip left
  // out), for --recursive.
  std::vector<std::string> requirements;
  struct Needed {
    std::string pypi;     // the PyPI name as written
    std::string conda;    // its conda name
    std::string version;  // the conda version constraint (">=3.11,<4"); empty: any
  };
  std::vector<Needed> needed;  // the same, each once, for --recursive
  // What the recipe could not decide and a person should check, one line each.
  std::vector<std::string> notes;
};

struct RecipeSources {
  const PypiRelease* release = nullptr;
  const SdistFacts* facts = nullptr;
  const CondaNames* names = nullptr;
  int newest_python_minor = 14;  // markers are judged for 3.<python_min> .. 3.<this>
};

std::expected<GeneratedRecipe, std::string> write_pypi_recipe(const RecipeSources& sources);

// An SPDX identifier for a free-text License: field or a trove classifier
// ("BSD License" -> BSD-3-Clause); "" when not known.
std::string spdx_license(std::string_view text);

// ">=3.9, <4" -> "3.9"; "" when it has no lower bound.
std::string python_lower_bound(std::string_view requires_python);

}  // namespace gpuenv::generate
