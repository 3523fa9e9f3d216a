// index.json of a built package, for the keys that come from the recipe's
// build section rather than the environments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/builder/package_output.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace {

using json = nlohmann::json;

gpuenv::recipe::RenderedVariant variant_with(std::int64_t down_prioritize) {
  gpuenv::recipe::RenderedVariant variant;
  variant.output_name = "libstencil";
  variant.output_version = "1.0.0";
  variant.build_string = "cpu_h1234567_0";
  variant.recipe.name = "libstencil";
  variant.recipe.build.variant.down_prioritize_variant = down_prioritize;
  return variant;
}

json index_of(const gpuenv::recipe::RenderedVariant& variant) {
  gpuenv::build::PackageOutput output;
  output.variant = &variant;
  output.subdir = "linux-64";
  return json::parse(gpuenv::build::index_json_text(output));
}

// As rattler-build 0.73 writes it (a noarch recipe with
// down_prioritize_variant: 2 gave "dpv-p-0 dpv-p-1").
TEST(IndexJson, DownPrioritizedVariantsCarryTrackFeatures) {
  EXPECT_FALSE(index_of(variant_with(0)).contains("track_features"));
  EXPECT_EQ(index_of(variant_with(1))["track_features"], "libstencil-p-0");
  EXPECT_EQ(index_of(variant_with(2))["track_features"], "libstencil-p-0 libstencil-p-1");
  // A hostile number is bounded, a negative one ignored.
  EXPECT_EQ(index_of(variant_with(1'000'000'000))["track_features"].get<std::string>().size(),
            std::string("libstencil-p-0 ").size() * 10 + std::string("libstencil-p-10 ").size() * 90 - 1);
  EXPECT_FALSE(index_of(variant_with(-3)).contains("track_features"));
}

}  // namespace
