#include "gpuenv/environment/environment_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "gpuenv/environment/requested_spec.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::environment {
namespace {

using util::trim;

// The file's lines without their line ends ("\r\n" files included).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    auto line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool is_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string lowercase(std::string_view text) {
  std::string result(text);
  for (auto& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

// A spec the solver will read later, checked now so that the error can name
// the line.
std::expected<std::string, std::string> checked_spec(std::string_view text, const std::string& where,
                                                     const specs::ChannelContext& context) {
  auto spec = environment::parse_requested_spec(text, context);
  if (!spec) return std::unexpected(fmt::format("{}: {}", where, spec.error()));
  return std::string(text);
}

std::string at(std::string_view source, const YAML::Mark& mark) {
  if (mark.is_null()) return std::string(source);
  return fmt::format("{}:{}", source, mark.line + 1);
}

std::string_view describe(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "empty";
  return "a single value";
}

}  // namespace

std::expected<specs::PackageRecord, std::string> record_from_package_url(std::string_view url) {
  const auto query = url.find_first_of("?");
  const auto path = url.substr(0, query);
  const auto slash = path.rfind('/');
  const auto filename = specs::percent_decode(slash == std::string_view::npos ? path : path.substr(slash + 1));
  if (!specs::is_package_file_name(filename)) {
    return std::unexpected(
        fmt::format("'{}' does not name a package file (its name must end in .conda or .tar.bz2)", url));
  }
  // The name, version and build come from the spec parser's reading of a
  // package URL, which checks the file name the way conda does.
  const auto not_a_package_file = [&] {
    return std::unexpected(fmt::format(
        "'{}' is not a package file name of the form <name>-<version>-<build>.conda (or .tar.bz2)", filename));
  };
  std::optional<specs::MatchSpec> spec;
  try {
    spec = specs::MatchSpec::parse(path);
  } catch (const specs::SpecError&) {
    return not_a_package_file();
  }
  const auto name = spec->exact_name();
  const auto version = spec->exact_version();
  const auto build = spec->exact_build();
  if (!spec->is_file() || !name || !version || !build) return not_a_package_file();
  specs::PackageRecord record;
  record.name = *name;
  record.set_version(*version);
  record.build = *build;
  record.fn = filename;
  record.url = std::string(url);
  // conda's layout: <channel>/<subdir>/<file>. A URL not in that layout keeps
  // its directory as the channel and gets its subdir from index.json.
  const auto directory = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  const auto subdir_slash = directory.rfind('/');
  const auto subdir = subdir_slash == std::string_view::npos ? directory : directory.substr(subdir_slash + 1);
  if (specs::Platform::parse(subdir) || subdir == "noarch") {
    record.subdir = std::string(subdir);
    record.channel = std::string(directory.substr(0, subdir_slash));
  } else {
    record.channel = std::string(directory);
  }
  return record;
}

std::expected<EnvironmentFile, std::string> parse_explicit_file(std::string_view text, std::string_view source,
                                                                const specs::ChannelContext& context) {
  EnvironmentFile file;
  file.kind = EnvironmentFile::Kind::explicit_urls;
  bool seen_marker = false;
  std::map<std::string, std::size_t> line_of_name;
  const auto lines = lines_of(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const auto where = fmt::format("{}:{}", source, index + 1);
    const auto line = trim(lines[index]);
    if (line.empty() || line.front() == '#') continue;  // "# platform: linux-64" and the like
    if (line == "@EXPLICIT") {
      seen_marker = true;
      continue;
    }
    if (!seen_marker) {
      return std::unexpected(fmt::format(
          "{}: '{}' comes before the @EXPLICIT line; an explicit file lists package URLs after it", where, line));
    }
    auto location = line;
    std::string_view fragment;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      location = trim(line.substr(0, hash));
      fragment = trim(line.substr(hash + 1));
    }
    std::string url;
    if (specs::has_url_scheme(location)) {
      url = std::string(location);
    } else if (specs::looks_like_path(location)) {
      url = specs::path_to_file_url(location, context);
    } else {
      return std::unexpected(fmt::format(
          "{}: '{}' is neither a package URL nor a path; an explicit file lists one package URL a line "
          "(https://.../linux-64/name-1.0-0.conda#<sha256>)",
          where, location));
    }
    auto record = record_from_package_url(url);
    if (!record) return std::unexpected(where + ": " + record.error());
    if (!fragment.empty()) {
      auto digest = fragment;
      std::string_view kind;
      if (const auto colon = digest.find_first_of(":="); colon != std::string_view::npos) {
        kind = digest.substr(0, colon);
        digest = digest.substr(colon + 1);
      }
      const bool md5 = digest.size() == 32 && is_hex(digest) && (kind.empty() || kind == "md5");
      const bool sha256 = digest.size() == 64 && is_hex(digest) && (kind.empty() || kind == "sha256");
      if (md5) {
        record->md5 = lowercase(digest);
      } else if (sha256) {
        record->sha256 = lowercase(digest);
      } else {
        return std::unexpected(fmt::format(
            "{}: '#{}' is not a package hash: write #<sha256> (64 hex digits) or #<md5> (32 hex digits)", where,
            fragment));
      }
    }
    const auto [previous, added] = line_of_name.emplace(record->name, index + 1);
    if (!added) {
      return std::unexpected(fmt::format("{}: {} is listed twice (also on line {}); an environment holds one "
                                         "build of each package",
                                         where, record->name, previous->second));
    }
    file.packages.push_back(std::move(*record));
  }
  if (!seen_marker) {
    return std::unexpected(fmt::format("{}: has no @EXPLICIT line, so it is not an explicit file", source));
  }
  if (file.packages.empty()) {
    return std::unexpected(fmt::format("{}: lists no package after @EXPLICIT", source));
  }
  return file;
}

std::expected<EnvironmentFile, std::string> parse_spec_list(std::string_view text, std::string_view source,
                                                            const specs::ChannelContext& context) {
  EnvironmentFile file;
  file.kind = EnvironmentFile::Kind::spec_list;
  const auto lines = lines_of(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    auto line = lines[index];
    if (const auto comment = line.find('#'); comment != std::string_view::npos) line = line.substr(0, comment);
    line = trim(line);
    if (line.empty()) continue;
    auto spec = checked_spec(line, fmt::format("{}:{}", source, index + 1), context);
    if (!spec) return std::unexpected(spec.error());
    file.specs.push_back(std::move(*spec));
  }
  if (file.specs.empty()) return std::unexpected(fmt::format("{}: names no package", source));
  return file;
}

std::expected<EnvironmentFile, std::string> parse_environment_yaml(std::string_view text, std::string_view source,
                                                                   const specs::ChannelContext& context) {
  EnvironmentFile file;
  file.kind = EnvironmentFile::Kind::environment_yaml;
  // Bounded: an alias bomb in the file is refused here, before the walk below.
  const auto loaded = util::load_yaml(text, source);
  if (!loaded) return std::unexpected(loaded.error().message);
  const auto& root = *loaded;
  if (!root.IsMap()) {
    return std::unexpected(fmt::format("{}: an environment file is a mapping with name, channels and "
                                       "dependencies; this one is {}",
                                       at(source, root.Mark()), describe(root)));
  }
  try {
    for (const auto& entry : root) {
      const auto key = entry.first.as<std::string>();
      const auto& value = entry.second;
      const auto where = at(source, entry.first.Mark());
      if (key == "name") {
        if (!value.IsScalar()) return std::unexpected(where + ": name must be a single value");
        file.name = value.as<std::string>();
      } else if (key == "channels") {
        if (value.IsNull()) continue;
        if (!value.IsSequence()) return std::unexpected(where + ": channels must be a list");
        for (const auto& channel : value) {
          if (!channel.IsScalar()) {
            return std::unexpected(at(source, channel.Mark()) + ": each channel must be a single name or URL");
          }
          file.channels.push_back(channel.as<std::string>());
        }
      } else if (key == "dependencies") {
        if (value.IsNull()) continue;
        if (!value.IsSequence()) return std::unexpected(where + ": dependencies must be a list");
        for (const auto& dependency : value) {
          const auto dependency_at = at(source, dependency.Mark());
          if (dependency.IsMap() && dependency["pip"]) {
            return std::unexpected(
                dependency_at +
                ": gpuenv does not install pip packages; install them with pip inside the environment "
                "(gpuenv run -p PREFIX -- pip install ...) or find their conda packages");
          }
          if (!dependency.IsScalar()) {
            return std::unexpected(dependency_at + ": each dependency must be a package spec such as "
                                                   "'numpy >=1.26', not " + std::string(describe(dependency)));
          }
          auto spec = checked_spec(trim(dependency.as<std::string>()), dependency_at, context);
          if (!spec) return std::unexpected(spec.error());
          file.specs.push_back(std::move(*spec));
        }
      } else if (key == "prefix") {
        // conda env export writes the exporting machine's path: -p/-n decide here.
      } else {
        file.warnings.push_back(fmt::format("{}: '{}' is not used by gpuenv (it reads name, channels and "
                                            "dependencies)",
                                            where, key));
      }
    }
  } catch (const YAML::Exception& error) {
    return std::unexpected(fmt::format("{}: {}", at(source, error.mark), error.msg));
  }
  if (file.specs.empty()) return std::unexpected(fmt::format("{}: lists no dependencies", source));
  return file;
}

std::expected<EnvironmentFile, std::string> read_environment_file(const std::filesystem::path& path,
                                                                  const specs::ChannelContext& context) {
  // Explicit files of thousands of URLs are larger than any YAML gpuenv
  // reads; environment.yml text is held to load_yaml's own limit.
  constexpr std::uintmax_t max_environment_file_bytes = 16u << 20;
  auto read = util::read_text_file_at_most(path, max_environment_file_bytes);
  if (!read) {
    if (read.error().kind == util::FileReadError::Kind::missing) {
      return std::unexpected(fmt::format("cannot read the environment file {}: no such file", path.string()));
    }
    return std::unexpected("cannot use the environment file " + read.error().message);
  }
  const auto text = std::move(*read);
  const auto source = path.string();
  for (const auto line : lines_of(text)) {
    if (trim(line) == "@EXPLICIT") return parse_explicit_file(text, source, context);
  }
  const auto extension = path.extension().string();
  if (extension == ".yml" || extension == ".yaml") return parse_environment_yaml(text, source, context);
  return parse_spec_list(text, source, context);
}

}  // namespace gpuenv::environment
