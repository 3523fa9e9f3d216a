#include "gpuenv/generator/pypi_project.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuenv/net/file_url.hpp"
#include "gpuenv/net/http_client.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::generate {
namespace {

using json = nlohmann::json;

std::string text_of(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

bool is_sha256(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// What reaches a recipe.yaml unquoted or a path: PEP 440 versions, PEP 508
// names, urls and file names of PyPI's own shape. Anything else (a space, a
// quote, a line break a hostile index slipped in) is refused.
bool only(const std::string& text, std::string_view allowed_punctuation) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || allowed_punctuation.find(c) != std::string_view::npos;
  });
}

int sdist_rank(const std::string& filename) {
  if (filename.ends_with(".tar.gz")) return 0;
  if (filename.ends_with(".zip")) return 1;
  return 2;
}

}  // namespace

std::string resolve_url(const std::string& base, const std::string& reference) {
  if (reference.find("://") != std::string::npos) return reference;
  const auto scheme_end = base.find("://");
  if (scheme_end == std::string::npos) return reference;
  if (reference.starts_with("//")) return base.substr(0, scheme_end + 1) + reference;
  const auto host_end = base.find('/', scheme_end + 3);
  const auto origin = base.substr(0, host_end);
  if (reference.starts_with('/')) return origin + reference;
  std::vector<std::string> segments;
  const auto base_path = host_end == std::string::npos ? std::string() : base.substr(host_end + 1);
  const std::string directory = base_path.substr(0, base_path.rfind('/') == std::string::npos ? 0 : base_path.rfind('/'));
  for (const auto* text : {&directory, &reference}) {
    std::size_t start = 0;
    while (start <= text->size()) {
      const auto slash = text->find('/', start);
      const auto segment = text->substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (segment == "..") {
        if (!segments.empty()) segments.pop_back();
      } else if (!segment.empty() && segment != ".") {
        segments.push_back(segment);
      }
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
  }
  return origin + "/" + fmt::format("{}", fmt::join(segments, "/"));
}

std::string project_json_url(const std::string& index_url, std::string_view package) {
  std::string base = index_url;
  while (base.ends_with('/')) base.pop_back();
  return base + "/" + std::string(package) + "/json";
}

std::expected<PypiRelease, std::string> select_release(std::string_view project_json, std::string_view package,
                                                       const std::optional<std::string>& version,
                                                       const std::string& json_url) {
  const std::string name(package);
  if (project_json.size() > max_project_json_bytes) {
    return std::unexpected(name + ": PyPI's answer is larger than 64 MiB");
  }
  const auto document = json::parse(project_json, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("info") ||
      !document["info"].is_object()) {
    return std::unexpected(name + ": PyPI's answer is not a project JSON document (no \"info\")");
  }
  const auto& info = document["info"];
  PypiRelease release;
  release.name = text_of(info, "name");
  if (!only(release.name, "._-")) return std::unexpected(name + ": PyPI's project JSON names no project it could be");
  const auto latest = text_of(info, "version");
  release.version = version.value_or(latest);
  if (!only(release.version, "._+!-")) {
    return std::unexpected(name + ": PyPI's project JSON gives a version that is not one: '" + release.version + "'");
  }
  release.is_latest = release.version == latest;
  if (release.is_latest) {
    release.summary = text_of(info, "summary");
    release.home_page = text_of(info, "home_page");
    release.license = text_of(info, "license");
    release.license_expression = text_of(info, "license_expression");
  }
  const auto releases = document.find("releases");
  if (releases == document.end() || !releases->is_object()) {
    return std::unexpected(name + ": PyPI's project JSON lists no releases");
  }
  const auto files = releases->find(release.version);
  if (files == releases->end() || !files->is_array()) {
    std::vector<std::string> known;
    for (auto it = releases->begin(); it != releases->end(); ++it) known.push_back(it.key());
    const auto shown = known.size() > 8 ? std::vector<std::string>(known.end() - 8, known.end()) : known;
    return std::unexpected(fmt::format("{} has no release {} on PyPI (latest: {}; some others: {})", release.name,
                                       release.version, latest, fmt::join(shown, ", ")));
  }
  std::vector<PypiFile> sdists;
  bool yanked_only = false;
  for (const auto& entry : *files) {
    if (!entry.is_object()) continue;
    PypiFile file;
    file.filename = text_of(entry, "filename");
    file.url = resolve_url(json_url, text_of(entry, "url"));
    file.packagetype = text_of(entry, "packagetype");
    file.requires_python = text_of(entry, "requires_python");
    if (const auto digests = entry.find("digests"); digests != entry.end() && digests->is_object()) {
      file.sha256 = text_of(*digests, "sha256");
    }
    if (const auto size = entry.find("size"); size != entry.end() && size->is_number_unsigned()) {
      file.size = size->get<std::uint64_t>();
    }
    if (const auto yanked = entry.find("yanked"); yanked != entry.end() && yanked->is_boolean()) {
      file.yanked = yanked->get<bool>();
    }
    if (file.packagetype != "sdist") continue;
    const bool local_mirror = json_url.starts_with("file://") && file.url.starts_with("file://");
    if ((!file.url.starts_with("https://") && !local_mirror) || !is_sha256(file.sha256) ||
        !only(file.filename, "._+!-") || !only(file.url, ":/._~%+!-=&?@")) {
      return std::unexpected(fmt::format("{} {}: PyPI lists an sdist without an https url, a sha256 or a plain file "
                                         "name ({})", release.name, release.version, file.filename));
    }
    if (file.yanked) {
      yanked_only = true;
      continue;
    }
    sdists.push_back(std::move(file));
  }
  if (sdists.empty()) {
    return std::unexpected(fmt::format("{} {} has {} on PyPI: a recipe is built from the sdist, never a wheel; pick "
                                       "another version (--version) or write the recipe from the project's source "
                                       "repository",
                                       release.name, release.version,
                                       yanked_only ? "only a yanked sdist" : "no sdist (only wheels)"));
  }
  std::stable_sort(sdists.begin(), sdists.end(),
                   [](const auto& left, const auto& right) { return sdist_rank(left.filename) < sdist_rank(right.filename); });
  release.sdist = std::move(sdists.front());
  return release;
}

std::optional<std::string> newest_version_matching(std::string_view project_json, const std::string& constraint) {
  const auto document = json::parse(project_json, nullptr, false);
  if (document.is_discarded() || !document.contains("releases") || !document["releases"].is_object()) return std::nullopt;
  std::optional<specs::VersionSpec> spec;
  try {
    spec = specs::VersionSpec::parse(constraint);
  } catch (const specs::SpecError&) {
    return std::nullopt;
  }
  std::optional<specs::Version> best;
  std::string best_text;
  bool best_final = false;
  for (auto it = document["releases"].begin(); it != document["releases"].end(); ++it) {
    if (!it->is_array()) continue;
    const bool has_sdist = std::any_of(it->begin(), it->end(), [](const json& file) {
      return file.is_object() && text_of(file, "packagetype") == "sdist" && !file.value("yanked", false);
    });
    const auto version = specs::Version::try_parse(it.key());
    if (!has_sdist || !version || !spec->contains(*version)) continue;
    // PEP 440 pre-releases: a, b, rc, dev in the version.
    const bool final = it.key().find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
    if (!best || (final && !best_final) || (final == best_final && *best < *version)) {
      best = *version;
      best_text = it.key();
      best_final = final;
    }
  }
  if (!best) return std::nullopt;
  return best_text;
}

std::expected<std::string, std::string> fetch_project_json(const std::string& index_url, std::string_view package,
                                                           const net::ClientSettings& client) {
  const std::string name(package);
  std::string base = index_url;
  while (base.ends_with('/')) base.pop_back();
  if (net::is_file_url(base)) {
    auto directory = net::path_from_file_url(base);
    if (!directory) return std::unexpected(directory.error());
    std::ifstream in(*directory / (name + ".json"), std::ios::binary);
    if (!in) return std::unexpected(fmt::format("{}: no such project in {} ({}.json)", name, base, name));
    std::string text;
    text.resize(max_project_json_bytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_project_json_bytes) return std::unexpected(name + ": the project JSON is larger than 64 MiB");
    return text;
  }
  const auto url = project_json_url(base, name);
  std::string body;
  bool too_large = false;
  net::HttpResponse response;
  net::HttpClient http(net::HttpClientOptions{client, 1});
  http.submit(net::HttpRequest{url, {"Accept: application/json"}, [&](std::string_view piece) {
                                 if (body.size() + piece.size() > max_project_json_bytes) {
                                   too_large = true;
                                   return false;
                                 }
                                 body.append(piece);
                                 return true;
                               }},
              [&response](net::HttpResponse done) { response = std::move(done); });
  http.run();
  if (too_large) return std::unexpected(fmt::format("{}: {} answered more than 64 MiB", name, url));
  if (!response.completed()) {
    return std::unexpected(fmt::format("{}: cannot fetch {}: {}", name, url, response.failure_detail));
  }
  if (response.status == 404) {
    return std::unexpected(fmt::format("{} is not a project on PyPI ({} answered 404): check the name", name, url));
  }
  if (response.status < 200 || response.status >= 300) {
    return std::unexpected(fmt::format("{}: {} answered HTTP {}", name, url, response.status));
  }
  return body;
}

}  // namespace gpuenv::generate
