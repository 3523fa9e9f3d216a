// What an unpacked sdist says about the recipe to write, read from its files
// (never by running its setup.py): PKG-INFO, pyproject.toml, a setuptools
// egg-info (requires.txt, entry_points.txt, top_level.txt), setup.cfg's
// console scripts, whether anything is compiled, the importable top-level
// modules and the license files.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpuenv/generator/core_metadata.hpp"
#include "gpuenv/generator/pyproject_toml.hpp"

namespace gpuenv::generate {

struct SdistFacts {
  std::optional<CoreMetadata> pkg_info;
  std::optional<PyprojectInfo> pyproject;
  bool has_setup_py = false;
  // egg-info/requires.txt: the base requirements, and those of "[:marker]"
  // sections with "; marker" appended ("[extra]" sections are optional).
  std::optional<std::vector<std::string>> egg_requires;
  std::vector<std::pair<std::string, std::string>> console_scripts;  // name -> "module:function"
  std::vector<std::string> top_level_modules;
  std::vector<std::string> license_files;  // relative to the sdist's root, existing files
  bool compiled = false;
  std::string compiled_because;  // "msgpack/_cmsgpack.pyx", "the build backend mesonpy"
  bool cxx = false;              // C++ sources among the compiled ones
  bool rust = false;             // Rust (maturin, setuptools-rust): no compiler('rust') fallback here
};

// `root`: the sdist unpacked, its top-level directory stripped. Errors: a
// PKG-INFO or pyproject.toml that cannot be read (named, with why).
std::expected<SdistFacts, std::string> inspect_sdist(const std::filesystem::path& root);

// "[:python_version < '3.8']" style sections of a requires.txt (exposed for tests).
std::vector<std::string> egg_info_requirements(const std::string& text);

// console_scripts of an entry_points.txt or setup.cfg [options.entry_points].
std::vector<std::pair<std::string, std::string>> console_scripts_of_ini(const std::string& text, const std::string& section,
                                                                        bool setup_cfg);

}  // namespace gpuenv::generate
