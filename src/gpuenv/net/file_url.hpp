// file:// URLs, decoded one way for channels and package downloads alike,
// as conda does (conda.common.path.url_to_path): file:///x and
// file://localhost/x (also 127.0.0.1 and ::1) name the local /x; any other
// host would be a network share, which a POSIX path cannot express, so it
// is refused with a message that says how to write a local URL.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuenv::net {

bool is_file_url(std::string_view url);  // "file://...", any case

// The local path a file:// URL names, percent-decoded.
std::expected<std::filesystem::path, std::string> path_from_file_url(std::string_view url);

// file:// URLs percent-encode bytes outside the unreserved set.
std::string file_url_from_path(const std::filesystem::path& absolute_path);

}  // namespace gpuenv::net
