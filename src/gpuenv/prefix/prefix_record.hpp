// conda-meta/<name>-<version>-<build>.json: what an installed package is
// and which files it brought into the prefix (CEP 32), read and written in
// the shape conda writes, so that conda, mamba and gpuenv read each other's
// prefixes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::prefix {

// How a path came into the prefix; conda's PathType (CEP 32).
enum class PrefixPathType : std::uint8_t {
  hardlink,
  softlink,
  directory,
  pyc_file,
  unix_python_entry_point,
  windows_python_entry_point_script,
  windows_python_entry_point_exe,
  linked_package_record,
};

std::string_view to_string(PrefixPathType type) noexcept;
// Unknown names read as hardlink: such a path is still a file to remove.
PrefixPathType parse_prefix_path_type(std::string_view text) noexcept;

// One entry of paths_data.paths.
struct PrefixPathEntry {
  std::string path;  // relative to the prefix, '/'-separated
  PrefixPathType path_type = PrefixPathType::hardlink;
  std::string sha256;            // of the file in the package; empty for generated files
  std::string sha256_in_prefix;  // of the file as installed (differs after prefix replacement)
  std::optional<std::uint64_t> size_in_bytes;
  std::string prefix_placeholder;
  package::FileMode file_mode = package::FileMode::text;
  bool no_link = false;

  friend bool operator==(const PrefixPathEntry&, const PrefixPathEntry&) = default;
};

// conda's link.type values.
enum class LinkType : int { hardlink = 1, softlink = 2, copy = 3, directory = 4 };

struct PrefixRecord {
  specs::PackageRecord package;
  std::vector<std::string> files;       // every path the package owns
  std::vector<PrefixPathEntry> paths;   // paths_data.paths, same order as files
  int paths_version = 1;
  bool has_paths_data = false;          // old conda records only have `files`
  std::string extracted_package_dir;
  std::string package_tarball_full_path;
  std::string link_source;              // link.source; empty when absent
  std::optional<LinkType> link_type;
  std::string requested_spec;               // deprecated single spec, still read by conda
  std::vector<std::string> requested_specs;  // CEP 32

  // The paths to remove when unlinking: paths_data when present, else files.
  std::vector<std::string> owned_paths() const;
};

// "numpy-1.26.4-py312h8753938_0.json".
std::string prefix_record_filename(const specs::PackageRecord& package);

// Reads one record. Throws PrefixError naming `source` when the text is not
// a JSON object with name, version and build.
PrefixRecord parse_prefix_record(std::string_view json, std::string_view source);

// The record as conda writes it: sorted keys, two-space indentation.
std::string prefix_record_json(const PrefixRecord& record);

// The `channel` value conda writes: the channel URL with the subdir
// (".../conda-forge/linux-64"), derived from the download URL when the
// record has no channel URL.
std::string conda_meta_channel(const specs::PackageRecord& package);

struct InstalledPackages {
  std::vector<PrefixRecord> records;  // sorted by name
  // Records that could not be read, each with the reason. One bad file does
  // not hide the others (conda warns and goes on, too).
  std::vector<std::string> problems;
};

// Every conda-meta/*.json of `prefix`. A prefix without conda-meta has none.
InstalledPackages read_prefix_records(const std::filesystem::path& prefix);

}  // namespace gpuenv::prefix
