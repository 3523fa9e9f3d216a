// What a built package carries for its tests: info/tests/tests.yaml (the
// rendered tests, recipe/test_list.hpp) and, per script test with files,
// info/tests/<index>/ holding its `files.source` (from the work directory)
// and `files.recipe` (from the recipe directory) -- so the tests can run
// again from the package alone (`gpuenv test`, `rattler-build test`). A
// script test's script file is read into the tests inline.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

struct TestFileSources {
  std::filesystem::path recipe_dir;
  std::filesystem::path src_dir;
  std::int64_t mtime = 0;
  // Everything the tests copy into the package together; a test that names
  // a whole build tree is a mistake worth stopping at.
  std::uintmax_t max_total_bytes = 256u << 20;
};

// The info/tests/ members for `tests`. Fails when a listed file is missing,
// escapes its directory (`..`, absolute) or the files are too large.
std::expected<std::vector<package::PackageMember>, BuildError> package_test_members(
    const std::vector<recipe::TestElement>& tests, const TestFileSources& sources);

}  // namespace gpuenv::build
