// Typed reading of resolved recipe fields (text, booleans, integers, lists,
// requirements), each refusal naming the field and pointing at its value.
// Internal to the recipe module.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/recipe_node.hpp"

namespace gpuenv::recipe::detail {

// Refuses keys of `map` that are not in `allowed` ("unknown field 'foo' in build").
void check_keys(const RecipeNode& map, std::initializer_list<std::string_view> allowed, std::string_view section,
                const ReadState& state);
// Refuses anything but a mapping.
const RecipeNode& expect_map(const RecipeNode& node, std::string_view field, const ReadState& state);

std::string text_of(const RecipeNode& node, std::string_view field, const ReadState& state);
std::optional<std::string> optional_text(const RecipeNode& map, std::string_view key, const ReadState& state);
bool bool_of(const RecipeNode& node, std::string_view field, const ReadState& state);
std::int64_t integer_of(const RecipeNode& node, std::string_view field, const ReadState& state);
// A list of text, or one text taken as a list of one; null is empty.
std::vector<std::string> text_list(const RecipeNode* node, std::string_view field, const ReadState& state);

// A requirement: a match spec (checked) or the pin pin_subpackage()/pin_compatible() printed.
Dependency dependency_of(const RecipeNode& node, std::string_view field, const ReadState& state);
std::vector<Dependency> dependency_list(const RecipeNode* node, std::string_view field, const ReadState& state);

// Package names (ignore_run_exports): each text is read as a match spec and
// its name kept, as rattler-build does (`${{ compiler('cuda') }}` names the
// compiler package).
std::vector<std::string> package_name_list(const RecipeNode* node, std::string_view field, const ReadState& state);

// The pin a pin function printed (`{"pin_subpackage":{...}}`); nullopt for other text.
std::optional<Pin> parse_pin(std::string_view text);

}  // namespace gpuenv::recipe::detail
