#include "gpuenv/prefix/python_layout.hpp"

#include "gpuenv/prefix/prefix_replacement.hpp"

namespace gpuenv::prefix {

std::optional<PythonLayout> python_layout_of(const specs::PackageRecord& python) {
  const std::string_view version = python.version;
  const auto first_dot = version.find('.');
  if (first_dot == std::string_view::npos || first_dot == 0) return std::nullopt;
  auto second_dot = version.find_first_not_of("0123456789", first_dot + 1);
  if (second_dot == first_dot + 1) return std::nullopt;
  if (second_dot == std::string_view::npos) second_dot = version.size();
  PythonLayout layout;
  layout.version = std::string(version.substr(0, second_dot));
  layout.site_packages = python.python_site_packages_path.empty()
                             ? "lib/python" + layout.version + "/site-packages"
                             : python.python_site_packages_path;
  while (layout.site_packages.ends_with('/')) layout.site_packages.pop_back();
  layout.executable = "bin/python" + layout.version;
  return layout;
}

std::string noarch_python_target(std::string_view path, const PythonLayout& python) {
  constexpr std::string_view site_packages = "site-packages/";
  constexpr std::string_view python_scripts = "python-scripts/";
  if (path.starts_with(site_packages)) {
    return python.site_packages + "/" + std::string(path.substr(site_packages.size()));
  }
  if (path.starts_with(python_scripts)) {
    return "bin/" + std::string(path.substr(python_scripts.size()));
  }
  return std::string(path);
}

std::string entry_point_script(const package::EntryPoint& entry, std::string_view python_path) {
  std::string shebang = "#!" + std::string(python_path) + "\n";
  if (shebang.size() > kMaxShebangLength || python_path.find(' ') != std::string_view::npos) {
    shebang = "#!/bin/sh\n'''exec' \"" + std::string(python_path) + "\" \"$0\" \"$@\" #'''\n";
  }
  const auto import_name = entry.function.substr(0, entry.function.find('.'));
  return shebang +
         "# -*- coding: utf-8 -*-\n"
         "import re\n"
         "import sys\n"
         "\n"
         "from " + entry.module + " import " + import_name + "\n"
         "\n"
         "if __name__ == '__main__':\n"
         "    sys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n"
         "    sys.exit(" + entry.function + "())\n";
}

}  // namespace gpuenv::prefix
