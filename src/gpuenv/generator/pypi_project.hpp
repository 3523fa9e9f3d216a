// PyPI's project JSON (https://pypi.org/pypi/NAME/json): the release a
// recipe is written for and its sdist. Hostile input: bounded in size, every
// field type-checked, every url required to be https.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/net/client_settings.hpp"

namespace gpuenv::generate {

struct PypiFile {
  std::string filename;
  std::string url;
  std::string sha256;
  std::string packagetype;  // "sdist", "bdist_wheel"
  std::string requires_python;
  std::uint64_t size = 0;
  bool yanked = false;
};

struct PypiRelease {
  std::string name;     // as PyPI spells the project ("PyYAML")
  std::string version;
  PypiFile sdist;
  // From the project's latest release (the JSON's "info"); only trusted
  // when `version` is that release.
  bool is_latest = false;
  std::string summary;
  std::string home_page;
  std::string license;
  std::string license_expression;
};

inline constexpr std::uint64_t max_project_json_bytes = 64ull << 20;

// The release `version` (default: the latest PyPI names, info.version) and
// its sdist (.tar.gz, else .zip, else another). Errors name the package: an
// unknown version (listing the newest few), a release without an sdist
// (only wheels), a yanked-only sdist, a malformed document.
// A file url relative to the JSON's own (some PyPI mirrors answer
// "../../packages/..."), is resolved against `json_url`. Only https file
// urls are accepted, and file:// ones when `json_url` is a file:// url too
// (a local mirror; the tests).
std::expected<PypiRelease, std::string> select_release(std::string_view project_json, std::string_view package,
                                                       const std::optional<std::string>& version,
                                                       const std::string& json_url = "https://pypi.org/pypi/");

// The newest release whose version the conda version spec `constraint`
// (">=3.11,<4") contains and that has an sdist, pre-releases only when no
// final release fits; nullopt when none does.
std::optional<std::string> newest_version_matching(std::string_view project_json, const std::string& constraint);

// `reference` resolved against `base` (RFC 3986, for the http(s) urls PyPI
// writes: absolute, scheme-relative, host-relative, relative with ../).
std::string resolve_url(const std::string& base, const std::string& reference);

// The url of a project's JSON under `index_url`: <index>/<name>/json.
std::string project_json_url(const std::string& index_url, std::string_view package);

// The project JSON, fetched from `index_url` (default https://pypi.org/pypi;
// a file:// directory holding NAME.json serves tests and mirrors) with at
// most max_project_json_bytes read. Errors: 404 (no such project on PyPI),
// other statuses, transport failures, an oversized body.
std::expected<std::string, std::string> fetch_project_json(const std::string& index_url, std::string_view package,
                                                           const net::ClientSettings& client);

}  // namespace gpuenv::generate
