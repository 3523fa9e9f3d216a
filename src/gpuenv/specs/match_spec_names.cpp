#include "gpuenv/specs/match_spec_names.hpp"

#include <algorithm>

namespace gpuenv::specs::spec_names {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_name_separator(char c) { return c == '.' || c == '-' || c == '_'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

}  // namespace

bool is_valid_package_name(std::string_view name) {
  std::size_t i = 0;
  if (name.starts_with("__")) {
    if (name.size() < 3 || !is_lower_alnum(name[2])) return false;
    i = 3;
  } else {
    if (name.empty()) return false;
    if (!is_lower_alnum(name[0]) && !(name[0] == '_' && (name.size() == 1 || name[1] != '_'))) {
      return false;
    }
    i = 1;
  }
  if (i < name.size() && is_name_separator(name[i])) ++i;
  // The rest: runs of letters/digits, each followed by at most one separator.
  bool previous_was_separator = true;
  for (; i < name.size(); ++i) {
    const bool separator = is_name_separator(name[i]);
    if (separator && previous_was_separator) return false;
    previous_was_separator = separator;
  }
  return true;
}

bool is_feature_name(std::string_view feature) {
  return !feature.empty() && std::all_of(feature.begin(), feature.end(), [](char c) {
    return is_lower_alnum(c) || is_upper(c) || c == '-' || c == '_' || c == '.' || c == '+';
  });
}

std::string_view without_scheme(std::string_view url) {
  const auto scheme_end = url.find("://");
  return scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
}

bool is_under_channel_alias(std::string_view base_url, std::string_view alias) {
  alias = without_scheme(alias);
  while (alias.ends_with('/')) alias.remove_suffix(1);
  base_url = without_scheme(base_url);
  return !alias.empty() && base_url.size() > alias.size() + 1 && base_url.starts_with(alias) &&
         base_url[alias.size()] == '/';
}

}  // namespace gpuenv::specs::spec_names
