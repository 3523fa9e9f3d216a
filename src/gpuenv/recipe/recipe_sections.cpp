#include "gpuenv/recipe/recipe_sections.hpp"

#include <cctype>

#include "gpuenv/recipe/recipe_fields.hpp"

namespace gpuenv::recipe::detail {
namespace {

bool is_hex(std::string_view text) {
  for (const char c : text) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

std::optional<std::string> checksum(const RecipeNode& map, std::string_view key, std::size_t length,
                                    const ReadState& state) {
  auto value = optional_text(map, key, state);
  if (value && (value->size() != length || !is_hex(*value))) {
    state.fail(RecipeError::Kind::invalid_value, map.find(key)->position, *value,
               "invalid " + std::string(key) + " checksum (" + std::to_string(length) + " hex digits expected):");
  }
  return value;
}

Source read_source(const RecipeNode& node, const ReadState& state) {
  expect_map(node, "a source", state);
  Source source;
  source.position = node.position;
  source.patches = text_list(node.find("patches"), "patches", state);
  source.target_directory = optional_text(node, "target_directory", state);
  if (node.find("url") != nullptr) {
    check_keys(node, {"url", "sha256", "md5", "file_name", "patches", "target_directory"}, "a url source", state);
    source.kind = Source::Kind::url;
    source.urls = text_list(node.find("url"), "url", state);
    source.sha256 = checksum(node, "sha256", 64, state);
    source.md5 = checksum(node, "md5", 32, state);
    source.file_name = optional_text(node, "file_name", state);
    // No checksum is accepted, as rattler-build does; lint is where it is flagged.
  } else if (node.find("git") != nullptr) {
    check_keys(node, {"git", "branch", "tag", "rev", "depth", "lfs", "patches", "target_directory"}, "a git source",
               state);
    source.kind = Source::Kind::git;
    source.git = text_of(*node.find("git"), "git", state);
    source.branch = optional_text(node, "branch", state);
    source.tag = optional_text(node, "tag", state);
    source.rev = optional_text(node, "rev", state);
    if ((source.branch ? 1 : 0) + (source.tag ? 1 : 0) + (source.rev ? 1 : 0) > 1) {
      state.fail(RecipeError::Kind::invalid_value, node.position, "git", "branch, tag and rev exclude each other in");
    }
    if (const RecipeNode* depth = node.find("depth")) source.depth = integer_of(*depth, "depth", state);
    if (const RecipeNode* lfs = node.find("lfs")) source.lfs = bool_of(*lfs, "lfs", state);
  } else if (node.find("path") != nullptr) {
    check_keys(node, {"path", "use_gitignore", "sha256", "md5", "file_name", "patches", "target_directory"},
               "a path source", state);
    source.kind = Source::Kind::path;
    source.path = text_of(*node.find("path"), "path", state);
    if (const RecipeNode* ignore = node.find("use_gitignore")) source.use_gitignore = bool_of(*ignore, "use_gitignore", state);
    source.sha256 = checksum(node, "sha256", 64, state);
    source.md5 = checksum(node, "md5", 32, state);
    source.file_name = optional_text(node, "file_name", state);
  } else {
    state.fail(RecipeError::Kind::missing_field, node.position, "", "a source needs url, git or path");
  }
  return source;
}

void read_dynamic_linking(const RecipeNode& node, DynamicLinking& linking, const ReadState& state) {
  expect_map(node, "dynamic_linking", state);
  check_keys(node, {"rpaths", "binary_relocation", "missing_dso_allowlist", "rpath_allowlist", "overdepending_behavior",
                    "overlinking_behavior"},
             "dynamic_linking", state);
  linking.rpaths = text_list(node.find("rpaths"), "rpaths", state);
  if (const RecipeNode* relocation = node.find("binary_relocation")) {
    if (relocation->kind == RecipeNode::Kind::sequence) {
      linking.binary_relocation_paths = text_list(relocation, "binary_relocation", state);
    } else {
      linking.binary_relocation = bool_of(*relocation, "binary_relocation", state);
    }
  }
  linking.missing_dso_allowlist = text_list(node.find("missing_dso_allowlist"), "missing_dso_allowlist", state);
  linking.rpath_allowlist = text_list(node.find("rpath_allowlist"), "rpath_allowlist", state);
  for (const auto key : {"overdepending_behavior", "overlinking_behavior"}) {
    auto behaviour = optional_text(node, key, state);
    if (behaviour && *behaviour != "ignore" && *behaviour != "error") {
      state.fail(RecipeError::Kind::invalid_value, node.find(key)->position, *behaviour,
                 std::string(key) + " must be 'ignore' or 'error', found");
    }
    (std::string_view(key) == "overdepending_behavior" ? linking.overdepending_behavior
                                                       : linking.overlinking_behavior) = behaviour;
  }
}

void read_prefix_detection(const RecipeNode& node, PrefixDetection& detection, const ReadState& state) {
  expect_map(node, "prefix_detection", state);
  check_keys(node, {"force_file_type", "ignore", "ignore_binary_files"}, "prefix_detection", state);
  if (const RecipeNode* force = node.find("force_file_type"); force != nullptr && force->kind != RecipeNode::Kind::null) {
    expect_map(*force, "force_file_type", state);
    check_keys(*force, {"text", "binary"}, "force_file_type", state);
    detection.force_text = text_list(force->find("text"), "text", state);
    detection.force_binary = text_list(force->find("binary"), "binary", state);
  }
  if (const RecipeNode* ignore = node.find("ignore")) {
    if (ignore->kind == RecipeNode::Kind::sequence) {
      detection.ignore = text_list(ignore, "ignore", state);
    } else {
      detection.ignore_all = bool_of(*ignore, "ignore", state);
    }
  }
  if (const RecipeNode* binary = node.find("ignore_binary_files")) {
    detection.ignore_binary_files = bool_of(*binary, "ignore_binary_files", state);
  }
}

void read_python(const RecipeNode& node, PythonSettings& python, const ReadState& state) {
  expect_map(node, "python", state);
  check_keys(node, {"entry_points", "use_python_app_entrypoint", "preserve_egg_dir", "skip_pyc_compilation",
                    "version_independent", "site_packages_path"},
             "build.python", state);
  python.entry_points = text_list(node.find("entry_points"), "entry_points", state);
  for (const auto& entry : python.entry_points) {
    if (entry.find('=') == std::string::npos || entry.find(':') == std::string::npos) {
      state.fail(RecipeError::Kind::invalid_value, node.find("entry_points")->position, entry,
                 "an entry point is 'name = module:function', found");
    }
  }
  if (const RecipeNode* app = node.find("use_python_app_entrypoint")) {
    python.use_python_app_entrypoint = bool_of(*app, "use_python_app_entrypoint", state);
  }
  if (const RecipeNode* egg = node.find("preserve_egg_dir")) python.preserve_egg_dir = bool_of(*egg, "preserve_egg_dir", state);
  python.skip_pyc_compilation = text_list(node.find("skip_pyc_compilation"), "skip_pyc_compilation", state);
  if (const RecipeNode* independent = node.find("version_independent")) {
    python.version_independent = bool_of(*independent, "version_independent", state);
  }
  python.site_packages_path = optional_text(node, "site_packages_path", state);
}

// skip: a boolean, one expression, or a list of them (any true skips).
bool read_skip(const RecipeNode& node, const ReadState& state) {
  std::vector<const RecipeNode*> conditions;
  if (node.kind == RecipeNode::Kind::sequence) {
    for (const auto& item : node.items) conditions.push_back(&item);
  } else if (node.kind == RecipeNode::Kind::scalar) {
    conditions.push_back(&node);
  }
  for (const RecipeNode* condition : conditions) {
    if (condition->kind != RecipeNode::Kind::scalar) {
      state.fail(RecipeError::Kind::invalid_value, condition->position, "", "skip takes expressions");
    }
    if (condition->value.kind() == Value::Kind::boolean) {
      if (condition->value.as_bool()) return true;
      continue;
    }
    try {
      const Value value = evaluate_expression(condition->value.display(), state.context);
      if (value.is_undefined()) {
        throw ExpressionError(ExpressionError::Kind::undefined, condition->value.display(), 0, value.undefined_name(),
                              "undefined value");
      }
      if (value.truthy()) return true;
    } catch (const ExpressionError& error) {
      state.fail_expression(*condition, error);
    }
  }
  return false;
}

}  // namespace

std::vector<Source> read_sources(const RecipeNode* node, const ReadState& state) {
  std::vector<Source> sources;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return sources;
  if (node->kind == RecipeNode::Kind::map) {
    sources.push_back(read_source(*node, state));
  } else if (node->kind == RecipeNode::Kind::sequence) {
    for (const auto& item : node->items) {
      if (item.kind != RecipeNode::Kind::null) sources.push_back(read_source(item, state));
    }
  } else {
    state.fail(RecipeError::Kind::invalid_value, node->position, node->text, "source must be a mapping or a list, found");
  }
  return sources;
}

Script read_script(const RecipeNode* node, std::string_view field, const ReadState& state) {
  Script script;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return script;
  if (node->kind == RecipeNode::Kind::map) {
    check_keys(*node, {"interpreter", "env", "secrets", "file", "content", "cwd"}, field, state);
    script.interpreter = optional_text(*node, "interpreter", state);
    if (const RecipeNode* env = node->find("env"); env != nullptr && env->kind != RecipeNode::Kind::null) {
      expect_map(*env, "env", state);
      for (const auto& [key, value] : env->entries) script.env[key] = text_of(value, key, state);
    }
    script.secrets = text_list(node->find("secrets"), "secrets", state);
    script.file = optional_text(*node, "file", state);
    script.content = text_list(node->find("content"), "content", state);
    script.cwd = optional_text(*node, "cwd", state);
    if (script.file && !script.content.empty()) {
      state.fail(RecipeError::Kind::invalid_value, node->position, "file", "a script has a file or content, not both:");
    }
    return script;
  }
  std::vector<std::string> lines = text_list(node, field, state);
  // One line naming a .sh/.bat file is that file (CEP 14).
  if (lines.size() == 1 && lines[0].find('\n') == std::string::npos &&
      (lines[0].ends_with(".sh") || lines[0].ends_with(".bat"))) {
    script.file = lines[0];
  } else {
    script.content = std::move(lines);
  }
  return script;
}

Build read_build(const RecipeNode* node, bool staging, const ReadState& state, const Build* inherited) {
  // rattler-build merges an output's build over the top level's key by key:
  // a key the output writes replaces the top level's whole value.
  Build build = inherited != nullptr ? *inherited : Build{};
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return build;
  expect_map(*node, "build", state);
  if (staging) {
    check_keys(*node, {"script"}, "a staging output's build", state);
  } else {
    check_keys(*node, {"number", "string", "skip", "noarch", "script", "merge_build_and_host_envs",
                       "always_include_files", "always_copy_files", "variant", "python", "prefix_detection",
                       "dynamic_linking", "files", "post_process"},
               "build", state);
  }
  if (const RecipeNode* number = node->find("number")) build.number = integer_of(*number, "build.number", state);
  if (const RecipeNode* string = node->find("string"); string != nullptr && string->kind == RecipeNode::Kind::scalar) {
    build.string_template = string->text;
  }
  if (const RecipeNode* skip = node->find("skip")) build.skip = read_skip(*skip, state);
  if (node->find("noarch") != nullptr) build.noarch = optional_text(*node, "noarch", state);
  if (node->find("noarch") != nullptr && build.noarch && *build.noarch != "python" && *build.noarch != "generic") {
    state.fail(RecipeError::Kind::invalid_value, node->find("noarch")->position, *build.noarch,
               "noarch must be 'python' or 'generic', found");
  }
  if (node->find("script") != nullptr) build.script = read_script(node->find("script"), "build.script", state);
  if (const RecipeNode* merge = node->find("merge_build_and_host_envs")) {
    build.merge_build_and_host_envs = bool_of(*merge, "merge_build_and_host_envs", state);
  }
  if (const RecipeNode* files = node->find("always_include_files")) {
    build.always_include_files = text_list(files, "always_include_files", state);
  }
  if (const RecipeNode* files = node->find("always_copy_files")) {
    build.always_copy_files = text_list(files, "always_copy_files", state);
  }
  const RecipeNode* files = node->find("files");
  if (files == nullptr) {
    // inherited (or none)
  } else if (files->kind == RecipeNode::Kind::map) {
    check_keys(*files, {"include", "exclude"}, "build.files", state);
    build.files_include = text_list(files->find("include"), "include", state);
    build.files_exclude = text_list(files->find("exclude"), "exclude", state);
  } else {
    build.files_include = text_list(files, "build.files", state);
    build.files_exclude.clear();
  }
  if (node->find("variant") != nullptr) build.variant = {};
  if (const RecipeNode* variant = node->find("variant"); variant != nullptr && variant->kind != RecipeNode::Kind::null) {
    expect_map(*variant, "build.variant", state);
    check_keys(*variant, {"use_keys", "ignore_keys", "down_prioritize_variant"}, "build.variant", state);
    build.variant.use_keys = text_list(variant->find("use_keys"), "use_keys", state);
    build.variant.ignore_keys = text_list(variant->find("ignore_keys"), "ignore_keys", state);
    if (const RecipeNode* down = variant->find("down_prioritize_variant")) {
      build.variant.down_prioritize_variant = integer_of(*down, "down_prioritize_variant", state);
    }
  }
  if (node->find("python") != nullptr) build.python = {};
  if (node->find("prefix_detection") != nullptr) build.prefix_detection = {};
  if (node->find("dynamic_linking") != nullptr) build.dynamic_linking = {};
  if (const RecipeNode* python = node->find("python"); python != nullptr && python->kind != RecipeNode::Kind::null) {
    read_python(*python, build.python, state);
  }
  if (const RecipeNode* detection = node->find("prefix_detection"); detection != nullptr && detection->kind != RecipeNode::Kind::null) {
    read_prefix_detection(*detection, build.prefix_detection, state);
  }
  if (const RecipeNode* linking = node->find("dynamic_linking"); linking != nullptr && linking->kind != RecipeNode::Kind::null) {
    read_dynamic_linking(*linking, build.dynamic_linking, state);
  }
  return build;
}

Requirements read_requirements(const RecipeNode* node, bool staging, const ReadState& state) {
  Requirements requirements;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return requirements;
  expect_map(*node, "requirements", state);
  if (staging) {
    check_keys(*node, {"build", "host", "ignore_run_exports"}, "a staging output's requirements", state);
  } else {
    check_keys(*node, {"build", "host", "run", "run_constraints", "run_exports", "ignore_run_exports"}, "requirements",
               state);
  }
  requirements.build = dependency_list(node->find("build"), "requirements.build", state);
  requirements.host = dependency_list(node->find("host"), "requirements.host", state);
  requirements.run = dependency_list(node->find("run"), "requirements.run", state);
  requirements.run_constraints = dependency_list(node->find("run_constraints"), "requirements.run_constraints", state);
  if (const RecipeNode* exports = node->find("run_exports"); exports != nullptr) {
    auto& run_exports = requirements.run_exports;
    if (exports->kind == RecipeNode::Kind::map) {
      check_keys(*exports, {"noarch", "strong", "strong_constraints", "weak", "weak_constraints"}, "run_exports", state);
      run_exports.noarch = dependency_list(exports->find("noarch"), "run_exports.noarch", state);
      run_exports.strong = dependency_list(exports->find("strong"), "run_exports.strong", state);
      run_exports.strong_constraints = dependency_list(exports->find("strong_constraints"), "run_exports.strong_constraints", state);
      run_exports.weak = dependency_list(exports->find("weak"), "run_exports.weak", state);
      run_exports.weak_constraints = dependency_list(exports->find("weak_constraints"), "run_exports.weak_constraints", state);
    } else {
      // A plain list is the weak run exports, as in rattler-build.
      run_exports.weak = dependency_list(exports, "run_exports", state);
    }
  }
  if (const RecipeNode* ignore = node->find("ignore_run_exports"); ignore != nullptr && ignore->kind != RecipeNode::Kind::null) {
    expect_map(*ignore, "ignore_run_exports", state);
    check_keys(*ignore, {"by_name", "from_package"}, "ignore_run_exports", state);
    requirements.ignore_run_exports.by_name = package_name_list(ignore->find("by_name"), "by_name", state);
    requirements.ignore_run_exports.from_package = package_name_list(ignore->find("from_package"), "from_package", state);
  }
  return requirements;
}

About read_about(const RecipeNode* node, const ReadState& state) {
  About about;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return about;
  expect_map(*node, "about", state);
  check_keys(*node, {"homepage", "repository", "documentation", "license", "license_family", "license_file",
                     "summary", "description"},
             "about", state);
  about.homepage = optional_text(*node, "homepage", state);
  about.repository = optional_text(*node, "repository", state);
  about.documentation = optional_text(*node, "documentation", state);
  about.license = optional_text(*node, "license", state);
  about.license_family = optional_text(*node, "license_family", state);
  about.summary = optional_text(*node, "summary", state);
  about.description = optional_text(*node, "description", state);
  about.license_file = text_list(node->find("license_file"), "license_file", state);
  return about;
}

}  // namespace gpuenv::recipe::detail
