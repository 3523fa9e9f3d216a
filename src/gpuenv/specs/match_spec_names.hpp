// Internal to the specs module: the names a MatchSpec holds (packages,
// features, channels under the alias), checked as conda checks them.
#pragma once

#include <string_view>

namespace gpuenv::specs::spec_names {

// CEP 26 package names, lower-cased: distributable
// `^(([a-z0-9])|([a-z0-9_](?!_)))[._-]?([a-z0-9]+(\.|-|_|$))*$`, virtual
// `^__[a-z0-9][._-]?([a-z0-9]+(\.|-|_|$))*$`.
bool is_valid_package_name(std::string_view name);
// CEP 34: track_features identifiers match [A-Za-z0-9-_.]+ (gpuenv allows '+').
bool is_feature_name(std::string_view feature);
// The URL without `scheme://`.
std::string_view without_scheme(std::string_view url);
// conda's _is_non_alias_url_channel, negated: the URL lives under the channel
// alias, whatever its scheme.
bool is_under_channel_alias(std::string_view base_url, std::string_view alias);

}  // namespace gpuenv::specs::spec_names
