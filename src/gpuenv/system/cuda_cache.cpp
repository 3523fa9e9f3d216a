#include "gpuenv/system/cuda_cache.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuenv/system/cuda_report_json.hpp"
#include "gpuenv/system/nvidia_system_files.hpp"

namespace gpuenv::system {
namespace {

using json = nlohmann::ordered_json;

// Bump when the entry's meaning changes; older entries are then ignored.
constexpr std::string_view cache_schema = "gpuenv.cuda-detection-cache/1";
constexpr std::int64_t max_clock_skew_s = 5 * 60;

json optional_to_json(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

std::optional<std::string> optional_from_json(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

json identity_to_json(const std::optional<util::FileIdentity>& identity) {
  if (!identity) return nullptr;
  return {{"path", identity->real_path}, {"size", identity->size}, {"mtime_ns", identity->mtime_ns}};
}

std::optional<util::FileIdentity> identity_from_json(const json& value) {
  if (!value.is_object()) return std::nullopt;
  return util::FileIdentity{value.value("path", std::string()), value.value("size", std::uint64_t{0}),
                            value.value("mtime_ns", std::int64_t{0})};
}

json fingerprint_to_json(const CacheFingerprint& fp) {
  return {
      {"program_version", fp.program_version},
      {"boot_id", optional_to_json(fp.boot_id)},
      {"nvidia_module_version", optional_to_json(fp.nvidia_module_version)},
      {"proc_driver_version", optional_to_json(fp.proc_driver_version)},
      {"library", identity_to_json(fp.library)},
      {"gpus", fp.gpus},
      {"device_nodes", fp.device_nodes},
      {"cuda_visible_devices", optional_to_json(fp.cuda_visible_devices)},
      {"cuda_device_order", optional_to_json(fp.cuda_device_order)},
      {"loader_cache", identity_to_json(fp.loader_cache)},
      {"ld_library_path", optional_to_json(fp.ld_library_path)},
      {"driver_directory_libraries", fp.driver_directory_libraries},
      {"libcuda_override", optional_to_json(fp.libcuda_override)},
      {"nvml_override", optional_to_json(fp.nvml_override)},
      {"proc_root", fp.proc_root},
      {"sys_root", fp.sys_root},
      {"dev_root", fp.dev_root},
  };
}

CacheFingerprint fingerprint_from_json(const json& value) {
  CacheFingerprint fp;
  fp.program_version = value.value("program_version", std::string());
  fp.boot_id = optional_from_json(value, "boot_id");
  fp.nvidia_module_version = optional_from_json(value, "nvidia_module_version");
  fp.proc_driver_version = optional_from_json(value, "proc_driver_version");
  fp.library = identity_from_json(value.value("library", json()));
  fp.gpus = value.value("gpus", std::vector<std::string>());
  fp.device_nodes = value.value("device_nodes", std::vector<std::string>());
  fp.cuda_visible_devices = optional_from_json(value, "cuda_visible_devices");
  fp.cuda_device_order = optional_from_json(value, "cuda_device_order");
  fp.loader_cache = identity_from_json(value.value("loader_cache", json()));
  fp.ld_library_path = optional_from_json(value, "ld_library_path");
  fp.driver_directory_libraries = value.value("driver_directory_libraries", std::vector<std::string>());
  fp.libcuda_override = optional_from_json(value, "libcuda_override");
  fp.nvml_override = optional_from_json(value, "nvml_override");
  fp.proc_root = value.value("proc_root", std::string());
  fp.sys_root = value.value("sys_root", std::string());
  fp.dev_root = value.value("dev_root", std::string());
  return fp;
}

std::string shown(const std::optional<std::string>& value) {
  return value ? fmt::format("'{}'", *value) : std::string("unset");
}

bool may_be_transient(DetectionStatus status) {
  return status != DetectionStatus::ok && status != DetectionStatus::no_device &&
         status != DetectionStatus::no_library;
}

}  // namespace

std::filesystem::path cache_file_path(const std::filesystem::path& cache_dir) {
  return cache_dir / "cuda-detection-v1.json";
}

CacheFingerprint current_fingerprint(const DetectionConfig& config, const std::string& library_path) {
  CacheFingerprint fp;
  fp.program_version = config.program_version;
  fp.boot_id = read_boot_id(config.proc_root);
  fp.nvidia_module_version = read_nvidia_module_version(config.sys_root);
  fp.proc_driver_version = read_proc_driver_version(config.proc_root);
  if (!library_path.empty()) fp.library = util::file_identity(library_path);
  fp.gpus = list_nvidia_gpus(config.proc_root);
  fp.device_nodes = list_nvidia_device_nodes(config.dev_root);
  fp.cuda_visible_devices = config.cuda_visible_devices;
  fp.cuda_device_order = config.cuda_device_order;
  const bool searches = !config.libcuda_override || !config.nvml_override;
  if (searches && config.use_loader_search) {
    fp.loader_cache = util::file_identity(config.loader_cache);
    fp.ld_library_path = config.ld_library_path;
  }
  if (searches) {
    for (const auto& directory : config.driver_directories) {
      for (const char* name : {"libcuda.so.1", "libcuda.so", "libnvidia-ml.so.1"}) {
        const auto path = directory / name;
        if (util::file_identity(path)) fp.driver_directory_libraries.push_back(path.string());
      }
    }
  }
  fp.libcuda_override = config.libcuda_override;
  fp.nvml_override = config.nvml_override;
  fp.proc_root = config.proc_root.string();
  fp.sys_root = config.sys_root.string();
  fp.dev_root = config.dev_root.string();
  return fp;
}

std::optional<std::string> fingerprint_difference(const CacheFingerprint& cached,
                                                  const CacheFingerprint& current) {
  if (cached.program_version != current.program_version) {
    return fmt::format("gpuenv changed ({} -> {})", cached.program_version, current.program_version);
  }
  if (cached.boot_id != current.boot_id) return std::string("the machine rebooted (boot id changed)");
  if (cached.nvidia_module_version != current.nvidia_module_version) {
    return fmt::format("the nvidia kernel module changed ({} -> {})", shown(cached.nvidia_module_version),
                       shown(current.nvidia_module_version));
  }
  if (cached.proc_driver_version != current.proc_driver_version) {
    return std::string("/proc/driver/nvidia/version changed (driver reloaded or replaced)");
  }
  if (cached.library != current.library) {
    return fmt::format("the driver library {} changed", cached.library ? cached.library->real_path
                                                                         : std::string("(none before)"));
  }
  if (cached.gpus != current.gpus) return std::string("the GPUs under /proc/driver/nvidia/gpus changed");
  if (cached.device_nodes != current.device_nodes) return std::string("the /dev/nvidia* device nodes changed");
  if (cached.cuda_visible_devices != current.cuda_visible_devices) {
    return fmt::format("CUDA_VISIBLE_DEVICES changed ({} -> {})", shown(cached.cuda_visible_devices),
                       shown(current.cuda_visible_devices));
  }
  if (cached.cuda_device_order != current.cuda_device_order) {
    return fmt::format("CUDA_DEVICE_ORDER changed ({} -> {})", shown(cached.cuda_device_order),
                       shown(current.cuda_device_order));
  }
  if (cached.loader_cache != current.loader_cache) {
    return std::string("the dynamic loader's cache changed (libraries were installed or removed)");
  }
  if (cached.ld_library_path != current.ld_library_path) {
    return fmt::format("LD_LIBRARY_PATH changed ({} -> {})", shown(cached.ld_library_path),
                       shown(current.ld_library_path));
  }
  if (cached.driver_directory_libraries != current.driver_directory_libraries) {
    return std::string("driver libraries appeared or disappeared in the driver directories");
  }
  if (cached.libcuda_override != current.libcuda_override) {
    return fmt::format("GPUENV_LIBCUDA changed ({} -> {})", shown(cached.libcuda_override),
                       shown(current.libcuda_override));
  }
  if (cached.nvml_override != current.nvml_override) {
    return fmt::format("GPUENV_LIBNVML changed ({} -> {})", shown(cached.nvml_override),
                       shown(current.nvml_override));
  }
  if (cached.proc_root != current.proc_root || cached.sys_root != current.sys_root ||
      cached.dev_root != current.dev_root) {
    return std::string("GPUENV_PROC_ROOT, GPUENV_SYS_ROOT or GPUENV_DEV_ROOT changed");
  }
  return std::nullopt;
}

std::string serialize_cache_entry(const CacheEntry& entry) {
  const json document = {
      {"schema", cache_schema},
      {"written_at", entry.written_at},
      {"fingerprint", fingerprint_to_json(entry.fingerprint)},
      {"report", report_to_json(entry.report)},
  };
  return document.dump(2) + "\n";
}

std::expected<CacheEntry, std::string> parse_cache_entry(std::string_view text) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) return std::unexpected("it is not valid JSON");
  if (document.value("schema", std::string()) != cache_schema) {
    return std::unexpected("it was written in another format (a different gpuenv)");
  }
  try {
    CacheEntry entry;
    entry.written_at = document.at("written_at").get<std::int64_t>();
    entry.fingerprint = fingerprint_from_json(document.at("fingerprint"));
    auto report = report_from_json(document.at("report"));
    if (!report) return std::unexpected("its report is incomplete");
    entry.report = std::move(*report);
    return entry;
  } catch (const json::exception&) {
    return std::unexpected("a field has the wrong type");
  }
}

std::optional<std::string> expiry_reason(const CacheEntry& entry, std::int64_t now, const DetectionConfig& config) {
  if (entry.written_at - now > max_clock_skew_s) {
    return std::string("it was written in the future (the clock moved back)");
  }
  const auto ttl = may_be_transient(entry.report.status) ? config.failure_cache_ttl : config.cache_ttl;
  const auto age = now - entry.written_at;
  if (age > ttl.count()) {
    return fmt::format("it expired ({} s old; {} results are kept {} s)", age, to_string(entry.report.status),
                       ttl.count());
  }
  return std::nullopt;
}

}  // namespace gpuenv::system
