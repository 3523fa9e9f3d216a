#include <fmt/core.h>

#include <cstdio>
#include <exception>

#include "command.hpp"
#include "gpuenv/solver/backend_info.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace {

std::string version_text() {
  const auto backend = gpuenv::solver::backend_info();
  return fmt::format("gpuenv {} ({}; libsolv {}{})", GPUENV_VERSION,
                     gpuenv::specs::Platform::current().str(), backend.libsolv_version,
                     backend.conda_support ? ", conda mode" : ", WITHOUT conda support");
}

bool has_subcommand(const CLI::App& app, const std::string& name) {
  for (const auto* sub : app.get_subcommands({})) {
    if (sub->check_name(name)) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuenv: conda-compatible environments and package builds that know your GPU",
               "gpuenv"};
  app.set_version_flag("-V,--version", version_text);
  app.require_subcommand(1);
  app.fallthrough(false);

  gpuenv::cli::Runner run;
  gpuenv::cli::add_info_command(app, run);
  gpuenv::cli::add_cuda_command(app, run);
  gpuenv::cli::add_create_command(app, run);
  gpuenv::cli::add_install_command(app, run);
  gpuenv::cli::add_update_command(app, run);
  gpuenv::cli::add_remove_command(app, run);
  gpuenv::cli::add_clean_command(app, run);
  gpuenv::cli::add_search_command(app, run);
  gpuenv::cli::add_list_command(app, run);
  gpuenv::cli::add_run_command(app, run);
  gpuenv::cli::add_shell_command(app, run);
  gpuenv::cli::add_env_command(app, run);
  gpuenv::cli::add_inspect_command(app, run);
  gpuenv::cli::add_doctor_command(app, run);
  gpuenv::cli::add_render_command(app, run);
  gpuenv::cli::add_lint_command(app, run);
  gpuenv::cli::add_index_command(app, run);
  gpuenv::cli::add_build_command(app, run);
  gpuenv::cli::add_test_command(app, run);
  gpuenv::cli::add_ci_command(app, run);
  gpuenv::cli::add_generate_recipe_command(app, run);

  // CLI11 would only say "A subcommand is required" for a mistyped one.
  if (argc > 1 && argv[1][0] != '-' && !has_subcommand(app, argv[1])) {
    fmt::print(stderr, "gpuenv: error: unknown command '{}'; run 'gpuenv --help' to see them all\n",
               argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105, 106, ...) mean nothing to a script: a usage
    // mistake exits 2, as report_usage_error's; --help and --version still exit 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return run ? run() : 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {}\n", gpuenv::specs::mask_credentials(e.what()));
    return 1;
  }
}
