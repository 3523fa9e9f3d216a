// `gpuenv render` end to end: a CUDA recipe over a cuda_compiler_version
// [None, 12.9, 13.0] variant file gives the three variants and the build
// strings rattler-build gives (tests/unit/recipe/variants_test.cpp checks
// the same hashes against it), and bad input is refused with exit 1.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using nlohmann::json;

const char* const cuda_recipe = R"(package:
  name: foo
  version: "1.0"
requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ compiler('cuda') }}
    - ${{ stdlib('c') }}
  host:
    - python
    - numpy
  run:
    - if: cuda_compiler_version != "None"
      then: cuda-version >=${{ cuda_compiler_version }}
)";

const char* const cuda_variants = R"(c_compiler: [gcc]
c_compiler_version: ['13']
c_stdlib: [sysroot]
c_stdlib_version: ['2.17']
cuda_compiler: [cuda-nvcc]
cuda_compiler_version: [None, '12.9', '13.0']
python: ['3.10']
numpy: ['2']
)";

class RecipeDirectory {
 public:
  RecipeDirectory() {
    std::string pattern = (fs::temp_directory_path() / "gpuenv-render-cli-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
  }
  ~RecipeDirectory() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
    return root_ / name;
  }

 private:
  fs::path root_;
};

std::vector<std::string> build_strings(const json& document) {
  std::vector<std::string> strings;
  for (const auto& variant : document["variants"]) strings.push_back(variant["build_string"].get<std::string>());
  return strings;
}

TEST(RenderCli, RecipeLocalVariantsYamlGivesThreeCudaVariantsAsJson) {
  RecipeDirectory dir;
  const auto recipe = dir.write("foo/recipe.yaml", cuda_recipe);
  dir.write("foo/variants.yaml", cuda_variants);
  const auto result = run_gpuenv({"render", recipe.string(), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = json::parse(result.out);
  ASSERT_EQ(document["variants"].size(), 3u) << result.out;
  EXPECT_EQ(build_strings(document),
            (std::vector<std::string>{"np2py310h8fe14f7_0", "np2py310h98262ba_0", "np2py310hf700f96_0"}));
  const auto& first = document["variants"][0];
  EXPECT_EQ(first["name"], "foo");
  EXPECT_EQ(first["version"], "1.0");
  EXPECT_EQ(first["variant"]["cuda_compiler_version"], "12.9");
  EXPECT_EQ(first["variant"]["target_platform"], "linux-64");
  EXPECT_EQ(first["requirements"]["host"], (json{"python", "numpy"}));
  EXPECT_EQ(first["requirements"]["run"], (json{"cuda-version >=12.9"}));
  EXPECT_EQ(document["variants"][2]["variant"]["cuda_compiler_version"], "None");
  EXPECT_EQ(document["variants"][2]["requirements"]["run"], json::array());
}

// rattler-build reads the process environment for env.get() in recipes and
// os.environ.get() in conda_build_config.yaml selectors (conda-forge's
// pinning gives CUDA variants only with CF_CUDA_ENABLED=True); so does gpuenv.
TEST(RenderCli, TheProcessEnvironmentReachesRecipesAndVariantFiles) {
  RecipeDirectory dir;
  const auto recipe = dir.write("env/recipe.yaml", R"(package:
  name: envpkg
  version: ${{ env.get("ENVPKG_VERSION", default="0.1") }}
requirements:
  host:
    - if: cuda_compiler_version != "None"
      then: cuda-version ${{ cuda_compiler_version }}.*
)");
  const auto config = dir.write("env/conda_build_config.yaml", R"(cuda_compiler_version:
  - None
  - 12.9   # [os.environ.get("ENVPKG_CUDA", "False") == "True"]
)");
  auto result = run_gpuenv({"render", recipe.string(), "--json"}, {"ENVPKG_VERSION=2.5", "ENVPKG_CUDA=True"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto document = json::parse(result.out);
  ASSERT_EQ(document["variants"].size(), 2u) << result.out;
  EXPECT_EQ(document["variants"][0]["version"], "2.5");
  EXPECT_EQ(document["variants"][0]["variant"]["cuda_compiler_version"], "12.9");
  result = run_gpuenv({"render", recipe.string(), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  document = json::parse(result.out);
  ASSERT_EQ(document["variants"].size(), 1u) << result.out;
  EXPECT_EQ(document["variants"][0]["version"], "0.1");
  (void)config;
}

TEST(RenderCli, VariantConfigFileAndOverrideInText) {
  RecipeDirectory dir;
  const auto recipe = dir.write("foo/recipe.yaml", cuda_recipe);
  const auto variants = dir.write("config/variants.yaml", cuda_variants);
  const auto result = run_gpuenv({"render", recipe.string(), "--variant-config", variants.string(), "--variant",
                                  "cuda_compiler_version=12.9"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("np2py310h8fe14f7_0"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("np2py310h98262ba_0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cuda-version >=12.9"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cuda_compiler_version: 12.9"), std::string::npos) << result.out;
}

TEST(RenderCli, BadRecipeAndBadVariantFileAreRefusedNamingTheFile) {
  RecipeDirectory dir;
  const auto recipe = dir.write("bad/recipe.yaml", "package:\n  name: foo\n  version: ${{ undefined_thing(\n");
  const auto bad_recipe = run_gpuenv({"render", recipe.string()});
  EXPECT_EQ(bad_recipe.exit_code, 1);
  EXPECT_NE(bad_recipe.err.find("recipe.yaml"), std::string::npos) << bad_recipe.err;

  const auto good = dir.write("good/recipe.yaml", cuda_recipe);
  const auto variants = dir.write("config/broken.yaml", "python: [3.10\n");
  const auto bad_variants = run_gpuenv({"render", good.string(), "--variant-config", variants.string(), "--json"});
  EXPECT_EQ(bad_variants.exit_code, 1);
  EXPECT_NE(bad_variants.out.find("broken.yaml"), std::string::npos) << bad_variants.out;

  const auto usage = run_gpuenv({"render", good.string(), "--variant", "no-equals-sign"});
  EXPECT_EQ(usage.exit_code, 2) << usage.err;
}

}  // namespace
