// `gpuenv generate-recipe pypi NAME[==VERSION]...`: v1 recipes from PyPI
// (src/gpuenv/generator/, docs/generate-recipe.md); --build builds what was
// written with `gpuenv build` in the whole-repository order.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "channel_setup.hpp"
#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/environment/search.hpp"
#include "gpuenv/generator/generate_pypi.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;

struct GenerateArguments {
  std::vector<std::string> packages;
  std::string output_dir = ".";
  std::string index_url = "https://pypi.org/pypi";
  ChannelArguments channels;
  std::vector<std::string> variant_files;  // --build: gpuenv build -m
  bool recursive = false;
  bool build = false;
  bool overwrite = false;
  bool json = false;
};

// Says nothing: the channel search of --recursive is not the user's search.
class QuietReporter : public environment::Reporter {};

int run_generate_pypi(const GenerateArguments& arguments) {
  const auto settings = environment::load_settings(settings_overrides(arguments.channels), util::process_environment());
  if (!settings) return report_error(settings.error(), arguments.json);
  generate::GenerateRequest request;
  for (const auto& text : arguments.packages) {
    auto package = generate::parse_package_request(text);
    if (!package) return report_usage_error(package.error(), arguments.json);
    request.packages.push_back(std::move(*package));
  }
  request.output_dir = fs::absolute(arguments.output_dir).lexically_normal();
  request.index_url = arguments.index_url;
  request.client = settings->client;
  request.cache_dir = settings->directories.cache_dir;
  request.names = &generate::shipped_conda_names();
  request.recursive = arguments.recursive;
  request.overwrite = arguments.overwrite;
  request.log = [&arguments](const std::string& line) {
    if (!arguments.json) fmt::print(stderr, "{}\n", line);
  };
  if (arguments.recursive) {
    request.in_channels = [&settings](const std::string& name) {
      QuietReporter quiet;
      return environment::search(*settings, name, quiet).has_value();
    };
  }
  const auto result = generate::generate_pypi_recipes(request);
  if (!result) {
    return report_error(environment::make_error(environment::ErrorKind::configuration, result.error() +
                                                    "; nothing was written"),
                        arguments.json);
  }
  std::vector<std::string> recipe_dirs;
  nlohmann::json written = nlohmann::json::array();
  for (const auto& file : result->written) {
    recipe_dirs.push_back(file.recipe_file.parent_path().string());
    written.push_back({{"name", file.recipe.name}, {"version", file.recipe.version}, {"noarch", file.recipe.noarch},
                       {"recipe", file.recipe_file.string()}, {"requirements", file.recipe.requirements},
                       {"notes", file.recipe.notes}});
    if (!arguments.json) {
      fmt::print("wrote {} ({} {}, {})\n", file.recipe_file.string(), file.recipe.name, file.recipe.version,
                 file.recipe.noarch ? "noarch: python" : "compiled");
      for (const auto& note : file.recipe.notes) fmt::print("  check: {}\n", note);
    }
  }
  if (!arguments.json) {
    for (const auto& name : result->not_needed) fmt::print("not written: {}\n", name);
  }
  int status = 0;
  if (arguments.build && !recipe_dirs.empty()) {
    // Every recipe of the output directory (the ones just written and those
    // an earlier run wrote, which they may need) as `gpuenv build` builds a
    // repository: in the order they need each other, into one output
    // channel, tests run, what was built before skipped.
    recipe_dirs.clear();
    std::error_code error;
    for (fs::directory_iterator it(request.output_dir, error), end; !error && it != end; it.increment(error)) {
      if (fs::is_regular_file(it->path() / "recipe.yaml", error)) recipe_dirs.push_back(it->path().string());
    }
    std::sort(recipe_dirs.begin(), recipe_dirs.end());
    auto self = util::running_executable();
    if (!self) return report_error(environment::make_error(environment::ErrorKind::configuration, self.error()));
    build::ProcessRequest process;
    process.argv = {self->string(), "build"};
    process.argv.insert(process.argv.end(), recipe_dirs.begin(), recipe_dirs.end());
    process.argv.insert(process.argv.end(), {"--output-dir", (request.output_dir / "output").string()});
    for (const auto& channel : arguments.channels.channels) process.argv.insert(process.argv.end(), {"-c", channel});
    if (arguments.channels.override_channels) process.argv.push_back("--override-channels");
    for (const auto& file : arguments.variant_files) {
      process.argv.insert(process.argv.end(), {"-m", fs::absolute(file).string()});
    }
    process.environment = build::current_environment();
    process.on_output = [&arguments](std::string_view piece) {
      if (!arguments.json) std::fwrite(piece.data(), 1, piece.size(), stdout);
    };
    const auto built = build::run_process(process);
    status = built.succeeded() ? 0 : 1;
    if (arguments.json) {
      fmt::print("{}\n", nlohmann::json{{"written", written}, {"not_needed", result->not_needed},
                                        {"built", built.succeeded()}, {"build_output", built.output_tail}}
                             .dump(2));
      return status;
    }
  }
  if (arguments.json) {
    fmt::print("{}\n", nlohmann::json{{"written", written}, {"not_needed", result->not_needed}}.dump(2));
  }
  return status;
}

}  // namespace

void add_generate_recipe_command(CLI::App& app, Runner& run) {
  auto* generate = app.add_subcommand("generate-recipe", "Write a v1 recipe from a package index");
  generate->require_subcommand(1);
  auto arguments = std::make_shared<GenerateArguments>();
  auto* pypi = generate->add_subcommand("pypi", "A recipe for a PyPI project, from its sdist (never a wheel)");
  pypi->add_option("package", arguments->packages, "NAME or NAME==VERSION (repeatable)")->required();
  pypi->add_option("--output-dir", arguments->output_dir,
                   "Write each recipe to DIR/<conda name>/recipe.yaml (default: the current directory)");
  pypi->add_flag("--recursive", arguments->recursive,
                 "Also write recipes for every host and run requirement that neither the channels nor the output "
                 "directory has");
  pypi->add_flag("--build", arguments->build,
                 "Build the written recipes with gpuenv build (repository order, tests run) into DIR/output");
  pypi->add_flag("--overwrite", arguments->overwrite, "Replace recipes that exist");
  pypi->add_option("-m,--variant-config", arguments->variant_files,
                   "--build: variant files for gpuenv build, in order (stdlib('c') and python_min come from them)")
      ->allow_extra_args(false);
  pypi->add_option("--index-url", arguments->index_url,
                   "PyPI's JSON API (default https://pypi.org/pypi; a file:// directory of NAME.json files too)");
  add_channel_options(pypi, arguments->channels);
  pypi->add_flag("--json", arguments->json, "Report as JSON");
  pypi->callback([&run, arguments] { run = [arguments] { return run_generate_pypi(*arguments); }; });
}

}  // namespace gpuenv::cli
