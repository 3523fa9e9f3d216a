#include "gpuenv/ci/channel_check.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <tuple>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

std::string text_field(const nlohmann::json& record, const char* key) {
  const auto found = record.find(key);
  return found != record.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::expected<void, CiError> read_subdir(const fs::path& repodata, const std::string& subdir,
                                         std::vector<ChannelPackage>& packages) {
  auto text = util::read_text_file_at_most(repodata, kMaxChannelRepodataBytes);
  if (!text) return std::unexpected(CiError{CiError::Kind::unreadable, repodata.string(), text.error().message});
  const auto document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return std::unexpected(CiError{CiError::Kind::invalid, repodata.string(),
                                   fmt::format("{} is not repodata JSON; run `gpuenv index` on the channel",
                                               repodata.string())});
  }
  for (const char* section : {"packages", "packages.conda"}) {
    const auto records = document.find(section);
    if (records == document.end() || !records->is_object()) continue;
    for (const auto& [file, record] : records->items()) {
      if (!record.is_object()) continue;
      ChannelPackage package{subdir, file, text_field(record, "name"), text_field(record, "version"),
                             text_field(record, "build"), {}};
      if (const auto depends = record.find("depends"); depends != record.end() && depends->is_array()) {
        for (const auto& each : *depends) {
          if (each.is_string()) package.depends.push_back(each.get<std::string>());
        }
      }
      packages.push_back(std::move(package));
    }
  }
  return {};
}

// Exit status and the output's last lines of one gpuenv command.
build::ProcessResult run_gpuenv(const ChannelCheckRequest& request, std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), request.gpuenv_binary.string());
  if (request.on_step) request.on_step(fmt::format("{}", fmt::join(arguments, " ")));
  build::ProcessRequest process;
  process.argv = std::move(arguments);
  process.environment = build::current_environment();
  process.working_directory = request.work_dir;
  process.on_output = request.on_output;
  return build::run_process(process);
}

std::string failure(const build::ProcessResult& result, std::string_view what) {
  return fmt::format("{} failed ({}): {}", what,
                     result.started ? fmt::format("exit status {}", result.exit_code) : result.start_error,
                     result.output_tail);
}

}  // namespace

std::expected<std::vector<ChannelPackage>, CiError> read_channel_packages(const fs::path& channel) {
  std::error_code error;
  std::set<fs::path> repodata_files;
  for (fs::directory_iterator it(channel, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error) && !it->is_symlink(error) && fs::is_regular_file(it->path() / "repodata.json", error)) {
      repodata_files.insert(it->path() / "repodata.json");
    }
    if (repodata_files.size() > 100) break;  // conda knows a few dozen subdirs
  }
  if (error || repodata_files.empty()) {
    return std::unexpected(CiError{CiError::Kind::unreadable, channel.string(),
                                   fmt::format("{} holds no indexed subdir (<subdir>/repodata.json){}; run `gpuenv "
                                               "index {}` first",
                                               channel.string(), error ? ": " + error.message() : std::string(),
                                               channel.string())});
  }
  std::vector<ChannelPackage> packages;
  for (const auto& file : repodata_files) {
    if (auto read = read_subdir(file, file.parent_path().filename().string(), packages); !read) {
      return std::unexpected(read.error());
    }
  }
  std::sort(packages.begin(), packages.end(), [](const ChannelPackage& a, const ChannelPackage& b) {
    return std::tie(a.subdir, a.file) < std::tie(b.subdir, b.file);
  });
  return packages;
}

std::vector<std::string> missing_dependencies(const ChannelPackage& package,
                                              const std::vector<ChannelPackage>& channel) {
  std::vector<std::string> missing;
  for (const auto& spec : package.depends) {
    const auto name = specs::MatchSpec::extract_name(spec);
    if (!name) {
      missing.push_back(spec);
      continue;
    }
    if (name->starts_with("__")) continue;  // virtual: the machine provides it
    const bool provided = std::any_of(channel.begin(), channel.end(),
                                      [&](const ChannelPackage& other) { return other.name == *name; });
    if (!provided && std::find(missing.begin(), missing.end(), *name) == missing.end()) missing.push_back(*name);
  }
  return missing;
}

std::string exact_spec(const ChannelPackage& package) {
  return fmt::format("{}={}={}", package.name, package.version, package.build);
}

std::expected<std::vector<ChannelCheckResult>, CiError> check_channel(const ChannelCheckRequest& request) {
  auto packages = read_channel_packages(request.channel);
  if (!packages) return std::unexpected(packages.error());
  std::error_code error;
  fs::create_directories(request.work_dir, error);
  std::vector<ChannelCheckResult> results;
  for (std::size_t index = 0; index < packages->size(); ++index) {
    const auto& package = (*packages)[index];
    ChannelCheckResult result{package, ChannelCheckVerdict::skipped, {}};
    if (const auto missing = missing_dependencies(package, *packages); !missing.empty()) {
      result.reason = fmt::format("needs {}, not in the channel: cannot be installed from it alone",
                                  fmt::join(missing, ", "));
      results.push_back(std::move(result));
      continue;
    }
    const auto prefix = request.work_dir / fmt::format("env-{}", index);
    fs::remove_all(prefix, error);
    const auto created = run_gpuenv(request, {"create", "--yes", "-p", prefix.string(), "--override-channels", "-c",
                                              request.channel.string(), exact_spec(package)});
    if (!created.succeeded()) {
      result.verdict = ChannelCheckVerdict::failed;
      result.reason = failure(created, "gpuenv create");
    } else {
      std::vector<std::string> doctor{"doctor", "-p", prefix.string()};
      for (const auto& gpu : request.gpus) {
        doctor.push_back("--gpu");
        doctor.push_back(gpu);
      }
      const auto judged = run_gpuenv(request, doctor);
      result.verdict = judged.succeeded() ? ChannelCheckVerdict::passed : ChannelCheckVerdict::failed;
      if (!judged.succeeded()) result.reason = failure(judged, "gpuenv doctor");
    }
    fs::remove_all(prefix, error);
    results.push_back(std::move(result));
  }
  return results;
}

std::string_view verdict_name(ChannelCheckVerdict verdict) {
  switch (verdict) {
    case ChannelCheckVerdict::passed: return "passed";
    case ChannelCheckVerdict::failed: return "FAILED";
    case ChannelCheckVerdict::skipped: return "skipped";
  }
  return "?";
}

bool channel_check_passed(const std::vector<ChannelCheckResult>& results) {
  return std::none_of(results.begin(), results.end(),
                      [](const ChannelCheckResult& result) { return result.verdict == ChannelCheckVerdict::failed; });
}

std::string channel_check_json(const std::vector<ChannelCheckResult>& results) {
  using json = nlohmann::ordered_json;
  json packages = json::array();
  for (const auto& result : results) {
    packages.push_back({{"package", result.package.subdir + "/" + result.package.file},
                        {"spec", exact_spec(result.package)},
                        {"verdict", std::string(verdict_name(result.verdict))},
                        {"reason", result.reason}});
  }
  return json{{"schema_version", 1}, {"success", channel_check_passed(results)}, {"packages", std::move(packages)}}
      .dump(2);
}

}  // namespace gpuenv::ci
