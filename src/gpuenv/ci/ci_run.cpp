#include "gpuenv/ci/ci_run.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/ci/job_runners.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// gpuenv build --json prints a few KiB per package.
constexpr std::size_t kMaxBuildDocumentBytes = 16u << 20;

void step(const CiRunRequest& request, const std::string& line) {
  if (request.on_step) request.on_step(line);
}

bool docker_or_podman_answers(const CiRunRequest& request, RunnerKind engine) {
  return detail::check_runner(request, engine).has_value();
}

RunnerKind default_runner(const CiRunRequest& request) {
  for (const auto engine : {RunnerKind::docker, RunnerKind::podman}) {
    if (docker_or_podman_answers(request, engine)) return engine;
  }
  return RunnerKind::chroot;
}

// A job is kept unless it sets a filtered key to another value.
bool matches_filters(const CiJob& job, const std::vector<std::string>& filters) {
  return std::all_of(filters.begin(), filters.end(), [&job](const std::string& filter) {
    const auto key = filter.substr(0, filter.find('=') + 1);
    return std::none_of(job.variant_arguments.begin(), job.variant_arguments.end(), [&](const std::string& argument) {
      return argument.starts_with(key) && argument != filter;
    });
  });
}

std::expected<std::vector<CiJob>, CiError> jobs_to_run(const CiRunRequest& request, const fs::path& recipe_file) {
  for (const auto& filter : request.variant_filters) {
    if (filter.find('=') == std::string::npos || filter.front() == '=') {
      return std::unexpected(CiError{CiError::Kind::invalid, filter,
                                     fmt::format("--variant {}: expected KEY=VALUE (cuda_compiler_version=13.0)",
                                                 filter)});
    }
  }
  MatrixRequest matrix_request;
  matrix_request.recipes_dir = recipe_file.parent_path();
  matrix_request.variant_files = request.variant_files;
  matrix_request.images_dir = request.images_dir;
  matrix_request.target_platform = request.target_platform;
  matrix_request.environment = request.environment;
  auto matrix = build_matrix(matrix_request);
  if (!matrix) return std::unexpected(matrix.error());
  std::vector<CiJob> jobs;
  for (const auto& job : matrix->jobs) {
    if (fs::path(job.recipe) == recipe_file && matches_filters(job, request.variant_filters)) jobs.push_back(job);
  }
  if (jobs.empty()) {
    return std::unexpected(CiError{
        CiError::Kind::invalid, recipe_file.string(),
        fmt::format("{}: no variant matches {}; `gpuenv ci render --recipes {} --json` lists its variants",
                    recipe_file.string(),
                    request.variant_filters.empty() ? std::string("(no filter)")
                                                    : fmt::format("--variant {}", fmt::join(request.variant_filters,
                                                                                            " --variant ")),
                    recipe_file.parent_path().string())});
  }
  return jobs;
}

// The output dir as the build saw it, mapped back to this machine.
std::string on_host(const std::string& path, const std::string& seen_as, const fs::path& output_dir) {
  if (seen_as.empty() || !path.starts_with(seen_as)) return path;
  return (output_dir / fs::path(path.substr(seen_as.size())).relative_path()).string();
}

void read_build_document(const fs::path& document_file, const std::string& seen_as, const fs::path& output_dir,
                         CiJobResult& result) {
  auto text = util::read_text_file_at_most(document_file, kMaxBuildDocumentBytes);
  if (!text || text->empty()) {
    result.error = fmt::format("the build printed no result document ({}); see the output above",
                               text ? "empty " + document_file.string() : text.error().message);
    return;
  }
  const auto document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    result.error = fmt::format("{} is not the JSON document of `gpuenv build --json`", document_file.string());
    return;
  }
  result.success = document.value("success", false);
  if (!result.success) {
    result.error = with_output_paths_on_host(document.value("error", std::string("the build failed")), seen_as, output_dir);
  }
  if (const auto skipped = document.find("skipped"); skipped != document.end() && skipped->is_array()) {
    for (const auto& package : *skipped) {
      if (package.is_object()) {
        result.skipped_files.push_back(on_host(package.value("package", std::string()), seen_as, output_dir));
      }
    }
  }
  const auto packages = document.find("packages");
  if (packages == document.end() || !packages->is_array()) return;
  for (const auto& package : *packages) {
    if (!package.is_object()) continue;
    result.package_files.push_back(on_host(package.value("package", std::string()), seen_as, output_dir));
    result.log = on_host(package.value("log", std::string()), seen_as, output_dir);
    result.tests += package.value("tests", std::size_t{0});
    if (const auto check = package.find("cuda_check"); check != package.end() && check->is_string()) {
      result.cuda_check = check->get<std::string>();
    }
  }
}

// With --skip-existing, the job's package file where the output channel
// already has it (its platform's folder or noarch/); empty otherwise.
std::optional<fs::path> already_built(const CiRunRequest& request, const CiJob& job) {
  if (!request.skip_existing) return std::nullopt;
  const auto name = fmt::format("{}-{}-{}.conda", job.package, job.version, job.build_string);
  // From the rendered recipe: a file name, never a path.
  if (name.find('/') != std::string::npos || name.starts_with(".")) return std::nullopt;
  for (const auto& subdir : {request.target_platform, std::string("noarch")}) {
    std::error_code error;
    const auto file = request.output_dir / subdir / name;
    if (fs::is_regular_file(file, error)) return file;
  }
  return std::nullopt;
}

CiJobResult run_job(const CiRunRequest& request, RunnerKind runner, const CiJob& job, const ImageDefinition& image,
                    const fs::path& recipe_file, const detail::JobInputs& inputs) {
  const auto start = Clock::now();
  CiJobResult result;
  result.id = job.id;
  result.recipe = job.recipe;
  result.package = job.package;
  result.variant = job.variant_arguments;
  result.image = image.name;
  result.runner = std::string(runner_name(runner));
  // Known before any image starts: a re-run of a whole repository skips
  // every job in milliseconds instead of a chroot or container each.
  if (const auto existing = already_built(request, job)) {
    step(request, fmt::format("job {}: {} is in the output channel already; not run", job.id,
                              existing->filename().string()));
    result.success = true;
    result.skipped_files.push_back(existing->string());
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }
  detail::JobContext context;
  context.job = &job;
  context.image = &image;
  context.inputs = &inputs;
  context.recipe_file = recipe_file;
  for (const auto& file : request.variant_files) context.variant_files.push_back(fs::absolute(file));
  context.stdout_name = fmt::format("ci-run/{}.json", job.id);
  const auto document = request.output_dir / context.stdout_name;
  std::error_code error;
  fs::create_directories(document.parent_path(), error);
  fs::remove(document, error);
  step(request, fmt::format("job {}: {} in image {} ({} runner)", job.id, fmt::join(job.variant_arguments, " "),
                            image.name, result.runner));
  std::expected<void, CiError> ran;
  std::string seen_as;
  switch (runner) {
    case RunnerKind::host:
      ran = detail::run_host_job(request, context);
      break;
    case RunnerKind::chroot:
      ran = detail::run_chroot_job(request, context, result);
      seen_as = "/gpuenv/output";
      break;
    case RunnerKind::docker:
    case RunnerKind::podman:
      ran = detail::run_container_job(request, runner, context);
      seen_as = "/gpuenv/output";
      break;
  }
  if (ran) {
    read_build_document(document, seen_as, request.output_dir, result);
  } else {
    result.error = with_output_paths_on_host(ran.error().message, seen_as, request.output_dir);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace

std::string with_output_paths_on_host(std::string text, std::string_view seen_as, const fs::path& output_dir) {
  if (seen_as.empty()) return text;
  std::string host = output_dir.lexically_normal().string();
  while (host.size() > 1 && host.back() == '/') host.pop_back();
  for (std::size_t at = text.find(seen_as); at != std::string::npos; at = text.find(seen_as, at)) {
    const std::size_t end = at + seen_as.size();
    // A whole path, whole components: /x/gpuenv/output and /gpuenv/output-old are other folders.
    constexpr std::string_view before_path = " \t\n'\"(=:";
    constexpr std::string_view after_component = "/ \t\n'\":),;";
    const bool starts_path = at == 0 || before_path.find(text[at - 1]) != std::string_view::npos;
    const bool ends_component = end == text.size() || after_component.find(text[end]) != std::string_view::npos;
    if (!starts_path || !ends_component) {
      at = end;
      continue;
    }
    text.replace(at, seen_as.size(), host);
    at += host.size();
  }
  return text;
}

std::optional<RunnerKind> parse_runner(std::string_view name) {
  if (name == "chroot") return RunnerKind::chroot;
  if (name == "docker") return RunnerKind::docker;
  if (name == "podman") return RunnerKind::podman;
  if (name == "host") return RunnerKind::host;
  return std::nullopt;
}

std::string_view runner_name(RunnerKind runner) {
  switch (runner) {
    case RunnerKind::chroot: return "chroot";
    case RunnerKind::docker: return "docker";
    case RunnerKind::podman: return "podman";
    case RunnerKind::host: return "host";
  }
  return "?";
}

bool CiRunResult::success() const {
  return !jobs.empty() && std::all_of(jobs.begin(), jobs.end(), [](const CiJobResult& job) { return job.success; });
}

std::expected<CiRunResult, CiError> run_ci(const CiRunRequest& request) {
  auto recipe_file = fs::absolute(request.recipe).lexically_normal();
  if (fs::is_directory(recipe_file)) recipe_file /= "recipe.yaml";
  if (!fs::is_regular_file(recipe_file)) {
    return std::unexpected(CiError{CiError::Kind::unreadable, recipe_file.string(),
                                   fmt::format("{}: no such recipe file; pass a recipe.yaml or its directory",
                                               recipe_file.string())});
  }
  auto jobs = jobs_to_run(request, recipe_file);
  if (!jobs) return std::unexpected(jobs.error());
  auto inputs = detail::resolve_job_inputs(request);
  if (!inputs) return std::unexpected(inputs.error());
  auto images = read_image_definitions(request.images_dir);
  if (!images) return std::unexpected(images.error());
  const auto image_named = [&images](const std::string& name) -> const ImageDefinition* {
    const auto found = std::find_if(images->begin(), images->end(),
                                    [&name](const ImageDefinition& image) { return image.name == name; });
    return found == images->end() ? nullptr : &*found;
  };
  if (!request.image.empty() && image_named(request.image) == nullptr) {
    return std::unexpected(CiError{CiError::Kind::invalid, request.image,
                                   fmt::format("--image {}: no such image in {} (`gpuenv ci images` lists them)",
                                               request.image, request.images_dir.string())});
  }
  const auto runner = request.runner ? *request.runner : default_runner(request);
  if (auto usable = detail::check_runner(request, runner); !usable) return std::unexpected(usable.error());
  if (runner == RunnerKind::host) {
    step(request, "host runner: no isolation -- the builds see this machine's compilers, CUDA toolkit and "
                  "environment, not the image's");
  }
  std::error_code error;
  fs::create_directories(request.output_dir, error);
  CiRunResult result;
  for (const auto& job : *jobs) {
    const auto* image = image_named(request.image.empty() ? job.image : request.image);
    result.jobs.push_back(run_job(request, runner, job, *image, recipe_file, *inputs));
  }
  return result;
}

}  // namespace gpuenv::ci
