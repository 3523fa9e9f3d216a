// The data tables of metadata/ (CUDA compatibility, GPU architectures,
// archspec microarchitectures). They are compiled into the program by
// embed_metadata.cmake; each file cites its sources in its header comments.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::system {

// The text of metadata/<name>, or an empty view for an unknown name.
std::string_view metadata_file(std::string_view name);

// A metadata TSV: '#' lines are comments, the first other line is the
// header. Views point into the embedded text, which lives for the program.
struct MetadataTable {
  std::string name;
  std::vector<std::string_view> header;
  std::vector<std::vector<std::string_view>> rows;

  // The index of a named column; throws MetadataError if there is none.
  std::size_t column(std::string_view column_name) const;
};

// A table gpuenv ships is missing or malformed: a build problem, never a
// user's, so it is reported as such.
class MetadataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses metadata/<name>; throws MetadataError when it is missing or a row
// has fewer fields than the header.
MetadataTable load_metadata_table(std::string_view name);

}  // namespace gpuenv::system
