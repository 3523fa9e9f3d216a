#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace gpuenv::cli {

// Each subcommand file defines one `add_<name>_command` that registers its
// options on the app. Its parse callback stores in `run` the work to do;
// main() runs it after parsing and returns its exit status.
using Runner = std::function<int()>;

void add_info_command(CLI::App& app, Runner& run);
void add_cuda_command(CLI::App& app, Runner& run);
void add_create_command(CLI::App& app, Runner& run);
void add_install_command(CLI::App& app, Runner& run);
void add_update_command(CLI::App& app, Runner& run);
void add_remove_command(CLI::App& app, Runner& run);
void add_search_command(CLI::App& app, Runner& run);
void add_list_command(CLI::App& app, Runner& run);
void add_run_command(CLI::App& app, Runner& run);
void add_shell_command(CLI::App& app, Runner& run);
void add_env_command(CLI::App& app, Runner& run);
void add_inspect_command(CLI::App& app, Runner& run);
void add_doctor_command(CLI::App& app, Runner& run);
void add_render_command(CLI::App& app, Runner& run);
void add_lint_command(CLI::App& app, Runner& run);
void add_index_command(CLI::App& app, Runner& run);
void add_build_command(CLI::App& app, Runner& run);
void add_test_command(CLI::App& app, Runner& run);
void add_ci_command(CLI::App& app, Runner& run);
void add_generate_recipe_command(CLI::App& app, Runner& run);
void add_clean_command(CLI::App& app, Runner& run);

// `env list` and `info --envs` (conda env list): the known environments.
int print_environments(bool json);

}  // namespace gpuenv::cli
