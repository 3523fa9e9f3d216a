#include "gpuenv/environment/history_requests.hpp"

#include <algorithm>
#include <regex>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::environment {
namespace {

using util::trim;

// One quoted Python string starting at text[position]; advances past it.
std::string read_python_string(std::string_view text, std::size_t& position) {
  const char quote = text[position++];
  std::string value;
  while (position < text.size() && text[position] != quote) {
    char c = text[position++];
    if (c == '\\' && position < text.size()) {
      const char escaped = text[position++];
      switch (escaped) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        default: c = escaped; break;  // \\ \' \" and the rest as written
      }
    }
    value += c;
  }
  if (position < text.size()) ++position;  // the closing quote
  return value;
}

}  // namespace

std::vector<std::string> parse_python_string_list(std::string_view text) {
  text = trim(text);
  std::vector<std::string> items;
  if (!text.starts_with('[')) {
    // conda's older "# install specs: a,b" form (conda keeps the raw items).
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto comma = text.find(',', start);
      const auto item = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (!item.empty()) items.emplace_back(item);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return items;
  }
  std::size_t position = 1;
  while (position < text.size()) {
    const char c = text[position];
    if (c == '\'' || c == '"') {
      items.push_back(read_python_string(text, position));
    } else if (c == ']') {
      break;
    } else {
      ++position;  // separators, spaces, and anything that is not a string
    }
  }
  return items;
}

std::vector<std::string> requested_specs_from_history(std::string_view history_text,
                                                      const std::vector<std::string>& installed_names) {
  // conda's spec_pat: "#\s*(\w+)\s*specs:\s*(.+)?"
  static const std::regex spec_line(R"(^#\s*(\w+)\s*specs:\s*(.*)$)");
  std::vector<std::pair<std::string, std::string>> requested;  // name -> spec, in first-asked order
  std::size_t start = 0;
  while (start < history_text.size()) {
    auto end = history_text.find('\n', start);
    if (end == std::string_view::npos) end = history_text.size();
    const std::string line(trim(history_text.substr(start, end - start)));
    start = end + 1;
    std::smatch match;
    if (!std::regex_match(line, match, spec_line)) continue;
    const auto action = match[1].str();
    auto specs = parse_python_string_list(match[2].str());
    // conda drops "name@" items (old feature specs).
    std::erase_if(specs, [](const std::string& spec) { return spec.empty() || spec.ends_with('@'); });
    const bool adds = action == "update" || action == "install" || action == "create" || action == "neutered";
    const bool removes = action == "remove" || action == "uninstall";
    for (const auto& spec : specs) {
      const auto name = specs::MatchSpec::extract_name(spec).value_or(std::string());
      if (name.empty()) continue;
      const auto existing = std::find_if(requested.begin(), requested.end(),
                                         [&](const auto& entry) { return entry.first == name; });
      if (removes) {
        if (existing != requested.end()) requested.erase(existing);
      } else if (adds) {
        if (existing != requested.end()) {
          existing->second = spec;
        } else {
          requested.emplace_back(name, spec);
        }
      }
    }
  }
  std::vector<std::string> result;
  for (const auto& [name, spec] : requested) {
    if (std::find(installed_names.begin(), installed_names.end(), name) != installed_names.end()) {
      result.push_back(spec);
    }
  }
  return result;
}

}  // namespace gpuenv::environment
