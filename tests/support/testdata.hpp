// Finding third-party test data (../shared/testdata, or $GPUENV_TESTDATA) and
// reading its TSV conformance tables.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuenv::testing {

inline std::filesystem::path testdata_dir() {
  if (const char* env = std::getenv("GPUENV_TESTDATA"); env != nullptr && *env != '\0') {
    return env;
  }
  return GPUENV_DEFAULT_TESTDATA;
}

// One data row of a TSV table; `line` is its 1-based line number in the file,
// so a failing row can be found at once.
struct TsvRow {
  std::vector<std::string> fields;
  int line = 0;

  const std::string& operator[](std::size_t i) const {
    static const std::string empty;
    return i < fields.size() ? fields[i] : empty;
  }
};

struct TsvTable {
  std::filesystem::path path;
  std::vector<std::string> header;
  std::vector<TsvRow> rows;

  // Index of a named column; throws when the file does not have it.
  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    throw std::runtime_error(path.string() + " has no column '" + name + "'");
  }
};

inline std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return fields;
}

// Reads vectors/<name>: lines starting with '#' are comments, the first other
// line is the header, every following non-empty line is a row. Fields are
// verbatim (whitespace inside them is significant input).
inline TsvTable read_tsv(const std::string& relative_path) {
  TsvTable table;
  table.path = testdata_dir() / relative_path;
  std::ifstream in(table.path);
  if (!in) {
    throw std::runtime_error("cannot read test data " + table.path.string() +
                             " (set GPUENV_TESTDATA to the testdata folder)");
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    if (table.header.empty()) {
      table.header = split_tabs(line);
      continue;
    }
    table.rows.push_back({split_tabs(line), number});
  }
  if (table.rows.empty()) throw std::runtime_error(table.path.string() + " has no rows");
  return table;
}

inline std::string where(const TsvTable& table, const TsvRow& row) {
  return table.path.filename().string() + ":" + std::to_string(row.line);
}

}  // namespace gpuenv::testing
