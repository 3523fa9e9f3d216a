// plan_recipe (`gpuenv build --dry-run`): every variant of every reference
// recipe planned against a conda-forge-shaped channel, and what the plan
// says when an environment cannot be solved.
//
// The channel is generated from the recipes themselves: for every package
// name their build and host environments ask for, records at the versions
// (and build strings) their specs name, each kept only when it satisfies one
// of those specs. So a new recipe under recipes/ gets the packages it asks
// for, while two specs of one environment that no single version satisfies
// still fail, as on conda-forge.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "build_test_support.hpp"
#include "gpuenv/builder/build_plan.hpp"
#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "reference_recipes.hpp"

namespace gpuenv::build {
namespace {

namespace fs = std::filesystem;
using gpuenv::testing::local_channel_settings;

// name -> the spec texts asking for it, per subdir.
using SpecsByName = std::map<std::string, std::set<std::string>>;
using ChannelSpecs = std::map<std::string, SpecsByName>;

std::vector<std::string> version_candidates(const std::string& spec, const std::string& name) {
  static const std::regex version_pattern(R"([0-9]+(\.[0-9A-Za-z]+)*)");
  std::vector<std::string> versions{"1.0"};
  const std::string constraint = spec.substr(name.size());
  for (std::sregex_iterator match(constraint.begin(), constraint.end(), version_pattern), end; match != end; ++match) {
    versions.push_back(match->str());
  }
  return versions;
}

// "0" and the spec's build pattern with its wildcards filled ("*_cpython" -> "0_cpython").
std::vector<std::string> build_candidates(const std::string& spec) {
  std::vector<std::string> builds{"h0_0"};
  std::istringstream words(spec);
  std::string name, version, build;
  if (words >> name >> version >> build) builds.push_back(std::regex_replace(build, std::regex(R"(\*)"), "0"));
  return builds;
}

// The records of one subdir: for each name, every candidate version and
// build that some spec of that name accepts.
nlohmann::json generated_repodata(const std::string& subdir, const SpecsByName& specs_by_name) {
  nlohmann::json packages = nlohmann::json::object();
  for (const auto& [name, specs] : specs_by_name) {
    std::set<std::pair<std::string, std::string>> accepted;
    for (const auto& spec_text : specs) {
      const auto spec = specs::MatchSpec::parse(spec_text);
      for (const auto& version : version_candidates(spec_text, name)) {
        for (const auto& build : build_candidates(spec_text)) {
          specs::PackageRecord record;
          record.name = name;
          record.set_version(version);
          record.build = build;
          record.subdir = subdir;
          if (spec.matches(record)) accepted.emplace(version, build);
        }
      }
    }
    for (const auto& [version, build] : accepted) {
      packages[name + "-" + version + "-" + build + ".tar.bz2"] = {
          {"name", name}, {"version", version}, {"build", build}, {"build_number", 0},
          {"depends", nlohmann::json::array()}, {"subdir", subdir}};
    }
  }
  return {{"info", {{"subdir", subdir}}}, {"packages", packages}};
}

void write_channel(const fs::path& channel, const ChannelSpecs& specs) {
  std::set<std::string> subdirs{"noarch"};
  for (const auto& [subdir, unused] : specs) subdirs.insert(subdir);
  for (const auto& subdir : subdirs) {
    fs::create_directories(channel / subdir);
    const auto found = specs.find(subdir);
    std::ofstream(channel / subdir / "repodata.json")
        << generated_repodata(subdir, found == specs.end() ? SpecsByName{} : found->second).dump();
  }
}

void add_specs(ChannelSpecs& channel, const std::string& subdir, const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    const auto name = specs::MatchSpec::extract_name(spec);
    ASSERT_TRUE(name) << spec;
    if (name->starts_with("__")) continue;  // virtual packages come from the machine
    channel[subdir][*name].insert(spec);
  }
}

// What every build and host environment of every non-skipped reference
// variant asks for, by the subdir it is solved for.
ChannelSpecs reference_environment_specs() {
  ChannelSpecs channel;
  for (const auto& platform : gpuenv::testing::reference_platforms()) {
    for (const auto& file : gpuenv::testing::reference_recipe_files()) {
      auto rendered = recipe::render_recipe_file(file, gpuenv::testing::reference_render_request(platform));
      EXPECT_TRUE(rendered) << file << ": " << rendered.error().message;
      if (!rendered) continue;
      for (const auto& variant : rendered->variants) {
        const auto& requirements = variant.requirements();
        auto build = environment_specs(requirements.build, variant, "build");
        auto host = environment_specs(requirements.host, variant, "host");
        EXPECT_TRUE(build && host) << file;
        if (!build || !host) continue;
        const bool noarch = variant.variant.contains("target_platform") &&
                            variant.variant.at("target_platform").display() == "noarch";
        add_specs(channel, "linux-64", *build);
        add_specs(channel, noarch ? "linux-64" : platform, *host);
      }
    }
  }
  return channel;
}

class BuildPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuenv-build-plan-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  environment::Settings settings_for(const fs::path& channel) {
    auto settings = local_channel_settings(dir_, channel);
    EXPECT_TRUE(settings) << settings.error().message;
    return *settings;
  }

  // `recipe` planned for linux-64 against a channel of the records `specs` accept.
  std::expected<RecipePlan, BuildError> plan_against(const ChannelSpecs& specs, const fs::path& recipe) {
    write_channel(dir_ / "channel", specs);
    settings_ = settings_for(dir_ / "channel");
    RecipePlanRequest request;
    request.render.target_platform = request.render.build_platform = "linux-64";
    request.settings = &settings_;
    return plan_recipe(recipe, request, reporter_);
  }

  fs::path dir_;
  environment::Settings settings_;
  environment::Reporter reporter_;
};

const VariantPlan* find_variant(const RecipePlan& plan, const std::string& name, const std::string& key,
                                const std::string& value) {
  for (const auto& variant : plan.variants) {
    const auto found = variant.variant.find(key);
    if (variant.name == name && found != variant.variant.end() && found->second.display() == value) return &variant;
  }
  return nullptr;
}

const specs::PackageRecord* find_package(const PlannedEnvironment& environment, const std::string& name) {
  for (const auto& record : environment.packages) {
    if (record.name == name) return &record;
  }
  return nullptr;
}

TEST_F(BuildPlanTest, EveryReferenceVariantPlansAgainstACondaForgeShapedChannel) {
  const auto channel = dir_ / "conda-forge";
  write_channel(channel, reference_environment_specs());
  const auto settings = settings_for(channel);
  std::size_t recipes = 0, variants = 0, skipped = 0, solves = 0;
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, RecipePlan> cupy_plans;
  for (const auto& platform : gpuenv::testing::reference_platforms()) {
    for (const auto& file : gpuenv::testing::reference_recipe_files()) {
      RecipePlanRequest request;
      request.render = gpuenv::testing::reference_render_request(platform);
      request.settings = &settings;
      auto plan = plan_recipe(file, request, reporter_);
      ASSERT_TRUE(plan) << file << ": " << plan.error().message;
      ++recipes;
      skipped += plan->skipped;
      for (const auto& variant : plan->variants) {
        ++variants;
        solves += 2;
        EXPECT_TRUE(variant.solved()) << gpuenv::testing::reference_recipe_name(file) << " " << variant.name << " "
                                      << variant.build_string << " (" << platform << "): " << variant.problem;
        EXPECT_FALSE(variant.build.machine_compilers) << variant.name << ": the channel has every compiler";
      }
      if (gpuenv::testing::reference_recipe_name(file) == "cupy") cupy_plans.emplace(platform, std::move(*plan));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "planned " << variants << " variants (" << skipped << " skipped) of " << recipes
            << " recipe/platform pairs, " << solves << " solves, in " << seconds << " s\n";
  EXPECT_GT(variants, 0u);

  // cupy is built per CUDA version: each variant's host environment has that
  // CUDA's cuda-version, its build environment that CUDA's nvcc.
  ASSERT_TRUE(cupy_plans.contains("linux-64"));
  for (const std::string cuda : {"12.9", "13.0"}) {
    const auto* core = find_variant(cupy_plans.at("linux-64"), "cupy-core", "cuda_compiler_version", cuda);
    ASSERT_NE(core, nullptr) << "cupy-core has no CUDA " << cuda << " variant";
    const auto* cuda_version = find_package(core->host, "cuda-version");
    ASSERT_NE(cuda_version, nullptr);
    EXPECT_TRUE(cuda_version->version.starts_with(cuda)) << cuda_version->version;
    const auto* nvcc = find_package(core->build, "cuda-nvcc_linux-64");
    ASSERT_NE(nvcc, nullptr);
    EXPECT_TRUE(nvcc->version.starts_with(cuda)) << nvcc->version;
    EXPECT_EQ(core->host.platform, "linux-64");
  }
  const auto* aarch64 = find_variant(cupy_plans.at("linux-aarch64"), "cupy-core", "cuda_compiler_version", "13.0");
  ASSERT_NE(aarch64, nullptr);
  EXPECT_EQ(aarch64->subdir, "linux-aarch64");
  EXPECT_EQ(aarch64->host.platform, "linux-aarch64");
  EXPECT_EQ(aarch64->build.platform, "linux-64");
  EXPECT_NE(find_package(aarch64->build, "cuda-nvcc_linux-aarch64"), nullptr);
}

// A recipe of its own for the failure cases: a host requirement, a C compiler.
fs::path write_recipe(const fs::path& dir, const std::string& host_requirement) {
  fs::create_directories(dir);
  std::ofstream(dir / "recipe.yaml") << "package:\n  name: planned\n  version: 1.0\n"
                                        "requirements:\n  build:\n    - ${{ compiler('c') }}\n"
                                        "  host:\n    - " << host_requirement << "\n";
  std::ofstream(dir / "variants.yaml") << "c_compiler:\n  - gcc\nc_compiler_version:\n  - \"14\"\n";
  return dir / "recipe.yaml";
}

TEST_F(BuildPlanTest, AnUnsolvableHostEnvironmentIsReportedWithTheSolversExplanation) {
  ChannelSpecs specs;
  specs["linux-64"]["gcc_linux-64"].insert("gcc_linux-64 =14");
  specs["linux-64"]["zlib"].insert("zlib 1.2.13");
  auto plan = plan_against(specs, write_recipe(dir_ / "missing", "zlib >=1.3"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->variants.size(), 1u);
  const auto& variant = plan->variants.front();
  EXPECT_FALSE(plan->solved());
  EXPECT_EQ(variant.failed_environment, "host");
  EXPECT_NE(variant.problem.find("cannot solve the host environment"), std::string::npos) << variant.problem;
  EXPECT_NE(variant.problem.find("zlib"), std::string::npos) << variant.problem;
  EXPECT_FALSE(variant.explanation.empty());
  // The build environment was solved before the host environment failed.
  EXPECT_NE(find_package(variant.build, "gcc_linux-64"), nullptr);

  auto solvable = plan_against(specs, write_recipe(dir_ / "present", "zlib 1.2.*"));
  ASSERT_TRUE(solvable) << solvable.error().message;
  EXPECT_TRUE(solvable->solved()) << solvable->variants.front().problem;
  EXPECT_EQ(find_package(solvable->variants.front().host, "zlib")->version, "1.2.13");
}

TEST_F(BuildPlanTest, WithoutCompilerPackagesTheBuildWouldUseTheMachinesCompilers) {
  ChannelSpecs specs;
  specs["linux-64"]["zlib"].insert("zlib 1.2.13");
  auto plan = plan_against(specs, write_recipe(dir_ / "recipe", "zlib"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->solved()) << plan->variants.front().problem;
  const auto& build = plan->variants.front().build;
  EXPECT_TRUE(build.machine_compilers);
  EXPECT_TRUE(build.specs.empty());
  EXPECT_TRUE(build.packages.empty());
}

TEST_F(BuildPlanTest, ARecipeThatCannotBeRenderedIsAnError) {
  fs::create_directories(dir_ / "broken");
  std::ofstream(dir_ / "broken" / "recipe.yaml") << "package:\n  name: broken\n  version: ${{ undefined_name }}\n";
  const auto settings = settings_for(dir_ / "channel");
  RecipePlanRequest request;
  request.settings = &settings;
  auto plan = plan_recipe(dir_ / "broken" / "recipe.yaml", request, reporter_);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, BuildErrorKind::recipe);
  EXPECT_NE(plan.error().message.find("undefined_name"), std::string::npos) << plan.error().message;
}

}  // namespace
}  // namespace gpuenv::build
