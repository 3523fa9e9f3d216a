#include "gpuenv/builder/pin_spec.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "gpuenv/recipe/variants.hpp"
#include "gpuenv/specs/version.hpp"

namespace gpuenv::build {

namespace {

// No real version has this many segments; a longer expression would only
// pad the version with zeros.
constexpr std::size_t kMaxPinSegments = 32;

// A version's text cut where conda cuts it, separators kept so that a
// truncated lower bound reads as the version was written.
struct VersionText {
  std::string epoch;                    // "1!" or empty
  std::vector<std::string> segments;    // "2", "0a1", "post3"
  std::vector<char> separators;         // separators[i] comes before segments[i + 1]
  std::string local;                    // "+4.5" or empty
};

std::optional<VersionText> split_version(std::string_view text) {
  VersionText parts;
  if (const auto bang = text.find('!'); bang != std::string_view::npos) {
    parts.epoch = std::string(text.substr(0, bang + 1));
    text.remove_prefix(bang + 1);
  }
  if (const auto plus = text.find('+'); plus != std::string_view::npos) {
    parts.local = std::string(text.substr(plus));
    text = text.substr(0, plus);
  }
  std::string segment;
  for (const char c : text) {
    if (c == '.' || c == '_' || c == '-') {
      if (segment.empty()) return std::nullopt;
      parts.segments.push_back(std::move(segment));
      segment.clear();
      parts.separators.push_back(c);
    } else {
      segment += c;
    }
  }
  if (segment.empty()) return std::nullopt;
  parts.segments.push_back(std::move(segment));
  return parts;
}

std::string joined(const VersionText& parts, std::size_t count) {
  std::string text = parts.epoch;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += parts.separators[i - 1];
    text += parts.segments[i];
  }
  return text;
}

// "x.x.x" -> 3; nullopt when `bound` is not such an expression.
std::optional<std::size_t> expression_length(std::string_view bound) {
  if (bound.empty() || bound.size() % 2 == 0) return std::nullopt;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    if (bound[i] != (i % 2 == 0 ? 'x' : '.')) return std::nullopt;
  }
  return bound.size() / 2 + 1;
}

std::string incremented(std::string digits) {
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (*it != '9') {
      ++*it;
      return digits;
    }
    *it = '0';
  }
  return "1" + digits;
}

bool is_letter_component(const std::string& component) {
  return !component.empty() && std::isdigit(static_cast<unsigned char>(component.front())) == 0;
}

// conda's post and dev rank after and before numbers; every other word is
// a pre-release tag, which the bumped bound writes as "a" (rattler-build:
// 1.1l -> 1.2a, 1.0rc1 -> 1.0a2).
bool is_prerelease_tag(std::string component) {
  std::transform(component.begin(), component.end(), component.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return is_letter_component(component) && component != "post" && component != "dev";
}

// One segment with its last number incremented (a segment that starts with
// a word has an implicit 0 before it), pre-release tags written "a"; sets
// `prerelease` when one remains.
std::string bumped_segment(const std::string& segment, bool& prerelease) {
  std::vector<std::string> components;
  for (std::size_t i = 0; i < segment.size();) {
    const bool digit = std::isdigit(static_cast<unsigned char>(segment[i])) != 0;
    std::size_t end = i;
    while (end < segment.size() && (std::isdigit(static_cast<unsigned char>(segment[end])) != 0) == digit) ++end;
    components.push_back(segment.substr(i, end - i));
    i = end;
  }
  const bool implicit_zero = is_letter_component(components.front());
  if (implicit_zero) components.insert(components.begin(), "0");
  std::size_t last_number = 0;
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (!is_letter_component(components[i])) last_number = i;
  }
  components[last_number] = incremented(components[last_number]);
  prerelease = false;
  std::string text;
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (i == 0 && implicit_zero && last_number != 0) continue;
    if (is_prerelease_tag(components[i])) {
      components[i] = "a";
      prerelease = true;
    }
    text += components[i];
  }
  return text;
}

std::string upper_bound_of(VersionText parts, std::size_t length) {
  while (parts.segments.size() < length) {
    parts.separators.push_back('.');
    parts.segments.push_back("0");
  }
  bool prerelease = false;
  parts.segments[length - 1] = bumped_segment(parts.segments[length - 1], prerelease);
  return joined(parts, length) + (prerelease ? "" : ".0a0");
}

std::unexpected<BuildError> pin_error(const recipe::Pin& pin, const std::string& what) {
  recipe::Dependency dependency;
  dependency.pin = pin;
  return std::unexpected(BuildError{BuildErrorKind::recipe, recipe::dependency_text(dependency) + ": " + what});
}

// ">=1.2" or "<1.3.0a0" for one bound.
std::expected<std::string, BuildError> bound_text(const recipe::Pin& pin, const VersionText& version,
                                                  const std::string& bound, bool upper) {
  const char* role = upper ? "upper_bound" : "lower_bound";
  if (const auto length = expression_length(bound)) {
    if (*length > kMaxPinSegments) {
      return pin_error(pin, std::string(role) + " has " + std::to_string(*length) + " segments, more than the " +
                                std::to_string(kMaxPinSegments) + " any version has: shorten it");
    }
    if (upper) return "<" + upper_bound_of(version, *length);
    std::string lower = joined(version, std::min(*length, version.segments.size()));
    return ">=" + lower + version.local;
  }
  // A version bound starts with a digit: "x.y" is a mistyped expression.
  const bool plain = !bound.empty() && std::isdigit(static_cast<unsigned char>(bound.front())) != 0 &&
                     bound.find_first_of(" ,|<>=*") == std::string::npos;
  if (!plain || !specs::Version::try_parse(bound)) {
    return pin_error(pin, std::string(role) + " \"" + bound +
                              "\" is neither a pin expression (x, x.x, x.x.x ...) nor a version: write one of those");
  }
  return (upper ? "<" : ">=") + bound;
}

}  // namespace

std::expected<std::string, BuildError> pin_to_spec(const recipe::Pin& pin, std::string_view version,
                                                   std::string_view build_string) {
  const auto parts = split_version(version);
  if (!parts || !specs::Version::try_parse(version)) {
    return pin_error(pin, "the version \"" + std::string(version) + "\" of " + pin.name + " is not a conda version");
  }
  if (pin.exact) return pin.name + " ==" + std::string(version) + " " + std::string(build_string);
  std::string constraint;
  if (pin.lower_bound) {
    auto lower = bound_text(pin, *parts, *pin.lower_bound, false);
    if (!lower) return std::unexpected(std::move(lower.error()));
    constraint = *lower;
  }
  if (pin.upper_bound) {
    auto upper = bound_text(pin, *parts, *pin.upper_bound, true);
    if (!upper) return std::unexpected(std::move(upper.error()));
    constraint += (constraint.empty() ? "" : ",") + *upper;
  }
  std::string spec = pin.name;
  if (!constraint.empty()) spec += " " + constraint;
  if (pin.build) spec += (constraint.empty() ? " * " : " ") + *pin.build;
  return spec;
}

}  // namespace gpuenv::build
