// Build number constraints: `3`, `=3`, `==3`, `!=3`, `<3`, `<=3`, `>3`, `>=3`, `*`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace gpuenv::specs {

class BuildNumberSpec {
 public:
  enum class Operator : std::uint8_t {
    any, equal, not_equal, less, less_equal, greater, greater_equal,
  };

  // The spec that contains every build number (`*`).
  BuildNumberSpec() = default;
  BuildNumberSpec(Operator op, std::uint64_t number) : op_(op), number_(number) {}

  // Throws SpecError. Accepts an optional operator (`=` and `==` both mean
  // equal) followed by a non-negative integer, `*`, or an empty text (any);
  // spaces around the parts are ignored.
  static BuildNumberSpec parse(std::string_view text);
  static BuildNumberSpec any() { return BuildNumberSpec(); }

  bool contains(std::uint64_t build_number) const noexcept;

  // `*`, `3` (equal), `!=3`, `<3`, `<=3`, `>3`, `>=3`.
  std::string str() const;

  Operator op() const noexcept { return op_; }
  // The operand; 0 for any.
  std::uint64_t number() const noexcept { return number_; }
  bool is_explicitly_free() const noexcept { return op_ == Operator::any; }
  bool is_exact() const noexcept { return op_ == Operator::equal; }

  friend bool operator==(const BuildNumberSpec&, const BuildNumberSpec&) = default;
  std::size_t hash() const noexcept {
    return std::hash<std::uint64_t>{}(number_) * 31 + static_cast<std::size_t>(op_);
  }

 private:
  Operator op_ = Operator::any;
  std::uint64_t number_ = 0;
};

}  // namespace gpuenv::specs

template <>
struct std::hash<gpuenv::specs::BuildNumberSpec> {
  std::size_t operator()(const gpuenv::specs::BuildNumberSpec& spec) const noexcept {
    return spec.hash();
  }
};
