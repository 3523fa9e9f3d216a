#include "gpuenv/package/package_metadata.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>

#include "gpuenv/package/archive_reader.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/package/file_content.hpp"

namespace gpuenv::package {

namespace {

constexpr std::uint64_t kMaxInfoFile = kMaxInfoFileSize;  // a paths.json of a huge package fits

const std::vector<std::string> kMetadataFiles = {"info/index.json", "info/paths.json",
                                                 "info/link.json",  "info/files",
                                                 "info/has_prefix", "info/no_link"};

std::string member_path(archive_entry* entry) {
  const char* name = archive_entry_pathname(entry);
  std::string_view path = name != nullptr ? name : "";
  while (path.starts_with("./")) path.remove_prefix(2);
  return std::string(path);
}

}  // namespace

PackageMetadata metadata_from_info_files(const std::map<std::string, std::string>& files,
                                         const std::string& where) {
  const auto find = [&](const std::string& name) -> const std::string* {
    const auto it = files.find(name);
    return it == files.end() ? nullptr : &it->second;
  };
  PackageMetadata metadata;
  const auto* index = find("info/index.json");
  if (index == nullptr) {
    throw PackageError(where + " has no info/index.json; it is not a conda package or it is "
                               "damaged");
  }
  metadata.index = parse_record_json(*index, where + "/info/index.json");
  if (const auto* paths = find("info/paths.json")) {
    metadata.paths = parse_paths_json(*paths, where + "/info/paths.json");
  } else if (const auto* listed = find("info/files")) {
    const auto* has_prefix = find("info/has_prefix");
    const auto* no_link = find("info/no_link");
    metadata.paths = paths_json_from_legacy_files(*listed, has_prefix ? *has_prefix : "",
                                                  no_link ? *no_link : "", where + "/info/files");
  } else {
    throw PackageError(where + " has neither info/paths.json nor info/files, so what it installs "
                               "is unknown; the package is damaged");
  }
  if (const auto* link = find("info/link.json")) {
    metadata.link = parse_link_json(*link, where + "/info/link.json");
  }
  // index.json is the authority on the noarch type; link.json repeats it
  // in packages that have one.
  if (metadata.link.noarch == specs::NoarchType::none) metadata.link.noarch = metadata.index.noarch;
  return metadata;
}

bool is_metadata_file(std::string_view path) {
  return std::find(kMetadataFiles.begin(), kMetadataFiles.end(), path) != kMetadataFiles.end();
}

std::map<std::string, std::string> read_info_files(const std::filesystem::path& archive,
                                                   const std::vector<std::string>& names,
                                                   std::uint64_t max_file_size) {
  std::map<std::string, std::string> found;
  for_each_member(archive, MemberSelection::info_only, [&](struct archive* reader, archive_entry* entry) {
    const auto path = member_path(entry);
    if (std::find(names.begin(), names.end(), path) == names.end()) return true;
    if (archive_entry_filetype(entry) != AE_IFREG) return true;
    const auto size = archive_entry_size(entry);
    if (size < 0 || static_cast<std::uint64_t>(size) > max_file_size) {
      throw PackageError("cannot read " + archive.string() + ": " + path + " is " +
                         std::to_string(size) + " bytes, more than the " +
                         std::to_string(max_file_size) + " a metadata file may have; the package "
                         "is damaged or was made to exhaust memory");
    }
    std::string content(static_cast<std::size_t>(size), '\0');
    std::size_t filled = 0;
    while (filled < content.size()) {
      const auto count = archive_read_data(reader, content.data() + filled, content.size() - filled);
      if (count < 0) {
        throw PackageError("cannot read " + archive.string() + ": " + path + ": " +
                           archive_error_text(reader) + "; the file is corrupt or truncated");
      }
      if (count == 0) break;
      filled += static_cast<std::size_t>(count);
    }
    content.resize(filled);
    found[path] = std::move(content);
    return found.size() < names.size();
  });
  return found;
}

PackageMetadata read_package_metadata(const std::filesystem::path& archive) {
  return metadata_from_info_files(read_info_files(archive, kMetadataFiles), archive.string());
}

PackageMetadata read_extracted_metadata(const std::filesystem::path& package_dir) {
  std::map<std::string, std::string> files;
  for (const auto& name : kMetadataFiles) {
    // paths.json makes the legacy files irrelevant: skip reading them.
    if (name == "info/files" && files.contains("info/paths.json")) break;
    // A cache entry another tool extracted was not bounded by gpuenv's limits.
    std::error_code missing;
    if (const auto size = std::filesystem::file_size(package_dir / name, missing);
        !missing && size > kMaxInfoFile) {
      throw PackageError("cannot read " + (package_dir / name).string() + ": it is " +
                         std::to_string(size) + " bytes, more than metadata can be; delete the "
                         "package cache entry " + package_dir.string());
    }
    if (auto content = read_whole_file(package_dir / name)) {
      files[name] = std::move(*content);
    }
  }
  return metadata_from_info_files(files, package_dir.string());
}

}  // namespace gpuenv::package
