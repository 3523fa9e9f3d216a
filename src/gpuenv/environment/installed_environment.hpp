// Reading an environment that already exists, for the commands that only
// read or use one (list, run, shell activate, env export): the checks, the
// recovery of a transaction a killed gpuenv left, the records, and how a
// record's channel and download URL are shown.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/prefix_location.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

// Whether `prefix` is an environment: a directory holding conda-meta/ (the
// test conda and mamba use). The error says what is wrong and what to do.
std::expected<void, Error> check_environment(const std::filesystem::path& prefix);

// A transaction a killed gpuenv left in the prefix is finished or undone
// before the prefix is read, so that nothing reports or runs a half-linked
// environment (recover_prefix). Only done when a journal is there: reading
// needs no lock, and a read-only prefix is still readable. A transaction
// another process is running right now is waited for. When the recovery
// itself fails (no write access, say), this returns a warning for the user.
struct SettledPrefix {
  std::optional<std::string> note;     // what the recovery did, when it did something
  std::optional<std::string> warning;  // why it could not be settled
};
SettledPrefix settle_interrupted_transaction(const std::filesystem::path& prefix);

// "an interrupted gpuenv transaction in P was rolled back: ..." for a
// recovery that did something; empty otherwise.
std::string recovery_note(prefix::RecoveryOutcome outcome, const std::filesystem::path& prefix);

struct InstalledEnvironment {
  std::filesystem::path prefix;
  std::vector<prefix::PrefixRecord> records;  // sorted by name
  std::vector<std::string> warnings;          // damaged records, failed recovery
  std::vector<std::string> notes;             // a finished or undone interrupted change
};

// check_environment, settle_interrupted_transaction, then every record.
std::expected<InstalledEnvironment, Error> read_installed_environment(const std::filesystem::path& prefix);

// An existing environment a command is about to use (run, shell activate,
// doctor): found as -p/-n/the active one say, checked, and settled
// (settle_interrupted_transaction), with what that did in words.
struct OpenedEnvironment {
  std::filesystem::path prefix;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
};

// `for_path`: the prefix will go on PATH (run, activate), so it must pass
// check_prefix_for_path too.
enum class PrefixUse { read, put_on_path };
std::expected<OpenedEnvironment, Error> open_environment(const PrefixChoice& choice, const util::EnvLookup& env,
                                                         WhenNoPrefixGiven when_none, PrefixUse use);

// A record's channel as conda shows it (CEP 26 names): `name` for --json's
// "channel" ("conda-forge", "pkgs/main", a local channel's path),
// `canonical_name` for the table and environment.yml ("conda-forge",
// "defaults", the base URL of channels elsewhere), `base_url` without the
// subdir. All empty when the record does not say where it came from.
struct RecordChannel {
  std::string name;
  std::string canonical_name;
  std::string base_url;
};

RecordChannel record_channel(const specs::PackageRecord& record, const specs::ChannelContext& context);

// The record's subdir: its `subdir` field, else read from its channel or
// URL ("linux-64"), else empty.
std::string record_subdir(const specs::PackageRecord& record);

// Which digest follows the URL in an @EXPLICIT line.
enum class ExplicitDigest { sha256, md5 };

// The lines of an explicit lockfile (CEP-less, conda's `@EXPLICIT` format):
// conda's three header comments, `@EXPLICIT`, then one `<url>#<digest>`
// line per record in the given order. A record without a URL becomes
// `# no URL for: <fn>` (as conda prints it); one without the chosen digest
// gets the other, or none.
std::vector<std::string> explicit_lockfile_lines(const std::vector<prefix::PrefixRecord>& records,
                                                 const std::string& platform, ExplicitDigest digest);

// conda's `conda list --export` header comment lines.
std::vector<std::string> export_header_lines(const std::string& platform);

// `conda list REGEX`: the records whose name `regex` (ECMAScript, case
// insensitive) finds, or with `full_name` matches whole; every record for
// an empty regex. The error says why the regex is not one and what to give.
std::expected<std::vector<const prefix::PrefixRecord*>, std::string> records_named_like(
    const std::vector<prefix::PrefixRecord>& records, const std::string& regex, bool full_name);

// `conda list --json`: conda's PackageRecord.dist_fields_dump() of each
// record, as an indented JSON array.
std::string conda_list_json(const std::vector<const prefix::PrefixRecord*>& records,
                            const specs::ChannelContext& context);

}  // namespace gpuenv::environment
