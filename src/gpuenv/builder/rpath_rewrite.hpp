// What the relocation step makes of one ELF file's library search path, as
// conda-build and rattler-build do: entries inside the host prefix become
// $ORIGIN-relative so the package works wherever it is installed; entries
// outside it (the build machine's directories, the build environment) are
// dropped unless the recipe allowlists them (dynamic_linking.rpath_allowlist,
// globs); a file left with no entry that links libraries of the prefix gets
// dynamic_linking.rpaths (default lib/), $ORIGIN-relative. Pure: no I/O.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpuenv::build {

struct RpathRewriteInput {
  std::string current;              // DT_RUNPATH or DT_RPATH as written, colon-separated
  std::string file;                 // the file, relative to the prefix ("bin/tool")
  std::filesystem::path prefix;     // the host prefix, absolute
  std::vector<std::string> allowlist;      // globs of entries kept as they are
  std::vector<std::string> default_rpaths; // prefix-relative directories; empty: {"lib/"}
  bool links_prefix_libraries = false;     // a DT_NEEDED soname is a file in a default rpath directory
};

struct RpathRewrite {
  std::vector<std::string> entries;  // the new search path, in order, no duplicates
  std::vector<std::string> dropped;  // the entries left out, for the log
  std::string joined() const;        // colon-separated
};

RpathRewrite rewrite_rpath(const RpathRewriteInput& input);

// dynamic_linking.rpaths, or lib/ when the recipe gives none.
std::vector<std::string> effective_default_rpaths(const std::vector<std::string>& rpaths);

}  // namespace gpuenv::build
