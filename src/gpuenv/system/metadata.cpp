#include "gpuenv/system/metadata.hpp"

#include <fmt/format.h>

namespace gpuenv::system {
namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto tab = line.find('\t');
    fields.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  return fields;
}

}  // namespace

std::size_t MetadataTable::column(std::string_view column_name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == column_name) return i;
  }
  throw MetadataError(fmt::format("metadata/{} has no column '{}' (gpuenv was built from a "
                                  "mismatched metadata/ folder)",
                                  name, column_name));
}

MetadataTable load_metadata_table(std::string_view name) {
  MetadataTable table;
  table.name = std::string(name);
  std::string_view text = metadata_file(name);
  if (text.empty()) {
    throw MetadataError(fmt::format("metadata/{} is not compiled into this gpuenv (rebuild it)", name));
  }
  int line_number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    auto line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto fields = split_tabs(line);
    if (table.header.empty()) {
      table.header = std::move(fields);
      continue;
    }
    if (fields.size() < table.header.size()) {
      throw MetadataError(fmt::format("metadata/{}:{} has {} fields, the header has {}", name,
                                      line_number, fields.size(), table.header.size()));
    }
    table.rows.push_back(std::move(fields));
  }
  return table;
}

}  // namespace gpuenv::system
