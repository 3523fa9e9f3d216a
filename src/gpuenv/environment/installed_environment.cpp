#include "gpuenv/environment/installed_environment.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "gpuenv/environment/environment_name.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/transaction.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::environment {
namespace {

// How long a reader waits for another gpuenv that is changing the prefix.
constexpr std::chrono::minutes transaction_wait{10};

bool has_scheme(const std::string& text) { return text.find("://") != std::string::npos; }

std::string without_last_component(const std::string& url) {
  const auto slash = url.find_last_of('/');
  return slash == std::string::npos ? std::string() : url.substr(0, slash);
}

std::string last_component(const std::string& text) {
  std::string trimmed = text;
  while (trimmed.ends_with('/')) trimmed.pop_back();
  const auto slash = trimmed.find_last_of('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

bool is_known_subdir(const std::string& text) {
  return specs::Platform::parse(text).has_value();
}

// "numpy >=1.2" -> "numpy": the package name a dependency names.
std::string dependency_name(const std::string& spec) {
  const auto end = spec.find_first_of(" =<>!~[");
  return spec.substr(0, end);
}

}  // namespace

std::expected<void, Error> check_environment(const std::filesystem::path& prefix) {
  const auto refuse = [](std::string message) {
    return std::unexpected(make_error(ErrorKind::no_environment, std::move(message)));
  };
  std::error_code error;
  if (!std::filesystem::exists(prefix, error)) {
    return refuse(fmt::format(
        "the environment {} does not exist: check the path or name, or create it with `gpuenv create -p {} "
        "PACKAGE...`",
        prefix.string(), prefix.string()));
  }
  if (!std::filesystem::is_directory(prefix, error)) {
    return refuse(fmt::format("{} is not a directory, so not an environment", prefix.string()));
  }
  if (!std::filesystem::is_directory(prefix / "conda-meta", error)) {
    return refuse(fmt::format(
        "{} is not a conda environment (it has no conda-meta directory); give the path of an environment "
        "made by gpuenv, conda or mamba",
        prefix.string()));
  }
  return {};
}

SettledPrefix settle_interrupted_transaction(const std::filesystem::path& prefix) {
  SettledPrefix settled;
  std::error_code error;
  if (!std::filesystem::exists(prefix::TransactionJournal::directory(prefix), error)) return settled;
  try {
    const auto outcome = prefix::recover_prefix(prefix, transaction_wait);
    if (outcome == prefix::RecoveryOutcome::rolled_back) {
      settled.note = fmt::format("an interrupted change of {} was rolled back; the environment is as it was "
                                 "before it",
                                 prefix.string());
    } else if (outcome == prefix::RecoveryOutcome::completed) {
      settled.note = fmt::format("an interrupted change of {} was completed", prefix.string());
    }
  } catch (const prefix::PrefixError& failure) {
    settled.warning = fmt::format("{} holds a change that did not finish and it could not be settled ({}); what "
                                  "follows may be a mix of the old and the new state: run any gpuenv command on "
                                  "it with write access to repair it",
                                  prefix.string(), failure.what());
  }
  return settled;
}

std::expected<InstalledEnvironment, Error> read_installed_environment(const std::filesystem::path& prefix) {
  if (auto checked = check_environment(prefix); !checked) return std::unexpected(checked.error());
  InstalledEnvironment environment;
  environment.prefix = prefix;
  auto settled = settle_interrupted_transaction(prefix);
  if (settled.note) environment.notes.push_back(std::move(*settled.note));
  if (settled.warning) environment.warnings.push_back(std::move(*settled.warning));
  auto installed = prefix::read_prefix_records(prefix);
  environment.records = std::move(installed.records);
  for (auto& problem : installed.problems) environment.warnings.push_back(std::move(problem));
  return environment;
}

std::expected<OpenedEnvironment, Error> open_environment(const PrefixChoice& choice, const util::EnvLookup& env,
                                                         WhenNoPrefixGiven when_none, PrefixUse use) {
  auto prefix = resolve_prefix(choice, env, when_none);
  if (!prefix) return std::unexpected(std::move(prefix.error()));
  if (use == PrefixUse::put_on_path) {
    if (auto usable = check_prefix_for_path(*prefix); !usable) return std::unexpected(std::move(usable.error()));
  }
  if (auto checked = check_environment(*prefix); !checked) return std::unexpected(std::move(checked.error()));
  OpenedEnvironment opened;
  opened.prefix = std::move(*prefix);
  auto settled = settle_interrupted_transaction(opened.prefix);
  if (settled.note) opened.notes.push_back(std::move(*settled.note));
  if (settled.warning) opened.warnings.push_back(std::move(*settled.warning));
  return opened;
}

RecordChannel record_channel(const specs::PackageRecord& record, const specs::ChannelContext& context) {
  // conda-meta's `channel` is a URL with the subdir (conda), a URL without
  // it, or a name (some micromamba versions); the download URL is the
  // fallback for records that have none.
  std::string text = record.channel;
  if (text.empty() || text == "<unknown>") text = without_last_component(record.url);
  if (text.empty()) return {};
  try {
    const auto channel = specs::Channel::parse(text, context);
    return {channel.name(), channel.canonical_name(), channel.base_url()};
  } catch (const specs::SpecError&) {
    return {text, text, has_scheme(text) ? text : std::string()};
  }
}

std::string record_subdir(const specs::PackageRecord& record) {
  if (!record.subdir.empty()) return record.subdir;
  for (const auto& candidate : {last_component(record.channel), last_component(without_last_component(record.url))}) {
    if (is_known_subdir(candidate)) return candidate;
  }
  return {};
}

std::vector<std::string> export_header_lines(const std::string& platform) {
  return {"# This file may be used to create an environment using:",
          "# $ conda create --name <env> --file <this file>", "# platform: " + platform};
}

std::vector<std::string> explicit_lockfile_lines(const std::vector<prefix::PrefixRecord>& records,
                                                 const std::string& platform, ExplicitDigest digest) {
  // Dependencies before their dependents, as conda's iter_records_sorted
  // writes them, so a tool that installs the lines in order never links a
  // package before what it needs. Ties (and cycles) in name order.
  std::map<std::string, const prefix::PrefixRecord*> by_name;
  for (const auto& record : records) by_name[record.package.name] = &record;
  std::vector<const prefix::PrefixRecord*> ordered;
  std::set<std::string> visited;
  std::function<void(const prefix::PrefixRecord&)> visit = [&](const prefix::PrefixRecord& record) {
    if (!visited.insert(record.package.name).second) return;
    auto depends = record.package.depends;
    std::sort(depends.begin(), depends.end());
    for (const auto& dependency : depends) {
      const auto found = by_name.find(dependency_name(dependency));
      if (found != by_name.end()) visit(*found->second);
    }
    ordered.push_back(&record);
  };
  for (const auto& [name, record] : by_name) visit(*record);

  auto lines = export_header_lines(platform);
  lines.emplace_back("@EXPLICIT");
  for (const auto* record : ordered) {
    const auto& package = record->package;
    if (package.url.empty() || package.url.starts_with("<unknown>")) {
      lines.push_back("# no URL for: " + (package.fn.empty() ? package.dist_str() : package.fn));
      continue;
    }
    const auto& preferred = digest == ExplicitDigest::sha256 ? package.sha256 : package.md5;
    const auto& other = digest == ExplicitDigest::sha256 ? package.md5 : package.sha256;
    const auto& chosen = preferred.empty() ? other : preferred;
    lines.push_back(chosen.empty() ? package.url : package.url + "#" + chosen);
  }
  return lines;
}

std::string recovery_note(prefix::RecoveryOutcome outcome, const std::filesystem::path& prefix) {
  switch (outcome) {
    case prefix::RecoveryOutcome::rolled_back:
      return "an interrupted gpuenv transaction in " + prefix.string() +
             " was rolled back: the environment is as it was before it";
    case prefix::RecoveryOutcome::completed:
      return "an interrupted gpuenv transaction in " + prefix.string() + " had committed and was completed";
    case prefix::RecoveryOutcome::nothing_to_recover:
      break;
  }
  return {};
}

std::expected<std::vector<const prefix::PrefixRecord*>, std::string> records_named_like(
    const std::vector<prefix::PrefixRecord>& records, const std::string& regex, bool full_name) {
  std::optional<std::regex> pattern;
  if (!regex.empty()) {
    const auto text = full_name ? "^(?:" + regex + ")$" : regex;
    try {
      pattern.emplace(text, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& error) {
      return std::unexpected(fmt::format("'{}' is not a regular expression ({}); packages are matched by name "
                                         "with a regular expression such as '^cuda'",
                                         regex, error.what()));
    }
  }
  std::vector<const prefix::PrefixRecord*> named;
  for (const auto& record : records) {
    if (!pattern || std::regex_search(record.package.name, *pattern)) named.push_back(&record);
  }
  return named;
}

std::string conda_list_json(const std::vector<const prefix::PrefixRecord*>& records,
                            const specs::ChannelContext& context) {
  auto document = nlohmann::json::array();
  for (const auto* record : records) {
    const auto& package = record->package;
    const auto channel = record_channel(package, context);
    document.push_back(
        {{"base_url", channel.base_url.empty() ? nlohmann::json(nullptr) : nlohmann::json(channel.base_url)},
         {"build_number", package.build_number},
         {"build_string", package.build},
         {"channel", channel.name.empty() ? std::string("<unknown>") : channel.name},
         {"dist_name", package.dist_str()},
         {"name", package.name},
         {"platform", record_subdir(package)},
         {"version", package.version}});
  }
  return document.dump(2);
}

}  // namespace gpuenv::environment
