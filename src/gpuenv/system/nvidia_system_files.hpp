// Facts about the NVIDIA driver that the kernel publishes as files: cheap to
// read, and readable without loading (or waking) the driver. The roots are
// parameters so tests can lay out a fake /proc, /sys and /dev.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::system {

// What identifies this boot: /proc/sys/kernel/random/boot_id (a fresh UUID
// on every boot), else the boot time from /proc/stat ("btime 1718000000"),
// for sandboxes that do not provide the former.
std::optional<std::string> read_boot_id(const std::filesystem::path& proc_root);

// The whole of /proc/driver/nvidia/version (trimmed), present while the
// nvidia kernel module is loaded.
std::optional<std::string> read_proc_driver_version(const std::filesystem::path& proc_root);

// The release in that file's "NVRM version:" line ("580.159.04"), for both
// the proprietary and the open kernel module wording.
std::optional<std::string> driver_release_from_proc_version(std::string_view text);

// /sys/module/nvidia/version: the loaded kernel module's version.
std::optional<std::string> read_nvidia_module_version(const std::filesystem::path& sys_root);

// The PCI bus ids under /proc/driver/nvidia/gpus, sorted.
std::vector<std::string> list_nvidia_gpus(const std::filesystem::path& proc_root);

// The /dev/nvidiaN device nodes (not nvidiactl, nvidia-uvm, ...), sorted.
std::vector<std::string> list_nvidia_device_nodes(const std::filesystem::path& dev_root);

// The release in a driver library's file name: "libcuda.so.580.159.04" ->
// "580.159.04". The driver installs its libraries under their full version
// and points libcuda.so.1 at them, so the resolved path carries it.
std::optional<std::string> driver_release_from_library_name(std::string_view path);

// Whether `text` is a dotted numeric version ("580.159.04", "6.1").
bool is_dotted_number(std::string_view text);

}  // namespace gpuenv::system
