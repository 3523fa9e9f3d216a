#include "gpuenv/environment/activation.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/user_directories.hpp"

extern char** environ;

namespace gpuenv::environment {
namespace {

// Python's os.defpath, which conda starts from when PATH is unset.
constexpr const char* default_path = "/bin:/usr/bin";

std::string value_or_empty(const util::EnvLookup& env, std::string_view name) {
  return env(name).value_or("");
}

int shell_level(const util::EnvLookup& env) {
  const auto text = std::string(util::trim(value_or_empty(env, "CONDA_SHLVL")));
  int level = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), level);
  if (error != std::errc() || end != text.data() + text.size() || level < 0) return 0;
  return level;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (true) {
    const auto colon = path.find(':', start);
    entries.push_back(path.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return entries;
}

std::string join_path(const std::vector<std::string>& entries) {
  std::string joined;
  for (std::size_t i = 0; i < entries.size(); ++i) joined += (i ? ":" : "") + entries[i];
  return joined;
}

std::string bin_of(const std::filesystem::path& prefix) { return (prefix / "bin").string(); }

std::vector<std::string> starting_path(const util::EnvLookup& env) {
  const auto path = env("PATH");
  return split_path(path ? *path : default_path);
}

// conda's _replace_prefix_in_path: the old environment's bin gives way to
// the new one's at the same place (or the new one goes first when the old
// is not there); with no new prefix it is only removed.
std::string replace_in_path(const util::EnvLookup& env, const std::filesystem::path& old_prefix,
                            const std::filesystem::path* new_prefix) {
  auto entries = starting_path(env);
  auto position = entries.end();
  if (!old_prefix.empty()) position = std::find(entries.begin(), entries.end(), bin_of(old_prefix));
  if (position != entries.end()) {
    position = entries.erase(position);
  } else {
    position = entries.begin();
  }
  if (new_prefix != nullptr) entries.insert(position, bin_of(*new_prefix));
  if (entries.size() == 1 && entries.front().empty()) entries.clear();
  return join_path(entries);
}

bool is_shell_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void read_variables(const std::filesystem::path& file, const nlohmann::json& object,
                    std::vector<std::pair<std::string, std::string>>& variables,
                    std::vector<std::string>& warnings) {
  if (!object.is_object()) {
    warnings.push_back(fmt::format("{} holds no variable table; its variables are not set", file.string()));
    return;
  }
  for (const auto& [name, value] : object.items()) {
    if (!is_shell_variable_name(name)) {
      warnings.push_back(fmt::format("{}: '{}' is not a valid environment variable name; it is not set",
                                     file.string(), name));
      continue;
    }
    const auto text = value.is_string() ? value.get<std::string>() : value.dump();
    const auto existing = std::find_if(variables.begin(), variables.end(),
                                       [&](const auto& entry) { return entry.first == name; });
    if (existing != variables.end()) {
      existing->second = text;
    } else {
      variables.emplace_back(name, text);
    }
  }
}

std::optional<nlohmann::json> read_json_file(const std::filesystem::path& file, std::vector<std::string>& warnings) {
  const auto text = util::read_file(file);
  if (!text) return std::nullopt;
  auto document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded()) {
    warnings.push_back(fmt::format("{} is not valid JSON; its variables are not set", file.string()));
    return std::nullopt;
  }
  return document;
}

std::vector<std::string> variable_names_of(const std::filesystem::path& prefix) {
  std::vector<std::string> ignored_warnings;
  std::vector<std::string> names;
  for (const auto& [name, value] : environment_variables_of(prefix, ignored_warnings)) names.push_back(name);
  return names;
}

void export_variable(EnvironmentChanges& changes, std::string name, std::string value) {
  changes.unset_variables.erase(
      std::remove(changes.unset_variables.begin(), changes.unset_variables.end(), name),
      changes.unset_variables.end());
  changes.exported_variables.emplace_back(std::move(name), std::move(value));
}

// CONDA_PREFIX and the three variables that describe the active environment.
void export_active_environment(EnvironmentChanges& changes, const std::filesystem::path& prefix, int level,
                               const util::EnvLookup& env) {
  const auto name = default_environment_name(prefix, env);
  changes.prompt_modifier = "(" + name + ") ";
  export_variable(changes, "CONDA_PREFIX", prefix.string());
  export_variable(changes, "CONDA_SHLVL", std::to_string(level));
  export_variable(changes, "CONDA_DEFAULT_ENV", name);
  export_variable(changes, "CONDA_PROMPT_MODIFIER", changes.prompt_modifier);
}

bool prompt_changes_allowed(const util::EnvLookup& env) {
  auto value = value_or_empty(env, "CONDA_CHANGEPS1");
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return value != "false" && value != "no" && value != "0" && value != "off";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> environment_variables_of(const std::filesystem::path& prefix,
                                                                          std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::string>> variables;
  const auto env_vars_dir = prefix / "etc/conda/env_vars.d";
  for (const auto& name : util::list_directory(env_vars_dir)) {
    if (!name.ends_with(".json")) continue;
    if (auto document = read_json_file(env_vars_dir / name, warnings)) {
      read_variables(env_vars_dir / name, *document, variables, warnings);
    }
  }
  const auto state = prefix / "conda-meta/state";
  if (auto document = read_json_file(state, warnings)) {
    if (document->is_object() && document->contains("env_vars")) {
      read_variables(state, (*document)["env_vars"], variables, warnings);
    }
  }
  return variables;
}

std::vector<std::filesystem::path> activation_scripts(const std::filesystem::path& prefix,
                                                      const std::string& directory) {
  std::vector<std::filesystem::path> scripts;
  const auto folder = prefix / "etc/conda" / directory;
  for (const auto& name : util::list_directory(folder)) {
    std::error_code error;
    if (name.ends_with(".sh") && std::filesystem::is_regular_file(folder / name, error)) {
      scripts.push_back(folder / name);
    }
  }
  return scripts;
}

std::string default_environment_name(const std::filesystem::path& prefix, const util::EnvLookup& env) {
  const auto directories = util::resolve_user_directories(env);
  const auto normal = prefix.lexically_normal();
  if (!directories.root_prefix.empty() && normal == directories.root_prefix.lexically_normal()) return "base";
  for (const auto& envs_dir : directories.envs_dirs) {
    if (normal.parent_path() == envs_dir.lexically_normal()) return normal.filename().string();
  }
  return normal.string();
}

EnvironmentChanges activation_changes(const std::filesystem::path& prefix, const util::EnvLookup& env) {
  EnvironmentChanges changes;
  changes.change_prompt = prompt_changes_allowed(env);
  const int old_level = shell_level(env);
  const std::filesystem::path old_prefix = value_or_empty(env, "CONDA_PREFIX");
  const bool reactivating = old_level > 0 && !old_prefix.empty() &&
                            old_prefix.lexically_normal() == prefix.lexically_normal();
  int new_level = old_level + 1;
  if (old_level == 0) {
    auto entries = starting_path(env);
    if (entries.size() == 1 && entries.front().empty()) entries.clear();
    entries.insert(entries.begin(), bin_of(prefix));
    export_variable(changes, "PATH", join_path(entries));
  } else {
    changes.deactivate_scripts = activation_scripts(old_prefix, "deactivate.d");
    changes.unset_variables = variable_names_of(old_prefix);
    export_variable(changes, "PATH", replace_in_path(env, old_prefix, &prefix));
    if (reactivating) {
      new_level = old_level;
    } else {
      export_variable(changes, fmt::format("CONDA_PREFIX_{}", old_level), old_prefix.string());
    }
  }
  export_active_environment(changes, prefix, new_level, env);
  for (auto& [name, value] : environment_variables_of(prefix, changes.warnings)) {
    export_variable(changes, name, value);
  }
  changes.activate_scripts = activation_scripts(prefix, "activate.d");
  return changes;
}

EnvironmentChanges deactivation_changes(const util::EnvLookup& env) {
  EnvironmentChanges changes;
  changes.change_prompt = prompt_changes_allowed(env);
  const int old_level = shell_level(env);
  const std::filesystem::path old_prefix = value_or_empty(env, "CONDA_PREFIX");
  if (old_level == 0 || old_prefix.empty()) {
    changes.warnings.push_back("no environment is active (CONDA_SHLVL is 0 or CONDA_PREFIX is unset): nothing to "
                               "deactivate");
    changes.prompt_modifier = value_or_empty(env, "CONDA_PROMPT_MODIFIER");
    changes.change_prompt = false;
    return changes;
  }
  changes.deactivate_scripts = activation_scripts(old_prefix, "deactivate.d");
  changes.unset_variables = variable_names_of(old_prefix);
  const int new_level = old_level - 1;
  const std::filesystem::path new_prefix = value_or_empty(env, fmt::format("CONDA_PREFIX_{}", new_level));
  if (new_level == 0 || new_prefix.empty()) {
    export_variable(changes, "PATH", replace_in_path(env, old_prefix, nullptr));
    for (const char* name : {"CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_PROMPT_MODIFIER"}) {
      changes.unset_variables.emplace_back(name);
    }
    if (new_level > 0) changes.unset_variables.push_back(fmt::format("CONDA_PREFIX_{}", new_level));
    export_variable(changes, "CONDA_SHLVL", "0");
    changes.prompt_modifier = "";
    return changes;
  }
  export_variable(changes, "PATH", replace_in_path(env, old_prefix, &new_prefix));
  changes.unset_variables.push_back(fmt::format("CONDA_PREFIX_{}", new_level));
  export_active_environment(changes, new_prefix, new_level, env);
  for (auto& [name, value] : environment_variables_of(new_prefix, changes.warnings)) {
    export_variable(changes, name, value);
  }
  changes.activate_scripts = activation_scripts(new_prefix, "activate.d");
  return changes;
}

std::string shell_single_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string posix_shell_script(const EnvironmentChanges& changes) {
  std::string script;
  for (const auto& path : changes.deactivate_scripts) script += ". " + shell_single_quote(path.string()) + "\n";
  if (changes.change_prompt) {
    // PS1 is a shell variable, not exported: only the shell can change it.
    // The old modifier (still set here) comes off, the new one goes on.
    script += "if [ -n \"${PS1+x}\" ]; then PS1=" + shell_single_quote(changes.prompt_modifier) +
              "\"${PS1#\"${CONDA_PROMPT_MODIFIER:-}\"}\"; fi\n";
  }
  for (const auto& name : changes.unset_variables) script += "unset " + name + "\n";
  for (const auto& [name, value] : changes.exported_variables) {
    script += "export " + name + "=" + shell_single_quote(value) + "\n";
  }
  for (const auto& path : changes.activate_scripts) script += ". " + shell_single_quote(path.string()) + "\n";
  return script;
}

std::map<std::string, std::string> apply_changes(std::map<std::string, std::string> current,
                                                 const EnvironmentChanges& changes) {
  for (const auto& name : changes.unset_variables) current.erase(name);
  for (const auto& [name, value] : changes.exported_variables) current[name] = value;
  return current;
}

std::map<std::string, std::string> current_process_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return variables;
}

}  // namespace gpuenv::environment
