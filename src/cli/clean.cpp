// `gpuenv clean` (conda clean): package files, unused extracted packages and
// the index cache, shown, asked about, deleted (prefix/cache_cleaning.hpp).
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "environment_change.hpp"
#include "error_output.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/prefix/cache_cleaning.hpp"

namespace gpuenv::cli {
namespace {

struct CleanArguments {
  bool tarballs = false;
  bool packages = false;
  bool index_cache = false;
  bool all = false;
  bool dry_run = false;
  bool json = false;
  bool yes = false;
};

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

std::uint64_t total(const std::vector<prefix::CleanItem>& items) {
  std::uint64_t sum = 0;
  for (const auto& item : items) sum += item.bytes;
  return sum;
}

void print_group(const char* what, const std::vector<prefix::CleanItem>& items) {
  if (items.empty()) {
    fmt::print("There are no {} to remove.\n", what);
    return;
  }
  fmt::print("Will remove {} {} ({}):\n", items.size(), what, megabytes(total(items)));
  for (const auto& item : items) fmt::print("  {}  {}\n", item.path.string(), megabytes(item.bytes));
}

int run_clean(const CleanArguments& arguments) {
  if (!arguments.all && !arguments.tarballs && !arguments.packages && !arguments.index_cache) {
    return report_usage_error("say what to remove: --tarballs, --packages, --index-cache or --all", arguments.json);
  }
  const auto env = util::process_environment();
  const auto settings = environment::load_settings({}, env);
  if (!settings) return report_error(settings.error(), arguments.json);

  prefix::CleanRequest request;
  request.tarballs = arguments.all || arguments.tarballs;
  request.packages = arguments.all || arguments.packages;
  request.index_cache = arguments.all || arguments.index_cache;
  request.pkgs_dirs = settings->directories.pkgs_dirs;
  request.cache_dir = settings->directories.cache_dir;
  const auto plan = prefix::plan_clean(request);
  const bool nothing = plan.tarballs.empty() && plan.packages.empty() && plan.index_cache.empty();

  if (!arguments.json) {
    if (request.tarballs) print_group("package files (tarballs)", plan.tarballs);
    if (request.packages) print_group("unused extracted packages", plan.packages);
    if (request.index_cache) print_group("index cache directories", plan.index_cache);
  }
  auto done = plan;
  if (arguments.dry_run) {
    if (!arguments.json) fmt::print("Dry run: nothing was removed.\n");
  } else if (!nothing) {
    if (const auto stop = ask_to_go_ahead(arguments.yes, arguments.json, *settings)) return *stop;
    done = prefix::carry_out_clean(plan);
  }
  for (const auto& skipped : done.skipped) fmt::print(stderr, "gpuenv: left {}\n", skipped);
  if (arguments.json) {
    fmt::print("{}\n", prefix::clean_report_json(request, done, arguments.dry_run));
  } else if (!arguments.dry_run && !nothing) {
    fmt::print("Removed {} package files, {} packages and {} index cache directories ({}).\n", done.tarballs.size(),
               done.packages.size(), done.index_cache.size(),
               megabytes(total(done.tarballs) + total(done.packages) + total(done.index_cache)));
  }
  return 0;
}

}  // namespace

void add_clean_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<CleanArguments>();
  auto* sub = app.add_subcommand("clean", "Remove package files, unused packages and the index cache (conda clean)");
  sub->add_flag("-t,--tarballs", arguments->tarballs, "The downloaded package files (.conda, .tar.bz2)");
  sub->add_flag("-p,--packages", arguments->packages,
                "Extracted packages no environment links (their files have no other hard link)");
  sub->add_flag("-i,--index-cache", arguments->index_cache, "The cached repodata, shards, solv files and solves");
  sub->add_flag("-a,--all", arguments->all, "All of the above");
  sub->add_flag("--dry-run,-d", arguments->dry_run, "Only show what would be removed");
  sub->add_flag("--json", arguments->json, "Report as JSON; implies --yes");
  sub->add_flag("-y,--yes", arguments->yes, "Do not ask for confirmation");
  sub->callback([&run, arguments] { run = [arguments] { return run_clean(*arguments); }; });
}

}  // namespace gpuenv::cli
