// Building conda packages for tests: a description in code becomes a real
// .conda or .tar.bz2 file (written by gpuenv's package writer, i.e.
// libarchive), with info/index.json, info/paths.json (sha256, sizes,
// placeholders), info/link.json for noarch packages, files holding a
// prefix placeholder, symbolic links, directories and entry points; plus
// the repodata record a channel would serve for it, and whole channels.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/link_json.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::testing {

// 255 characters, like conda-build's _h_env_placehold... placeholders, so
// that binary replacement has room for any test prefix.
inline std::string long_placeholder() {
  std::string placeholder = "/opt/build/_h_env_placehold";
  while (placeholder.size() < 255) placeholder += "_placehold";
  return placeholder.substr(0, 255);
}

// A regular file member of `content` for package::write_package_members.
inline package::PackageMember text_member(std::string path, std::string content) {
  package::PackageMember member;
  member.path = std::move(path);
  member.content = std::move(content);
  return member;
}

// info/paths.json declaring each (path, content): its sha256 and size.
inline std::string paths_json_declaring(const std::vector<std::pair<std::string, std::string>>& files) {
  package::PathsJson paths;
  for (const auto& [path, content] : files) {
    package::PathEntry entry;
    entry.path = path;
    entry.sha256 = package::sha256_hex(content);
    entry.size_in_bytes = content.size();
    paths.paths.push_back(entry);
  }
  return package::paths_json_text(paths);
}

class PackageBuilder {
 public:
  PackageBuilder(std::string name, std::string version, std::string build = "0")
      : name_(std::move(name)), version_(std::move(version)), build_(std::move(build)) {}

  PackageBuilder& subdir(std::string subdir) {
    subdir_ = std::move(subdir);
    return *this;
  }
  PackageBuilder& depends(std::vector<std::string> depends) {
    depends_ = std::move(depends);
    return *this;
  }
  // Extra index.json fields (python_site_packages_path, license, ...).
  PackageBuilder& index_field(const std::string& key, nlohmann::json value) {
    extra_index_[key] = std::move(value);
    return *this;
  }
  // An extra file under info/ ("info/run_exports.json"), not listed in paths.json.
  PackageBuilder& info_file(std::string path, std::string content) {
    extra_info_[std::move(path)] = std::move(content);
    return *this;
  }
  PackageBuilder& noarch_generic() {
    noarch_ = specs::NoarchType::generic;
    subdir_ = "noarch";
    return *this;
  }
  // Files go under site-packages/ and python-scripts/ in the package.
  PackageBuilder& noarch_python(std::vector<std::string> entry_points = {}) {
    noarch_ = specs::NoarchType::python;
    subdir_ = "noarch";
    entry_points_ = std::move(entry_points);
    return *this;
  }

  PackageBuilder& file(std::string path, std::string content, unsigned mode = 0644) {
    Member member;
    member.path = std::move(path);
    member.content = std::move(content);
    member.mode = mode;
    members_.push_back(std::move(member));
    return *this;
  }
  // A file whose content holds `placeholder` (text mode: any length).
  PackageBuilder& text_with_prefix(std::string path, std::string content,
                                   std::string placeholder = long_placeholder(),
                                   unsigned mode = 0644) {
    file(std::move(path), std::move(content), mode);
    members_.back().placeholder = std::move(placeholder);
    return *this;
  }
  PackageBuilder& binary_with_prefix(std::string path, std::string content,
                                     std::string placeholder = long_placeholder(),
                                     unsigned mode = 0755) {
    text_with_prefix(std::move(path), std::move(content), std::move(placeholder), mode);
    members_.back().binary = true;
    return *this;
  }
  PackageBuilder& no_link(std::string path, std::string content) {
    file(std::move(path), std::move(content));
    members_.back().no_link = true;
    return *this;
  }
  // paths.json says `sha256` / `size` for the last file added, whatever it holds.
  PackageBuilder& declared_as(std::optional<std::string> sha256,
                              std::optional<std::uint64_t> size) {
    members_.back().declared_sha256 = std::move(sha256);
    members_.back().declared_size = size;
    return *this;
  }
  PackageBuilder& symlink(std::string path, std::string target) {
    Member member;
    member.path = std::move(path);
    member.kind = package::PackageMember::Kind::symlink;
    member.content = std::move(target);
    members_.push_back(std::move(member));
    return *this;
  }
  PackageBuilder& directory(std::string path) {
    Member member;
    member.path = std::move(path);
    member.kind = package::PackageMember::Kind::directory;
    member.mode = 0755;
    members_.push_back(std::move(member));
    return *this;
  }

  std::string dist() const { return name_ + "-" + version_ + "-" + build_; }
  std::string filename(package::ArchiveFormat format) const {
    return dist() + std::string(package::extension_of(format));
  }

  nlohmann::json index_json() const {
    nlohmann::json index = {{"name", name_},       {"version", version_},
                            {"build", build_},     {"build_number", 0},
                            {"depends", depends_}, {"constrains", nlohmann::json::array()},
                            {"subdir", subdir_},   {"license", "BSD-3-Clause"},
                            {"timestamp", 1700000000000}};
    if (noarch_ != specs::NoarchType::none) index["noarch"] = specs::to_string(noarch_);
    for (const auto& [key, value] : extra_index_) index[key] = value;
    return index;
  }

  package::PathsJson paths_json() const {
    package::PathsJson paths;
    for (const auto& member : members_) {
      package::PathEntry entry;
      entry.path = member.path;
      if (member.kind == package::PackageMember::Kind::symlink) {
        entry.path_type = package::PathType::softlink;
        entry.sha256 = package::sha256_hex("");  // the target's, which tests do not need
        entry.size_in_bytes = 0;
      } else if (member.kind == package::PackageMember::Kind::directory) {
        entry.path_type = package::PathType::directory;
      } else {
        entry.sha256 = package::sha256_hex(member.content);
        entry.size_in_bytes = member.content.size();
        entry.prefix_placeholder = member.placeholder;
        entry.file_mode = member.binary ? package::FileMode::binary : package::FileMode::text;
        entry.no_link = member.no_link;
        if (member.declared_sha256) entry.sha256 = *member.declared_sha256;
        if (member.declared_size) entry.size_in_bytes = *member.declared_size;
      }
      paths.paths.push_back(std::move(entry));
    }
    return paths;
  }

  // Writes the package into `directory`; returns the file's path.
  std::filesystem::path write(const std::filesystem::path& directory,
                              package::ArchiveFormat format = package::ArchiveFormat::conda) const {
    std::vector<package::PackageMember> members;
    const auto add_info = [&](std::string path, std::string content) {
      package::PackageMember member;
      member.path = std::move(path);
      member.content = std::move(content);
      members.push_back(std::move(member));
    };
    add_info("info/index.json", index_json().dump(2));
    add_info("info/paths.json", package::paths_json_text(paths_json()));
    if (noarch_ != specs::NoarchType::none) {
      package::LinkJson link;
      link.noarch = noarch_;
      for (const auto& text : entry_points_) {
        link.entry_points.push_back(package::parse_entry_point(text, "test package"));
      }
      add_info("info/link.json", package::link_json_text(link));
    }
    for (const auto& [path, content] : extra_info_) add_info(path, content);
    for (const auto& member : members_) {
      package::PackageMember archived;
      archived.path = member.path;
      archived.kind = member.kind;
      archived.mode = member.mode;
      archived.mtime = 1700000000;
      if (member.kind == package::PackageMember::Kind::symlink) {
        archived.link_target = member.content;
      } else {
        archived.content = member.content;
      }
      members.push_back(std::move(archived));
    }
    std::filesystem::create_directories(directory);
    const auto output = directory / filename(format);
    package::write_package_members(output, members, {.compression_level = 1});
    return output;
  }

  // The record a channel serving `file` at `url` would hold for it.
  specs::PackageRecord record_for(const std::filesystem::path& file, const std::string& url,
                                  const std::string& channel) const {
    auto record = package::record_from_json(index_json(), "test package");
    const auto digests = package::hash_file(file, true, true);
    record.sha256 = digests.sha256;
    record.md5 = digests.md5;
    record.size = digests.size;
    record.fn = file.filename().string();
    record.url = url;
    record.channel = channel;
    return record;
  }

 private:
  struct Member {
    std::string path;
    package::PackageMember::Kind kind = package::PackageMember::Kind::file;
    std::string content;  // file content, or a symlink's target
    unsigned mode = 0644;
    std::string placeholder;
    bool binary = false;
    bool no_link = false;
    std::optional<std::string> declared_sha256;
    std::optional<std::uint64_t> declared_size;
  };

  std::string name_;
  std::string version_;
  std::string build_;
  std::string subdir_ = "linux-64";
  std::vector<std::string> depends_;
  specs::NoarchType noarch_ = specs::NoarchType::none;
  std::vector<std::string> entry_points_;
  std::map<std::string, nlohmann::json> extra_index_;
  std::map<std::string, std::string> extra_info_;
  std::vector<Member> members_;
};

// A channel directory: <root>/<subdir>/<package files> and repodata.json.
// `base_url` is how clients reach <root> ("file:///...", "http://...").
class ChannelBuilder {
 public:
  ChannelBuilder(std::filesystem::path root, std::string base_url)
      : root_(std::move(root)), base_url_(std::move(base_url)) {}

  // Writes the package and returns its record (url under base_url).
  specs::PackageRecord add(const PackageBuilder& builder,
                           package::ArchiveFormat format = package::ArchiveFormat::conda) {
    const auto subdir = builder.index_json()["subdir"].get<std::string>();
    const auto file = builder.write(root_ / subdir, format);
    auto record = builder.record_for(file, base_url_ + "/" + subdir + "/" + file.filename().string(),
                                     base_url_);
    auto& repodata = repodata_[subdir];
    auto entry = package::record_to_json(record);
    for (const char* key : {"url", "channel", "fn"}) entry.erase(key);
    repodata[format == package::ArchiveFormat::conda ? "packages.conda" : "packages"]
            [record.fn] = std::move(entry);
    write_repodata(subdir);
    return record;
  }

  const std::filesystem::path& root() const { return root_; }

 private:
  void write_repodata(const std::string& subdir) {
    auto document = repodata_[subdir];
    document["info"] = {{"subdir", subdir}};
    if (!document.contains("packages")) document["packages"] = nlohmann::json::object();
    if (!document.contains("packages.conda")) document["packages.conda"] = nlohmann::json::object();
    std::filesystem::create_directories(root_ / subdir);
    std::ofstream(root_ / subdir / "repodata.json") << document.dump(1);
  }

  std::filesystem::path root_;
  std::string base_url_;
  std::map<std::string, nlohmann::json> repodata_;
};

}  // namespace gpuenv::testing
