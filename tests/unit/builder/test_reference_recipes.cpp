// The reference recipes (recipes/) against gpuenv's own pinning
// (metadata/variants/variants.yaml) on linux-64 and linux-aarch64: every
// recipe renders for every variant; every package name a build, host, run or
// run_constraints requirement of a variant that is built names is either an
// output of a recipe there or listed in recipes/external-packages.yaml; and
// the CUDA packages are built for the CUDA versions of the variants file
// (conda-forge's current CUDA 12 and 13 series). Recipes added under
// recipes/ are picked up without a change here.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/recipe/variant_config.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/util/yaml_document.hpp"
#include "reference_recipes.hpp"

namespace gpuenv::build {
namespace {

namespace fs = std::filesystem;
using namespace gpuenv::testing;

struct RenderedReference {
  fs::path file;
  std::string platform;
  recipe::RenderedRecipe rendered;
};

// Every recipe on every platform, rendered once for all the tests here.
const std::vector<RenderedReference>& rendered_references() {
  static const std::vector<RenderedReference> rendered = [] {
    std::vector<RenderedReference> all;
    const auto start = std::chrono::steady_clock::now();
    std::size_t variants = 0;
    for (const auto& platform : reference_platforms()) {
      for (const auto& file : reference_recipe_files()) {
        auto recipe = recipe::render_recipe_file(file, reference_render_request(platform));
        EXPECT_TRUE(recipe) << reference_recipe_name(file) << " (" << platform << "): " << recipe.error().message;
        if (!recipe) continue;
        variants += recipe->variants.size();
        all.push_back({file, platform, std::move(*recipe)});
      }
    }
    std::cout << "rendered " << all.size() << " recipe/platform pairs, " << variants << " variants, in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
    return all;
  }();
  return rendered;
}

std::string variant_label(const RenderedReference& reference, const recipe::RenderedVariant& variant) {
  return reference_recipe_name(reference.file) + ": " + variant.output_name + " " + variant.build_string + " (" +
         reference.platform + ")";
}

std::string dependency_name(const recipe::Dependency& dependency) {
  if (dependency.pin) return dependency.pin->name;
  return specs::MatchSpec::extract_name(dependency.spec).value_or(dependency.spec);
}

// recipes/external-packages.yaml's names; each group must say why.
std::set<std::string> external_package_names() {
  const auto file = reference_recipes_dir() / "external-packages.yaml";
  auto document = util::read_yaml_file(file);
  EXPECT_TRUE(document) << file << ": " << (document ? "" : document.error().message);
  std::set<std::string> names;
  if (!document) return names;
  const auto groups = (*document)["groups"];
  EXPECT_TRUE(groups.IsSequence()) << file << ": no `groups:` list";
  for (const auto& group : groups) {
    EXPECT_FALSE(group["why"].as<std::string>("").empty()) << file << ": a group without `why:`";
    EXPECT_TRUE(group["names"].IsSequence()) << file << ": a group without `names:`";
    for (const auto& name : group["names"]) {
      EXPECT_TRUE(names.insert(name.as<std::string>()).second) << file << ": " << name.as<std::string>() << " twice";
    }
  }
  return names;
}

// The CUDA versions of the variants file, None aside ("12.9", "13.0").
std::set<std::string> variant_file_cuda_versions() {
  auto config = recipe::read_variant_config(reference_variants_file());
  EXPECT_TRUE(config) << config.error().message;
  std::set<std::string> versions;
  if (!config) return versions;
  for (const auto& value : config->values["cuda_compiler_version"]) {
    if (value.display() != "None") versions.insert(value.display());
  }
  return versions;
}

// The CUDA versions the variants of `recipe_name` that are built use.
std::set<std::string> built_cuda_versions(const std::string& recipe_name) {
  std::set<std::string> versions;
  for (const auto& reference : rendered_references()) {
    if (reference_recipe_name(reference.file) != recipe_name) continue;
    for (const auto& variant : reference.rendered.variants) {
      const auto cuda = variant.variant.find("cuda_compiler_version");
      if (output_build(variant).skip || cuda == variant.variant.end()) continue;
      versions.insert(cuda->second.display());
    }
  }
  return versions;
}

std::string joined(const std::set<std::string>& values) {
  std::ostringstream out;
  for (const auto& value : values) out << (out.tellp() > 0 ? ", " : "") << value;
  return out.str();
}

TEST(ReferenceRecipes, EveryRecipeRendersForEveryVariantOnEveryPlatform) {
  const auto files = reference_recipe_files();
  EXPECT_GE(files.size(), 9u) << "the six Python-stack recipes and the three examples at least";
  EXPECT_EQ(rendered_references().size(), files.size() * reference_platforms().size());
  for (const auto& reference : rendered_references()) {
    EXPECT_FALSE(reference.rendered.variants.empty()) << reference_recipe_name(reference.file);
  }
}

TEST(ReferenceRecipes, EveryRequirementIsARecipeOutputOrAnExternalPackage) {
  const auto external = external_package_names();
  ASSERT_FALSE(external.empty());
  std::set<std::string> outputs;
  for (const auto& reference : rendered_references()) {
    for (const auto& variant : reference.rendered.variants) outputs.insert(variant.output_name);
  }
  std::set<std::string> checked;
  std::map<std::string, std::string> unknown;  // name -> the first variant naming it
  std::size_t requirements = 0;
  for (const auto& reference : rendered_references()) {
    for (const auto& variant : reference.rendered.variants) {
      if (output_build(variant).skip) continue;
      const auto& sections = variant.requirements();
      for (const auto* section : {&sections.build, &sections.host, &sections.run, &sections.run_constraints}) {
        for (const auto& dependency : *section) {
          const auto name = dependency_name(dependency);
          if (name.starts_with("__")) continue;  // virtual: the machine's
          ++requirements;
          checked.insert(name);
          if (!outputs.contains(name) && !external.contains(name)) unknown.emplace(name, variant_label(reference, variant));
        }
      }
    }
  }
  for (const auto& [name, where] : unknown) {
    ADD_FAILURE() << name << " (required by " << where << ") is neither built by a recipe under recipes/ nor "
                  << "listed in recipes/external-packages.yaml: add a recipe, or the name to the list";
  }
  std::set<std::string> now_recipes;
  for (const auto& name : external) {
    if (outputs.contains(name)) now_recipes.insert(name);
  }
  std::cout << "checked " << requirements << " requirements naming " << checked.size() << " packages against "
            << outputs.size() << " recipe outputs and " << external.size() << " external names\n";
  if (!now_recipes.empty()) {
    std::cout << "external names a recipe here now builds (they can leave the list): " << joined(now_recipes) << "\n";
  }
}

TEST(ReferenceRecipes, CudaPackagesAreBuiltForTheVariantFilesCudaVersions) {
  const auto cuda_versions = variant_file_cuda_versions();
  ASSERT_TRUE(cuda_versions.contains("12.9") && cuda_versions.contains("13.0")) << joined(cuda_versions);
  // CuPy: one build per CUDA version of the file.
  EXPECT_EQ(built_cuda_versions("cupy"), cuda_versions);
  // UCX-Py: the CUDA 12 ones (it ended with CUDA 12: recipes/ucx-py/recipe.yaml says why).
  std::set<std::string> cuda12;
  for (const auto& version : cuda_versions) {
    if (version.starts_with("12.")) cuda12.insert(version);
  }
  EXPECT_EQ(built_cuda_versions("ucx-py"), cuda12);
  // UCX, once its recipe is here: every CUDA version.
  if (fs::exists(reference_recipes_dir() / "ucx" / "recipe.yaml")) {
    const auto ucx = built_cuda_versions("ucx");
    for (const auto& version : cuda_versions) EXPECT_TRUE(ucx.contains(version)) << "ucx lacks CUDA " << version;
  }
  // numba-cuda: one build for every CUDA, whose run requirement on
  // cuda-version admits each CUDA version of the file.
  std::size_t numba_cuda_variants = 0;
  for (const auto& reference : rendered_references()) {
    if (reference_recipe_name(reference.file) != "numba-cuda") continue;
    for (const auto& variant : reference.rendered.variants) {
      if (output_build(variant).skip) continue;
      ++numba_cuda_variants;
      EXPECT_FALSE(variant.variant.contains("cuda_compiler_version")) << variant_label(reference, variant);
      std::size_t constraints = 0;
      for (const auto& dependency : variant.requirements().run) {
        if (dependency.pin || dependency_name(dependency) != "cuda-version") continue;
        ++constraints;
        const auto spec = specs::MatchSpec::parse(dependency.spec);
        for (const auto& version : cuda_versions) {
          specs::PackageRecord record;
          record.name = "cuda-version";
          record.set_version(version);
          EXPECT_TRUE(spec.matches(record)) << dependency.spec << " excludes CUDA " << version;
        }
      }
      EXPECT_EQ(constraints, 1u) << variant_label(reference, variant) << ": no cuda-version run requirement";
    }
  }
  EXPECT_GT(numba_cuda_variants, 0u);
}

}  // namespace
}  // namespace gpuenv::build
