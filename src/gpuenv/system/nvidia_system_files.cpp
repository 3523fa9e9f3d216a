#include "gpuenv/system/nvidia_system_files.hpp"

#include <algorithm>
#include <cctype>

#include "gpuenv/util/file_io.hpp"

namespace gpuenv::system {
namespace {

std::optional<std::string> read_trimmed(const std::filesystem::path& path) {
  auto content = util::read_file(path, 64 * 1024);
  if (!content) return std::nullopt;
  const auto trimmed = util::trim(*content);
  if (trimmed.empty()) return std::nullopt;
  return std::string(trimmed);
}

bool is_device_node_name(std::string_view name) {
  if (!name.starts_with("nvidia")) return false;
  const auto suffix = name.substr(6);
  return !suffix.empty() &&
         std::all_of(suffix.begin(), suffix.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

bool is_dotted_number(std::string_view text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') return false;
  bool has_dot = false;
  char previous = 0;
  for (char c : text) {
    if (c == '.') {
      if (previous == '.') return false;
      has_dot = true;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
    previous = c;
  }
  return has_dot;
}

std::optional<std::string> read_boot_id(const std::filesystem::path& proc_root) {
  if (auto id = read_trimmed(proc_root / "sys/kernel/random/boot_id")) return id;
  const auto stat = util::read_file(proc_root / "stat");
  if (!stat) return std::nullopt;
  const auto at = stat->find("\nbtime ");
  if (at == std::string::npos) return std::nullopt;
  const auto end = stat->find('\n', at + 1);
  return std::string(util::trim(std::string_view(*stat).substr(at + 1, end - at - 1)));
}

std::optional<std::string> read_proc_driver_version(const std::filesystem::path& proc_root) {
  return read_trimmed(proc_root / "driver/nvidia/version");
}

std::optional<std::string> driver_release_from_proc_version(std::string_view text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ..."
  const auto start = text.find("NVRM version:");
  if (start == std::string_view::npos) return std::nullopt;
  auto line = text.substr(start + 13);
  line = line.substr(0, line.find('\n'));
  std::size_t position = 0;
  while (position < line.size()) {
    while (position < line.size() && std::isspace(static_cast<unsigned char>(line[position]))) ++position;
    const auto end = line.find_first_of(" \t", position);
    const auto token = line.substr(position, end == std::string_view::npos ? line.npos : end - position);
    if (is_dotted_number(token)) return std::string(token);
    if (end == std::string_view::npos) break;
    position = end;
  }
  return std::nullopt;
}

std::optional<std::string> read_nvidia_module_version(const std::filesystem::path& sys_root) {
  return read_trimmed(sys_root / "module/nvidia/version");
}

std::vector<std::string> list_nvidia_gpus(const std::filesystem::path& proc_root) {
  return util::list_directory(proc_root / "driver/nvidia/gpus");
}

std::vector<std::string> list_nvidia_device_nodes(const std::filesystem::path& dev_root) {
  auto names = util::list_directory(dev_root);
  std::erase_if(names, [](const std::string& name) { return !is_device_node_name(name); });
  return names;
}

std::optional<std::string> driver_release_from_library_name(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto marker = name.find(".so.");
  if (marker == std::string_view::npos) return std::nullopt;
  const auto suffix = name.substr(marker + 4);
  // "1" (the soname) carries no release; a release has at least two parts.
  if (!is_dotted_number(suffix)) return std::nullopt;
  return std::string(suffix);
}

}  // namespace gpuenv::system
