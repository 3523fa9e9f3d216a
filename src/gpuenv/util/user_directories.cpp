#include "gpuenv/util/user_directories.hpp"

#include <string>
#include <string_view>

#include "gpuenv/util/file_io.hpp"

namespace gpuenv::util {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> non_empty(const EnvLookup& env, std::string_view name) {
  auto value = env(name);
  if (!value || value->empty()) return std::nullopt;
  return fs::path(*value);
}

std::optional<fs::path> xdg_base(const EnvLookup& env, std::string_view name,
                                 const std::optional<fs::path>& home, std::string_view fallback) {
  if (auto value = non_empty(env, name); value && value->is_absolute()) return value;
  if (home) return *home / fallback;
  return std::nullopt;
}

std::vector<fs::path> split_list(const std::string& text, char separator) {
  std::vector<fs::path> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(separator, start);
    const auto part = trim(std::string_view(text).substr(start, end - start));
    if (!part.empty()) parts.emplace_back(std::string(part));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

bool has_yaml_extension(const std::string& name) {
  return name.ends_with(".yml") || name.ends_with(".yaml");
}

}  // namespace

UserDirectories resolve_user_directories(const EnvLookup& env) {
  UserDirectories dirs;
  const auto home = non_empty(env, "HOME");

  if (auto explicit_cache = non_empty(env, "GPUENV_CACHE_DIR")) {
    dirs.cache_dir = *explicit_cache;
  } else if (auto base = xdg_base(env, "XDG_CACHE_HOME", home, ".cache")) {
    dirs.cache_dir = *base / "gpuenv";
  }

  if (auto explicit_root = non_empty(env, "GPUENV_ROOT_PREFIX")) {
    dirs.root_prefix = *explicit_root;
  } else if (home) {
    // Not under XDG_DATA_HOME: environments are what users look for and
    // type paths into, as with ~/.conda, ~/micromamba and ~/.pixi.
    dirs.root_prefix = *home / ".gpuenv";
  }

  if (auto pkgs = env("CONDA_PKGS_DIRS"); pkgs && !pkgs->empty()) {
    dirs.pkgs_dirs = split_list(*pkgs, ',');
  } else if (!dirs.root_prefix.empty()) {
    dirs.pkgs_dirs.push_back(dirs.root_prefix / "pkgs");
  }

  for (const char* name : {"CONDA_ENVS_PATH", "CONDA_ENVS_DIRS"}) {
    if (auto envs = env(name); envs && !envs->empty()) {
      // conda accepts both the path separator and commas here.
      for (const auto& part : split_list(*envs, ':')) {
        for (auto& entry : split_list(part.string(), ',')) dirs.envs_dirs.push_back(entry);
      }
      break;
    }
  }
  if (dirs.envs_dirs.empty() && !dirs.root_prefix.empty()) {
    dirs.envs_dirs.push_back(dirs.root_prefix / "envs");
  }

  // conda's documented .condarc search path (lowest precedence first);
  // $CONDA_ROOT is gpuenv's root prefix.
  auto& search = dirs.config_search_path;
  const auto add_triplet = [&search](const fs::path& base) {
    search.push_back(base / ".condarc");
    search.push_back(base / "condarc");
    search.push_back(base / "condarc.d/");
  };
  add_triplet("/etc/conda");
  add_triplet("/var/lib/conda");
  if (!dirs.root_prefix.empty()) add_triplet(dirs.root_prefix);
  if (auto config_home = non_empty(env, "XDG_CONFIG_HOME"); config_home && config_home->is_absolute()) {
    add_triplet(*config_home / "conda");
  }
  if (home) {
    add_triplet(*home / ".config/conda");
    add_triplet(*home / ".conda");
    search.push_back(*home / ".condarc");
  }
  if (auto prefix = non_empty(env, "CONDA_PREFIX")) add_triplet(*prefix);
  if (auto condarc = non_empty(env, "CONDARC")) search.push_back(*condarc);
  if (auto base = xdg_base(env, "XDG_CONFIG_HOME", home, ".config")) {
    search.push_back(*base / "gpuenv/config.yaml");
  }
  return dirs;
}

std::vector<fs::path> existing_config_files(const std::vector<fs::path>& config_search_path) {
  std::vector<fs::path> found;
  for (const auto& entry : config_search_path) {
    const auto text = entry.string();
    if (!text.empty() && text.back() == '/') {
      for (const auto& name : list_directory(entry)) {
        if (has_yaml_extension(name)) found.push_back(entry / name);
      }
    } else if (file_identity(entry) && !util::is_directory(entry)) {
      found.push_back(entry);
    }
  }
  return found;
}

}  // namespace gpuenv::util
