#include "gpuenv/generator/sdist_inspection.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

namespace gpuenv::generate {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t max_text_file = 1 << 20;
constexpr std::size_t max_walked_files = 200000;

std::optional<std::string> read_small_file(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(fs::symlink_status(path, error)) || fs::file_size(path, error) > max_text_file) {
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Directories whose sources are not part of what gets installed.
bool outside_the_package(const fs::path& relative) {
  static const std::set<std::string> names = {"docs", "doc", "examples", "example", "benchmarks", "bench",
                                              "tests", "test", "testing", "ci", ".github", "tools"};
  for (const auto& part : relative) {
    if (names.contains(lower(part.string()))) return true;
  }
  return false;
}

bool compiled_source(const fs::path& file) {
  static const std::set<std::string> extensions = {".c", ".cc", ".cpp", ".cxx", ".pyx", ".f", ".f90", ".rs", ".cu", ".go"};
  return extensions.contains(lower(file.extension().string()));
}

// Build backends and build requirements that mean compiled code.
std::string compiled_backend(const PyprojectInfo& pyproject) {
  for (const char* backend : {"mesonpy", "scikit_build_core", "maturin", "pdm.backend.cmake", "enscons"}) {
    if (pyproject.build_backend.starts_with(backend)) return "the build backend " + pyproject.build_backend;
  }
  for (const auto& requirement : pyproject.build_requires) {
    const auto name = lower(requirement.substr(0, requirement.find_first_of("<>=!~[; ")));
    if (name == "cython" || name == "cffi" || name == "setuptools-rust" || name == "setuptools_rust" ||
        name == "pybind11" || name == "nanobind" || name == "numpy") {
      return "the build requirement " + name;
    }
  }
  return "";
}

fs::path egg_info_dir(const fs::path& root) {
  std::error_code error;
  for (const auto& base : {root, root / "src"}) {
    for (fs::directory_iterator it(base, error), end; !error && it != end; it.increment(error)) {
      if (it->is_directory(error) && it->path().filename().string().ends_with(".egg-info")) return it->path();
    }
  }
  return {};
}

std::vector<std::string> package_directories(const fs::path& base) {
  static const std::set<std::string> excluded = {"tests", "test", "testing", "docs", "doc", "examples", "benchmarks",
                                                 "build", "scripts", "tools", "ci", "conftest"};
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(base, error), end; !error && it != end; it.increment(error)) {
    const auto name = it->path().filename().string();
    const auto lowered = lower(name);
    // tests/, tests_core/ (flit-core), testing/, docs/, examples/: not what the package installs.
    const bool aside = excluded.contains(lowered) || lowered.starts_with("test") || lowered.starts_with("doc") ||
                       lowered.starts_with("example") || lowered.starts_with("bench");
    if (it->is_directory(error) && fs::exists(it->path() / "__init__.py", error) && !aside &&
        name.find('.') == std::string::npos) {
      names.push_back(name);
    }
  }
  return names;
}

// PEP 420 namespace packages: a directory without __init__.py whose
// subdirectories are packages ("poetry/core" -> "poetry.core").
std::vector<std::string> namespace_packages(const fs::path& base) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(base, error), end; !error && it != end; it.increment(error)) {
    const auto name = it->path().filename().string();
    if (!it->is_directory(error) || fs::exists(it->path() / "__init__.py", error) || name.starts_with('.') ||
        name.find('.') != std::string::npos || name.ends_with(".egg-info")) {
      continue;
    }
    for (const auto& inner : package_directories(it->path())) names.push_back(name + "." + inner);
  }
  return names;
}

std::vector<std::string> single_modules(const fs::path& base) {
  static const std::set<std::string> excluded = {"setup", "conftest", "noxfile", "tasks", "versioneer", "fabfile",
                                                 "runtests", "bootstrap", "ez_setup", "run_tests"};
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(base, error), end; !error && it != end; it.increment(error)) {
    const auto& path = it->path();
    if (it->is_regular_file(error) && path.extension() == ".py" && !excluded.contains(path.stem().string()) &&
        !path.stem().string().starts_with("test")) {
      names.push_back(path.stem().string());
    }
  }
  return names;
}

}  // namespace

std::vector<std::string> egg_info_requirements(const std::string& text) {
  std::vector<std::string> requirements;
  std::string marker;
  bool optional = false;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    auto line = trim(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    start = end == std::string::npos ? text.size() : end + 1;
    if (line.empty() || line.starts_with('#')) continue;
    if (line.starts_with('[') && line.ends_with(']')) {
      const auto section = line.substr(1, line.size() - 2);
      const auto colon = section.find(':');
      optional = colon == std::string::npos ? !section.empty() : colon > 0;  // "[extra]" or "[extra:marker]"
      marker = colon == std::string::npos ? "" : trim(section.substr(colon + 1));
      continue;
    }
    if (optional) continue;
    requirements.push_back(marker.empty() ? line : line + "; " + marker);
  }
  return requirements;
}

std::vector<std::pair<std::string, std::string>> console_scripts_of_ini(const std::string& text, const std::string& section,
                                                                        bool setup_cfg) {
  std::vector<std::pair<std::string, std::string>> scripts;
  std::string current;
  bool in_value = false;  // setup.cfg: "console_scripts =" followed by indented lines
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const auto raw = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    const auto line = trim(raw);
    if (line.empty() || line.starts_with('#') || line.starts_with(';')) continue;
    if (line.starts_with('[') && line.ends_with(']')) {
      current = trim(line.substr(1, line.size() - 2));
      in_value = false;
      continue;
    }
    if (current != section) continue;
    const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    const auto equals = line.find('=');
    if (setup_cfg && !indented) {
      in_value = equals != std::string::npos && trim(line.substr(0, equals)) == "console_scripts";
      if (!in_value || trim(line.substr(equals + 1)).empty()) continue;
    } else if (setup_cfg && !in_value) {
      continue;
    }
    const auto entry = setup_cfg && !indented ? trim(line.substr(equals + 1)) : line;
    const auto split = entry.find('=');
    if (split == std::string::npos) continue;
    auto name = trim(entry.substr(0, split));
    auto target = trim(entry.substr(split + 1));
    if (const auto extras = target.find('['); extras != std::string::npos) target = trim(target.substr(0, extras));
    if (!name.empty() && target.find(':') != std::string::npos) scripts.emplace_back(name, target);
  }
  return scripts;
}

std::expected<SdistFacts, std::string> inspect_sdist(const fs::path& root) {
  SdistFacts facts;
  std::error_code error;
  if (const auto text = read_small_file(root / "PKG-INFO")) {
    auto metadata = parse_core_metadata(*text);
    if (!metadata) return std::unexpected("the sdist's PKG-INFO cannot be read: " + metadata.error());
    facts.pkg_info = std::move(*metadata);
  }
  if (const auto text = read_small_file(root / "pyproject.toml")) {
    auto pyproject = parse_pyproject(*text);
    if (!pyproject) return std::unexpected("the sdist's " + pyproject.error());
    facts.pyproject = std::move(*pyproject);
  }
  facts.has_setup_py = fs::exists(root / "setup.py", error);
  const auto egg_info = egg_info_dir(root);
  if (!egg_info.empty()) {
    if (const auto text = read_small_file(egg_info / "requires.txt")) facts.egg_requires = egg_info_requirements(*text);
    else facts.egg_requires = std::vector<std::string>{};  // an egg-info without requires.txt: none
    if (const auto text = read_small_file(egg_info / "entry_points.txt")) {
      facts.console_scripts = console_scripts_of_ini(*text, "console_scripts", false);
    }
    if (const auto text = read_small_file(egg_info / "top_level.txt")) {
      std::size_t start = 0;
      while (start < text->size()) {
        const auto end = text->find('\n', start);
        const auto name = trim(text->substr(start, end == std::string::npos ? std::string::npos : end - start));
        start = end == std::string::npos ? text->size() : end + 1;
        if (!name.empty() && name.find_first_of("/\\") == std::string::npos) facts.top_level_modules.push_back(name);
      }
    }
  }
  if (facts.console_scripts.empty() && facts.pyproject) facts.console_scripts = facts.pyproject->scripts;
  if (facts.console_scripts.empty()) {
    if (const auto text = read_small_file(root / "setup.cfg")) {
      facts.console_scripts = console_scripts_of_ini(*text, "options.entry_points", true);
    }
  }
  if (facts.top_level_modules.empty()) {
    // Where setuptools' package_dir usually points: src/, lib/ (PyYAML),
    // python/, else the root; packages, then namespace packages, then
    // single modules.
    for (const auto& base : {root / "src", root / "lib", root / "python", root}) {
      if (!fs::is_directory(base, error)) continue;
      facts.top_level_modules = package_directories(base);
      if (facts.top_level_modules.empty() && base != root) facts.top_level_modules = namespace_packages(base);
      if (facts.top_level_modules.empty()) facts.top_level_modules = single_modules(base);
      if (!facts.top_level_modules.empty()) break;
    }
    if (facts.top_level_modules.empty()) facts.top_level_modules = namespace_packages(root);
  }
  std::sort(facts.top_level_modules.begin(), facts.top_level_modules.end());
  facts.top_level_modules.erase(std::unique(facts.top_level_modules.begin(), facts.top_level_modules.end()),
                                facts.top_level_modules.end());
  if (std::any_of(facts.top_level_modules.begin(), facts.top_level_modules.end(),
                  [](const auto& name) { return !name.starts_with('_'); })) {
    std::erase_if(facts.top_level_modules, [](const auto& name) { return name.starts_with('_'); });
  }

  if (facts.pyproject) {
    facts.compiled_because = compiled_backend(*facts.pyproject);
    facts.compiled = !facts.compiled_because.empty();
  }
  std::size_t walked = 0;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, error), end;
       !error && it != end && walked < max_walked_files; it.increment(error), ++walked) {
    if (!it->is_regular_file(error)) continue;
    const auto relative = fs::relative(it->path(), root, error);
    if (!compiled_source(relative) || outside_the_package(relative.parent_path())) continue;
    if (!facts.compiled) facts.compiled_because = relative.string();
    facts.compiled = true;
    const auto extension = lower(relative.extension().string());
    facts.cxx = facts.cxx || extension == ".cpp" || extension == ".cc" || extension == ".cxx";
    facts.rust = facts.rust || extension == ".rs";
  }
  if (facts.compiled_because.starts_with("the build backend maturin")) facts.rust = true;

  if (facts.pkg_info) {
    for (const auto& file : facts.pkg_info->license_files) {
      if (file.find("..") == std::string::npos && fs::is_regular_file(root / file, error)) facts.license_files.push_back(file);
    }
  }
  if (facts.license_files.empty()) {
    for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
      const auto name = it->path().filename().string();
      const auto upper = lower(name);
      if (it->is_regular_file(error) && (upper.starts_with("license") || upper.starts_with("licence") ||
                                         upper.starts_with("copying") || upper.starts_with("copyright"))) {
        facts.license_files.push_back(name);
      }
    }
    std::sort(facts.license_files.begin(), facts.license_files.end());
  }
  return facts;
}

}  // namespace gpuenv::generate
