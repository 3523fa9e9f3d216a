#include "gpuenv/util/config_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::util {
namespace {

// conda reads a marker from a comment that is nothing but `#!final`,
// `#!top` or `#!bottom` (ParameterFlag.from_string strips '#' and '!').
ConfigMarker marker_from_comment(std::string_view comment) {
  auto text = trim(comment);
  while (!text.empty() && (text.front() == '#' || text.front() == '!')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '#' || text.back() == '!')) text.remove_suffix(1);
  if (text == "final") return ConfigMarker::final;
  if (text == "top") return ConfigMarker::top;
  if (text == "bottom") return ConfigMarker::bottom;
  return ConfigMarker::none;
}

class DocumentReader {
 public:
  DocumentReader(std::string_view text, std::string source) : source_(std::move(source)) {
    std::size_t start = 0;
    while (start <= text.size()) {
      auto end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      lines_.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }

  std::expected<ConfigNode, std::string> convert(const YAML::Node& node) {
    ConfigNode result;
    result.line = node.Mark().line + 1;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        result.kind = ConfigNode::Kind::null;
        return result;
      case YAML::NodeType::Scalar:
        result.kind = ConfigNode::Kind::scalar;
        result.scalar = node.Scalar();
        return result;
      case YAML::NodeType::Sequence: {
        result.kind = ConfigNode::Kind::sequence;
        const bool block = node.Style() != YAML::EmitterStyle::Flow;
        for (const auto& item : node) {
          auto converted = convert(item);
          if (!converted) return converted;
          // Entries of a flow list share a line: a comment there is the key's.
          if (block) converted->marker = marker_at(item.Mark());
          result.items.push_back(std::move(*converted));
        }
        return result;
      }
      case YAML::NodeType::Map: {
        result.kind = ConfigNode::Kind::map;
        std::map<std::string, int> first_line;
        for (const auto& entry : node) {
          const auto& key = entry.first;
          if (!key.IsScalar()) {
            return std::unexpected(fmt::format("{}:{}: a setting's name must be plain text, like `channels:`",
                                               source_, key.Mark().line + 1));
          }
          const int line = key.Mark().line + 1;
          if (auto [it, inserted] = first_line.emplace(key.Scalar(), line); !inserted) {
            return std::unexpected(fmt::format("{}:{}: `{}` is set twice (first on line {}); keep one of them",
                                               source_, line, key.Scalar(), it->second));
          }
          auto value = convert(entry.second);
          if (!value) return value;
          value->line = line;
          value->marker = marker_at(key.Mark());
          result.entries.emplace_back(key.Scalar(), std::move(*value));
        }
        return result;
      }
    }
    return result;
  }

 private:
  // The marker in the comment that ends the line `mark` is on, if any.
  ConfigMarker marker_at(const YAML::Mark& mark) const {
    if (mark.line < 0 || static_cast<std::size_t>(mark.line) >= lines_.size()) return ConfigMarker::none;
    const auto line = lines_[static_cast<std::size_t>(mark.line)];
    // A '#' starts a comment when it follows whitespace outside quotes.
    char quote = 0;
    for (auto i = static_cast<std::size_t>(std::max(mark.column, 0)); i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
        return marker_from_comment(line.substr(i));
      }
    }
    return ConfigMarker::none;
  }

  std::string source_;
  std::vector<std::string_view> lines_;
};

// The settings in a tree load_yaml accepted: its walk is bounded, aliases included.
std::expected<ConfigDocument, std::string> settings_of(const YAML::Node& root, std::string_view text,
                                                       std::string source) {
  ConfigDocument document;
  document.source = source;
  DocumentReader reader(text, source);
  try {
    auto converted = reader.convert(root);
    if (!converted) return std::unexpected(converted.error());
    document.root = std::move(*converted);
  } catch (const YAML::Exception& error) {
    return std::unexpected(fmt::format("{}:{}: cannot read the settings ({})", source, error.mark.line + 1,
                                       error.msg));
  }
  if (document.root.kind == ConfigNode::Kind::scalar || document.root.kind == ConfigNode::Kind::sequence) {
    return std::unexpected(fmt::format(
        "{}:{}: a configuration file must be a map of settings (`key: value` lines, like `channels:`), "
        "not a {}",
        source, document.root.line, document.root.kind == ConfigNode::Kind::scalar ? "single value" : "list"));
  }
  return document;
}

}  // namespace

std::expected<ConfigDocument, std::string> parse_config_document(std::string_view text, std::string source,
                                                                 const YamlLimits& limits) {
  const auto root = load_yaml(text, source, limits);
  if (!root) return std::unexpected(root.error().message);
  return settings_of(*root, text, std::move(source));
}

std::expected<ConfigDocument, std::string> read_config_document(const std::filesystem::path& path,
                                                                const YamlLimits& limits) {
  std::string text;
  const auto root = read_yaml_file(path, &text, limits);
  if (!root) return std::unexpected(root.error().message);
  return settings_of(*root, text, path.string());
}

}  // namespace gpuenv::util
