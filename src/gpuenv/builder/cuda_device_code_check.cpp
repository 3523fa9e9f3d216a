#include "gpuenv/builder/cuda_device_code_check.hpp"

#include <algorithm>

#include "gpuenv/cuda_binary/reader.hpp"

namespace gpuenv::build {

namespace {

using cuda_binary::CodeKind;

bool holds(const std::vector<cuda_binary::DeviceCode>& entries, CodeKind kind, int architecture) {
  return std::any_of(entries.begin(), entries.end(), [&](const cuda_binary::DeviceCode& code) {
    return code.registered && code.kind == kind && code.arch.number == architecture;
  });
}

bool checked_format(cuda_binary::BinaryFormat format) {
  using cuda_binary::BinaryFormat;
  return format == BinaryFormat::elf_shared_library || format == BinaryFormat::elf_executable ||
         format == BinaryFormat::elf_object || format == BinaryFormat::static_archive;
}

const recipe::Value* map_entry(const recipe::Value& map, const std::string& key) {
  if (map.kind() != recipe::Value::Kind::map) return nullptr;
  for (const auto& [name, value] : map.as_map()) {
    if (name == key) return &value;
  }
  return nullptr;
}

}  // namespace

std::string DeviceCodeGap::describe() const {
  std::string text = file + " lacks";
  for (std::size_t i = 0; i < without_code.size(); ++i) {
    text += (i == 0 ? " sm_" : ", sm_") + std::to_string(without_code[i]);
  }
  if (!without_code.empty()) text += " (neither SASS nor PTX)";
  if (without_ptx) text += std::string(without_code.empty() ? "" : " and") + " PTX for compute_" +
                           std::to_string(*without_ptx) + " (the highest architecture asked for)";
  text += "; it holds ";
  for (std::size_t i = 0; i < present.size(); ++i) text += (i == 0 ? "" : ", ") + present[i];
  return text;
}

std::optional<DeviceCodeGap> device_code_gap(const std::string& file,
                                             const std::vector<cuda_binary::DeviceCode>& entries,
                                             const std::vector<int>& architectures) {
  DeviceCodeGap gap;
  gap.file = file;
  for (const auto& code : entries) {
    if (!code.registered || (code.kind != CodeKind::sass && code.kind != CodeKind::ptx)) continue;
    const auto name = cuda_binary::target_name(code);
    if (std::find(gap.present.begin(), gap.present.end(), name) == gap.present.end()) gap.present.push_back(name);
  }
  if (gap.present.empty() || architectures.empty()) return std::nullopt;
  for (const int architecture : architectures) {
    if (!holds(entries, CodeKind::sass, architecture) && !holds(entries, CodeKind::ptx, architecture)) {
      gap.without_code.push_back(architecture);
    }
  }
  const int highest = *std::max_element(architectures.begin(), architectures.end());
  if (!holds(entries, CodeKind::ptx, highest)) gap.without_ptx = highest;
  if (gap.without_code.empty() && !gap.without_ptx) return std::nullopt;
  return gap;
}

std::string DeviceCodeCheck::report() const {
  std::string text;
  for (const auto& gap : gaps) text += "\n  " + gap.describe();
  for (const auto& line : unreadable) text += "\n  " + line;
  return text;
}

DeviceCodeCheck check_device_code(const std::vector<NewPrefixFile>& files, const std::vector<int>& architectures) {
  DeviceCodeCheck check;
  cuda_binary::ReadOptions options;
  options.registered_only = true;
  for (const auto& file : files) {
    if (file.entry.path_type != package::PathType::hardlink) continue;
    const auto path = file.source.string();
    if (!cuda_binary::may_hold_device_code(path)) continue;
    auto listing = cuda_binary::read_device_code(path, options);
    if (!listing) {
      using cuda_binary::ReadErrorKind;
      // Not a CUDA binary at all, or a kind no GPU code lives in (32-bit ELF).
      if (listing.error().kind == ReadErrorKind::not_a_binary || listing.error().kind == ReadErrorKind::unsupported) {
        continue;
      }
      check.unreadable.push_back(file.entry.path + ": its device code cannot be read (" + listing.error().message + ")");
      continue;
    }
    if (!checked_format(listing->format) || listing->entries.empty()) continue;
    ++check.files_with_device_code;
    if (auto gap = device_code_gap(file.entry.path, listing->entries, architectures)) {
      check.gaps.push_back(std::move(*gap));
    }
  }
  return check;
}

bool cuda_check_wanted(const recipe::Value& extra) {
  const auto* gpuenv = map_entry(extra, "gpuenv");
  const auto* wanted = gpuenv != nullptr ? map_entry(*gpuenv, "cuda_check") : nullptr;
  if (wanted == nullptr) return true;
  // A quoted "false" reads as a string, which Jinja would call true.
  if (wanted->kind() == recipe::Value::Kind::string) {
    const auto& text = wanted->as_string();
    return !(text == "false" || text == "False" || text == "no" || text == "0");
  }
  return wanted->is_undefined() || wanted->truthy();
}

}  // namespace gpuenv::build
