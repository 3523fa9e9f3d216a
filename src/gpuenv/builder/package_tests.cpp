#include "gpuenv/builder/package_tests.hpp"

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuenv/builder/output_channel.hpp"
#include "gpuenv/builder/package_contents_check.hpp"
#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/builder/test_machine.hpp"
#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/command_in_environment.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/recipe/test_list.hpp"
#include "gpuenv/recipe/variants.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;
using json = nlohmann::json;
using recipe::TestElement;

namespace {

// info/ files are small; a package claiming otherwise is damaged or hostile.
constexpr std::uintmax_t kMaxInfoFileBytes = 64u << 20;

std::unexpected<BuildError> test_failure(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::test, std::move(message)});
}

struct PackageFacts {
  std::string name, version, build, subdir;
  bool noarch_python = false;
  std::vector<std::string> paths;
  std::vector<TestElement> tests;
};

std::expected<json, BuildError> read_info_json(const fs::path& file, const std::string& shown) {
  auto text = util::read_text_file_at_most(file, kMaxInfoFileBytes);
  if (!text) return test_failure("cannot read " + shown + ": " + text.error().message);
  auto document = json::parse(*text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return test_failure(shown + " is not a JSON object: the package is damaged");
  return document;
}

std::string text_field(const json& document, const char* key) {
  const auto found = document.find(key);
  return found != document.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::expected<PackageFacts, BuildError> read_package_facts(const fs::path& root, const fs::path& package_file) {
  const std::string shown = package_file.filename().string();
  auto index = read_info_json(root / "info/index.json", shown + ":info/index.json");
  if (!index) return std::unexpected(index.error());
  PackageFacts facts;
  facts.name = text_field(*index, "name");
  facts.version = text_field(*index, "version");
  facts.build = text_field(*index, "build");
  facts.subdir = text_field(*index, "subdir");
  facts.noarch_python = text_field(*index, "noarch") == "python";
  if (facts.name.empty() || facts.version.empty() || facts.build.empty() || facts.subdir.empty()) {
    return test_failure(shown + ":info/index.json lacks name, version, build or subdir: the package is damaged");
  }
  std::error_code error;
  if (fs::exists(root / "info/paths.json", error)) {
    auto paths = read_info_json(root / "info/paths.json", shown + ":info/paths.json");
    if (!paths) return std::unexpected(paths.error());
    if (const auto list = paths->find("paths"); list != paths->end() && list->is_array()) {
      for (const auto& entry : *list) {
        if (entry.is_object() && entry.contains("_path") && entry["_path"].is_string()) facts.paths.push_back(entry["_path"]);
      }
    }
  }
  const auto tests_file = root / "info/tests/tests.yaml";
  if (fs::exists(tests_file, error)) {
    auto text = util::read_text_file_at_most(tests_file, 1u << 20);
    if (!text) return test_failure("cannot read " + shown + ":info/tests/tests.yaml: " + text.error().message);
    auto tests = recipe::parse_test_list(*text, shown + ":info/tests/tests.yaml");
    if (!tests) return test_failure(tests.error().message);
    facts.tests = std::move(*tests);
  }
  return facts;
}

const char* kind_name(TestElement::Kind kind) {
  switch (kind) {
    case TestElement::Kind::script: return "script";
    case TestElement::Kind::python: return "python";
    case TestElement::Kind::package_contents: return "package_contents";
    case TestElement::Kind::downstream: return "downstream";
    case TestElement::Kind::perl: return "perl";
    case TestElement::Kind::r: return "r";
    case TestElement::Kind::ruby: return "ruby";
  }
  return "?";
}

class TestRun {
 public:
  TestRun(const PackageTestRequest& request, BuildObserver& observer, PackageFacts facts, fs::path package_root)
      : request_(request), observer_(observer), facts_(std::move(facts)), package_root_(std::move(package_root)) {
    log_.open(request.log_file, std::ios::binary | std::ios::app);
    const std::string platform = facts_.subdir == "noarch" ? request.build_platform : facts_.subdir;
    settings_ = with_local_channels(*request.settings, {request.channel_dir});
    if (const auto parsed = specs::Platform::parse(platform)) settings_.platform = *parsed;
  }

  std::expected<void, BuildError> run(std::size_t index) {
    const auto& test = facts_.tests[index];
    label_ = "test " + std::to_string(index + 1) + " of " + std::to_string(facts_.tests.size()) + " (" +
             kind_name(test.kind) + ")";
    line("running " + label_ + " of " + facts_.name + "-" + facts_.version + "-" + facts_.build);
    switch (test.kind) {
      case TestElement::Kind::package_contents: return contents_test(test.package_contents);
      case TestElement::Kind::script: return script_test(test.script, index);
      case TestElement::Kind::python: return python_test(test.python, index);
      case TestElement::Kind::downstream: return downstream_test(test.downstream, index);
      default:
        return fail(std::string("gpuenv does not run ") + kind_name(test.kind) +
                    " tests yet: remove it from the recipe or test the package with rattler-build");
    }
  }

 private:
  void line(const std::string& text) {
    log_ << text << '\n';
    log_.flush();
    observer_.step(text);
  }

  std::unexpected<BuildError> fail(const std::string& why) {
    return test_failure(label_ + " of " + facts_.name + "-" + facts_.version + "-" + facts_.build + " failed: " + why +
                        " (the log: " + request_.log_file.string() + ")");
  }

  std::string pinned_spec() const {
    return facts_.name + "[version='==" + facts_.version + "',build='" + facts_.build + "']";
  }

  // The plan of a test environment, or why there is none.
  std::expected<environment::Plan, std::string> plan_environment(const fs::path& prefix,
                                                                 const std::vector<std::string>& specs, bool dry_run) {
    std::string listed;
    for (const auto& spec : specs) listed += " " + spec;
    line("creating the test environment " + prefix.filename().string() + ":" + listed);
    environment::ChangeRequest change;
    change.kind = environment::ChangeKind::create;
    change.prefix = prefix;
    change.specs = specs;
    change.dry_run = dry_run;
    auto plan = environment::plan(settings_, change, observer_);
    if (!plan) return std::unexpected(plan.error().message);
    for (const auto& record : plan->solution.link) line("  " + record.name + " " + record.version + " " + record.build);
    return std::move(*plan);
  }

  std::expected<environment::Plan, BuildError> solve(const fs::path& prefix, const std::vector<std::string>& specs,
                                                     bool dry_run) {
    auto plan = plan_environment(prefix, specs, dry_run);
    if (!plan) return fail("the test environment cannot be created: " + plan.error());
    return std::move(*plan);
  }

  std::expected<void, BuildError> create(const fs::path& prefix, const std::vector<std::string>& specs) {
    auto plan = solve(prefix, specs, false);
    if (!plan) return std::unexpected(plan.error());
    environment::ApplyOptions options;
    options.command_line = "gpuenv test (test environment)";
    if (auto applied = environment::apply(*plan, settings_, options, observer_); !applied) {
      return fail("the test environment cannot be created: " + applied.error().message);
    }
    return {};
  }

  // The package pinned, the upstream package of a downstream test, and
  // `requirements`.
  std::vector<std::string> with_requirements(std::vector<std::string> specs,
                                             const std::vector<recipe::Dependency>& requirements) const {
    specs.insert(specs.end(), request_.also_install.begin(), request_.also_install.end());
    for (const auto& dependency : requirements) specs.push_back(recipe::dependency_text(dependency));
    return specs;
  }

  // `command` run in `prefix` activated, from `cwd`; its output streamed and logged.
  std::expected<void, BuildError> run_in(const fs::path& prefix, const std::vector<std::string>& command,
                                         const fs::path& cwd, const std::map<std::string, std::string>& extra,
                                         const std::string& what) {
    std::map<std::string, std::string> variables;
    auto prepared = environment::command_in_environment(prefix, command, util::process_environment());
    if (!prepared) return fail(what + ": " + prepared.error().message);
    for (const auto& warning : prepared->warnings) observer_.warning(warning);
    ProcessRequest process;
    process.argv = prepared->arguments;
    process.argv.front() = prepared->program;
    prepared->variables.erase("PYTHONPATH");  // the caller's modules must not stand in for the environment's
    prepared->variables["PREFIX"] = prefix.string();
    for (const auto& [name, value] : extra) prepared->variables[name] = value;
    for (const auto& [name, value] : prepared->variables) process.environment.push_back(name + "=" + value);
    process.working_directory = cwd;
    process.on_output = [this](std::string_view piece) {
      log_.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      log_.flush();
      observer_.script_output(piece);
    };
    const auto result = run_process(process);
    if (!result.started) return fail(what + " did not start: " + result.start_error);
    if (result.exit_code != 0) {
      return fail(what + " exited with status " + std::to_string(result.exit_code) + "; its last lines:\n" +
                  result.output_tail);
    }
    return {};
  }

  std::expected<void, BuildError> contents_test(const recipe::PackageContentsTest& test) {
    const auto failures = package_contents_failures(test, facts_.paths, facts_.noarch_python);
    if (failures.empty()) return {};
    std::string joined;
    for (const auto& failure : failures) joined += "\n  " + failure;
    return fail("the package's contents differ from what the test expects:" + joined);
  }

  std::expected<void, BuildError> script_test(const recipe::ScriptTest& test, std::size_t index) {
    const auto& script = test.script;
    if (script.interpreter && *script.interpreter != "bash") {
      return fail("the test script's interpreter '" + *script.interpreter + "' is not supported yet: use bash");
    }
    const auto prefix = request_.work_dir / ("test_env_" + std::to_string(index));
    if (auto created = create(prefix, with_requirements({pinned_spec()}, test.run_requirements)); !created) {
      return created;
    }
    std::map<std::string, std::string> extra = script.env;
    if (!test.build_requirements.empty()) {
      const auto build_prefix = request_.work_dir / ("test_build_env_" + std::to_string(index));
      std::vector<std::string> build_specs;
      for (const auto& dependency : test.build_requirements) build_specs.push_back(recipe::dependency_text(dependency));
      if (auto created = create(build_prefix, build_specs); !created) {
        return created;
      }
      extra["BUILD_PREFIX"] = build_prefix.string();
      extra["GPUENV_TEST_BUILD_BIN"] = (build_prefix / "bin").string();
    }
    // The test's files, as the package carries them.
    const auto test_dir = request_.work_dir / ("test_" + std::to_string(index));
    std::error_code error;
    fs::create_directories(test_dir, error);
    const auto carried = package_root_ / "info/tests" / std::to_string(index);
    if (fs::is_directory(carried, error)) {
      fs::copy(carried, test_dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
      if (error) return fail("cannot copy the test's files to " + test_dir.string() + ": " + error.message());
    }
    const auto script_file = test_dir / "conda_test.sh";
    {
      std::ofstream out(script_file, std::ios::binary | std::ios::trunc);
      // The build requirements' tools after the test environment's own.
      out << "# written by gpuenv test\n"
          << "if [ -n \"${GPUENV_TEST_BUILD_BIN:-}\" ]; then PATH=\"$PATH:$GPUENV_TEST_BUILD_BIN\"; fi\n";
      for (const auto& script_line : script.content) out << script_line << '\n';
      if (!out) return fail("cannot write " + script_file.string());
    }
    const auto cwd = script.cwd ? test_dir / *script.cwd : test_dir;
    return run_in(prefix, {"bash", "-e", script_file.string()}, cwd, extra, "the test script");
  }

  std::expected<void, BuildError> python_test(const recipe::PythonTest& test, std::size_t index) {
    const auto prefix = request_.work_dir / ("test_env_" + std::to_string(index));
    std::vector<std::string> specs = {pinned_spec(), "python"};
    if (test.pip_check) specs.push_back("pip");
    if (!test.python_version.empty()) specs[1] = "python " + test.python_version.front();
    specs = with_requirements(std::move(specs), {});
    if (auto created = create(prefix, specs); !created) return created;
    std::error_code error;
    if (!fs::exists(prefix / "bin/python", error)) {
      return fail("the test environment " + prefix.string() + " has no bin/python (the python package of the "
                  "channels installed none): a python test needs a python interpreter package");
    }
    for (const auto& module : test.imports) {
      if (auto imported = run_in(prefix, {"python", "-c", "import " + module}, request_.work_dir, {},
                                 "import " + module);
          !imported) {
        return imported;
      }
    }
    if (test.pip_check) return run_in(prefix, {"python", "-m", "pip", "check"}, request_.work_dir, {}, "pip check");
    return {};
  }

  std::expected<void, BuildError> downstream_test(const std::string& downstream, std::size_t index) {
    if (!request_.also_install.empty()) {
      line("skipped: the downstream test of " + downstream + " (a downstream package's own downstream tests are "
           "not followed)");
      return {};
    }
    const auto prefix = request_.work_dir / ("downstream_env_" + std::to_string(index));
    auto plan = plan_environment(prefix, {pinned_spec(), downstream}, true);
    if (!plan) {
      // Alone, does it install? Then it only does not fit this version.
      if (auto alone = plan_environment(request_.work_dir / ("downstream_alone_" + std::to_string(index)),
                                        {downstream}, true);
          !alone) {
        return fail("the downstream package " + downstream + " cannot be installed from the channels at all: " +
                    alone.error());
      }
      const std::string warning = "skipped the downstream test of " + downstream + ": it cannot be installed with " +
                                  facts_.name + " " + facts_.version + " (not compatible with this version)";
      line(warning);
      observer_.warning(warning);
      return {};
    }
    const std::string name = specs::MatchSpec::extract_name(downstream).value_or(downstream);
    const auto found = std::find_if(plan->solution.link.begin(), plan->solution.link.end(),
                                    [&](const auto& record) { return record.name == name; });
    if (found == plan->solution.link.end()) {
      return fail("the downstream environment has no package named " + name + ": name one package in `downstream`");
    }
    // The downstream package's file, through the package cache.
    prefix::PackageCacheOptions cache_options;
    cache_options.pkgs_dirs = settings_.directories.pkgs_dirs;
    cache_options.download.client = settings_.client;
    cache_options.download.channel_credentials = plan->loaded.credentials;
    fs::path package_file;
    try {
      if (cache_options.pkgs_dirs.empty()) return fail("no package cache directory is known: set CONDA_PKGS_DIRS");
      package_file = prefix::PackageCache(cache_options).fetch(*found).tarball;
    } catch (const std::exception& failure) {
      return fail("cannot fetch the downstream package " + found->name + "-" + found->version + "-" + found->build +
                  ": " + failure.what());
    }
    line("running the tests of the downstream package " + found->name + "-" + found->version + "-" + found->build +
         " with this package");
    PackageTestRequest nested = request_;
    nested.package_file = package_file;
    nested.channel_dir = request_.channel_dir;  // this package's staging channel, searched first
    nested.work_dir = request_.work_dir / ("downstream_" + std::to_string(index));
    nested.also_install = {pinned_spec()};
    auto report = test_package(nested, observer_);
    if (!report) return fail("the downstream package " + found->name + "'s tests failed with this package: " +
                             report.error().message);
    line("the downstream package " + found->name + " passed its " + std::to_string(report->tests) +
         " test(s) with this package");
    return {};
  }

  const PackageTestRequest& request_;
  BuildObserver& observer_;
  PackageFacts facts_;
  fs::path package_root_;
  environment::Settings settings_;
  std::ofstream log_;
  std::string label_;
};

}  // namespace

std::expected<PackageTestReport, BuildError> test_package(const PackageTestRequest& request, BuildObserver& observer) {
  std::error_code error;
  fs::remove_all(request.work_dir, error);
  fs::create_directories(request.work_dir, error);
  if (error) return test_failure("cannot create the test directory " + request.work_dir.string() + ": " + error.message());
  const auto package_root = request.work_dir / "package";
  try {
    package::extract_package(request.package_file, package_root);
  } catch (const package::PackageError& failure) {
    return test_failure("cannot read the package to test: " + std::string(failure.what()));
  }
  auto facts = read_package_facts(package_root, request.package_file);
  if (!facts) return std::unexpected(facts.error());
  PackageTestRequest staged = request;
  if (staged.channel_dir.empty()) {
    // A package file from anywhere: a channel of its own to install it from.
    staged.channel_dir = request.work_dir / "channel";
    const auto copy = staged.channel_dir / facts->subdir / request.package_file.filename();
    fs::create_directories(copy.parent_path(), error);
    fs::copy_file(request.package_file, copy, fs::copy_options::overwrite_existing, error);
    if (error) return test_failure("cannot copy " + request.package_file.string() + " to " + copy.string() + ": " + error.message());
    auto channel = prepare_local_channel(staged.channel_dir, {facts->subdir});
    if (!channel) return std::unexpected(channel.error());
    if (!channel->empty()) return test_failure(channel->front());
  }
  // A CUDA build's tests on a machine without a driver (test_machine.hpp).
  std::optional<environment::Settings> cuda_settings;
  if (const auto cuda = cuda_override_without_driver(package_cuda_compiler_version(package_root), *request.settings)) {
    cuda_settings = settings_with_cuda_override(*request.settings, *cuda);
    staged.settings = &*cuda_settings;
    observer.step("tests: no NVIDIA driver here; the test environments are solved as CUDA " + *cuda +
                  " (CONDA_OVERRIDE_CUDA, as conda-forge's CI sets it), the tests run without a GPU");
  }
  PackageTestReport report;
  report.tests = facts->tests.size();
  TestRun run(staged, observer, std::move(*facts), package_root);
  for (std::size_t index = 0; index < report.tests; ++index) {
    if (auto passed = run.run(index); !passed) return std::unexpected(passed.error());
  }
  return report;
}

PackageFileTest test_package_file(const fs::path& package_file, const environment::Settings& settings,
                                  const std::string& build_platform, BuildObserver& observer) {
  std::string pattern = (fs::temp_directory_path() / "gpuenv-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return {test_failure("cannot create a directory in " + fs::temp_directory_path().string() +
                         " for the test environments: set TMPDIR to a writable one"),
            {}};
  }
  const fs::path work_dir = pattern;
  PackageTestRequest request;
  request.package_file = fs::absolute(package_file);
  request.work_dir = work_dir / "work";
  request.settings = &settings;
  request.build_platform = build_platform;
  request.log_file = work_dir / "test.log";
  PackageFileTest result{test_package(request, observer), request.log_file};
  if (result.report) {
    std::error_code ignored;
    fs::remove_all(work_dir, ignored);
    result.log_file.clear();
  }
  return result;
}

}  // namespace gpuenv::build
