#include "gpuenv/util/conda_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <span>
#include <unordered_set>

#include "gpuenv/util/config_document.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::util {
namespace {

enum class Shape { scalar, sequence, string_map, sequence_map };

// One setting gpuenv reads: its names (conda's canonical name first, then its
// aliases) and how conda reads it.
struct Setting {
  std::vector<std::string_view> names;
  Shape shape;
  // How an environment variable's value is split into list entries.
  char env_delimiter = ',';
  // conda expands $VAR and ${VAR} in these (its `expandvars=True`).
  bool expand_variables = false;
};

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      {{"channels", "channel"}, Shape::sequence, ',', true},
      {{"default_channels"}, Shape::sequence, ',', true},
      {{"channel_alias"}, Shape::scalar, ',', true},
      {{"custom_channels"}, Shape::string_map, ',', true},
      {{"custom_multichannels"}, Shape::sequence_map, ',', true},
      {{"channel_priority"}, Shape::scalar, ',', false},
      // `&`, because a spec can hold commas ("numpy >=1.26,<2").
      {{"pinned_packages"}, Shape::sequence, '&', false},
      {{"subdir"}, Shape::scalar, ',', false},
      {{"offline"}, Shape::scalar, ',', false},
      {{"ssl_verify", "verify_ssl"}, Shape::scalar, ',', true},
      {{"client_ssl_cert", "client_cert"}, Shape::scalar, ',', true},
      {{"client_ssl_cert_key", "client_cert_key"}, Shape::scalar, ',', true},
      {{"proxy_servers"}, Shape::string_map, ',', true},
      {{"envs_dirs", "envs_path"}, Shape::sequence, ':', true},
      {{"pkgs_dirs"}, Shape::sequence, ',', true},
      {{"safety_checks"}, Shape::scalar, ',', false},
      {{"extra_safety_checks"}, Shape::scalar, ',', false},
      {{"gpuenv_check_device_code"}, Shape::scalar, ',', false},
      {{"gpuenv_solve_memo"}, Shape::scalar, ',', false},
      {{"always_yes"}, Shape::scalar, ',', false},
  };
  return table;
}

// One source's value for one setting.
struct Match {
  std::string source;  // the file, or "$CONDA_CHANNELS"
  std::string origin;  // "<file>:<line>" or "$CONDA_CHANNELS"
  std::string name;    // the name it was given under
  ConfigNode node;
};

// A list entry or map value with where it came from.
struct Sourced {
  std::string value;
  std::string origin;
};

std::string line_origin(const std::string& source, int line) {
  return line > 0 ? fmt::format("{}:{}", source, line) : source;
}

// os.path.expandvars: $NAME and ${NAME} with NAME set are replaced; the rest
// stays as written.
std::string expand_variables(const std::string& text, const EnvLookup& env) {
  std::string result;
  std::size_t i = 0;
  const auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < text.size()) {
    if (text[i] != '$') {
      result += text[i++];
      continue;
    }
    std::size_t name_start = i + 1;
    std::size_t name_end = 0;
    std::size_t after = 0;
    if (name_start < text.size() && text[name_start] == '{') {
      const auto close = text.find('}', name_start);
      if (close == std::string::npos) {
        result += text[i++];
        continue;
      }
      name_end = close;
      ++name_start;
      after = close + 1;
    } else {
      name_end = name_start;
      while (name_end < text.size() && is_name_char(text[name_end])) ++name_end;
      after = name_end;
    }
    const auto name = text.substr(name_start, name_end - name_start);
    const auto value = name.empty() ? std::nullopt : env(name);
    if (value) {
      result += *value;
    } else {
      result += text.substr(i, after - i);
    }
    i = after;
  }
  return result;
}

std::string expand_home(const std::string& path, const EnvLookup& env) {
  if (path != "~" && !path.starts_with("~/")) return path;
  const auto home = env("HOME");
  return home && !home->empty() ? *home + path.substr(1) : path;
}

const char* shape_example(const Setting& setting) {
  switch (setting.shape) {
    case Shape::scalar: return "a single value";
    case Shape::sequence: return "a list (one `- entry` per line)";
    case Shape::string_map: return "a map (`name: value` lines)";
    case Shape::sequence_map: return "a map of lists (`name:` then `- entry` lines)";
  }
  return "";
}

std::string type_error(const Match& match, const Setting& setting) {
  return fmt::format("{}: `{}` must be {}", match.origin, match.name, shape_example(setting));
}

// The matches up to and including the first marked final: conda lets no
// later (higher-precedence) source change a setting once one marked it so.
std::span<const Match> relevant(const std::vector<Match>& matches) {
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (matches[i].node.marker == ConfigMarker::final) return std::span(matches).first(i + 1);
  }
  return matches;
}

std::expected<Sourced, std::string> scalar_text(const ConfigNode& node, const Match& match,
                                                const Setting& setting, const std::string& origin,
                                                const EnvLookup& env) {
  if (node.kind != ConfigNode::Kind::scalar) return std::unexpected(type_error(match, setting));
  return Sourced{setting.expand_variables ? expand_variables(node.scalar, env) : node.scalar, origin};
}

std::expected<std::optional<Sourced>, std::string> merge_scalar(const std::vector<Match>& matches,
                                                                const Setting& setting, const EnvLookup& env) {
  const auto considered = relevant(matches);
  if (considered.empty()) return std::nullopt;
  for (const auto& match : considered) {
    if (match.node.kind != ConfigNode::Kind::scalar) return std::unexpected(type_error(match, setting));
  }
  const auto& winner = considered.back();
  return scalar_text(winner.node, winner, setting, winner.origin, env);
}

// Each value once, where it first appears. A hash set keeps this linear: a
// scan of what was kept made 100,000 channels take a minute.
std::vector<Sourced> unique_values(std::vector<Sourced> values) {
  std::vector<bool> first(values.size(), false);
  {
    // Views into `values`, which is not touched until they are gone.
    std::unordered_set<std::string_view> seen;
    seen.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) first[i] = seen.insert(values[i].value).second;
  }
  std::vector<Sourced> result;
  result.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (first[i]) result.push_back(std::move(values[i]));
  }
  return result;
}

std::expected<std::vector<Sourced>, std::string> sequence_entries(const Match& match, const Setting& setting,
                                                                  const EnvLookup& env,
                                                                  std::optional<ConfigMarker> only = {}) {
  if (match.node.kind != ConfigNode::Kind::sequence) return std::unexpected(type_error(match, setting));
  std::vector<Sourced> entries;
  for (const auto& item : match.node.items) {
    if (item.kind != ConfigNode::Kind::scalar) {
      return std::unexpected(fmt::format("{}: each entry of `{}` must be a single value, like `- conda-forge`",
                                         line_origin(match.source, item.line), match.name));
    }
    if (only && item.marker != *only) continue;
    entries.push_back({setting.expand_variables ? expand_variables(item.scalar, env) : item.scalar,
                       line_origin(match.source, item.line)});
  }
  return entries;
}

// conda's SequenceParameter._merge: higher-precedence sources first, entries
// marked #!top before everything and #!bottom after, each value once.
std::expected<std::optional<std::vector<Sourced>>, std::string> merge_sequence(const std::vector<Match>& matches,
                                                                             const Setting& setting,
                                                                             const EnvLookup& env) {
  const auto considered = relevant(matches);
  if (considered.empty()) return std::nullopt;
  std::vector<Sourced> top;
  for (const auto& match : considered) {
    auto entries = sequence_entries(match, setting, env, ConfigMarker::top);
    if (!entries) return std::unexpected(entries.error());
    top.insert(top.end(), entries->begin(), entries->end());
  }
  std::vector<Sourced> bottom;
  std::vector<Sourced> all;
  for (auto it = considered.rbegin(); it != considered.rend(); ++it) {
    auto marked = sequence_entries(*it, setting, env, ConfigMarker::bottom);
    auto entries = sequence_entries(*it, setting, env);
    if (!marked) return std::unexpected(marked.error());
    if (!entries) return std::unexpected(entries.error());
    bottom.insert(bottom.end(), marked->begin(), marked->end());
    all.insert(all.end(), entries->begin(), entries->end());
  }
  top.insert(top.end(), all.begin(), all.end());
  auto top_deduplicated = unique_values(std::move(top));
  // Deduplicate from the back so that #!bottom entries keep their last place.
  std::vector<Sourced> reversed(bottom.rbegin(), bottom.rend());
  reversed.insert(reversed.end(), top_deduplicated.rbegin(), top_deduplicated.rend());
  auto bottom_deduplicated = unique_values(std::move(reversed));
  return std::vector<Sourced>(bottom_deduplicated.rbegin(), bottom_deduplicated.rend());
}

using MergedMap = std::map<std::string, std::pair<ConfigNode, std::string>>;

// conda's MapParameter._merge: later sources override keys; a key marked
// #!final keeps the value of the lowest-precedence source that marked it.
std::expected<std::optional<MergedMap>, std::string> merge_map(const std::vector<Match>& matches,
                                                             const Setting& setting) {
  const auto considered = relevant(matches);
  if (considered.empty()) return std::nullopt;
  MergedMap merged;
  for (const auto& match : considered) {
    if (match.node.kind != ConfigNode::Kind::map) return std::unexpected(type_error(match, setting));
    for (const auto& [key, value] : match.node.entries) merged[key] = {value, line_origin(match.source, value.line)};
  }
  for (auto it = considered.rbegin(); it != considered.rend(); ++it) {
    for (const auto& [key, value] : it->node.entries) {
      if (value.marker == ConfigMarker::final) merged[key] = {value, line_origin(it->source, value.line)};
    }
  }
  return merged;
}

std::optional<bool> boolean_value(std::string_view text) {
  std::string lower;
  for (char c : trim(text)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* yes : {"true", "yes", "on", "y", "1"}) {
    if (lower == yes) return true;
  }
  for (const char* no : {"false", "no", "off", "n", "0", ""}) {
    if (lower == no) return false;
  }
  return std::nullopt;
}

bool has_scheme(std::string_view text) {
  const auto colon = text.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

std::vector<std::string> values_of(const std::vector<Sourced>& entries) {
  std::vector<std::string> values;
  for (const auto& entry : entries) values.push_back(entry.value);
  return values;
}

class ConfigBuilder {
 public:
  explicit ConfigBuilder(const EnvLookup& env) : env_(env) {}

  std::expected<void, std::string> add_document(const ConfigDocument& document) {
    if (document.root.kind != ConfigNode::Kind::map) return {};
    for (std::size_t index = 0; index < settings().size(); ++index) {
      const auto& setting = settings()[index];
      const std::pair<std::string, ConfigNode>* found = nullptr;
      for (const auto& entry : document.root.entries) {
        if (std::find(setting.names.begin(), setting.names.end(), entry.first) == setting.names.end()) continue;
        if (found != nullptr) {
          return std::unexpected(fmt::format("{}:{}: `{}` and `{}` (line {}) are the same setting; keep only `{}`",
                                             document.source, entry.second.line, entry.first, found->first,
                                             found->second.line, setting.names.front()));
        }
        found = &entry;
      }
      // `key:` with nothing after it sets nothing, rather than failing.
      if (found == nullptr || found->second.kind == ConfigNode::Kind::null) continue;
      matches_[index].push_back(
          {document.source, line_origin(document.source, found->second.line), found->first, found->second});
    }
    return {};
  }

  // conda's EnvRawParameter: CONDA_<NAME> for each name; list entries split
  // on the setting's delimiter; a trailing `!important` marks it final.
  std::expected<void, std::string> add_environment() {
    for (std::size_t index = 0; index < settings().size(); ++index) {
      const auto& setting = settings()[index];
      if (setting.shape == Shape::string_map || setting.shape == Shape::sequence_map) continue;
      std::optional<std::string> found_name;
      for (const auto name : setting.names) {
        std::string variable = "CONDA_";
        for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        auto value = env_(variable);
        if (!value || value->empty()) continue;
        if (found_name) {
          return std::unexpected(fmt::format("${} and ${} are the same setting ({}); unset one of them",
                                             variable, *found_name, setting.names.front()));
        }
        found_name = variable;
        Match match;
        match.source = "$" + variable;
        match.origin = match.source;
        match.name = variable;
        std::string text = *value;
        if (const auto important = text.find("!important"); important != std::string::npos) {
          text.erase(important);
          match.node.marker = ConfigMarker::final;
        }
        if (setting.shape == Shape::scalar) {
          match.node.kind = ConfigNode::Kind::scalar;
          match.node.scalar = std::string(trim(text));
        } else {
          match.node.kind = ConfigNode::Kind::sequence;
          std::size_t start = 0;
          while (start <= text.size()) {
            auto end = text.find(setting.env_delimiter, start);
            if (end == std::string::npos) end = text.size();
            const auto entry = trim(std::string_view(text).substr(start, end - start));
            if (!entry.empty()) {
              ConfigNode item;
              item.kind = ConfigNode::Kind::scalar;
              item.scalar = std::string(entry);
              match.node.items.push_back(std::move(item));
            }
            start = end + 1;
          }
        }
        matches_[index].push_back(std::move(match));
      }
    }
    return {};
  }

  std::expected<CondaConfig, std::string> build(std::vector<std::filesystem::path> files) {
    CondaConfig config;
    config.files = std::move(files);
    if (auto done = build_channels(config); !done) return std::unexpected(done.error());
    if (auto done = build_solving(config); !done) return std::unexpected(done.error());
    if (auto done = build_transfers(config); !done) return std::unexpected(done.error());
    if (auto done = build_safety(config); !done) return std::unexpected(done.error());
    return config;
  }

 private:
  const std::vector<Match>& matches_of(std::string_view name) {
    for (std::size_t index = 0; index < settings().size(); ++index) {
      if (settings()[index].names.front() == name) return matches_[index];
    }
    static const std::vector<Match> none;
    return none;
  }
  const Setting& setting(std::string_view name) {
    for (const auto& s : settings()) {
      if (s.names.front() == name) return s;
    }
    return settings().front();
  }

  // A true/false setting: `target` keeps its default when unset.
  std::expected<void, std::string> boolean_setting(std::string_view name, CondaConfig& config, bool& target) {
    auto value = scalar(name, config);
    if (!value) return std::unexpected(value.error());
    if (!*value) return {};
    const auto flag = boolean_value((*value)->value);
    if (!flag)
      return std::unexpected(fmt::format("{}: {} '{}' must be true or false", (*value)->origin, name, (*value)->value));
    target = *flag;
    return {};
  }

  std::expected<std::optional<Sourced>, std::string> scalar(std::string_view name, CondaConfig& config) {
    auto merged = merge_scalar(matches_of(name), setting(name), env_);
    if (merged && *merged) config.origins[std::string(name)] = (*merged)->origin;
    return merged;
  }

  std::expected<std::optional<std::vector<std::string>>, std::string> sequence(std::string_view name,
                                                                             CondaConfig& config,
                                                                             bool paths = false) {
    auto merged = merge_sequence(matches_of(name), setting(name), env_);
    if (!merged) return std::unexpected(merged.error());
    if (!*merged) return std::nullopt;
    for (auto& entry : **merged) {
      if (paths) entry.value = expand_home(entry.value, env_);
      config.origins[fmt::format("{}: {}", name, entry.value)] = entry.origin;
    }
    if (!(*merged)->empty()) config.origins[std::string(name)] = (*merged)->front().origin;
    return values_of(**merged);
  }

  std::expected<void, std::string> build_channels(CondaConfig& config) {
    auto channels = sequence("channels", config);
    if (!channels) return std::unexpected(channels.error());
    if (*channels) config.channels = std::move(**channels);

    auto defaults = sequence("default_channels", config);
    if (!defaults) return std::unexpected(defaults.error());
    config.default_channels = std::move(*defaults);

    auto alias = scalar("channel_alias", config);
    if (!alias) return std::unexpected(alias.error());
    if (*alias) {
      if (!has_scheme((*alias)->value)) {
        return std::unexpected(fmt::format(
            "{}: channel_alias '{}' must be a URL with a scheme, like https://conda.anaconda.org or file:///srv/channels",
            (*alias)->origin, (*alias)->value));
      }
      std::string url = (*alias)->value;
      while (url.size() > 1 && url.back() == '/') url.pop_back();
      config.channel_alias = url;
    }

    const auto& custom_setting = setting("custom_channels");
    auto custom = merge_map(matches_of("custom_channels"), custom_setting);
    if (!custom) return std::unexpected(custom.error());
    if (*custom) {
      for (const auto& [name, value] : **custom) {
        if (value.first.kind != ConfigNode::Kind::scalar) {
          return std::unexpected(fmt::format("{}: custom_channels: `{}` must name one URL, like `{}: https://repo.example.com`",
                                             value.second, name, name));
        }
        std::string url = expand_variables(value.first.scalar, env_);
        while (url.size() > 1 && url.back() == '/') url.pop_back();
        config.custom_channels[name] = url;
        config.origins[fmt::format("custom_channels: {}", name)] = value.second;
      }
    }

    const auto& multi_setting = setting("custom_multichannels");
    auto multi = merge_map(matches_of("custom_multichannels"), multi_setting);
    if (!multi) return std::unexpected(multi.error());
    if (*multi) {
      for (const auto& [name, value] : **multi) {
        if (value.first.kind != ConfigNode::Kind::sequence) {
          return std::unexpected(fmt::format(
              "{}: custom_multichannels: `{}` must be a list of channels (`- channel` lines)", value.second, name));
        }
        std::vector<std::string> members;
        for (const auto& item : value.first.items) {
          if (item.kind != ConfigNode::Kind::scalar) {
            return std::unexpected(fmt::format("{}: custom_multichannels: each entry of `{}` must be one channel",
                                               value.second, name));
          }
          members.push_back(expand_variables(item.scalar, env_));
        }
        config.custom_multichannels[name] = std::move(members);
        config.origins[fmt::format("custom_multichannels: {}", name)] = value.second;
      }
    }
    return {};
  }

  std::expected<void, std::string> build_solving(CondaConfig& config) {
    auto priority = scalar("channel_priority", config);
    if (!priority) return std::unexpected(priority.error());
    if (*priority) {
      std::string lower;
      for (char c : trim((*priority)->value)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "strict") {
        config.channel_priority = ChannelPrioritySetting::strict;
      } else if (lower == "flexible") {
        config.channel_priority = ChannelPrioritySetting::flexible;
      } else if (lower == "disabled") {
        config.channel_priority = ChannelPrioritySetting::disabled;
      } else if (const auto flag = boolean_value(lower); flag && !lower.empty()) {
        // conda still reads the old boolean form: true is flexible, false disabled.
        config.channel_priority = *flag ? ChannelPrioritySetting::flexible : ChannelPrioritySetting::disabled;
      } else {
        return std::unexpected(fmt::format("{}: channel_priority '{}' is not one of strict, flexible, disabled",
                                           (*priority)->origin, (*priority)->value));
      }
    }

    auto pins = sequence("pinned_packages", config);
    if (!pins) return std::unexpected(pins.error());
    if (*pins) config.pinned_packages = std::move(**pins);

    auto subdir = scalar("subdir", config);
    if (!subdir) return std::unexpected(subdir.error());
    if (*subdir && !trim((*subdir)->value).empty()) config.subdir = std::string(trim((*subdir)->value));
    return {};
  }

  std::expected<void, std::string> build_transfers(CondaConfig& config) {
    auto offline = scalar("offline", config);
    if (!offline) return std::unexpected(offline.error());
    if (*offline) {
      const auto flag = boolean_value((*offline)->value);
      if (!flag) {
        return std::unexpected(
            fmt::format("{}: offline '{}' must be true or false", (*offline)->origin, (*offline)->value));
      }
      config.offline = *flag;
    }

    auto verify = scalar("ssl_verify", config);
    if (!verify) return std::unexpected(verify.error());
    if (*verify) {
      const auto& text = (*verify)->value;
      if (const auto flag = boolean_value(text); flag && !trim(text).empty()) {
        config.ssl_verify = *flag;
      } else if (text != "truststore") {
        const auto path = expand_home(text, env_);
        if (!file_identity(path)) {
          return std::unexpected(fmt::format(
              "{}: ssl_verify '{}' is neither true, false, truststore nor an existing CA bundle file or directory",
              (*verify)->origin, text));
        }
        config.ssl_ca_path = path;
      }
    }
    for (const auto& [name, field] : {std::pair{"client_ssl_cert", &config.client_ssl_cert},
                                      std::pair{"client_ssl_cert_key", &config.client_ssl_cert_key}}) {
      auto path = scalar(name, config);
      if (!path) return std::unexpected(path.error());
      if (*path && !trim((*path)->value).empty()) *field = expand_home(std::string(trim((*path)->value)), env_);
    }
    if (!config.client_ssl_cert_key.empty() && config.client_ssl_cert.empty()) {
      return std::unexpected(fmt::format("{}: client_ssl_cert_key is set but client_ssl_cert is not; set "
                                         "client_ssl_cert to the certificate the key belongs to",
                                         config.origin_of("client_ssl_cert_key")));
    }
    auto proxies = merge_map(matches_of("proxy_servers"), setting("proxy_servers"));
    if (!proxies) return std::unexpected(proxies.error());
    if (*proxies) {
      for (const auto& [key, value] : **proxies) {
        if (value.first.kind != ConfigNode::Kind::scalar) {
          return std::unexpected(fmt::format(
              "{}: proxy_servers: `{}` must name one proxy URL, like `{}: http://proxy.example.com:3128`",
              value.second, key, key));
        }
        config.proxy_servers[key] = expand_variables(value.first.scalar, env_);
        config.origins[fmt::format("proxy_servers: {}", key)] = value.second;
      }
    }

    auto envs = sequence("envs_dirs", config, true);
    if (!envs) return std::unexpected(envs.error());
    if (*envs) config.envs_dirs = std::move(**envs);
    auto pkgs = sequence("pkgs_dirs", config, true);
    if (!pkgs) return std::unexpected(pkgs.error());
    if (*pkgs) config.pkgs_dirs = std::move(**pkgs);
    return {};
  }

  // safety_checks: warn|enabled|disabled; extra_safety_checks: a boolean.
  std::expected<void, std::string> build_safety(CondaConfig& config) {
    auto checks = scalar("safety_checks", config);
    if (!checks) return std::unexpected(checks.error());
    if (*checks) {
      const auto text = trim((*checks)->value);
      if (text == "warn") {
        config.safety_checks = SafetyChecksSetting::warn;
      } else if (text == "enabled") {
        config.safety_checks = SafetyChecksSetting::enabled;
      } else if (text == "disabled") {
        config.safety_checks = SafetyChecksSetting::disabled;
      } else {
        return std::unexpected(fmt::format("{}: safety_checks '{}' is not one of warn, enabled, disabled",
                                           (*checks)->origin, (*checks)->value));
      }
    }
    if (auto read = boolean_setting("extra_safety_checks", config, config.extra_safety_checks); !read) return read;
    if (auto read = boolean_setting("gpuenv_check_device_code", config, config.gpuenv_check_device_code); !read) {
      return read;
    }
    if (auto read = boolean_setting("gpuenv_solve_memo", config, config.gpuenv_solve_memo); !read) return read;
    return boolean_setting("always_yes", config, config.always_yes);
  }

  const EnvLookup& env_;
  std::map<std::size_t, std::vector<Match>> matches_;
};

}  // namespace

std::string CondaConfig::origin_of(std::string_view setting, std::string_view entry) const {
  const auto key = entry.empty() ? std::string(setting) : fmt::format("{}: {}", setting, entry);
  const auto found = origins.find(key);
  return found == origins.end() ? std::string() : found->second;
}

std::expected<CondaConfig, std::string> load_conda_config(const std::vector<std::filesystem::path>& files,
                                                          const EnvLookup& env) {
  ConfigBuilder builder(env);
  for (const auto& file : files) {
    auto document = read_config_document(file);
    if (!document) return std::unexpected(document.error());
    if (auto added = builder.add_document(*document); !added) return std::unexpected(added.error());
  }
  if (auto added = builder.add_environment(); !added) return std::unexpected(added.error());
  return builder.build(files);
}

std::expected<CondaConfig, std::string> load_conda_config(const EnvLookup& env) {
  const auto directories = resolve_user_directories(env);
  return load_conda_config(existing_config_files(directories.config_search_path), env);
}

}  // namespace gpuenv::util
