// From one rendered variant back to what a CI job needs to build exactly it:
// the image its docker_image names, and the `gpuenv build --variant`
// overrides that select it and nothing else. A zipped key cannot be
// overridden alone (its group would have columns of unequal length), so the
// overrides give every key of each zip group the variant uses, at the
// variant's column.
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/recipe/variant_config.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::ci {

// How a variant value reads on a command line: its display, none as "None".
std::string variant_value_text(const recipe::Value& value);

// The first column of the zip group whose values equal the variant's, key by
// key, for the keys the variant has; 0 when it has none of them.
std::size_t zip_column(const recipe::VariantConfig& config, const std::vector<std::string>& group,
                       const recipe::Variant& variant);

// KEY=VALUE overrides, sorted by key, that select `variant` out of `config`.
// Refused, naming `recipe_file`: a value `gpuenv build --variant` would split
// (a comma) or a CI shell line would read (quotes, `, $, \, line breaks).
std::expected<std::vector<std::string>, CiError> variant_overrides(const recipe::VariantConfig& config,
                                                                   const recipe::Variant& variant,
                                                                   std::string_view recipe_file);

// The image the variant builds in: the docker_image of its zip column,
// gpuenv/ci-<name> mapped to the image named <name>. Errors when no
// docker_image is configured, when the name is not gpuenv/ci-<name> or names
// no image, and when the image's CUDA toolkit is not the variant's
// cuda_compiler_version.
std::expected<const ImageDefinition*, CiError> image_for_variant(const recipe::VariantConfig& config,
                                                                 const recipe::Variant& variant,
                                                                 const std::vector<ImageDefinition>& images,
                                                                 std::string_view recipe_file);

}  // namespace gpuenv::ci
