// The scripts a package may run around its linking (CEP 34, CEP 32):
// bin/.<name>-pre-link.sh, -post-link.sh and -pre-unlink.sh, run the way
// conda runs them: with bash (sh where bash is missing), `-x` so that a
// failure's output shows what ran, and PREFIX, SOURCE_DIR, PKG_NAME,
// PKG_VERSION, PKG_BUILDNUM and ROOT_PREFIX in the environment, the
// script's directory first on PATH.
//
// A failing pre-link or post-link script fails the transaction (which then
// rolls back; what the script itself changed is the script's business, as
// with conda). A failing pre-unlink script is reported and the unlink goes on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::prefix {

enum class LinkScript { pre_link, post_link, pre_unlink };

struct LinkScriptRun {
  LinkScript action = LinkScript::post_link;
  bool ran = false;     // the package has this script
  int exit_code = 0;    // 128 + signal when a signal ended it
  std::string output;   // stdout and stderr together, the last 64 kB
};

// Runs `<script_root>/bin/.<name>-<action>.sh` when it exists.
// `script_root` is the prefix (post-link, pre-unlink) or the extracted
// package (pre-link, whose files are not linked yet). `root_prefix` is
// exported as ROOT_PREFIX (empty when gpuenv has none). Throws PrefixError
// only when the script cannot be started.
LinkScriptRun run_link_script(LinkScript action, const specs::PackageRecord& package,
                              const std::filesystem::path& script_root,
                              const std::filesystem::path& prefix,
                              const std::filesystem::path& root_prefix);

// Whether `<script_root>/bin/.<name>-<action>.sh` exists (run_link_script
// would run it).
bool has_link_script(LinkScript action, const specs::PackageRecord& package,
                     const std::filesystem::path& script_root);

// "post-link" and so on.
std::string_view to_string(LinkScript action) noexcept;

// The prefix's .messages.txt, which scripts write for the user (CEP 34):
// its content, and the file removed. Empty when there is none.
std::string take_script_messages(const std::filesystem::path& prefix);

}  // namespace gpuenv::prefix
