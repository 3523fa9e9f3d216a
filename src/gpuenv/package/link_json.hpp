// info/link.json (CEP 34, CEP 20): the noarch type and, for noarch: python
// packages, the console entry points the installer must write.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::package {

// "isympy = isympy:main" -> {command "isympy", module "isympy", function "main"}.
struct EntryPoint {
  std::string command;
  std::string module;
  std::string function;  // may be dotted: "cli.main"

  friend bool operator==(const EntryPoint&, const EntryPoint&) = default;
};

// Parses one entry point string. Throws PackageError naming `source` for text
// that is not `command = module:function`, or whose command would not be a
// plain file name in bin/.
EntryPoint parse_entry_point(std::string_view text, std::string_view source);

struct LinkJson {
  specs::NoarchType noarch = specs::NoarchType::none;
  std::vector<EntryPoint> entry_points;
};

// Parses link.json text; throws PackageError naming `source`.
LinkJson parse_link_json(std::string_view text, std::string_view source);

// link.json text for a noarch package (for writing packages).
std::string link_json_text(const LinkJson& link);

}  // namespace gpuenv::package
