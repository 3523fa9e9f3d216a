// Internal to the specs module: the parsers as functions that return their
// failure instead of throwing it. Parsers that read one another's text (a
// match spec holds a version spec, a channel, patterns) call these, so that a
// failure one level down is a value to report, never an exception to catch.
// The public parse() functions throw the SpecError these return.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <variant>

#include "gpuenv/specs/build_number_spec.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/string_matcher.hpp"
#include "gpuenv/specs/version.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::specs::detail {

// std::expected's shape. Not std::expected itself: the fuzz targets build
// this module with clang, which cannot use libstdc++ 12's <expected>.
template <typename T>
class [[nodiscard]] Parsed {
 public:
  // Not by value: a value is moved once, straight into place.
  Parsed(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}
  Parsed(const T& value) : state_(std::in_place_index<0>, value) {}
  Parsed(SpecError&& error) : state_(std::in_place_index<1>, std::move(error)) {}
  Parsed(const SpecError& error) : state_(std::in_place_index<1>, error) {}

  explicit operator bool() const noexcept { return state_.index() == 0; }
  T& operator*() { return *std::get_if<0>(&state_); }
  T* operator->() { return std::get_if<0>(&state_); }
  const T* operator->() const { return std::get_if<0>(&state_); }
  const T& value() const { return *std::get_if<0>(&state_); }
  const SpecError& error() const { return *std::get_if<1>(&state_); }

  // The value, or the failure thrown: what the public parse() functions do.
  T value_or_throw() && {
    if (state_.index() == 1) throw std::move(*std::get_if<1>(&state_));
    return std::move(*std::get_if<0>(&state_));
  }

 private:
  std::variant<T, SpecError> state_;
};

// A step that only checks or fills in: the failure, or nothing.
using Failure = std::optional<SpecError>;

Parsed<Version> parse_version(std::string_view text);
Parsed<VersionSpec> parse_version_spec(std::string_view text, ParseMode mode);
Parsed<BuildNumberSpec> parse_build_number_spec(std::string_view text);
// Fills `out` (a default StringMatcher) in place; patterns are on the hot path.
Failure parse_string_matcher(StringMatcher& out, std::string_view pattern,
                             StringMatcher::Case case_mode);
Parsed<Channel> parse_channel(std::string_view text, const ChannelContext& context);

}  // namespace gpuenv::specs::detail
