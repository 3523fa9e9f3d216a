// `gpuenv render --json`: each variant with its typed variant values and its
// requirements by section, from a recipe rendered over an override.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/recipe/render.hpp"
#include "gpuenv/specs/platform.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::recipe {
namespace {

TEST(RenderedJson, EachVariantHasItsValuesAndRequirementsBySection) {
  testing::TempDirectory dir;
  testing::write_text_file(dir / "recipe.yaml", R"(context:
  version: "1.0"
package:
  name: foo
  version: ${{ version }}
requirements:
  host:
    - python ${{ python }}
  run:
    - python
)");
  RenderRequest request;
  request.overrides = {"python=3.11,3.12"};
  request.build_platform = "linux-64";
  request.target_platform = "linux-64";
  const auto rendered = render_recipe_file(dir / "recipe.yaml", request);
  ASSERT_TRUE(rendered) << rendered.error().message;
  const auto document = nlohmann::ordered_json::parse(rendered_recipe_json("foo/recipe.yaml", "linux-64", *rendered));
  EXPECT_EQ(document.at("schema_version"), 1);
  EXPECT_EQ(document.at("recipe"), "foo/recipe.yaml");
  EXPECT_EQ(document.at("target_platform"), "linux-64");
  EXPECT_EQ(document.at("variant_files"), nlohmann::ordered_json::array());
  const auto& variants = document.at("variants");
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0].at("name"), "foo");
  EXPECT_EQ(variants[0].at("version"), "1.0");
  EXPECT_EQ(variants[0].at("variant").at("python"), "3.11");
  EXPECT_EQ(variants[1].at("variant").at("python"), "3.12");
  EXPECT_NE(variants[0].at("build_string"), variants[1].at("build_string"));
  const auto& requirements = variants[1].at("requirements");
  std::vector<std::string> sections;
  for (const auto& [name, list] : requirements.items()) sections.push_back(name);
  EXPECT_EQ(sections, (std::vector<std::string>{"build", "host", "run", "run_constraints"}));
  EXPECT_EQ(requirements.at("build"), nlohmann::ordered_json::array());
  EXPECT_EQ(requirements.at("host")[0], "python 3.12");
  EXPECT_EQ(requirements.at("run")[0].get<std::string>().substr(0, 6), "python");
}

TEST(RenderedJson, TheCommandsRenderForThisMachineUnlessTold) {
  const auto here = render_request_on_this_machine({"python=3.12"}, {"a.yaml", "b.yaml"}, "");
  EXPECT_EQ(here.build_platform, specs::Platform::current().str());
  EXPECT_EQ(here.target_platform, here.build_platform);
  EXPECT_EQ(here.overrides, (std::vector<std::string>{"python=3.12"}));
  EXPECT_EQ(here.variant_files, (std::vector<std::filesystem::path>{"a.yaml", "b.yaml"}));
  EXPECT_TRUE(here.environment.contains("PATH"));
  const auto cross = render_request_on_this_machine({}, {}, "linux-aarch64");
  EXPECT_EQ(cross.target_platform, "linux-aarch64");
  EXPECT_EQ(cross.build_platform, specs::Platform::current().str());
}

}  // namespace
}  // namespace gpuenv::recipe
