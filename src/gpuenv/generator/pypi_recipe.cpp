#include "gpuenv/generator/pypi_recipe.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include "gpuenv/generator/pep508.hpp"
#include "gpuenv/system/metadata.hpp"

namespace gpuenv::generate {
namespace {

namespace fs = std::filesystem;

constexpr int default_python_min_minor = 10;  // metadata/variants/variants.yaml's python_min

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A YAML double-quoted scalar.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += ' ';
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out + "\"";
}

// A plain scalar where YAML reads it back unchanged, else quoted.
std::string scalar(std::string_view text) {
  // "https://x" reads back unchanged; ": " or a trailing ':' would not.
  const bool plain = !text.empty() && !text.ends_with(':') && text.find(": ") == std::string_view::npos &&
                     std::isalnum(static_cast<unsigned char>(text.front())) &&
                     std::all_of(text.begin(), text.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) ||
                              std::string_view("._-/+:%~=&?").find(c) != std::string_view::npos;
                     });
  return plain ? std::string(text) : yaml_quoted(text);
}

int minor_of(std::string_view bound) {  // "3.9" -> 9
  const auto dot = bound.find('.');
  if (dot == std::string_view::npos) return -1;
  return std::atoi(std::string(bound.substr(dot + 1)).c_str());
}

// "if: match(python, "<3.12")" for the Pythons a marker holds on.
std::string python_selector(const std::vector<int>& pythons, int first, int last) {
  const int low = pythons.front();
  const int high = pythons.back();
  const bool contiguous = high - low + 1 == static_cast<int>(pythons.size());
  if (!contiguous) return "";
  if (low == first) return fmt::format("<3.{}", high + 1);
  if (high == last) return fmt::format(">=3.{}", low);
  return fmt::format(">=3.{},<3.{}", low, high + 1);
}

struct Requirement {
  std::string spec;      // "msgpack-python >=1.0.2"
  std::string selector;  // a match(python, ...) condition; empty: always
  std::string comment;   // why it is kept on some Pythons only
  std::string name;
  std::string pypi;     // the PyPI name as written
  std::string version;  // the conda version constraint
};

// PEP 508 requirements as conda ones; what is dropped or doubtful goes to `notes`.
std::vector<Requirement> conda_requirements(const std::vector<std::string>& written, const CondaNames& names,
                                            const MarkerMachine& machine, bool noarch, const std::string& where,
                                            std::vector<std::string>& notes) {
  std::vector<Requirement> out;
  std::set<std::string> seen;
  for (const auto& text : written) {
    auto parsed = parse_pep508(text);
    if (!parsed) {
      notes.push_back(where + ": left out '" + text + "': " + parsed.error());
      continue;
    }
    if (!parsed->url.empty()) {
      notes.push_back(where + ": left out " + parsed->name + " @ " + parsed->url + " (a url requirement has no conda form)");
      continue;
    }
    auto judged = judge_marker(parsed->marker, machine);
    if (!judged) {
      notes.push_back(where + ": left out '" + text + "': its marker: " + judged.error());
      continue;
    }
    if (judged->verdict == MarkerVerdict::extra || judged->verdict == MarkerVerdict::never) continue;
    Requirement requirement;
    requirement.name = conda_name(names, parsed->name);
    requirement.pypi = parsed->name;
    const auto version = conda_version_spec(parsed->specifiers);
    if (!version) notes.push_back(where + ": " + requirement.name + ": '" + parsed->specifiers + "' has no conda form; written without a version");
    requirement.spec = requirement.name + (version && !version->empty() ? " " + *version : "");
    requirement.version = version.value_or("");
    if (judged->verdict == MarkerVerdict::some) {
      const auto range = python_selector(judged->pythons, machine.python_min, machine.python_max);
      if (noarch || range.empty()) {
        // One noarch package serves every Python: the dependency is kept
        // (it is needed on the older ones; on the newer ones it is unused).
        requirement.comment = "needed on Python 3." + fmt::format("{}", fmt::join(judged->pythons, ", 3.")) +
                              " only (" + parsed->marker + ")";
      } else {
        requirement.selector = "match(python, \"" + range + "\")";
      }
    }
    if (!seen.insert(requirement.spec + "|" + requirement.selector).second) continue;
    out.push_back(std::move(requirement));
  }
  return out;
}

// Text for a `#` comment: one line, whatever the metadata held.
std::string one_line(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

bool plain_word(const std::string& text, std::string_view punctuation) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || punctuation.find(c) != std::string_view::npos;
  });
}

void write_requirements(std::string& text, const std::vector<Requirement>& requirements) {
  for (const auto& requirement : requirements) {
    if (!requirement.comment.empty()) text += "    # " + one_line(requirement.comment) + "\n";
    if (requirement.selector.empty()) {
      text += "    - " + requirement.spec + "\n";
    } else {
      text += "    - if: " + requirement.selector + "\n      then: " + requirement.spec + "\n";
    }
  }
}

std::string first_url(const CoreMetadata* metadata, const PypiRelease& release, const std::vector<std::string>& labels,
                      bool home_page_too) {
  if (metadata) {
    if (auto url = project_url(*metadata, labels); !url.empty()) return url;
    if (home_page_too && !metadata->home_page.empty() && metadata->home_page != "UNKNOWN") return metadata->home_page;
  }
  if (home_page_too && !release.home_page.empty()) return release.home_page;
  return "";
}

}  // namespace

std::expected<CondaNames, std::string> parse_conda_names(std::string_view tsv) {
  CondaNames names;
  int number = 0;
  bool header = true;
  while (!tsv.empty()) {
    const auto newline = tsv.find('\n');
    const std::string line(tsv.substr(0, newline));
    tsv = newline == std::string_view::npos ? std::string_view() : tsv.substr(newline + 1);
    ++number;
    if (line.empty() || line.starts_with('#')) continue;
    if (header) {
      header = false;
      continue;
    }
    const auto tab = line.find('\t');
    const auto second = tab == std::string::npos ? std::string::npos : line.find('\t', tab + 1);
    const auto pypi = line.substr(0, tab);
    const auto conda = tab == std::string::npos ? std::string() : line.substr(tab + 1, second - tab - 1);
    if (pypi.empty() || conda.empty() || second == std::string::npos || normalize_python_name(pypi) != pypi) {
      return std::unexpected(fmt::format("line {}: not 'normalized-pypi-name<TAB>conda-name<TAB>source'", number));
    }
    names.by_pypi_name[pypi] = conda;
  }
  return names;
}

const CondaNames& shipped_conda_names() {
  static const CondaNames names = [] {
    auto parsed = parse_conda_names(system::metadata_file("pypi_conda_names.tsv"));
    if (!parsed) throw system::MetadataError("metadata/pypi_conda_names.tsv: " + parsed.error());
    return std::move(*parsed);
  }();
  return names;
}

std::string conda_name(const CondaNames& names, std::string_view pypi_name) {
  const auto normalized = normalize_python_name(pypi_name);
  const auto found = names.by_pypi_name.find(normalized);
  return found != names.by_pypi_name.end() ? found->second : normalized;
}

std::string python_lower_bound(std::string_view requires_python) {
  std::string_view rest = requires_python;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    auto part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    for (const char* op : {">=", "~=", "=="}) {
      if (!part.starts_with(op)) continue;
      auto version = part.substr(2);
      while (!version.empty() && version.front() == ' ') version.remove_prefix(1);
      // major.minor only
      const auto dot = version.find('.');
      if (dot == std::string_view::npos) return std::string(version.substr(0, version.find_first_not_of("0123456789")));
      const auto end = version.find_first_not_of("0123456789", dot + 1);
      return std::string(version.substr(0, end));
    }
  }
  return "";
}

std::string spdx_license(std::string_view text) {
  static const std::vector<std::pair<std::string, std::string>> known = {
      {"mit", "MIT"}, {"mit license", "MIT"}, {"the mit license", "MIT"}, {"mit-0", "MIT-0"},
      {"bsd", "BSD-3-Clause"}, {"bsd license", "BSD-3-Clause"}, {"new bsd", "BSD-3-Clause"},
      {"new bsd license", "BSD-3-Clause"}, {"3-clause bsd", "BSD-3-Clause"}, {"bsd-3-clause", "BSD-3-Clause"},
      {"bsd 3-clause", "BSD-3-Clause"}, {"modified bsd", "BSD-3-Clause"}, {"bsd-2-clause", "BSD-2-Clause"},
      {"simplified bsd", "BSD-2-Clause"}, {"apache", "Apache-2.0"}, {"apache 2.0", "Apache-2.0"},
      {"apache-2.0", "Apache-2.0"}, {"apache 2", "Apache-2.0"}, {"apache license 2.0", "Apache-2.0"},
      {"apache license, version 2.0", "Apache-2.0"}, {"apache software license", "Apache-2.0"},
      {"apache software license 2.0", "Apache-2.0"}, {"psf", "PSF-2.0"}, {"psfl", "PSF-2.0"},
      {"python software foundation license", "PSF-2.0"}, {"isc", "ISC"}, {"isc license", "ISC"},
      {"isc license (iscl)", "ISC"}, {"mpl-2.0", "MPL-2.0"}, {"mpl 2.0", "MPL-2.0"},
      {"mozilla public license 2.0 (mpl 2.0)", "MPL-2.0"}, {"lgpl", "LGPL-2.1-or-later"},
      {"gnu lesser general public license v3 (lgplv3)", "LGPL-3.0-only"},
      {"gnu lesser general public license v3 or later (lgplv3+)", "LGPL-3.0-or-later"},
      {"gnu general public license v2 (gplv2)", "GPL-2.0-only"}, {"gnu general public license v3 (gplv3)", "GPL-3.0-only"},
      {"gpl-3.0", "GPL-3.0-only"}, {"gplv3", "GPL-3.0-only"}, {"unlicense", "Unlicense"},
      {"the unlicense (unlicense)", "Unlicense"}, {"zlib", "Zlib"}, {"zope public license", "ZPL-2.1"},
      {"zpl 2.1", "ZPL-2.1"}, {"hpnd", "HPND"}, {"historical permission notice and disclaimer (hpnd)", "HPND"}};
  auto key = lower(text);
  if (const auto colons = key.rfind("::"); key.starts_with("license ::") && colons != std::string::npos) {
    key = key.substr(colons + 2);
  }
  while (!key.empty() && key.front() == ' ') key.erase(0, 1);
  while (!key.empty() && (key.back() == ' ' || key.back() == '.')) key.pop_back();
  for (const auto& [from, to] : known) {
    if (key == from) return to;
  }
  return "";
}

std::expected<GeneratedRecipe, std::string> write_pypi_recipe(const RecipeSources& sources) {
  const auto& release = *sources.release;
  const auto& facts = *sources.facts;
  const auto& names = *sources.names;
  GeneratedRecipe recipe;
  recipe.name = conda_name(names, release.name);
  recipe.version = release.version;
  recipe.noarch = !facts.compiled;
  const CoreMetadata* metadata = facts.pkg_info ? &*facts.pkg_info : nullptr;
  if (metadata && normalize_python_name(metadata->name) != normalize_python_name(release.name)) {
    return std::unexpected(fmt::format("{} {}: the sdist's PKG-INFO names {} {}, not this release", release.name,
                                       release.version, metadata->name, metadata->version));
  }

  std::string requires_python = metadata && !metadata->requires_python.empty() ? metadata->requires_python
                                : !release.sdist.requires_python.empty()       ? release.sdist.requires_python
                                : facts.pyproject                              ? facts.pyproject->requires_python
                                                                               : std::string();
  const auto python_min = python_lower_bound(requires_python);
  MarkerMachine machine;
  machine.python_min = python_min.empty() ? default_python_min_minor : std::max(minor_of(python_min), 0);
  machine.python_max = sources.newest_python_minor;
  if (machine.python_min > machine.python_max) machine.python_min = machine.python_max;

  // Run requirements: PKG-INFO's when it vouches for them, else the
  // egg-info's, else pyproject.toml's static ones.
  std::vector<std::string> run_written;
  if (metadata && metadata->declares_dependencies) {
    run_written = metadata->requires_dist;
  } else if (facts.egg_requires) {
    run_written = *facts.egg_requires;
  } else if (facts.pyproject && facts.pyproject->has_project &&
             std::find(facts.pyproject->dynamic.begin(), facts.pyproject->dynamic.end(), "dependencies") ==
                 facts.pyproject->dynamic.end()) {
    run_written = facts.pyproject->dependencies;
  } else {
    recipe.notes.push_back("run: the sdist does not state its dependencies (setup.py computes them): add them by hand");
  }
  auto run = conda_requirements(run_written, names, machine, recipe.noarch, "run", recipe.notes);

  std::vector<std::string> build_written;
  if (facts.pyproject && facts.pyproject->has_build_system) {
    build_written = facts.pyproject->build_requires;
  } else {
    build_written = {"setuptools", "wheel"};  // PEP 517's fallback for a setup.py-only sdist
  }
  // An in-tree backend (backend-path: hatchling, flit-core) is the package
  // itself: building it imports what it needs at run time.
  if (facts.pyproject && facts.pyproject->in_tree_backend) {
    build_written.insert(build_written.end(), run_written.begin(), run_written.end());
  }
  auto host = conda_requirements(build_written, names, machine, recipe.noarch, "host", recipe.notes);
  std::erase_if(host, [](const Requirement& requirement) { return requirement.name == "pip"; });
  if (facts.rust) recipe.notes.push_back("build: Rust sources (" + facts.compiled_because + "): add the Rust compiler by hand");
  if (facts.compiled) {
    recipe.notes.push_back("not noarch: " + (facts.compiled_because.starts_with("the ")
                                                 ? "it needs a compiler (" + facts.compiled_because + ")"
                                                 : facts.compiled_because + " is compiled"));
  }

  std::string text;
  text += "# Written by `gpuenv generate-recipe pypi " + release.name + "==" + release.version + "` from PyPI's\n";
  text += "# metadata and the sdist" + std::string(recipe.noarch ? " (pure Python: noarch)" : " (compiled code)") + ".\n";
  for (const auto& note : recipe.notes) text += "# check: " + one_line(note) + "\n";
  text += "schema_version: 1\n\ncontext:\n  version: " + yaml_quoted(release.version) + "\n";
  if (!python_min.empty()) text += "  python_min: " + yaml_quoted(python_min) + "\n";
  text += "\npackage:\n  name: " + scalar(recipe.name) + "\n  version: ${{ version }}\n\n";
  // The file's own url first (files.pythonhosted.org, reachable where the
  // pypi.org/packages/source redirect is not), then the canonical one.
  auto filename_template = release.sdist.filename;
  if (const auto at = filename_template.rfind(release.version); at != std::string::npos) {
    filename_template.replace(at, release.version.size(), "${{ version }}");
  }
  auto url_template = release.sdist.url;
  if (const auto at = url_template.rfind(release.sdist.filename); at != std::string::npos) {
    url_template.replace(at, release.sdist.filename.size(), filename_template);
  }
  const auto source_name = release.sdist.filename.substr(0, release.sdist.filename.rfind('-'));
  text += "source:\n  url:\n    - " + url_template + "\n";
  text += "    - https://pypi.org/packages/source/" + std::string(1, source_name.empty() ? 'x' : source_name[0]) + "/" +
          source_name + "/" + filename_template + "\n";
  text += "  sha256: " + release.sdist.sha256 + "\n\n";
  text += "build:\n  number: 0\n";
  if (recipe.noarch) text += "  noarch: python\n";
  text += "  script: ${{ PYTHON }} -m pip install . -vv --no-deps --no-build-isolation\n";
  // Entry points and import names as Python spells them, or left out.
  std::vector<std::pair<std::string, std::string>> scripts;
  for (const auto& [name, target] : facts.console_scripts) {
    if (plain_word(name, "._-") && plain_word(target, "._:")) {
      scripts.emplace_back(name, target);
    } else {
      recipe.notes.push_back("entry point '" + one_line(name) + "' left out: not NAME = module:function");
    }
  }
  std::vector<std::string> modules;
  for (const auto& module : facts.top_level_modules) {
    if (plain_word(module, "._")) modules.push_back(module);
  }
  if (!scripts.empty()) {
    text += "  python:\n    entry_points:\n";
    for (const auto& [name, target] : scripts) text += "      - " + name + " = " + target + "\n";
  }
  text += "\nrequirements:\n";
  if (!recipe.noarch) {
    text += "  build:\n    - ${{ compiler('c') }}\n";
    if (facts.cxx) text += "    - ${{ compiler('cxx') }}\n";
    text += "    - ${{ stdlib('c') }}\n";
  }
  text += "  host:\n";
  text += recipe.noarch ? "    - python >=${{ python_min }}\n" : "    - python\n";
  text += "    - pip\n";
  write_requirements(text, host);
  text += "  run:\n";
  text += recipe.noarch ? "    - python >=${{ python_min }}\n" : "    - python\n";
  write_requirements(text, run);
  text += "\ntests:\n  - python:\n";
  if (!modules.empty()) {
    text += "      imports:\n";
    for (const auto& module : modules) text += "        - " + module + "\n";
  } else {
    recipe.notes.push_back("tests: no importable top-level module found in the sdist");
  }
  text += "      pip_check: true\n";
  if (!scripts.empty()) {
    text += "  - script:\n";
    for (const auto& script : scripts) text += "      - " + script.first + " --help\n";
  }

  text += "\nabout:\n";
  const auto homepage = first_url(metadata, release, {"homepage", "home", "home-page", "home page"}, true);
  auto repository = first_url(metadata, release, {"source", "sources", "repository", "source code", "code", "github",
                                                  "gitlab", "repo"}, false);
  if (repository.empty() && metadata) {
    for (const auto& entry : metadata->project_urls) {  // any label, on a forge
      const auto url = entry.substr(entry.find(',') == std::string::npos ? entry.size() : entry.find(',') + 1);
      const auto trimmed = url.substr(url.find_first_not_of(' ') == std::string::npos ? url.size() : url.find_first_not_of(' '));
      if ((trimmed.starts_with("https://github.com/") || trimmed.starts_with("https://gitlab.com/")) &&
          trimmed.find("/issues") == std::string::npos) {
        repository = trimmed;
        break;
      }
    }
  }
  const auto documentation = first_url(metadata, release, {"documentation", "docs"}, false);
  // Last, the project's page on PyPI, which every release has.
  text += "  homepage: " + scalar(!homepage.empty()     ? homepage
                                  : !repository.empty() ? repository
                                                        : "https://pypi.org/project/" + release.name + "/") + "\n";
  if (!repository.empty()) text += "  repository: " + scalar(repository) + "\n";
  if (!documentation.empty()) text += "  documentation: " + scalar(documentation) + "\n";
  const auto summary = metadata && !metadata->summary.empty() ? metadata->summary : release.summary;
  if (!summary.empty()) text += "  summary: " + yaml_quoted(summary) + "\n";
  std::string license;
  if (metadata && !metadata->license_expression.empty()) license = metadata->license_expression;
  if (license.empty() && facts.pyproject) license = facts.pyproject->license_expression;
  if (license.empty() && !release.license_expression.empty()) license = release.license_expression;
  if (license.empty() && metadata) license = spdx_license(metadata->license);
  if (license.empty() && metadata) {
    for (const auto& classifier : metadata->classifiers) {
      if (classifier.starts_with("License ::") && !(license = spdx_license(classifier)).empty()) break;
    }
  }
  if (license.empty()) license = spdx_license(release.license);
  if (license.empty()) {
    license = "LicenseRef-unknown";
    recipe.notes.push_back("about: no SPDX license found in the metadata: set about.license by hand");
  }
  text += "  license: " + scalar(license) + "\n";
  if (facts.license_files.size() == 1) {
    text += "  license_file: " + scalar(facts.license_files.front()) + "\n";
  } else if (!facts.license_files.empty()) {
    text += "  license_file:\n";
    for (const auto& file : facts.license_files) text += "    - " + scalar(file) + "\n";
  } else {
    recipe.notes.push_back("about: the sdist holds no license file");
  }
  for (const auto* list : {&host, &run}) {
    for (const auto& requirement : *list) {
      if (requirement.name != "python" && requirement.name != "pip" &&
          std::find(recipe.requirements.begin(), recipe.requirements.end(), requirement.name) == recipe.requirements.end()) {
        recipe.requirements.push_back(requirement.name);
        recipe.needed.push_back({requirement.pypi, requirement.name, requirement.version});
      }
    }
  }
  recipe.text = std::move(text);
  return recipe;
}

}  // namespace gpuenv::generate
