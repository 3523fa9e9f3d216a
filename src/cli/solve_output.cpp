#include "solve_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#include "channel_setup.hpp"
#include "gpuenv/environment/channel_names.hpp"
#include "gpuenv/prefix/package_cache.hpp"

namespace gpuenv::cli {
namespace {

using json = nlohmann::ordered_json;

std::string virtual_packages_text(const system::MachineDescription& machine) {
  std::string text;
  for (const auto& package : machine.virtual_packages) {
    text += (text.empty() ? "" : ", ") + package.str();
  }
  return text.empty() ? std::string("none") : text;
}

}  // namespace

std::string human_size(std::uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(units)) {
    value /= 1000;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

void print_json_failure(const std::string& error, const std::vector<std::string>& explanation,
                        const std::string& exception_name) {
  const json output{
      {"success", false},
      {"error", error},
      {"explanation", explanation},
      {"exception_name", exception_name},
  };
  fmt::print("{}\n", output.dump(2));
}

void print_plan(const solver::Solution& solution, const solver::ChannelLoadResult& loaded,
                const std::filesystem::path& prefix, const system::MachineDescription& machine,
                const std::vector<std::filesystem::path>& pkgs_dirs) {
  // What the transaction will not download (PackageCache::holds, as its tracker decides).
  std::optional<prefix::PackageCache> cache;
  if (!pkgs_dirs.empty()) {
    prefix::PackageCacheOptions options;
    options.pkgs_dirs = pkgs_dirs;
    cache.emplace(std::move(options));
  }
  const auto cached = [&cache](const specs::PackageRecord& record) { return cache && cache->holds(record); };
  fmt::print("Environment:      {}\n", prefix.string());
  // Unsolved plans (explicit files, removals) have no machine or channels to show.
  if (!machine.platform.empty()) {
    fmt::print("Platform:         {}\n", machine.platform);
    fmt::print("Virtual packages: {}\n", virtual_packages_text(machine));
  }
  const auto channels = environment::loaded_channel_names(loaded);
  if (!channels.empty()) fmt::print("Channels:         {}\n", fmt::join(channels, ", "));
  fmt::print("\n");

  struct Row {
    std::string sign, name, version, build, channel, size;
  };
  std::vector<Row> rows;
  std::uint64_t total = 0;
  const auto add_rows = [&](const std::vector<specs::PackageRecord>& records, const char* sign) {
    std::vector<const specs::PackageRecord*> sorted;
    for (const auto& record : records) sorted.push_back(&record);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const auto* record : sorted) {
      rows.push_back({sign, record->name, record->version, record->build, environment::channel_name_of(*record, loaded),
                      record->size ? human_size(*record->size) : std::string("-")});
      if (*sign == '+' && record->size && !cached(*record)) total += *record->size;
    }
  };
  add_rows(solution.unlink, "-");
  add_rows(solution.link, "+");
  Row header{" ", "Package", "Version", "Build", "Channel", "Size"};
  std::size_t widths[5] = {header.name.size(), header.version.size(), header.build.size(), header.channel.size(),
                           header.size.size()};
  for (const auto& row : rows) {
    widths[0] = std::max(widths[0], row.name.size());
    widths[1] = std::max(widths[1], row.version.size());
    widths[2] = std::max(widths[2], row.build.size());
    widths[3] = std::max(widths[3], row.channel.size());
    widths[4] = std::max(widths[4], row.size.size());
  }
  const auto print_row = [&](const Row& row) {
    fmt::print("  {} {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>{}}\n", row.sign, row.name, widths[0], row.version,
               widths[1], row.build, widths[2], row.channel, widths[3], row.size, widths[4]);
  };
  print_row(header);
  fmt::print("  {}\n", std::string(widths[0] + widths[1] + widths[2] + widths[3] + widths[4] + 10, '-'));
  for (const auto& row : rows) print_row(row);
  if (solution.link.empty()) {
    fmt::print("\n  Unlink {} package(s)\n\n", solution.unlink.size());
  } else {
    fmt::print("\n  Link {} package(s)", solution.link.size());
    if (!solution.unlink.empty()) fmt::print(", unlink {}", solution.unlink.size());
    if (total == 0) {
      fmt::print(" (nothing to download)\n\n");
    } else {
      fmt::print(" ({} to download)\n\n", human_size(total));
    }
  }
}

void print_unsolvable(const solver::Unsolvable& unsolvable) {
  std::fflush(stdout);
  fmt::print(stderr, "gpuenv: error: the request cannot be satisfied: {}\n\n", unsolvable.summary());
  for (const auto& line : unsolvable.lines()) fmt::print(stderr, "  {}\n", line);
}

}  // namespace gpuenv::cli
