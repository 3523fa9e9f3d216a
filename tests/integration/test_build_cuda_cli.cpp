// `gpuenv build` of CUDA recipes with this machine's nvcc (the channels here
// have no cuda-nvcc): the stencil example (recipes/examples/stencil) builds
// into a .conda holding lib/libstencil.so and bin/stencil-check, passes the
// CUDA check and installs with `gpuenv create`; its CLI runs (the CPU
// reference always, the GPU comparison when there is a GPU). A variant
// asking for an architecture the binary lacks fails naming the file and
// the architecture; a variant of a CUDA version this machine lacks is
// refused before anything builds. Skipped, saying why, without nvcc.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/symbol_versions.hpp"
#include "gpuenv/package/extract.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;
using json = nlohmann::json;

// The CUDA version ("13.0") of the nvcc gpuenv build would find first, or empty.
std::string machine_nvcc_version() {
  const auto found = gpuenv::testing::run_program(
      "/bin/sh", {"-c", "for n in \"${CUDA_HOME:-/nonexistent}/bin/nvcc\" /usr/local/cuda/bin/nvcc \"$(command -v nvcc)\"; "
                        "do [ -x \"$n\" ] && exec \"$n\" --version; done; exit 1"});
  const auto at = found.out.find("release ");
  if (found.exit_code != 0 || at == std::string::npos) return {};
  const auto start = at + 8;
  return found.out.substr(start, found.out.find(',', start) - start);
}

class BuildCudaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_version = machine_nvcc_version();
    if (nvcc_version.empty()) {
      GTEST_SKIP() << "no nvcc on this machine ($CUDA_HOME, /usr/local/cuda, PATH): CUDA builds need one";
    }
    for (const char* subdir : {"noarch", "linux-64"}) {
      write_text_file(machine / "channel" / subdir / "repodata.json",
                      std::string(R"({"info": {"subdir": ")") + subdir + R"("}, "packages": {}, "packages.conda": {}})");
    }
  }

  CommandOutput build(const fs::path& recipe, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build", recipe.string(), "--output-dir", output().string(),
                                     "-c", "file://" + (machine / "channel").string(), "--override-channels",
                                     "--variant", "cuda_compiler_version=" + nvcc_version};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  fs::path output() const { return machine / "output"; }

  std::vector<fs::path> packages() const {
    std::vector<fs::path> found;
    if (!fs::exists(output())) return found;
    for (const auto& entry : fs::recursive_directory_iterator(output())) {
      if (entry.path().extension() == ".conda") found.push_back(entry.path());
    }
    return found;
  }

  // A library whose script builds SASS for sm_80 only, whatever is asked.
  fs::path sm80_only_recipe(const std::string& extra_section = "") const {
    write_text_file(machine / "sm80/src/scale.cu", "__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n");
    write_text_file(machine / "sm80/recipe.yaml", R"(package:
  name: libscale
  version: "0.1"
source:
  path: src
build:
  variant:
    use_keys: [cuda_archs]
  script:
    - mkdir -p "$PREFIX/lib"
    - $NVCC -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -o "$PREFIX/lib/libscale.so" scale.cu
requirements:
  build:
    - ${{ compiler('cuda') }}
)" + extra_section);
    return machine / "sm80";
  }

  std::string nvcc_version;
  gpuenv::testing::SolveCliMachine machine;
};

// The example as a user builds it: a CPU variant and one for this
// machine's CUDA version; the solver then picks the build that fits the
// driver (CONDA_OVERRIDE_CUDA stands in for one), and a second build of the
// same inputs gives the same bytes.
TEST_F(BuildCudaCli, StencilExampleBuildsPassesTheCudaCheckAndRuns) {
  const fs::path recipe = fs::path(GPUENV_SOURCE_DIR) / "recipes/examples/stencil";
  const std::vector<std::string> both = {"build", recipe.string(), "--output-dir", output().string(),
                                         "-c", "file://" + (machine / "channel").string(), "--override-channels",
                                         "--variant", "cuda_compiler_version=None," + nvcc_version, "--json"};
  const auto env = machine.env({"SOURCE_DATE_EPOCH=1700000000"});
  const auto result = run_gpuenv(both, env);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = json::parse(result.out);
  ASSERT_EQ(report["packages"].size(), 2u) << result.out;
  const std::string cuda_build = "cuda" + nvcc_version.substr(0, nvcc_version.find('.')) +
                                 nvcc_version.substr(nvcc_version.find('.') + 1) + "_";
  json cuda, cpu;
  for (const auto& built : report["packages"]) {
    (built["build_string"].get<std::string>().starts_with("cpu_") ? cpu : cuda) = built;
  }
  ASSERT_TRUE(cuda["build_string"].get<std::string>().starts_with(cuda_build)) << result.out;
  EXPECT_TRUE(cuda["machine_compilers"].get<bool>());
  EXPECT_EQ(cuda["tests"], 2);  // the script test ran (without a GPU here) and package_contents
  EXPECT_EQ(cpu["tests"], 2);
  const double seconds = cuda["seconds"].get<double>();
  const double script_seconds = cuda["script_seconds"].get<double>();
  const double elf_seconds = cuda["elf_seconds"].get<double>();
  EXPECT_GT(elf_seconds, 0.0);  // libstencil.so and stencil-check were relocated and checked
  EXPECT_LT(elf_seconds, seconds);
  std::cout << "stencil build: " << seconds << " s, script " << script_seconds << " s, ELF " << elf_seconds
            << " s, gpuenv overhead " << seconds - script_seconds << " s\n";
  const auto log = read_file(cuda["log"].get<std::string>());
  EXPECT_NE(log.find("using this machine's"), std::string::npos) << log;
  EXPECT_NE(log.find("CUDA check: 1 files with device code, asked for 75-real;80-real;90"), std::string::npos) << log;

  const fs::path package = cuda["package"].get<std::string>();
  const auto extracted = machine / "extracted";
  gpuenv::package::extract_package(package, extracted);
  const auto paths = json::parse(read_file(extracted / "info/paths.json"));
  std::vector<std::string> listed;
  for (const auto& entry : paths["paths"]) listed.push_back(entry["_path"].get<std::string>());
  EXPECT_EQ(listed, (std::vector<std::string>{"bin/stencil-check", "include/stencil.h", "lib/libstencil.so"}));
  const auto index = json::parse(read_file(extracted / "info/index.json"));
  // issue 34: the glibc the files need, read from them (Debian 12's gcc: GLIBC_2.34).
  const auto glibc = [](const fs::path& root) {
    std::vector<std::string> tags;
    for (const char* file : {"bin/stencil-check", "lib/libstencil.so"}) {
      const auto versions = gpuenv::cuda_binary::read_symbol_versions((root / file).string());
      EXPECT_TRUE(versions) << file;
      if (versions) for (auto& tag : gpuenv::cuda_binary::needed_versions(*versions)) tags.push_back(tag);
    }
    const auto highest = gpuenv::cuda_binary::highest_version(tags, "GLIBC_");
    return highest ? "__glibc >=" + gpuenv::cuda_binary::dotted(highest->numbers) + ",<3.0.a0" : std::string("none");
  };
  EXPECT_EQ(index["depends"], json::array({"__cuda >=" + nvcc_version.substr(0, nvcc_version.find('.')), glibc(extracted)}));
  EXPECT_FALSE(index.contains("track_features"));
  const auto run_exports = json::parse(read_file(extracted / "info/run_exports.json"));
  EXPECT_EQ(run_exports["weak"], json::array({"libstencil >=1.0.0,<1.1.0a0"}));
  EXPECT_TRUE(fs::exists(extracted / "info/licenses/LICENSE"));
  EXPECT_TRUE(fs::exists(extracted / "info/tests/tests.yaml"));
  const auto rendered = YAML::LoadFile((extracted / "info/recipe/rendered_recipe.yaml").string());
  EXPECT_EQ(rendered["recipe"]["build"]["string"].as<std::string>(), cuda["build_string"].get<std::string>());
  EXPECT_EQ(rendered["recipe"]["requirements"]["run"][0].as<std::string>(),
            "__cuda >=" + nvcc_version.substr(0, nvcc_version.find('.')));
  EXPECT_EQ(rendered["build_configuration"]["variant"]["cuda_compiler_version"].as<std::string>(), nvcc_version);
  const auto cpu_extracted = machine / "extracted-cpu";
  gpuenv::package::extract_package(cpu["package"].get<std::string>(), cpu_extracted);
  const auto cpu_index = json::parse(read_file(cpu_extracted / "info/index.json"));
  EXPECT_EQ(cpu_index["depends"], json::array({glibc(cpu_extracted)}));
  EXPECT_EQ(cpu_index["track_features"], "libstencil-p-0");

  // The driver decides: a CUDA 13 driver gets the CUDA build, none the CPU one.
  const auto channel = "file://" + output().string();
  for (const auto& [override_cuda, expected] :
       {std::pair<std::string, std::string>{nvcc_version, cuda["build_string"]}, {"", cpu["build_string"]}}) {
    const auto solve_env = machine.env({"CONDA_OVERRIDE_CUDA=" + override_cuda});
    const auto planned = run_gpuenv({"create", "-p", (machine / "planned").string(), "--dry-run", "--json", "-c",
                                     channel, "--override-channels", "libstencil"},
                                    solve_env);
    ASSERT_EQ(planned.exit_code, 0) << planned.err;
    EXPECT_NE(planned.out.find("\"build\": \"" + expected + "\""), std::string::npos)
        << "CONDA_OVERRIDE_CUDA=" << override_cuda << "\n" << planned.out;
  }

  // `gpuenv test` re-runs the CUDA build's tests; without a driver, solved
  // as its CUDA version (with one, the kernel runs).
  const auto retested = run_gpuenv({"test", package.string(), "--override-channels"}, machine.env());
  EXPECT_EQ(retested.exit_code, 0) << retested.err << retested.out;
  if (retested.err.find("no usable CUDA GPU here") != std::string::npos) {
    EXPECT_NE(retested.err.find("the test environments are solved as CUDA " + nvcc_version), std::string::npos)
        << retested.err;
  }

  // The same inputs again: the same bytes.
  const auto first_bytes = read_file(package);
  const auto again = run_gpuenv(both, env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(read_file(package) == first_bytes) << "a rebuild changed " << package;

  write_text_file(machine / "explicit.txt", "@EXPLICIT\nfile://" + package.string() + "\n");
  const auto prefix = machine / "env";
  const auto created = run_gpuenv({"create", "-y", "-p", prefix.string(), "--file", (machine / "explicit.txt").string()},
                                  machine.env());
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  const auto cpu_check = gpuenv::testing::run_program((prefix / "bin/stencil-check").string(), {"--cpu-only"});
  EXPECT_EQ(cpu_check.exit_code, 0) << cpu_check.err;
  EXPECT_EQ(cpu_check.out, "stencil: CPU reference matches the worked example\n");
  // No GPU: exit 2 and says so; a GPU: the kernel matches the CPU.
  const auto gpu = gpuenv::testing::run_program((prefix / "bin/stencil-check").string(), {"--size", "300", "400"});
  if (gpu.exit_code == 2) {
    EXPECT_NE(gpu.err.find("no usable CUDA GPU here"), std::string::npos) << gpu.err;
  } else {
    EXPECT_EQ(gpu.exit_code, 0) << gpu.err;
    EXPECT_EQ(gpu.out, "stencil: 120000 pixels, GPU matches CPU\n");
  }
}

// Two recipes of the repository, CUDA only, on a machine without a driver
// (every CI runner; the test machine's libcuda is absent): stencil-stats'
// host environment needs libstencil's CUDA build, which needs __cuda. As on
// conda-forge's CI, the build and host environments see the machine as the
// variant's CUDA version. And the CUDA build gives the same bytes whatever
// the output directory (nvcc hashes the source's absolute path into its
// module ids, so the work directory may not depend on it).
TEST_F(BuildCudaCli, ARepositoryOfCudaRecipesBuildsWithoutADriverAndTheSameBytesInAnyOutputDirectory) {
  const fs::path examples = fs::path(GPUENV_SOURCE_DIR) / "recipes/examples";
  const auto channel = "file://" + (machine / "channel").string();
  const auto env = machine.env({"SOURCE_DATE_EPOCH=1700000000"});
  // stencil-stats first: the build order puts libstencil before it.
  const auto built = run_gpuenv({"build", (examples / "stencil-stats").string(), (examples / "stencil").string(),
                                 "--output-dir", output().string(), "-c", channel, "--override-channels", "--variant",
                                 "cuda_compiler_version=" + nvcc_version, "--json"},
                                env);
  ASSERT_EQ(built.exit_code, 0) << built.err << built.out;
  const auto report = json::parse(built.out);
  ASSERT_EQ(report["packages"].size(), 2u) << built.out;
  EXPECT_EQ(report["packages"][0]["name"], "libstencil");
  EXPECT_EQ(report["packages"][1]["name"], "stencil-stats");
  const auto stats_log = read_file(report["packages"][1]["log"].get<std::string>());
  if (stats_log.find("no NVIDIA driver here") != std::string::npos) {
    EXPECT_NE(stats_log.find("solved as CUDA " + nvcc_version + " (CONDA_OVERRIDE_CUDA=" + nvcc_version),
              std::string::npos)
        << stats_log;
  }
  const fs::path first = report["packages"][0]["package"].get<std::string>();

  const auto elsewhere = machine / "another/output/directory";
  const auto again = run_gpuenv({"build", (examples / "stencil").string(), "--output-dir", elsewhere.string(), "-c",
                                 channel, "--override-channels", "--variant", "cuda_compiler_version=" + nvcc_version,
                                 "--test", "skip"},
                                env);
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  const auto second = elsewhere / first.parent_path().filename() / first.filename();
  ASSERT_TRUE(fs::exists(second)) << again.out;
  EXPECT_TRUE(read_file(first) == read_file(second))
      << first << " and " << second << " differ: the build depends on its output directory";
}

TEST_F(BuildCudaCli, AnArchitectureMissingFromTheBinaryFailsTheBuildNamingFileAndArchitecture) {
  const auto result = build(sm80_only_recipe(), {"--variant", "cuda_archs=80;90"});
  ASSERT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.err.find("the CUDA check failed"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("lib/libscale.so lacks sm_90 (neither SASS nor PTX) and PTX for compute_90"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(packages().empty());
}

TEST_F(BuildCudaCli, TheRecipeCanOptOutOfTheCudaCheck) {
  const auto result =
      build(sm80_only_recipe("extra:\n  gpuenv:\n    cuda_check: false\n"), {"--variant", "cuda_archs=80;90"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(packages().size(), 1u);
}

TEST_F(BuildCudaCli, AVariantOfACudaVersionThisMachineLacksIsRefused) {
  const auto result = build(sm80_only_recipe(), {"--variant", "cuda_compiler_version=11.1"});
  ASSERT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.err.find("this variant needs CUDA 11.1's nvcc; found " + nvcc_version + " at"), std::string::npos)
      << result.err;
  EXPECT_TRUE(packages().empty());
}

}  // namespace
