// `gpuenv ci images` and `gpuenv ci render`: the CI images' Dockerfiles kept
// in step with their definitions, and the CI configuration that builds every
// recipe of the repository (the ci module does the work; docs/ci.md).
#include <fmt/core.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "repository_options.hpp"
#include "gpuenv/ci/channel_check.hpp"
#include "gpuenv/ci/ci_config.hpp"
#include "gpuenv/ci/ci_matrix.hpp"
#include "gpuenv/ci/ci_run.hpp"
#include "gpuenv/ci/rootfs.hpp"
#include "gpuenv/ci/rootfs_prune.hpp"
#include "gpuenv/ci/run_report.hpp"
#include "gpuenv/ci/dockerfile.hpp"
#include "gpuenv/builder/recipe_order.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/ci/gpuenv_bundle.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct ImagesArguments {
  std::string images_dir = "ci-images";
  bool write = false;
  bool check = false;
  bool json = false;
};

struct RenderCiArguments {
  std::string provider = "github";
  std::string recipes_dir = "recipes";
  std::string images_dir = "ci-images";
  std::vector<std::string> variant_files;
  std::string target_platform = "linux-64";
  std::vector<std::string> check_gpus;
  std::string output;
  bool json = false;
};

struct RunCiArguments {
  std::vector<std::string> recipes;
  std::vector<std::string> variant_filters;
  std::string image;
  std::string runner;
  std::string output_dir = "output";
  std::vector<std::string> variant_files;
  std::string images_dir = "ci-images";
  std::vector<std::string> channels;
  bool override_channels = false;
  std::optional<std::string> source;
  std::optional<std::string> source_version;
  RepositoryArguments repository;  // --source-for, --source-archives, --skip-existing
  bool json = false;
};

struct PruneArguments {
  std::string images_dir = "ci-images";
  bool dry_run = false;
  bool json = false;
};

int report_ci_error(const ci::CiError& error, bool as_json) {
  return report_error(environment::make_error(environment::ErrorKind::configuration, error.message), as_json);
}

int run_images(const ImagesArguments& arguments) {
  auto states = ci::sync_dockerfiles(arguments.images_dir, arguments.write);
  if (!states) return report_ci_error(states.error(), arguments.json);
  const auto stale = ci::stale_dockerfiles(*states);
  if (arguments.json) {
    fmt::print("{}\n", ci::dockerfile_states_json(*states, arguments.write));
  } else {
    for (const auto& state : *states) {
      const char* verdict = state.up_to_date ? "up to date" : arguments.write ? "written" : "stale";
      fmt::print("{:<12} {} ({})\n", state.image, state.dockerfile.string(), verdict);
    }
  }
  if (arguments.check && !arguments.write && !stale.empty()) {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {} Dockerfile(s) differ from their image.yaml: {}; run `gpuenv ci images "
                       "--write`\n",
               stale.size(), fmt::join(stale, ", "));
    return 1;
  }
  return 0;
}

int run_render_ci(const RenderCiArguments& arguments) {
  const auto provider = ci::parse_provider(arguments.provider);
  if (!provider) {
    return report_usage_error(fmt::format("unknown provider '{}': use github or gitlab", arguments.provider),
                              arguments.json);
  }
  ci::MatrixRequest request;
  request.recipes_dir = arguments.recipes_dir;
  request.images_dir = arguments.images_dir;
  request.target_platform = arguments.target_platform;
  request.environment = util::environment_variables();
  request.variant_files = ci::variant_files_or_default(arguments.variant_files);
  request.check_gpus = arguments.check_gpus;
  auto matrix = ci::build_matrix(request);
  if (!matrix) return report_ci_error(matrix.error(), arguments.json);
  if (arguments.json) {
    fmt::print("{}\n", ci::matrix_json(*matrix));
    return 0;
  }
  const auto text = ci::render_ci_config(*matrix, *provider);
  if (arguments.output.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  if (auto error = util::write_file_atomically(arguments.output, text)) {
    return report_error(environment::make_error(environment::ErrorKind::configuration,
                                                fmt::format("cannot write {}: {}", arguments.output, *error)));
  }
  fmt::print(stderr, "gpuenv: wrote {} ({} jobs)\n", arguments.output, matrix->jobs.size() + 1);
  return 0;
}

int run_ci_jobs(const RunCiArguments& arguments) {
  ci::CiRunRequest request;
  if (!arguments.runner.empty()) {
    request.runner = ci::parse_runner(arguments.runner);
    if (!request.runner) {
      return report_usage_error(
          fmt::format("unknown runner '{}': use chroot, docker, podman or host", arguments.runner), arguments.json);
    }
  }
  const auto env = util::process_environment();
  // Several recipes, or a directory of them: built in the order they need
  // each other, into the one output channel (builder/recipe_order.hpp).
  std::vector<fs::path> recipe_files;
  for (const auto& argument : arguments.recipes) {
    auto found = build::find_recipe_files(fs::absolute(argument));
    if (!found) return report_usage_error(found.error().message, arguments.json);
    recipe_files.insert(recipe_files.end(), found->begin(), found->end());
  }
  if (recipe_files.size() > 1 && (arguments.source || arguments.source_version)) {
    return report_usage_error("--source and --source-version replace one recipe's sources and version: run that "
                              "recipe on its own", arguments.json);
  }
  // --source-for: one recipe's --source within a run of several, as
  // `gpuenv build --source-for` takes it.
  const auto recipe_sources = sources_for_recipes(arguments.repository.sources_for, recipe_files);
  if (!recipe_sources) return report_usage_error(recipe_sources.error(), arguments.json);
  const auto skip_existing = skip_existing_of(arguments.repository.skip_existing, recipe_files.size());
  if (!skip_existing) return report_usage_error(skip_existing.error(), arguments.json);
  request.skip_existing = *skip_existing;
  request.source_archives = arguments.repository.source_archives;
  request.variant_filters = arguments.variant_filters;
  request.image = arguments.image;
  request.output_dir = fs::absolute(arguments.output_dir).lexically_normal();
  request.images_dir = arguments.images_dir;
  request.variant_files = ci::variant_files_or_default(arguments.variant_files);
  auto binary = util::running_executable();
  if (!binary) return report_error(environment::make_error(environment::ErrorKind::configuration, binary.error()));
  request.gpuenv_binary = *binary;
  auto machine = ci::chroot_machine(env);
  if (!machine) return report_ci_error(machine.error(), arguments.json);
  request.gpuenv_cache_dir = machine->gpuenv_cache_dir;
  request.mirror = machine->mirror;
  request.channels = arguments.channels;
  request.override_channels = arguments.override_channels;
  request.source = arguments.source;
  request.source_version = arguments.source_version;
  request.environment = util::environment_variables();
  request.on_step = [](const std::string& line) { fmt::print(stderr, "gpuenv ci run: {}\n", line); };
  request.on_output = [](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stderr); };
  std::vector<std::string> variant_files;
  for (const auto& file : request.variant_files) variant_files.push_back(file.string());
  const auto ordered = build::ordered_recipe_files(
      recipe_files, recipe::render_request_on_this_machine({}, variant_files, request.target_platform));
  if (!ordered) return report_ci_error(ci::CiError{ci::CiError::Kind::render, "", ordered.error().message}, arguments.json);
  ci::CiRunResult all;
  for (std::size_t k = 0; k < ordered->size(); ++k) {
    request.recipe = (*ordered)[k];
    if (const auto source = recipe_sources->find(request.recipe); source != recipe_sources->end()) {
      request.source = source->second;
    } else if (recipe_files.size() > 1) {
      request.source.reset();
    }
    if (ordered->size() > 1) request.on_step(fmt::format("[{}/{}] recipe {}", k + 1, ordered->size(), request.recipe.string()));
    auto result = ci::run_ci(request);
    if (!result) return report_ci_error(result.error(), arguments.json);
    all.jobs.insert(all.jobs.end(), result->jobs.begin(), result->jobs.end());
    if (!result->success()) break;  // later recipes may need what failed
  }
  std::fflush(stderr);
  fmt::print("{}", arguments.json ? ci::run_summary_json(all) + "\n" : ci::run_summary_table(all));
  return all.success() ? 0 : 1;
}

// `gpuenv ci prune`: the chroot runner's root filesystems that no image of
// --images-dir uses any more (docs/ci.md).
int run_prune(const PruneArguments& arguments) {
  auto machine = ci::chroot_machine(util::process_environment());
  if (!machine) return report_ci_error(machine.error(), arguments.json);
  auto pruned = ci::prune_unused_rootfs(arguments.images_dir, *machine, arguments.dry_run);
  if (!pruned) return report_ci_error(pruned.error(), arguments.json);
  const auto& report = *pruned;
  if (arguments.json) {
    fmt::print("{}\n", ci::prune_report_json(report, arguments.dry_run));
  } else {
    for (const auto& tree : report.removed) {
      fmt::print("{} {} ({:.1f} MB)\n", arguments.dry_run ? "would remove" : "removed", tree.path.string(),
                 static_cast<double>(tree.bytes) / 1e6);
    }
    for (const auto& tree : report.in_use) fmt::print("in use, left {}\n", tree.path.string());
    fmt::print("{} {:.1f} MB in {} tree(s); {} tree(s) the images use kept\n",
               arguments.dry_run ? "would free" : "freed", static_cast<double>(report.freed_bytes) / 1e6,
               report.removed.size(), report.kept.size());
  }
  for (const auto& error : report.errors) fmt::print(stderr, "gpuenv: error: {}\n", error);
  return report.errors.empty() ? 0 : 1;
}

// `gpuenv ci bundle DIR`: the running gpuenv with its libraries, for an
// image whose definition has `gpuenv: {bundle: DIR}` (docs/ci.md).
int run_bundle(const std::string& directory) {
  std::error_code error;
  auto binary = util::running_executable();
  if (!binary || fs::exists(directory, error)) {
    return report_error(environment::make_error(
        environment::ErrorKind::configuration,
        !binary ? binary.error() : fmt::format("{} exists already: remove it, or name a new folder", directory)));
  }
  ci::BundleRequest request;
  request.binary = *binary;
  request.on_step = [](const std::string& line) { fmt::print(stderr, "gpuenv ci bundle: {}\n", line); };
  if (auto made = ci::make_gpuenv_bundle(request, directory); !made) return report_ci_error(made.error(), false);
  fmt::print("{}\n", (fs::path(directory) / "gpuenv").string());
  return 0;
}

struct CheckChannelArguments {
  std::string channel;
  std::vector<std::string> gpus;
  std::string work_dir;
  bool json = false;
};

// `gpuenv ci check-channel CHANNEL`: the final CI job's check (docs/ci.md).
int run_check_channel(const CheckChannelArguments& arguments) {
  std::error_code error;
  ci::ChannelCheckRequest request;
  request.channel = fs::absolute(arguments.channel).lexically_normal();
  auto binary = util::running_executable();
  if (!binary) {
    return report_error(environment::make_error(environment::ErrorKind::configuration, binary.error()), arguments.json);
  }
  request.gpuenv_binary = *binary;
  request.work_dir = arguments.work_dir.empty() ? fs::temp_directory_path() / fmt::format("gpuenv-check-channel-{}",
                                                                                            ::getpid())
                                                : fs::absolute(arguments.work_dir);
  request.gpus = arguments.gpus;
  request.on_step = [](const std::string& line) { fmt::print(stderr, "gpuenv ci check-channel: {}\n", line); };
  request.on_output = [](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stderr); };
  auto results = ci::check_channel(request);
  if (arguments.work_dir.empty()) fs::remove_all(request.work_dir, error);
  if (!results) return report_ci_error(results.error(), arguments.json);
  std::fflush(stderr);
  if (arguments.json) {
    fmt::print("{}\n", ci::channel_check_json(*results));
  } else {
    for (const auto& result : *results) {
      fmt::print("{:<8} {}/{}{}\n", ci::verdict_name(result.verdict), result.package.subdir, result.package.file,
                 result.reason.empty() ? std::string() : ": " + result.reason);
    }
  }
  return ci::channel_check_passed(*results) ? 0 : 1;
}

}  // namespace

void add_ci_command(CLI::App& app, Runner& run) {
  auto* ci = app.add_subcommand("ci", "CI images and the CI configuration that builds every recipe");
  ci->require_subcommand(1);

  auto images = std::make_shared<ImagesArguments>();
  auto* images_command =
      ci->add_subcommand("images", "Generate ci-images/<name>/Dockerfile from each image.yaml (or check them)");
  images_command->add_option("--images-dir", images->images_dir, "The images folder (default: ci-images)");
  images_command->add_flag("--write", images->write, "Rewrite the Dockerfiles that differ from their image.yaml");
  images_command->add_flag("--check", images->check, "Exit 1 when a Dockerfile differs from its image.yaml");
  images_command->add_flag("--json", images->json, "Print JSON");
  images_command->callback([&run, images] { run = [images] { return run_images(*images); }; });

  auto prune = std::make_shared<PruneArguments>();
  auto* prune_command = ci->add_subcommand(
      "prune", "Remove the chroot runner's root filesystems that no image of --images-dir uses any more");
  prune_command->add_option("--images-dir", prune->images_dir, "The images folder (default: ci-images)");
  prune_command->add_flag("--dry-run", prune->dry_run, "Only say what would be removed");
  prune_command->add_flag("--json", prune->json, "Print JSON");
  prune_command->callback([&run, prune] { run = [prune] { return run_prune(*prune); }; });

  auto render = std::make_shared<RenderCiArguments>();
  auto* render_command = ci->add_subcommand(
      "render", "Print the GitHub Actions or GitLab CI configuration building every recipe's variants");
  render_command->add_option("--provider", render->provider, "github (default) or gitlab");
  render_command->add_option("--recipes", render->recipes_dir, "Where the recipe.yaml files are (default: recipes)");
  render_command->add_option("--images-dir", render->images_dir, "The images folder (default: ci-images)");
  render_command->add_option("-m,--variant-config", render->variant_files,
                             "Variant files, in order (default: metadata/variants/variants.yaml)")
      ->allow_extra_args(false);
  render_command->add_option("--target-platform", render->target_platform, "The platform built for (linux-64)");
  render_command->add_option("--check-gpu", render->check_gpus,
                             "A GPU the final job's gpuenv doctor judges the channel for (sm_86, 8.6; repeatable; "
                             "default sm_80 and sm_90)");
  render_command->add_option("--output", render->output,
                             "Write here (.github/workflows/gpuenv-packages.yml, .gitlab-ci.yml) instead of stdout");
  render_command->add_flag("--json", render->json, "Print the job matrix as JSON instead");
  render_command->callback([&run, render] { run = [render] { return run_render_ci(*render); }; });

  auto bundle_directory = std::make_shared<std::string>();
  auto* bundle_command = ci->add_subcommand(
      "bundle", "Copy the running gpuenv and every shared library it needs but glibc's into a new folder "
                "($ORIGIN rpath): gpuenv for an image of another Debian release");
  bundle_command->add_option("directory", *bundle_directory, "The folder to make (build/release/gpuenv-bundle)")
      ->required();
  bundle_command->callback([&run, bundle_directory] { run = [bundle_directory] { return run_bundle(*bundle_directory); }; });

  auto check = std::make_shared<CheckChannelArguments>();
  auto* check_command = ci->add_subcommand(
      "check-channel", "Install each package of an indexed channel into a fresh environment from that channel alone "
                       "and run gpuenv doctor on it (the final job of `gpuenv ci render`)");
  check_command->add_option("channel", check->channel, "The channel folder (indexed: gpuenv index)")->required();
  check_command->add_option("--gpu", check->gpus,
                            "gpuenv doctor --gpu: judge for this GPU architecture (repeatable; on a machine without a "
                            "GPU, without it the GPU code is not judged)");
  check_command->add_option("--work-dir", check->work_dir, "Make the environments here (default: a temporary folder)");
  check_command->add_flag("--json", check->json, "Print JSON");
  check_command->callback([&run, check] { run = [check] { return run_check_channel(*check); }; });

  auto run_arguments = std::make_shared<RunCiArguments>();
  auto* run_command = ci->add_subcommand(
      "run", "Build and test a recipe's variants inside their CI images (chroot, podman, docker or host runner)");
  run_command->add_option("recipe", run_arguments->recipes,
                          "A recipe.yaml, a directory holding one, or a directory of recipes (repeatable): several "
                          "are run in the order they need each other's packages")
      ->required();
  run_command->add_option("--variant", run_arguments->variant_filters,
                          "Only the variants with KEY=VALUE (repeatable; cuda_compiler_version=13.0)")
      ->allow_extra_args(false);
  run_command->add_option("--image", run_arguments->image, "Build every variant in this image (ci-images/<name>)");
  run_command->add_option("--runner", run_arguments->runner,
                          "chroot (needs root and debootstrap), docker, podman or host (no isolation); default: "
                          "docker or podman when their daemon answers, else chroot");
  run_command->add_option("--output-dir", run_arguments->output_dir, "The output channel (default: output)");
  run_command->add_option("-m,--variant-config", run_arguments->variant_files,
                          "Variant files, in order (default: metadata/variants/variants.yaml)")
      ->allow_extra_args(false);
  run_command->add_option("--images-dir", run_arguments->images_dir, "The images folder (default: ci-images)");
  run_command->add_option("-c,--channel", run_arguments->channels,
                          "A channel for the builds (repeatable): a name, a URL or a local directory, mounted read-only "
                          "into the image")
      ->allow_extra_args(false);
  run_command->add_flag("--override-channels", run_arguments->override_channels,
                        "Use only the -c channels, not the configured ones");
  run_command->add_option("--source", run_arguments->source,
                          "Build from this directory or archive instead of the recipe's sources (mounted read-only; "
                          "gpuenv build --source)");
  run_command->add_option("--source-version", run_arguments->source_version,
                          "Build under this version instead of the recipe's (gpuenv build --source-version)");
  add_repository_options(run_command, run_arguments->repository);  // each passed to every job's gpuenv build
  run_command->add_flag("--json", run_arguments->json, "Print the jobs' results as JSON");
  run_command->callback([&run, run_arguments] { run = [run_arguments] { return run_ci_jobs(*run_arguments); }; });
}

}  // namespace gpuenv::cli
