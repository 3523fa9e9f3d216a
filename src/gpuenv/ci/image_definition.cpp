#include "gpuenv/ci/image_definition.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <system_error>

#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

// Thrown inside this file only; parse_image_definition turns it into a CiError.
struct DefinitionFailure {
  CiError::Kind kind;
  std::string reason;
};

[[noreturn]] void fail(std::string reason, CiError::Kind kind = CiError::Kind::invalid) {
  throw DefinitionFailure{kind, std::move(reason)};
}

bool all_of_charset(std::string_view text, std::string_view extra) {
  return std::all_of(text.begin(), text.end(), [extra](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra.find(c) != std::string_view::npos;
  });
}

// The character sets below keep every interpolated value free of shell and
// Dockerfile syntax: no quotes, `$`, backslashes, spaces, `;`, `&`, `|`,
// redirections or newlines can reach a RUN line.
bool is_debian_package_name(std::string_view name) {
  // Debian policy 5.6.1: lower case letters, digits, + - . ; at least two
  // characters, starting with a letter or digit.
  if (name.size() < 2 || name.size() > 100) return false;
  const char first = name.front();
  if (!((first >= 'a' && first <= 'z') || (first >= '0' && first <= '9'))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
  });
}

bool is_package_requirement(std::string_view text) {
  // A pip requirement (`nvidia-cuda-nvcc==13.0.88`) or a conda spec
  // (`cuda-nvcc=12.9.*`): names, versions and = * comparisons only.
  return !text.empty() && text.size() <= 200 && all_of_charset(text, "._+=*-") && text.front() != '-';
}

// `name==version` exactly: pip's --require-hashes takes nothing looser.
bool is_pinned_wheel(std::string_view text) {
  const auto equals = text.find("==");
  if (equals == std::string_view::npos || equals == 0 || text.size() > 200) return false;
  const auto name = text.substr(0, equals);
  const auto version = text.substr(equals + 2);
  return name.front() != '-' && all_of_charset(name, "._-") && !version.empty() && all_of_charset(version, ".+") &&
         version.front() != '.';
}

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_version(std::string_view text) {
  return !text.empty() && text.size() <= 20 && all_of_charset(text, ".") &&
         std::none_of(text.begin(), text.end(), [](char c) { return c >= 'A'; }) && text.front() != '.' &&
         text.back() != '.';
}

bool is_safe_relative_or_absolute_path(std::string_view text, bool absolute) {
  if (text.empty() || text.size() > 200 || !all_of_charset(text, "._/+-")) return false;
  if (absolute != (text.front() == '/')) return false;
  for (const auto& part : fs::path(std::string(text))) {
    if (part == "..") return false;
  }
  return text.front() != '-';
}

std::string scalar(const YAML::Node& node, std::string_view key) {
  if (!node.IsScalar()) fail(fmt::format("'{}' must be a text value", key));
  return node.Scalar();
}

std::vector<std::string> scalar_list(const YAML::Node& node, std::string_view key) {
  if (!node.IsSequence()) fail(fmt::format("'{}' must be a list", key));
  if (node.size() > max_list_entries) {
    fail(fmt::format("'{}' has {} entries, more than the {} allowed", key, node.size(), max_list_entries),
         CiError::Kind::too_large);
  }
  std::vector<std::string> values;
  for (const auto& item : node) values.push_back(scalar(item, key));
  return values;
}

void check_keys(const YAML::Node& map, std::string_view where, std::initializer_list<std::string_view> known) {
  if (!map.IsMap()) fail(fmt::format("{} must be a mapping", where));
  for (const auto& entry : map) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string names;
      for (const auto& each : known) names += (names.empty() ? "" : ", ") + std::string(each);
      fail(fmt::format("unknown key '{}' in {} (known: {})", key, where, names));
    }
  }
}

const YAML::Node required(const YAML::Node& map, std::string_view key, std::string_view where) {
  const auto node = map[std::string(key)];
  if (!node) fail(fmt::format("{} has no '{}'", where, key));
  return node;
}

void require(bool ok, std::string_view key, std::string_view value, std::string_view expected) {
  if (!ok) fail(fmt::format("'{}' has the value '{}', which is not {}", key, value, expected));
}

std::vector<std::string> debian_names(const YAML::Node& node, std::string_view key) {
  auto names = scalar_list(node, key);
  for (const auto& name : names) require(is_debian_package_name(name), key, name, "a Debian package name");
  return names;
}

// provider: pypi: `- {wheel: name==version, sha256: HEX}` per wheel.
void read_pinned_wheels(const YAML::Node& node, CudaToolkit& toolkit) {
  if (!node.IsSequence()) fail("'cuda.packages' must be a list");
  if (node.size() > max_list_entries) {
    fail(fmt::format("'cuda.packages' has {} entries, more than the {} allowed", node.size(), max_list_entries),
         CiError::Kind::too_large);
  }
  for (const auto& entry : node) {
    if (entry.IsScalar()) {
      fail(fmt::format("'cuda.packages' names the wheel '{}' without its sha256: with provider: pypi each entry "
                       "is {{wheel: name==version, sha256: ...}}, the sha256 of the x86_64 manylinux file pip "
                       "downloads, as PyPI's page of that file gives it",
                       entry.Scalar().substr(0, 100)));
    }
    check_keys(entry, "an entry of 'cuda.packages'", {"wheel", "sha256"});
    const auto wheel = scalar(required(entry, "wheel", "an entry of 'cuda.packages'"), "cuda.packages.wheel");
    require(is_pinned_wheel(wheel), "cuda.packages.wheel", wheel, "a pinned wheel such as nvidia-cuda-nvcc==13.0.88");
    const auto sha256 = scalar(required(entry, "sha256", "'cuda.packages' entry " + wheel), "cuda.packages.sha256");
    require(is_sha256_hex(sha256), "cuda.packages.sha256", sha256.substr(0, 100), "64 lower-case hex digits");
    toolkit.packages.push_back(wheel);
    toolkit.wheel_sha256.push_back(sha256);
  }
}

CudaToolkit read_toolkit(const YAML::Node& node) {
  check_keys(node, "'cuda'", {"version", "provider", "home", "packages", "wheel_root", "channel"});
  CudaToolkit toolkit;
  toolkit.version = scalar(required(node, "version", "'cuda'"), "cuda.version");
  require(is_version(toolkit.version), "cuda.version", toolkit.version, "a version such as 12.9");
  const auto provider = scalar(required(node, "provider", "'cuda'"), "cuda.provider");
  if (provider == "debian") {
    toolkit.provider = ToolkitProvider::debian;
  } else if (provider == "pypi") {
    toolkit.provider = ToolkitProvider::pypi;
  } else if (provider == "conda") {
    toolkit.provider = ToolkitProvider::conda;
  } else {
    fail(fmt::format("'cuda.provider' is '{}'; it must be debian, pypi or conda", provider));
  }
  toolkit.home = scalar(required(node, "home", "'cuda'"), "cuda.home");
  require(is_safe_relative_or_absolute_path(toolkit.home, true), "cuda.home", toolkit.home,
          "an absolute path of letters, digits and ._/+-");
  const auto packages = required(node, "packages", "'cuda'");
  if (toolkit.provider == ToolkitProvider::debian) {
    toolkit.packages = debian_names(packages, "cuda.packages");
  } else if (toolkit.provider == ToolkitProvider::pypi) {
    read_pinned_wheels(packages, toolkit);
  } else {
    toolkit.packages = scalar_list(packages, "cuda.packages");
    for (const auto& each : toolkit.packages) {
      require(is_package_requirement(each), "cuda.packages", each, "a requirement such as name==1.2.3 or name=1.2.*");
    }
  }
  if (toolkit.packages.empty()) fail("'cuda.packages' is empty: name the packages that provide the toolkit");
  if (const auto root = node["wheel_root"]) {
    if (toolkit.provider != ToolkitProvider::pypi) fail("'cuda.wheel_root' applies only to provider: pypi");
    toolkit.wheel_root = scalar(root, "cuda.wheel_root");
    require(is_safe_relative_or_absolute_path(toolkit.wheel_root, false), "cuda.wheel_root", toolkit.wheel_root,
            "a relative path inside the wheels such as nvidia/cu13");
  } else if (toolkit.provider == ToolkitProvider::pypi) {
    fail("'cuda' with provider: pypi needs 'wheel_root', the toolkit tree inside the wheels (nvidia/cu13)");
  }
  if (const auto channel = node["channel"]) {
    if (toolkit.provider != ToolkitProvider::conda) fail("'cuda.channel' applies only to provider: conda");
    toolkit.channel = scalar(channel, "cuda.channel");
    require(!toolkit.channel.empty() && toolkit.channel.size() <= 200 && all_of_charset(toolkit.channel, "._/:-"),
            "cuda.channel", toolkit.channel, "a channel name or URL of letters, digits and ._/:-");
  } else if (toolkit.provider == ToolkitProvider::conda) {
    fail("'cuda' with provider: conda needs 'channel' (conda-forge)");
  }
  return toolkit;
}

ImageDefinition read_definition(const YAML::Node& root, std::string_view name) {
  check_keys(root, "the image definition",
             {"description", "base", "glibc", "apt_components", "system_packages", "compilers", "cuda", "gpuenv"});
  ImageDefinition image;
  image.name = std::string(name);
  if (const auto description = root["description"]) {
    image.description = scalar(description, "description");
    require(image.description.size() <= 500 &&
                std::none_of(image.description.begin(), image.description.end(),
                             [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
            "description", image.description, "one line of at most 500 characters");
  }
  image.base = scalar(required(root, "base", "the image definition"), "base");
  require(image.base.size() <= 200 && !image.base.empty() && all_of_charset(image.base, "._/:@-") &&
              image.base.front() != '-',
          "base", image.base, "an image reference such as debian:12");
  image.glibc = scalar(required(root, "glibc", "the image definition"), "glibc");
  require(is_version(image.glibc), "glibc", image.glibc, "a version such as 2.36");
  if (const auto components = root["apt_components"]) {
    image.apt_components = scalar_list(components, "apt_components");
    for (const auto& each : image.apt_components) {
      require(each == "contrib" || each == "non-free" || each == "non-free-firmware", "apt_components", each,
              "one of contrib, non-free, non-free-firmware");
    }
  }
  image.system_packages = debian_names(required(root, "system_packages", "the image definition"), "system_packages");
  const auto compilers = required(root, "compilers", "the image definition");
  check_keys(compilers, "'compilers'", {"c", "cxx"});
  image.c_compiler = scalar(required(compilers, "c", "'compilers'"), "compilers.c");
  image.cxx_compiler = scalar(required(compilers, "cxx", "'compilers'"), "compilers.cxx");
  require(is_debian_package_name(image.c_compiler), "compilers.c", image.c_compiler, "a Debian package name");
  require(is_debian_package_name(image.cxx_compiler), "compilers.cxx", image.cxx_compiler, "a Debian package name");
  if (const auto cuda = root["cuda"]) image.cuda = read_toolkit(cuda);
  const auto gpuenv = required(root, "gpuenv", "the image definition");
  check_keys(gpuenv, "'gpuenv'", {"binary", "bundle"});
  if (static_cast<bool>(gpuenv["binary"]) == static_cast<bool>(gpuenv["bundle"])) {
    fail("'gpuenv' needs exactly one of 'binary' (a gpuenv file, its libraries from system_packages) and 'bundle' "
         "(a directory made by `gpuenv ci bundle`, for a base without gpuenv's Debian libraries)");
  }
  for (const char* key : {"binary", "bundle"}) {
    if (!gpuenv[key]) continue;
    auto& path = std::string_view(key) == "binary" ? image.gpuenv_binary : image.gpuenv_bundle;
    path = scalar(gpuenv[key], fmt::format("gpuenv.{}", key));
    require(is_safe_relative_or_absolute_path(path, false), fmt::format("gpuenv.{}", key), path,
            "a path relative to the repository root such as build/release/gpuenv");
  }
  return image;
}

bool is_image_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && all_of_charset(name, "._-") && name.front() != '.' &&
         name.front() != '-' && std::none_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

}  // namespace

std::expected<ImageDefinition, CiError> parse_image_definition(std::string_view text, std::string_view file,
                                                               std::string_view name) {
  util::YamlLimits limits;
  limits.max_file_bytes = max_image_file_bytes;
  limits.max_values = 10'000;
  limits.max_scalar_bytes = max_image_file_bytes;
  limits.max_depth = 8;
  if (text.size() > max_image_file_bytes) {
    return std::unexpected(CiError{CiError::Kind::too_large, std::string(file),
                                   fmt::format("{}: {} bytes, more than the {} an image definition may have", file,
                                               text.size(), max_image_file_bytes)});
  }
  auto root = util::load_yaml(text, file, limits);
  if (!root) {
    const auto kind = root.error().kind == util::YamlError::Kind::not_yaml ? CiError::Kind::invalid
                                                                           : CiError::Kind::too_large;
    return std::unexpected(CiError{kind, std::string(file), root.error().message});
  }
  if (!is_image_name(name)) {
    return std::unexpected(CiError{CiError::Kind::invalid, std::string(file),
                                   fmt::format("{}: the image folder's name '{}' must be lower-case letters, digits "
                                               "and ._- (it names the image gpuenv/ci-<name>)",
                                               file, name)});
  }
  try {
    return read_definition(*root, name);
  } catch (const DefinitionFailure& failure) {
    return std::unexpected(CiError{failure.kind, std::string(file), fmt::format("{}: {}", file, failure.reason)});
  } catch (const YAML::Exception& error) {
    return std::unexpected(
        CiError{CiError::Kind::invalid, std::string(file), fmt::format("{}: malformed image definition", file)});
  }
}

std::expected<ImageDefinition, CiError> read_image_definition(const fs::path& directory) {
  const auto file = directory / "image.yaml";
  auto text = util::read_text_file_at_most(file, max_image_file_bytes);
  if (!text) {
    const auto kind = text.error().kind == util::FileReadError::Kind::too_large ? CiError::Kind::too_large
                                                                                : CiError::Kind::unreadable;
    return std::unexpected(CiError{kind, file.string(), text.error().message});
  }
  return parse_image_definition(*text, file.string(), directory.filename().string());
}

std::expected<std::vector<ImageDefinition>, CiError> read_image_definitions(const fs::path& images_dir) {
  std::error_code error;
  std::set<fs::path> directories;
  for (fs::directory_iterator it(images_dir, error), end; !error && it != end; it.increment(error)) {
    if (it->is_directory(error) && !it->is_symlink(error) && fs::exists(it->path() / "image.yaml", error)) {
      directories.insert(it->path());
    }
    if (directories.size() > 100) {
      return std::unexpected(CiError{CiError::Kind::too_large, images_dir.string(),
                                     fmt::format("{}: more than 100 image folders", images_dir.string())});
    }
  }
  if (error) {
    return std::unexpected(CiError{CiError::Kind::unreadable, images_dir.string(),
                                   fmt::format("cannot read the images folder {}: {}; pass --images-dir",
                                               images_dir.string(), error.message())});
  }
  std::vector<ImageDefinition> images;
  for (const auto& directory : directories) {
    auto image = read_image_definition(directory);
    if (!image) return std::unexpected(image.error());
    images.push_back(std::move(*image));
  }
  return images;
}

std::string pinned_wheel_requirements(const CudaToolkit& toolkit) {
  std::string text;
  for (std::size_t i = 0; i < toolkit.packages.size() && i < toolkit.wheel_sha256.size(); ++i) {
    text += fmt::format("{} --hash=sha256:{}\n", toolkit.packages[i], toolkit.wheel_sha256[i]);
  }
  return text;
}

}  // namespace gpuenv::ci
