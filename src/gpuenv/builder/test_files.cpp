#include "gpuenv/builder/test_files.hpp"

#include <sys/stat.h>

#include <sstream>

#include "gpuenv/builder/package_contents_check.hpp"
#include "gpuenv/recipe/test_list.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> files_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::test, std::move(message)});
}

bool escapes(const fs::path& relative) {
  if (relative.is_absolute()) return true;
  for (const auto& part : relative) {
    if (part == "..") return true;
  }
  return false;
}

class MemberCollector {
 public:
  MemberCollector(const TestFileSources& sources, std::vector<package::PackageMember>& members)
      : sources_(sources), members_(members) {}

  std::expected<void, BuildError> add(const fs::path& base, const std::string& entry, const std::string& prefix,
                                      const char* origin) {
    if (escapes(entry)) {
      return files_error("the test file '" + entry + "' (" + origin + ") leaves " + base.string() +
                        ": name a path inside it");
    }
    std::error_code error;
    std::string glob = entry;
    while (glob.ends_with("/")) glob.pop_back();
    const bool pattern = glob.find_first_of("*?[") != std::string::npos;
    std::size_t found = 0;
    if (!pattern && fs::is_regular_file(base / glob, error)) {
      if (auto added = add_file(base / glob, prefix + glob); !added) return added;
      ++found;
    } else if (fs::is_directory(base, error)) {
      for (auto it = fs::recursive_directory_iterator(base, error); !error && it != fs::recursive_directory_iterator();
           it.increment(error)) {
        if (!it->is_regular_file(error)) continue;
        const auto relative = it->path().lexically_relative(base).generic_string();
        const bool chosen = pattern ? path_glob_matches(glob, relative) : relative.starts_with(glob + "/");
        if (!chosen) continue;
        if (auto added = add_file(it->path(), prefix + relative); !added) return added;
        ++found;
      }
    }
    if (found == 0) {
      return files_error("the test file '" + entry + "' (" + origin + ") matches nothing in " + base.string() +
                         ": fix the name in the recipe's tests");
    }
    return {};
  }

 private:
  std::expected<void, BuildError> add_file(const fs::path& file, std::string member_path) {
    std::error_code error;
    total_ += fs::file_size(file, error);
    if (total_ > sources_.max_total_bytes) {
      return files_error("the tests' files are larger than " + std::to_string(sources_.max_total_bytes >> 20) +
                         " MiB together (at " + file.string() + "): list the test data, not whole trees");
    }
    struct stat info {};
    package::PackageMember member;
    member.path = std::move(member_path);
    member.source = file;
    member.mtime = sources_.mtime;
    member.mode = ::stat(file.c_str(), &info) == 0 && (info.st_mode & 0111) != 0 ? 0755 : 0644;
    members_.push_back(std::move(member));
    return {};
  }

  const TestFileSources& sources_;
  std::vector<package::PackageMember>& members_;
  std::uintmax_t total_ = 0;
};

// A script test's file, relative to the recipe, read into its lines.
std::expected<void, BuildError> inline_script_file(recipe::Script& script, const fs::path& recipe_dir) {
  if (!script.file) return {};
  auto file = recipe_dir / *script.file;
  std::error_code error;
  if (!fs::is_regular_file(file, error) && fs::is_regular_file(fs::path(file) += ".sh", error)) file += ".sh";
  auto text = util::read_text_file_at_most(file, 1u << 20);
  if (!text) return files_error("the test script " + file.string() + " cannot be packaged: " + text.error().message);
  script.file.reset();
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) script.content.push_back(line);
  if (script.content.empty()) script.content.push_back("true");
  return {};
}

}  // namespace

std::expected<std::vector<package::PackageMember>, BuildError> package_test_members(
    const std::vector<recipe::TestElement>& tests, const TestFileSources& sources) {
  std::vector<package::PackageMember> members;
  MemberCollector collector(sources, members);
  auto packaged = tests;
  for (std::size_t index = 0; index < packaged.size(); ++index) {
    auto& test = packaged[index];
    if (test.kind != recipe::TestElement::Kind::script) continue;
    if (auto inlined = inline_script_file(test.script.script, sources.recipe_dir); !inlined) {
      return std::unexpected(inlined.error());
    }
    const std::string prefix = "info/tests/" + std::to_string(index) + "/";
    for (const auto& entry : test.script.source_files) {
      if (auto added = collector.add(sources.src_dir, entry, prefix, "files.source"); !added) {
        return std::unexpected(added.error());
      }
    }
    for (const auto& entry : test.script.recipe_files) {
      if (auto added = collector.add(sources.recipe_dir, entry, prefix, "files.recipe"); !added) {
        return std::unexpected(added.error());
      }
    }
  }
  package::PackageMember list;
  list.path = "info/tests/tests.yaml";
  list.content = recipe::test_list_yaml(packaged);
  list.mtime = sources.mtime;
  members.push_back(std::move(list));
  return members;
}

}  // namespace gpuenv::build
