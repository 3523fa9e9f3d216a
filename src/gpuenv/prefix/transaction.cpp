#include "gpuenv/prefix/transaction.hpp"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <deque>
#include <nlohmann/json.hpp>
#include <set>

#include "gpuenv/package/file_content.hpp"
#include "gpuenv/prefix/fetch_batch.hpp"
#include "gpuenv/prefix/history.hpp"
#include "gpuenv/prefix/link_scripts.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/python_layout.hpp"

namespace gpuenv::prefix {

namespace {

constexpr std::pair<CrashPoint, std::string_view> kCrashPoints[] = {
    {CrashPoint::after_unlink, "after_unlink"},
    {CrashPoint::after_prune, "after_prune"},
    {CrashPoint::before_commit, "before_commit"},
    {CrashPoint::after_commit, "after_commit"},
    {CrashPoint::during_rollback, "during_rollback"},
};

void crash_if(const TestCrashHook& hook, CrashPoint point) {
  if (hook.at == point) ::kill(::getpid(), SIGKILL);
}

std::filesystem::path normalised_prefix(const std::filesystem::path& prefix) {
  auto path = std::filesystem::absolute(prefix).lexically_normal();
  // "/env/" and "/env" must be one prefix: the placeholder replacement
  // writes this text into files.
  auto text = path.string();
  while (text.size() > 1 && text.ends_with('/')) text.pop_back();
  return text;
}

void check_not_frozen(const std::filesystem::path& prefix, const TransactionOptions& options) {
  if (options.override_frozen) return;
  const auto frozen = prefix / "conda-meta" / "frozen";
  std::error_code error;
  if (!std::filesystem::exists(frozen, error)) return;
  std::string message = "the environment " + prefix.string() + " is frozen (CEP 22)";
  try {
    const auto text = package::read_whole_file(frozen);
    if (text && !text->empty()) {
      const auto json = nlohmann::json::parse(*text);
      if (json.is_object() && json.contains("message") && json["message"].is_string()) {
        message += ": " + json["message"].get<std::string>();
      }
    }
  } catch (const std::exception&) {
    // An unreadable message does not unfreeze the prefix.
  }
  throw PrefixError(message + "\nit was not changed; override the freeze explicitly if you must");
}

std::string history_for(const Transaction& transaction, const TransactionOptions& options) {
  HistoryEntry entry;
  entry.time = std::chrono::system_clock::now();
  entry.command_line = options.command_line;
  entry.tool_version = options.tool_version;
  entry.linked = transaction.link;
  entry.unlinked = transaction.unlink;
  entry.update_specs = options.update_specs;
  entry.remove_specs = options.remove_specs;
  return history_block(entry);
}

std::string script_failure(const LinkScriptRun& run, const std::string& dist) {
  return "the " + std::string(to_string(run.action)) + " script of " + dist + " failed (exit status " +
         std::to_string(run.exit_code) + "); its output:\n" + run.output;
}

// What the transaction does to the installed packages, checked before
// anything changes: what it unlinks must be there, what it links must not
// be (unless unlinked too), and one package of each name.
struct InstalledChange {
  std::vector<const PrefixRecord*> to_unlink;
  std::vector<PrefixRecord> kept;
};

InstalledChange check_against_installed(const std::vector<PrefixRecord>& installed,
                                        const Transaction& transaction,
                                        const std::filesystem::path& prefix) {
  std::map<std::string, const PrefixRecord*> by_dist;
  for (const auto& record : installed) by_dist[record.package.dist_str()] = &record;

  InstalledChange change;
  std::set<std::string> unlinking;
  for (const auto& package : transaction.unlink) {
    const auto found = by_dist.find(package.dist_str());
    if (found == by_dist.end()) {
      throw PrefixError("cannot remove " + package.dist_str() + " from " + prefix.string() +
                        ": it is not installed there (conda-meta has no " +
                        prefix_record_filename(package) + "); the prefix was not changed");
    }
    if (unlinking.insert(found->first).second) change.to_unlink.push_back(found->second);
  }
  std::set<std::string> linking;
  for (const auto& package : transaction.link) {
    const auto dist = package.dist_str();
    if (by_dist.contains(dist) && !unlinking.contains(dist)) {
      throw PrefixError(dist + " is already installed in " + prefix.string() +
                        "; to reinstall it, unlink it in the same transaction. The prefix was "
                        "not changed");
    }
    if (!linking.insert(package.name).second) {
      throw PrefixError("the transaction links two packages named " + package.name +
                        "; a prefix holds one version of each package. The prefix was not changed");
    }
  }
  for (const auto& record : installed) {
    if (!unlinking.contains(record.package.dist_str())) change.kept.push_back(record);
  }
  return change;
}

bool is_noarch_python(const CachedPackage& package) {
  return package.record.noarch == specs::NoarchType::python ||
         package.metadata.link.noarch == specs::NoarchType::python ||
         package.metadata.index.noarch == specs::NoarchType::python;
}

}  // namespace

TestCrashHook test_crash_hook_from_environment(const util::EnvLookup& env) {
  TestCrashHook hook;
  if (const auto count = env("GPUENV_TEST_CRASH_AFTER_LINKED_FILES"); count && !count->empty()) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(count->data(), count->data() + count->size(), value);
    if (error != std::errc() || end != count->data() + count->size() || value == 0) {
      throw PrefixError("GPUENV_TEST_CRASH_AFTER_LINKED_FILES must be a positive number, not '" +
                        *count + "'");
    }
    hook.after_linked_files = value;
  }
  if (const auto point = env("GPUENV_TEST_CRASH_AT"); point && !point->empty()) {
    for (const auto& [value, name] : kCrashPoints) {
      if (*point == name) hook.at = value;
    }
    if (!hook.at) {
      throw PrefixError("GPUENV_TEST_CRASH_AT must be after_unlink, after_prune, before_commit, "
                        "after_commit or during_rollback, not '" + *point + "'");
    }
  }
  return hook;
}

FileLock lock_prefix(const std::filesystem::path& prefix, std::chrono::milliseconds timeout,
                     const FileLock::WaitNotice& notice) {
  return FileLock::acquire(prefix / "conda-meta" / ".gpuenv.lock", timeout, notice);
}

RecoveryOutcome recover_prefix(const std::filesystem::path& prefix,
                               std::chrono::milliseconds lock_timeout) {
  const auto path = normalised_prefix(prefix);
  std::error_code error;
  if (!std::filesystem::is_directory(path / "conda-meta", error)) {
    return RecoveryOutcome::nothing_to_recover;
  }
  const auto lock = lock_prefix(path, lock_timeout);
  return settle_journal(path);
}

TransactionResult apply_transaction(const std::filesystem::path& prefix_argument,
                                    const Transaction& transaction,
                                    const TransactionOptions& options) {
  const auto prefix = normalised_prefix(prefix_argument);
  std::error_code error;
  std::filesystem::create_directories(prefix / "conda-meta", error);
  if (error) {
    throw PrefixError("cannot create the prefix " + prefix.string() + ": " + error.message());
  }
  const auto lock = lock_prefix(prefix, options.lock_timeout, options.on_lock_wait);
  TransactionResult result;
  result.recovery = settle_journal(prefix);
  check_not_frozen(prefix, options);

  auto installed = read_prefix_records(prefix);
  result.warnings = std::move(installed.problems);
  const InstalledChange change = check_against_installed(installed.records, transaction, prefix);
  const auto& to_unlink = change.to_unlink;
  const auto& kept = change.kept;

  // The python noarch: python packages go to: the one being linked (its
  // cached index.json may know the site-packages path its record lacks),
  // else the one staying.
  std::optional<std::size_t> linked_python;
  for (std::size_t i = 0; i < transaction.link.size(); ++i) {
    if (transaction.link[i].name == "python") linked_python = i;
  }
  const PackageCache cache(options.cache);
  FetchBatch fetches(cache, transaction.link);
  std::optional<std::optional<PythonLayout>> python;
  const auto python_layout = [&]() -> const std::optional<PythonLayout>& {
    if (python) return *python;
    if (linked_python) {
      auto record = transaction.link[*linked_python];
      if (record.python_site_packages_path.empty()) {
        record.python_site_packages_path =
            fetches.wait(*linked_python).metadata.index.python_site_packages_path;
      }
      python = python_layout_of(record);
    } else {
      python = std::optional<PythonLayout>();
      for (const auto& record : kept) {
        if (record.package.name == "python") python = python_layout_of(record.package);
      }
    }
    return *python;
  };

  LinkOptions link_options;
  link_options.conflicts = options.path_conflicts;
  link_options.mode = options.link_mode;
  link_options.crash_after_linked_files = options.test_crash.after_linked_files;
  link_options.crash_after_prune = options.test_crash.at == CrashPoint::after_prune;
  link_options.walk = options.beneath_walk;
  const auto& hook = options.test_crash;
  {
    TransactionJournal journal(prefix, history_for(transaction, options));
    try {
      PrefixLinker linker(prefix, journal, link_options, kept);
      for (const auto* record : to_unlink) {
        if (options.run_link_scripts) {
          const auto script = run_link_script(LinkScript::pre_unlink, record->package, prefix,
                                              prefix, options.root_prefix);
          if (script.ran && script.exit_code != 0) {
            result.warnings.push_back(script_failure(script, record->package.dist_str()));
          }
        }
        linker.unlink_package(*record);
        result.unlinked.push_back(*record);
        if (options.on_package) options.on_package(PackageStage::unlinked, record->package);
      }
      crash_if(hook, CrashPoint::after_unlink);
      // One package's files are placed while the next one is planned
      // (PrefixLinker::start_link): `started` are those not finished yet.
      std::deque<std::size_t> started;
      const auto finish_oldest = [&] {
        result.linked.push_back(linker.finish_link());
        const std::size_t index = started.front();
        started.pop_front();
        fetches.drop_kept(index);
        if (options.on_package) options.on_package(PackageStage::linked, fetches.wait(index).record);
      };
      for (std::size_t i = 0; i < transaction.link.size(); ++i) {
        const auto& package = fetches.wait(i);
        if (options.on_package) options.on_package(PackageStage::in_cache, package.record);
        if (options.run_link_scripts &&
            has_link_script(LinkScript::pre_link, package.record, package.extracted_dir)) {
          while (!started.empty()) finish_oldest();  // the script sees the packages before it linked
          const auto script = run_link_script(LinkScript::pre_link, package.record,
                                              package.extracted_dir, prefix, options.root_prefix);
          if (script.ran && script.exit_code != 0) {
            throw PrefixError(script_failure(script, package.record.dist_str()));
          }
        }
        const auto requested = options.requested_specs.find(package.record.name);
        static const std::optional<PythonLayout> no_python;
        for (auto& warning : safety_warnings(package)) result.warnings.push_back(std::move(warning));
        linker.start_link(package, is_noarch_python(package) ? python_layout() : no_python,
                          requested == options.requested_specs.end() ? std::string() : requested->second);
        started.push_back(i);
        if (started.size() > 1) finish_oldest();
      }
      while (!started.empty()) finish_oldest();
      // After every package is in place, in link order, as conda runs them.
      for (std::size_t i = 0; options.run_link_scripts && i < result.linked.size(); ++i) {
        const auto& package = result.linked[i].package;
        const auto script = run_link_script(LinkScript::post_link, package, prefix, prefix,
                                            options.root_prefix);
        if (script.ran && script.exit_code != 0) {
          throw PrefixError(script_failure(script, package.dist_str()));
        }
      }
      crash_if(hook, CrashPoint::before_commit);
      journal.commit();
      result.clobbers = linker.clobbers();
    } catch (const std::exception& failure) {
      std::string message = failure.what();
      try {
        settle_journal(prefix, [&] { crash_if(hook, CrashPoint::during_rollback); });
      } catch (const std::exception& rollback_failure) {
        throw PrefixError(message + "\nrolling the prefix back failed too: " +
                          rollback_failure.what() +
                          "\nthe next gpuenv command on this prefix finishes the rollback");
      }
      throw PrefixError(message + "\nthe prefix " + prefix.string() +
                        " was left as it was before the transaction");
    }
  }
  crash_if(hook, CrashPoint::after_commit);
  settle_journal(prefix);  // completes: history, saved files, emptied directories
  result.script_messages = take_script_messages(prefix);
  return result;
}

}  // namespace gpuenv::prefix
