#include "gpuenv/prefix/history.hpp"

#include <algorithm>
#include <ctime>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::prefix {

namespace {

std::string channel_name(const specs::PackageRecord& package) {
  if (package.channel.empty()) return {};
  try {
    return specs::Channel::parse(package.channel).canonical_name();
  } catch (const specs::SpecError&) {
    return package.channel;  // not a channel conda could read either: keep it as written
  }
}

std::string python_string_repr(const std::string& text) {
  // Python prefers single quotes and switches to double quotes when the
  // text holds a single quote but no double quote.
  const bool has_single = text.find('\'') != std::string::npos;
  const bool has_double = text.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string repr(1, quote);
  for (const char c : text) {
    if (c == quote || c == '\\') {
      repr += '\\';
      repr += c;
    } else if (c == '\n') {
      repr += "\\n";
    } else if (c == '\t') {
      repr += "\\t";
    } else {
      repr += c;
    }
  }
  repr += quote;
  return repr;
}

}  // namespace

std::string history_package_string(const specs::PackageRecord& package) {
  const auto channel = channel_name(package);
  if (channel.empty()) return package.dist_str();
  std::string text = channel;
  if (!package.subdir.empty()) text += "/" + package.subdir;
  return text + "::" + package.dist_str();
}

std::string python_list_repr(const std::vector<std::string>& items) {
  std::string repr = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) repr += ", ";
    repr += python_string_repr(items[i]);
  }
  return repr + "]";
}

std::string history_block(const HistoryEntry& entry) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(entry.time);
  std::tm local {};
  ::localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);

  std::string block = "==> " + std::string(stamp) + " <==\n";
  if (!entry.command_line.empty()) block += "# cmd: " + entry.command_line + "\n";
  if (!entry.tool_version.empty()) block += "# gpuenv version: " + entry.tool_version + "\n";
  const auto sorted_strings = [](const std::vector<specs::PackageRecord>& packages) {
    std::vector<std::string> strings;
    for (const auto& package : packages) strings.push_back(history_package_string(package));
    std::sort(strings.begin(), strings.end());
    return strings;
  };
  for (const auto& line : sorted_strings(entry.unlinked)) block += "-" + line + "\n";
  for (const auto& line : sorted_strings(entry.linked)) block += "+" + line + "\n";
  if (!entry.remove_specs.empty()) {
    block += "# remove specs: " + python_list_repr(entry.remove_specs) + "\n";
  }
  if (!entry.update_specs.empty()) {
    block += "# update specs: " + python_list_repr(entry.update_specs) + "\n";
  }
  // The command line, the specs and the channels may hold a channel's token
  // or password (`-c https://user:pw@host/t/<token>/chan`). conda writes the
  // command line as typed; gpuenv masks them as conda masks conda-meta.
  return specs::mask_credentials(block);
}

}  // namespace gpuenv::prefix
