// Variant expansion against rattler-build itself: for each recipe and list
// of variant files (rattler_variants.py reads the same files with
// py-rattler-build), the same variants in the same order, with the same
// hashes and build strings, or a refusal on both sides. Skips, saying why,
// when the tools are missing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpuenv/recipe/variants.hpp"
#include "rattler_tool.hpp"

namespace gpuenv::recipe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Case {
  std::string name;
  std::string recipe_text;  // or
  fs::path recipe;
  std::vector<fs::path> variant_files;
  std::string platform = "linux-64";
  std::map<std::string, std::string, std::less<>> environment;
};

const char* const cuda_recipe = R"(package:
  name: cudapkg
  version: "1.0"
requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ compiler('cxx') }}
    - if: cuda_compiler_version != "None"
      then: ${{ compiler('cuda') }}
    - ${{ stdlib('c') }}
  host:
    - python
    - numpy
    - if: cuda_compiler_version != "None"
      then: cuda-version ${{ cuda_compiler_version }}.*
)";

const char* const selector_recipe = R"(context:
  flavor: ${{ blas_impl }}
package:
  name: selpkg
  version: "2.0"
build:
  number: 4
  string: ${{ flavor }}_cuda${{ cuda_compiler_version | replace('.', '') }}_h${{ hash }}_${{ build_number }}
  script: echo ${{ docker_image }}
  variant:
    use_keys: [extra_key]
    ignore_keys: [zlib]
requirements:
  build:
    - if: win
      then: ${{ compiler('c') }}
    - cmake
  host:
    - zlib
    - r-base
    - perl
)";

const char* const noarch_recipe = R"(package:
  name: purepy
  version: "0.1"
build:
  noarch: python
requirements:
  host:
    - python
    - pip
  run:
    - python >=${{ python_min }}
)";

const char* const cuda_matrix = R"(c_compiler: [gcc]
c_compiler_version: ['13']
cxx_compiler: [gxx]
cxx_compiler_version: ['13']
c_stdlib: [sysroot]
c_stdlib_version: ['2.17']
cuda_compiler: [cuda-nvcc]
cuda_compiler_version: [None, '12.9', '13.0']
docker_image:
  - quay.io/condaforge/linux-anvil-x86_64:alma9
  - quay.io/condaforge/linux-anvil-cuda:12.9
  - quay.io/condaforge/linux-anvil-cuda:13.0
python: ['3.10', '3.11', '3.12', '3.13']
numpy: ['2']
blas_impl: [openblas, mkl]
extra_key: [1, 2]
zlib: ['1.3']
r_base: ['4.4']
perl: ['5.32.1']
cmake: ['3.30']
python_min: ['3.10']
zip_keys:
  - [cuda_compiler_version, docker_image]
)";

// variants.yaml selectors, and a later file replacing keys of an earlier one.
const char* const selected_matrix = R"(c_compiler:
  - if: linux
    then: gcc
    else: [clang, vs2022]
c_compiler_version:
  - if: win
    then: ['2022']
    else: ['13', '14']
cuda_compiler_version:
  - None
  - if: not osx
    then: ['12.9', '13.0']
docker_image:
  - alma9
  - if: not osx
    then: [cuda129, cuda130]
python: ['3.12', 3.13]
zip_keys:
  - [cuda_compiler_version, docker_image]
)";

const char* const multi_output_recipe = R"(recipe:
  name: multi
  version: "1.0"
build:
  number: 2
outputs:
  - package:
      name: libfoo
    requirements:
      build:
        - ${{ compiler('c') }}
        - if: cuda_compiler_version != "None"
          then: ${{ compiler('cuda') }}
      host:
        - zlib
  - package:
      name: py-foo
    requirements:
      build:
        - ${{ compiler('c') }}
      host:
        - python
        - numpy
        - ${{ pin_subpackage('libfoo', exact=True) }}
  - package:
      name: foo-tools
      version: "2.0"
    build:
      string: tools_${{ hash }}
    requirements:
      host:
        - ${{ pin_subpackage('py-foo', exact=True) }}
        - perl
  - package:
      name: foo-noarch
    build:
      noarch: generic
    requirements:
      run:
        - ${{ pin_subpackage('py-foo') }}
)";

const char* const unequal_zip = "python: ['3.10', '3.11']\ncuda_compiler_version: ['12.9']\n"
                                "zip_keys:\n  - [python, cuda_compiler_version]\n";
const char* const zip_with_missing_key = "python: ['3.10', '3.11', '3.12']\nnumpy: ['1', '2']\n"
                                         "zip_keys:\n  - [python, numpy, not_there]\n";

const char* const per_output_matrix = "cuda_compiler_version: ['12.9', '13.0']\nzlib: ['1.2', '1.3']\n"
                                      "libfoo: ['1']\nlibbar: ['7']\n";

Case make_case(std::string name, std::string recipe_text, fs::path recipe, std::vector<fs::path> variant_files,
               std::string platform = "linux-64", std::map<std::string, std::string, std::less<>> environment = {}) {
  return Case{std::move(name), std::move(recipe_text), std::move(recipe), std::move(variant_files), std::move(platform),
              std::move(environment)};
}

std::vector<Case> cases(const fs::path& scratch) {
  const fs::path matrix = scratch / "variants.yaml";
  std::ofstream(matrix) << cuda_matrix;
  const fs::path unequal = scratch / "unequal.yaml";
  std::ofstream(unequal) << unequal_zip;
  const fs::path selected = scratch / "selected_variants.yaml";
  std::ofstream(selected) << selected_matrix;
  const fs::path dashed = scratch / "dashed.yaml";
  std::ofstream(dashed) << "r-base: ['4.3', '4.4']\nfoo-bar: ['1', '2']\nzip_keys:\n  - [r-base, foo_bar]\n";
  const fs::path missing = scratch / "missing.yaml";
  std::ofstream(missing) << zip_with_missing_key;
  const fs::path per_output = scratch / "per_output.yaml";
  std::ofstream(per_output) << per_output_matrix;
  const fs::path data = testing::testdata();
  const fs::path pinning = data / "pinning" / "conda_build_config.yaml";
  std::vector<Case> result;
  for (const char* platform : {"linux-64", "linux-aarch64", "win-64"}) {
    result.push_back(make_case(std::string("cuda matrix ") + platform, cuda_recipe, {}, {matrix}, platform));
    result.push_back(make_case(std::string("selectors ") + platform, selector_recipe, {}, {matrix}, platform));
  }
  for (const char* platform : {"linux-64", "osx-arm64", "win-64"}) {
    result.push_back(make_case(std::string("variants.yaml selectors ") + platform, cuda_recipe, {}, {matrix, selected},
                               platform));
  }
  result.push_back(make_case("noarch python", noarch_recipe, {}, {matrix}));
  result.push_back(make_case("dashed variant keys",
                             "package:\n  name: d\n  version: '1'\nrequirements:\n  host:\n    - r-base\n    - foo_bar\n",
                             {}, {dashed}));
  for (const char* platform : {"linux-64", "win-64"}) {
    result.push_back(make_case(std::string("multi-output ") + platform, multi_output_recipe, {}, {matrix}, platform));
  }
  const fs::path own = fs::path(GPUENV_SOURCE_DIR) / "tests/data/recipe";
  result.push_back(make_case("per-output build.variant", {}, own / "per_output_variant.yaml", {per_output}));
  result.push_back(make_case("keys of a staging output", {}, own / "staging_keys.yaml", {per_output}));
  // gpuenv's own pinning, with and without the opt-in CUDA 11.8 column.
  const fs::path project = fs::path(GPUENV_SOURCE_DIR) / "metadata/variants";
  for (const char* platform : {"linux-64", "linux-aarch64"}) {
    result.push_back(make_case(std::string("cuda over gpuenv's pinning ") + platform, cuda_recipe, {},
                               {project / "variants.yaml"}, platform));
    result.push_back(make_case(std::string("cuda over gpuenv's pinning + cuda118 ") + platform, cuda_recipe, {},
                               {project / "variants.yaml", project / "cuda118.yaml"}, platform));
  }
  const fs::path pythons = scratch / "pythons.yaml";
  std::ofstream(pythons) << "python: ['3.11', '3.12']\n";
  for (const char* platform : {"linux-64", "osx-arm64", "win-64"}) {
    result.push_back(make_case(std::string("CEP 14's mamba example ") + platform, {}, own / "mamba_multi_output.yaml",
                               {pythons}, platform));
    result.push_back(make_case(std::string("platform selectors ") + platform, {}, own / "platform_selectors.yaml", {},
                               platform));
  }
  result.push_back(make_case("unequal zip", "package:\n  name: z\n  version: '1'\nrequirements:\n  host:\n    - python\n",
                             {}, {unequal}));
  result.push_back(make_case("stdlib('c') without c_stdlib",
                             "package:\n  name: s\n  version: '1'\nrequirements:\n  build:\n    - ${{ stdlib('c') }}\n",
                             {}, {missing}));
  result.push_back(make_case("zip group naming a missing key", cuda_recipe, {}, {matrix, missing}));
  if (fs::exists(pinning)) {
    for (const char* platform : {"linux-64", "linux-aarch64", "osx-arm64", "win-64"}) {
      result.push_back(make_case(std::string("cuda over pinning ") + platform, cuda_recipe, {}, {pinning}, platform));
      result.push_back(make_case(std::string("cuda over pinning + matrix ") + platform, cuda_recipe, {}, {pinning, matrix}, platform));
      result.push_back(make_case(std::string("multi-output over pinning ") + platform, multi_output_recipe, {}, {pinning}, platform));
    }
    result.push_back(make_case("cuda over pinning, CF_CUDA_ENABLED", cuda_recipe, {}, {pinning}, "linux-64",
                      {{"CF_CUDA_ENABLED", "True"}}));
    result.push_back(make_case("noarch over pinning", noarch_recipe, {}, {pinning}));
    const fs::path recipes = data / "recipes";
    for (const char* recipe : {"numba-cuda-feedstock/recipe", "dask-core-feedstock/recipe", "distributed-feedstock/recipe"}) {
      result.push_back(make_case(recipe, {}, recipes / recipe / "recipe.yaml", {pinning}));
    }
    // What RAPIDS' CI sets for these recipes (the script env reads the rest).
    std::map<std::string, std::string, std::less<>> rapids{
        {"RAPIDS_PACKAGE_VERSION", "25.10.00"}, {"UCXX_PACKAGE_VERSION", "0.46.00"}, {"RAPIDS_DATE_STRING", "251001"},
        {"RAPIDS_DATETIME_STRING", "251001120000"}, {"RAPIDS_CUDA_VERSION", "12.9.1"}, {"RAPIDS_PY_VERSION", "3.12"},
        {"RAPIDS_CONDA_ARCH", "x86_64"}, {"RAPIDS_PACKAGE_DEPENDENCY", "exact"}, {"RAPIDS_ARTIFACTS_DIR", "/tmp"}};
    for (const char* name : {"CMAKE_CUDA_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_C_COMPILER_LAUNCHER",
                             "CMAKE_GENERATOR", "NVCC_APPEND_FLAGS", "PARALLEL_LEVEL", "SCCACHE_BUCKET",
                             "SCCACHE_DIST_AUTH_TYPE", "SCCACHE_DIST_FALLBACK_TO_LOCAL_COMPILE", "SCCACHE_DIST_MAX_RETRIES",
                             "SCCACHE_DIST_REQUEST_TIMEOUT", "SCCACHE_DIST_SCHEDULER_URL", "SCCACHE_ERROR_LOG",
                             "SCCACHE_IDLE_TIMEOUT", "SCCACHE_NO_CACHE", "SCCACHE_RECACHE", "SCCACHE_REGION",
                             "SCCACHE_SERVER_LOG"}) {
      rapids[name] = "1";
    }
    for (const char* recipe : {"rapidsai-rmm/conda/recipes/rmm", "rapidsai-ucx-py/conda/recipes/ucx-py",
                               "rapidsai-ucxx/conda/recipes/ucxx"}) {
      result.push_back(make_case(recipe, {}, recipes / recipe / "recipe.yaml",
                        {pinning, recipes / recipe / "conda_build_config.yaml"}, "linux-64", rapids));
    }
  }
  return result;
}

json value_json(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::string: return value.as_string();
    case Value::Kind::boolean: return value.as_bool();
    case Value::Kind::integer: return value.as_integer();
    default: return nullptr;
  }
}

// What gpuenv renders, in rattler_variants.py's shape.
json ours(const Case& each) {
  std::string text = each.recipe_text;
  if (text.empty()) {
    std::ostringstream read;
    read << std::ifstream(each.recipe).rdbuf();
    text = read.str();
  }
  VariantReadOptions read_options;
  read_options.target_platform = read_options.build_platform = each.platform;
  read_options.environment = each.environment;
  VariantConfig config;
  for (const auto& file : each.variant_files) {
    auto loaded = read_variant_config(file, read_options);
    if (!loaded) return {{"error", loaded.error().message}};
    merge_variant_config(config, *loaded);
  }
  RecipeOptions options;
  options.target_platform = options.build_platform = options.host_platform = each.platform;
  options.environment = each.environment;
  auto rendered = render_variants(text, each.recipe.empty() ? "recipe.yaml" : each.recipe.string(), config, options);
  if (!rendered) return {{"error", rendered.error().message}};
  json variants = json::array();
  for (const auto& variant : *rendered) {
    json values = json::object();
    for (const auto& [key, value] : variant.variant) values[key] = value_json(value);
    variants.push_back({{"output", variant.output_name},
                        {"variant", values},
                        {"build_string", variant.build_string},
                        {"hash", variant.hash}});
  }
  return {{"variants", variants}};
}

TEST(VariantsRattlerDifferential, SameVariantsOrderHashesAndBuildStrings) {
  const fs::path scratch = fs::temp_directory_path() / ("gpuenv-variants-differential-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const auto all = cases(scratch);
  json requests = json::array();
  for (const auto& each : all) {
    json request = {{"platform", each.platform}, {"environment", each.environment}};
    if (each.recipe.empty()) request["recipe_text"] = each.recipe_text;
    else request["recipe"] = each.recipe.string();
    request["variant_files"] = json::array();
    for (const auto& file : each.variant_files) request["variant_files"].push_back(file.string());
    requests.push_back(request);
  }
  std::string why;
  const json answers = testing::ask_rattler_helper("rattler_variants.py", requests, why);
  if (answers.is_null()) {
    fs::remove_all(scratch);
    GTEST_SKIP() << why;
  }
  std::size_t variants_compared = 0, variants_matched = 0, refusals = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const json mine = ours(all[i]);
    const json& theirs = answers[i];
    if (theirs.contains("error") || mine.contains("error")) {
      EXPECT_EQ(theirs.contains("error"), mine.contains("error"))
          << all[i].name << "\n gpuenv: " << mine.dump() << "\n rattler-build: " << theirs.dump();
      refusals += theirs.contains("error") && mine.contains("error");
      if (std::getenv("GPUENV_SHOW_REFUSALS") != nullptr) {
        std::printf("%s\n gpuenv: %s\n rattler-build: %s\n", all[i].name.c_str(), mine.dump().c_str(), theirs.dump().c_str());
      }
      continue;
    }
    const json& expected = theirs["variants"];
    const json& got = mine["variants"];
    EXPECT_EQ(got.size(), expected.size()) << all[i].name;
    for (std::size_t v = 0; v < expected.size(); ++v) {
      ++variants_compared;
      const bool same = v < got.size() && got[v] == expected[v];
      variants_matched += same;
      EXPECT_TRUE(same) << all[i].name << " variant " << v << "\n gpuenv:        "
                        << (v < got.size() ? got[v].dump() : "(none)") << "\n rattler-build: " << expected[v].dump();
    }
  }
  fs::remove_all(scratch);
  std::printf("variants compared with rattler-build: %zu cases, %zu variants, %zu matched, %zu refused by both\n",
              all.size(), variants_compared, variants_matched, refusals);
}

}  // namespace
}  // namespace gpuenv::recipe
