#include "gpuenv/builder/build_script.hpp"

#include <fstream>
#include <vector>

#include "gpuenv/builder/process_runner.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> script_error(BuildErrorKind kind, std::string message) {
  return std::unexpected(BuildError{kind, std::move(message)});
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// The body the script runs: inline lines, or the file (relative to the
// recipe; "build" means build.sh, as in rattler-build).
std::expected<std::string, BuildError> script_body(const recipe::Script& script, const fs::path& recipe_dir) {
  if (!script.content.empty()) {
    std::string body;
    for (const auto& line : script.content) {
      body += line + "\n";
    }
    return body;
  }
  std::error_code ignored;
  fs::path file;
  if (script.file) {
    file = recipe_dir / *script.file;
    if (!fs::is_regular_file(file, ignored) && fs::is_regular_file(fs::path(file) += ".sh", ignored)) file += ".sh";
  } else {
    file = recipe_dir / "build.sh";  // the default script, when the recipe names none
    if (!fs::is_regular_file(file, ignored)) return std::string();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return script_error(BuildErrorKind::script, "the build script " + file.string() + " cannot be read: it is "
                                                "missing or unreadable");
  }
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string activation_lines(const fs::path& prefix) {
  return "for gpuenv_activate in " + shell_quoted(prefix.string()) +
         "/etc/conda/activate.d/*.sh; do\n"
         "  [ -f \"$gpuenv_activate\" ] && . \"$gpuenv_activate\"\n"
         "done\n";
}

}  // namespace

std::expected<void, BuildError> run_build_script(const recipe::Script& script, const ScriptRun& run) {
  if (script.interpreter && *script.interpreter != "bash") {
    return script_error(BuildErrorKind::unsupported, "the build script's interpreter '" + *script.interpreter +
                                                         "' is not supported yet by gpuenv build: use bash");
  }
  auto body = script_body(script, run.recipe_dir);
  if (!body) return std::unexpected(body.error());
  if (body->empty()) return {};

  const auto script_file = run.work_dir / "conda_build.sh";
  {
    std::ofstream out(script_file, std::ios::binary | std::ios::trunc);
    // Activation first (host, then build: the build tools win), then the
    // recipe's lines; `bash -e` stops at the first failing command.
    out << "# written by gpuenv build\n"
        << activation_lines(run.host_prefix) << activation_lines(run.build_prefix) << "unset gpuenv_activate\n"
        << *body;
    if (!out) return script_error(BuildErrorKind::script, "cannot write " + script_file.string());
  }

  std::map<std::string, std::string> variables;
  for (const auto& entry : current_environment()) {
    const auto equals = entry.find('=');
    if (equals != std::string::npos) variables[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  // An activated conda environment of the caller's must not leak in.
  for (const char* name : {"CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SHLVL", "PYTHONPATH"}) variables.erase(name);
  // Nor a git repository of the caller's: git in the script (a configure
  // reading `git describe`) finds the source's own .git, in SRC_DIR, but never
  // one around the work directory, such as the checkout the output sits in.
  for (const char* name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"}) variables.erase(name);
  variables["GIT_CEILING_DIRECTORIES"] = run.work_dir.string();
  const std::string inherited_path = variables.contains("PATH") ? variables["PATH"] : "/usr/bin:/bin";
  for (const auto& [name, value] : run.variables) variables[name] = value;
  variables["PATH"] = (run.build_prefix / "bin").string() + ":" + (run.host_prefix / "bin").string() + ":" +
                      inherited_path;
  for (const auto& [name, value] : script.env) variables[name] = value;

  ProcessRequest request;
  request.argv = {"bash", "-e", script_file.string()};
  for (const auto& [name, value] : variables) request.environment.push_back(name + "=" + value);
  request.working_directory = script.cwd ? run.src_dir / *script.cwd : run.src_dir;
  std::ofstream log(run.log_file, std::ios::binary | std::ios::app);
  request.on_output = [&](std::string_view piece) {
    log.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    log.flush();
    if (run.on_output) run.on_output(piece);
  };
  const auto result = run_process(request);
  if (!result.started) {
    return script_error(BuildErrorKind::script, "cannot run the build script: " + result.start_error);
  }
  if (result.exit_code != 0) {
    return script_error(BuildErrorKind::script,
                        "the build script failed (exit status " + std::to_string(result.exit_code) +
                            "); the last lines of its output (all of it is in " + run.log_file.string() +
                            "):\n" + result.output_tail);
  }
  return {};
}

}  // namespace gpuenv::build
