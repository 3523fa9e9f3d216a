// A pin (pin_subpackage / pin_compatible) made into a match spec for one
// package version, as rattler-build makes it:
//   exact                 "name ==<version> <build_string>"
//   lower_bound "x.x"     ">=" the version's first two segments (epoch and
//                         local version kept); a version, as written
//   upper_bound "x.x"     "<" the first two segments (padded with zeros),
//                         the last one incremented, "0a0" appended unless
//                         that segment already is a pre-release; a
//                         version, as written
//   neither bound         the bare name
// so 1.2.3 with the defaults (lower "x.x.x.x.x.x", upper "x") gives
// ">=1.2.3,<2.0a0" and with upper "x.x" ">=1.2.3,<1.3.0a0".
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

// Errors (kind recipe): a bound that is neither an x.x expression nor a
// version, an expression longer than any version, or a `version` that is no
// conda version. The message names the pin.
std::expected<std::string, BuildError> pin_to_spec(const recipe::Pin& pin, std::string_view version,
                                                   std::string_view build_string);

}  // namespace gpuenv::build
