// A v1 recipe (recipe.yaml, CEP 13/14/41) read for one target platform and
// variant: selectors chosen, `${{ }}` rendered, fields typed. What the
// renderer and the builder work from. No <expected> here: the fuzz build
// (clang 14) compiles the reader through this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuenv/recipe/value.hpp"

namespace gpuenv::recipe {

// Where a value was written, for messages (1-based; 0 when unknown).
struct SourcePosition {
  std::size_t line = 0;
  std::size_t column = 0;
};

// A package requirement: a match spec, or a pin the renderer resolves against
// an output (pin_subpackage) or the host environment (pin_compatible).
struct Pin {
  enum class Kind { subpackage, compatible };
  Kind kind = Kind::subpackage;
  std::string name;
  std::optional<std::string> lower_bound;  // "x.x.x.x.x.x" by default, absent when none
  std::optional<std::string> upper_bound;  // "x" by default
  bool exact = false;
  std::optional<std::string> build;
  friend bool operator==(const Pin&, const Pin&) = default;
};

struct Dependency {
  std::string spec;        // the match spec text when `pin` is empty
  std::optional<Pin> pin;
  SourcePosition position;
};

struct RunExports {
  std::vector<Dependency> noarch, strong, strong_constraints, weak, weak_constraints;
  bool empty() const {
    return noarch.empty() && strong.empty() && strong_constraints.empty() && weak.empty() && weak_constraints.empty();
  }
};

struct IgnoreRunExports {
  std::vector<std::string> by_name;
  std::vector<std::string> from_package;
};

struct Requirements {
  std::vector<Dependency> build, host, run, run_constraints;
  RunExports run_exports;
  IgnoreRunExports ignore_run_exports;
};

struct Source {
  enum class Kind { url, git, path };
  Kind kind = Kind::url;
  std::vector<std::string> urls;  // url: mirrors of one file
  std::optional<std::string> sha256, md5;
  std::string git;                // git: repository URL or path
  std::optional<std::string> branch, tag, rev;
  std::optional<std::int64_t> depth;
  bool lfs = false;
  std::string path;               // path: file or directory, relative to the recipe
  bool use_gitignore = true;
  std::vector<std::string> patches;
  std::optional<std::string> target_directory;
  std::optional<std::string> file_name;
  SourcePosition position;
};

struct Script {
  std::optional<std::string> interpreter;
  std::map<std::string, std::string> env;
  std::vector<std::string> secrets;
  std::optional<std::string> file;      // build.sh / build.bat (or a file name given as the script)
  std::vector<std::string> content;     // inline lines, their `${{ }}` left for build time (as rattler-build)
  std::optional<std::string> cwd;
  bool empty() const { return !file && content.empty(); }
};

struct DynamicLinking {
  std::vector<std::string> rpaths;
  std::optional<bool> binary_relocation;        // absent: the default (true)
  std::vector<std::string> binary_relocation_paths;
  std::vector<std::string> missing_dso_allowlist;
  std::vector<std::string> rpath_allowlist;
  std::optional<std::string> overdepending_behavior;  // ignore | error
  std::optional<std::string> overlinking_behavior;
};

struct PrefixDetection {
  std::vector<std::string> force_text, force_binary;
  bool ignore_all = false;
  std::vector<std::string> ignore;
  std::optional<bool> ignore_binary_files;
};

struct PythonSettings {
  std::vector<std::string> entry_points;
  bool use_python_app_entrypoint = false;
  bool preserve_egg_dir = false;
  std::vector<std::string> skip_pyc_compilation;
  bool version_independent = false;
  std::optional<std::string> site_packages_path;
};

struct VariantSettings {
  std::vector<std::string> use_keys;
  std::vector<std::string> ignore_keys;
  std::int64_t down_prioritize_variant = 0;
};

struct Build {
  std::int64_t number = 0;
  // The build string as written, unrendered: it may use `${{ hash }}`, known
  // only once the variant's hash is (render does it).
  std::optional<std::string> string_template;
  bool skip = false;  // any skip condition held
  std::optional<std::string> noarch;  // python | generic
  Script script;
  bool merge_build_and_host_envs = false;
  std::vector<std::string> always_include_files;
  std::vector<std::string> always_copy_files;
  std::vector<std::string> files_include, files_exclude;  // build.files (CEP 41)
  DynamicLinking dynamic_linking;
  PrefixDetection prefix_detection;
  PythonSettings python;
  VariantSettings variant;
};

struct ScriptTest {
  Script script;
  std::vector<Dependency> build_requirements, run_requirements;
  std::vector<std::string> source_files, recipe_files;
};
struct PythonTest {
  std::vector<std::string> imports;
  bool pip_check = true;
  std::vector<std::string> python_version;
};
struct PackageContentsTest {
  std::vector<std::string> files, site_packages, bin, lib, include;
  std::vector<std::string> files_not_existing;  // files: {not_exists: [...]}
  bool strict = false;
};

struct TestElement {
  enum class Kind { script, python, package_contents, downstream, perl, r, ruby };
  Kind kind = Kind::script;
  ScriptTest script;
  PythonTest python;
  PackageContentsTest package_contents;
  std::string downstream;
  std::vector<std::string> uses;  // perl/r/ruby: the modules/libraries tested
  SourcePosition position;
};

struct About {
  std::optional<std::string> homepage, repository, documentation, license, license_family, summary, description;
  std::vector<std::string> license_file;
};

// One output of a multi-output recipe, as written: inheritance from the top
// level or another output (CEP 14, CEP 41) is the renderer's job.
struct Output {
  enum class Kind { package, staging };
  Kind kind = Kind::package;
  std::string name;
  std::optional<std::string> version;  // package outputs; the top-level version when absent
  std::optional<std::string> inherit_from;  // absent: the top level
  bool inherit_run_exports = true;
  std::vector<Source> sources;
  Build build;
  Requirements requirements;
  std::vector<TestElement> tests;
  std::optional<About> about;
  SourcePosition position;
};

struct Recipe {
  std::int64_t schema_version = 1;
  // Context variables in the order written, evaluated.
  std::vector<std::pair<std::string, Value>> context;
  // package.name/version of a single-output recipe, or recipe.name/version
  // of a multi-output one (the name may then be empty).
  std::string name;
  std::string version;
  bool multi_output = false;
  std::vector<Source> sources;
  Build build;
  Requirements requirements;
  std::vector<TestElement> tests;
  About about;
  std::vector<Output> outputs;
  Value extra;  // free-form
  // Variables and variant keys the recipe's expressions looked up.
  std::vector<std::string> used_names;
};

}  // namespace gpuenv::recipe
