// One package as a channel's repodata.json (CEP 34, CEP 36) or a prefix's
// conda-meta record describes it. Plain data: parsing JSON is the repodata
// module's job.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/version.hpp"

namespace gpuenv::specs {

// index.json `noarch`: absent for architecture-specific packages.
enum class NoarchType : std::uint8_t { none, generic, python };

// Reads repodata's `noarch` value: "generic", "python", or the legacy boolean
// `true` written as "true" (generic). Anything else is none.
NoarchType parse_noarch(std::string_view text) noexcept;
std::string_view to_string(NoarchType noarch) noexcept;

struct PackageRecord {
  // --- identity -------------------------------------------------------------
  std::string name;
  // The version as written in repodata; `parsed_version` is its conda reading
  // (nullopt when it is not a valid conda version, which then matches no
  // version constraint). Use set_version() to keep both in step.
  std::string version;
  std::optional<Version> parsed_version;
  std::string build;
  std::uint64_t build_number = 0;

  // --- where it comes from -----------------------------------------------------
  std::string subdir;   // "linux-64", "noarch", ...
  std::string fn;       // "numpy-1.26.4-py312h8753938_0.conda"
  std::string url;      // full download URL
  std::string channel;  // the channel's base URL or name, as the loader sets it

  // --- integrity ---------------------------------------------------------------
  std::string md5;     // hex, empty when unknown
  std::string sha256;  // hex, empty when unknown
  std::optional<std::uint64_t> size;
  std::string legacy_bz2_md5;  // of the .tar.bz2 a .conda was transmuted from
  std::optional<std::uint64_t> legacy_bz2_size;

  // --- dependencies ------------------------------------------------------------
  std::vector<std::string> depends;     // MatchSpec strings
  std::vector<std::string> constrains;  // MatchSpec strings
  // Optional dependency groups ("extra_depends": {"group": [specs...]}).
  std::map<std::string, std::vector<std::string>> extra_depends;

  // --- features ----------------------------------------------------------------
  // repodata writes these as one space- or comma-separated string; kept split,
  // sorted and without duplicates (set_track_features / set_features).
  std::vector<std::string> track_features;
  std::vector<std::string> features;
  std::vector<std::string> flags;  // repodata "flags" (newer conda/rattler)

  // --- description -------------------------------------------------------------
  std::string license;
  std::string license_family;
  NoarchType noarch = NoarchType::none;
  // Milliseconds since the Unix epoch (CEP 34); 0 when unknown. Old repodata
  // wrote seconds: normalize_timestamp() converts them.
  std::uint64_t timestamp = 0;
  std::string arch;                       // deprecated; "x86_64", ...
  std::string platform;                   // deprecated; "linux", ...
  std::string python_site_packages_path;  // CEP 20
  std::vector<std::string> purls;         // package URLs of the same software elsewhere (PyPI...)

  // Sets `version` and `parsed_version` together.
  void set_version(std::string text);
  // Splits repodata's "mkl avx" / "mkl,avx" strings.
  void set_track_features(std::string_view text);
  void set_features(std::string_view text);

  // "name-version-build", conda's distribution string (CEP 26).
  std::string dist_str() const;

  friend bool operator==(const PackageRecord&, const PackageRecord&) = default;
};

// conda's feature-string reading: split at spaces and commas, drop empties,
// sort, remove duplicates.
std::vector<std::string> split_features(std::string_view text);

// conda converts timestamps written in seconds to milliseconds: any value
// below 253402300799 (year 9999 in seconds) is taken as seconds.
std::uint64_t normalize_timestamp(std::uint64_t timestamp) noexcept;

}  // namespace gpuenv::specs
