#include "gpuenv/builder/noarch_python.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "gpuenv/package/link_json.hpp"
#include "gpuenv/package/package_error.hpp"

namespace gpuenv::build {

namespace {

bool is_bytecode(const std::string& path) {
  return path.ends_with(".pyc") || path.ends_with(".pyo") || path.find("__pycache__/") != std::string::npos ||
         path.ends_with("__pycache__");
}

std::set<std::string> entry_point_commands(const std::vector<std::string>& entry_points) {
  std::set<std::string> commands;
  for (const auto& text : entry_points) {
    try {
      commands.insert(package::parse_entry_point(text, "build.python.entry_points").command);
    } catch (const package::PackageError&) {
      // reported by noarch_python_link_json
    }
  }
  return commands;
}

}  // namespace

void apply_noarch_python_layout(std::vector<NewPrefixFile>& files, const std::vector<std::string>& entry_points) {
  static const std::regex site_packages(R"(^lib/python[0-9][0-9.]*t?/site-packages/(.*)$)");
  const auto commands = entry_point_commands(entry_points);
  std::vector<NewPrefixFile> kept;
  for (auto& file : files) {
    std::string& path = file.entry.path;
    if (is_bytecode(path)) continue;
    std::smatch match;
    if (std::regex_match(path, match, site_packages)) {
      path = "site-packages/" + match[1].str();
    } else if (path.starts_with("bin/")) {
      if (commands.contains(path.substr(4))) continue;
      path = "python-scripts/" + path.substr(4);
    }
    kept.push_back(std::move(file));
  }
  std::sort(kept.begin(), kept.end(),
            [](const NewPrefixFile& a, const NewPrefixFile& b) { return a.entry.path < b.entry.path; });
  files = std::move(kept);
}

std::expected<package::PackageMember, BuildError> noarch_python_link_json(const std::vector<std::string>& entry_points,
                                                                          std::int64_t mtime) {
  package::LinkJson link;
  link.noarch = specs::NoarchType::python;
  for (const auto& text : entry_points) {
    try {
      link.entry_points.push_back(package::parse_entry_point(text, "build.python.entry_points"));
    } catch (const package::PackageError& error) {
      return std::unexpected(BuildError{BuildErrorKind::recipe, std::string(error.what()) +
                                                                    ": write it as 'name = module:function'"});
    }
  }
  package::PackageMember member;
  member.path = "info/link.json";
  member.content = package::link_json_text(link);
  member.mtime = mtime;
  return member;
}

}  // namespace gpuenv::build
