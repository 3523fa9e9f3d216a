#include "gpuenv/util/yaml_document.hpp"

#include <fmt/format.h>

#include <optional>

#include "gpuenv/util/file_io.hpp"

namespace gpuenv::util {
namespace {

std::string at(std::string_view source, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return std::string(source);
  return fmt::format("{}:{}", source, mark.line + 1);
}

// Walks the tree the way a reader does (an alias followed each time it is
// reached) and stops at the first limit passed: the walk costs at most
// max_values steps, whatever the file.
class ExpansionCheck {
 public:
  ExpansionCheck(std::string_view source, const YamlLimits& limits) : source_(source), limits_(limits) {}

  std::optional<YamlError> check(const YAML::Node& node, std::size_t depth) {
    if (depth > limits_.max_depth) {
      return YamlError{YamlError::Kind::too_deep,
                       fmt::format("{}: values nest more than {} levels deep here, or an alias (`*name`) refers to "
                                   "a value that contains it; gpuenv refuses such a file: flatten it or remove the "
                                   "alias",
                                   at(source_, node.Mark()), limits_.max_depth)};
    }
    if (++values_ > limits_.max_values) {
      return YamlError{YamlError::Kind::too_many_values,
                       fmt::format("{}: holds more than {} values once its aliases (`*name`) are expanded, which "
                                   "no real file needs (an alias bomb?); gpuenv refuses it: write the values out "
                                   "without repeating aliases, or move the file aside",
                                   source_, limits_.max_values)};
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        scalar_bytes_ += node.Scalar().size();
        if (scalar_bytes_ > limits_.max_scalar_bytes) {
          return YamlError{YamlError::Kind::too_much_text,
                           fmt::format("{}: holds more than {} MiB of text once its aliases (`*name`) are "
                                       "expanded (an alias bomb?); gpuenv refuses it: write the values out without "
                                       "repeating aliases, or move the file aside",
                                       source_, limits_.max_scalar_bytes >> 20)};
        }
        return std::nullopt;
      case YAML::NodeType::Sequence:
        for (const auto& item : node) {
          if (auto error = check(item, depth + 1)) return error;
        }
        return std::nullopt;
      case YAML::NodeType::Map:
        for (const auto& entry : node) {
          if (auto error = check(entry.first, depth + 1)) return error;
          if (auto error = check(entry.second, depth + 1)) return error;
        }
        return std::nullopt;
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return std::nullopt;
    }
    return std::nullopt;
  }

 private:
  std::string_view source_;
  const YamlLimits& limits_;
  std::size_t values_ = 0;
  std::size_t scalar_bytes_ = 0;
};

}  // namespace

std::expected<YAML::Node, YamlError> load_yaml(std::string_view text, std::string_view source,
                                               const YamlLimits& limits) {
  if (text.size() > limits.max_file_bytes) {
    return std::unexpected(YamlError{
        YamlError::Kind::too_large,
        fmt::format("{} is larger than the {} gpuenv reads from such a file; check that it is the file you meant",
                    source, describe_byte_count(limits.max_file_bytes))});
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& error) {
    // yaml-cpp's own nesting guard (DeepRecursion) lands here too.
    YamlError refusal{YamlError::Kind::not_yaml,
                      fmt::format("{}: this is not valid YAML: {} (column {}); correct it or move the file aside",
                                  at(source, error.mark), error.msg, error.mark.column + 1)};
    if (!error.mark.is_null() && error.mark.line >= 0 && error.mark.column >= 0) {
      refusal.line = static_cast<std::size_t>(error.mark.line) + 1;
      refusal.column = static_cast<std::size_t>(error.mark.column) + 1;
    }
    return std::unexpected(std::move(refusal));
  }
  if (auto error = ExpansionCheck(source, limits).check(root, 0)) return std::unexpected(std::move(*error));
  return root;
}

std::expected<YAML::Node, YamlError> read_yaml_file(const std::filesystem::path& path, std::string* text,
                                                    const YamlLimits& limits) {
  auto content = read_text_file_at_most(path, limits.max_file_bytes);
  if (!content) {
    return std::unexpected(YamlError{content.error().kind == FileReadError::Kind::too_large
                                         ? YamlError::Kind::too_large
                                         : YamlError::Kind::unreadable,
                                     std::move(content.error().message)});
  }
  auto loaded = load_yaml(*content, path.string(), limits);
  if (loaded && text != nullptr) *text = std::move(*content);
  return loaded;
}

}  // namespace gpuenv::util
