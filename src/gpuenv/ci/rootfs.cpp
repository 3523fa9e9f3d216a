#include "gpuenv/util/user_directories.hpp"
#include "gpuenv/ci/rootfs.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

bool is_mirror_uri(std::string_view uri) {
  if (!(uri.starts_with("http://") || uri.starts_with("https://")) || uri.size() > 300) return false;
  return std::all_of(uri.begin(), uri.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._/:~+-").find(c) != std::string_view::npos;
  });
}

bool is_suite(std::string_view suite) {
  return !suite.empty() && suite.size() <= 40 && std::all_of(suite.begin(), suite.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
         });
}

std::vector<std::string> words(std::string_view text) {
  std::istringstream stream{std::string(text)};
  std::vector<std::string> result;
  for (std::string word; stream >> word;) result.push_back(word);
  return result;
}

// One deb822 stanza's fields, continuation lines ignored (sources files
// have none in the fields read here).
struct Stanza {
  std::vector<std::string> types, uris, suites;
};

std::vector<Stanza> stanzas(std::string_view text) {
  std::vector<Stanza> result(1);
  std::istringstream stream{std::string(text)};
  for (std::string line; std::getline(stream, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      if (!result.back().types.empty() || !result.back().uris.empty()) result.emplace_back();
      continue;
    }
    if (line.front() == '#' || line.front() == ' ' || line.front() == '\t') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto field = line.substr(0, colon);
    const auto value = words(std::string_view(line).substr(colon + 1));
    if (field == "Types") result.back().types = value;
    if (field == "URIs") result.back().uris = value;
    if (field == "Suites") result.back().suites = value;
  }
  return result;
}

std::string short_hash(const std::string& text, std::size_t digits) {
  return package::sha256_hex(text).substr(0, digits);
}

std::string base_identity(const DebianMirror& mirror) {
  return fmt::format("gpuenv-ci-rootfs {}\nvariant minbase\nmirror {}\nsuite {}\n", rootfs_format_version, mirror.uri,
                     mirror.suite);
}

}  // namespace

std::expected<DebianMirror, CiError> debian_mirror_from_sources(std::string_view deb822_text, std::string_view file) {
  for (const auto& stanza : stanzas(deb822_text)) {
    if (std::find(stanza.types.begin(), stanza.types.end(), "deb") == stanza.types.end()) continue;
    const auto release = std::find_if(stanza.suites.begin(), stanza.suites.end(),
                                      [](const std::string& suite) { return suite.find('-') == std::string::npos; });
    if (release == stanza.suites.end() || stanza.uris.empty()) continue;
    if (!is_mirror_uri(stanza.uris.front()) || !is_suite(*release)) {
      return std::unexpected(CiError{CiError::Kind::invalid, std::string(file),
                                     fmt::format("{}: the Debian source '{}' '{}' is not an http(s) URI and a suite "
                                                 "name gpuenv can pass to debootstrap; fix the file or set "
                                                 "GPUENV_CI_DEBIAN_SOURCES to another one",
                                                 file, stanza.uris.front(), *release)});
    }
    return DebianMirror{stanza.uris.front(), *release};
  }
  return std::unexpected(CiError{CiError::Kind::invalid, std::string(file),
                                 fmt::format("{}: no 'Types: deb' entry with a Debian release among its Suites; the "
                                             "chroot runner builds its root filesystems from the machine's Debian "
                                             "mirror (set GPUENV_CI_DEBIAN_SOURCES to a deb822 sources file)",
                                             file)});
}

std::filesystem::path debian_sources_file(const util::EnvLookup& env) {
  const auto sources = env("GPUENV_CI_DEBIAN_SOURCES");
  return sources && !sources->empty() ? std::filesystem::path(*sources)
                                      : std::filesystem::path("/etc/apt/sources.list.d/debian.sources");
}

std::expected<ChrootMachine, CiError> chroot_machine(const util::EnvLookup& env) {
  const auto cache_dir = util::resolve_user_directories(env).cache_dir;
  if (cache_dir.empty()) {
    return std::unexpected(CiError{CiError::Kind::unavailable, "",
                                   "no cache directory for the root filesystems: set HOME or GPUENV_CACHE_DIR"});
  }
  auto mirror = read_debian_mirror(debian_sources_file(env));
  if (!mirror) return std::unexpected(mirror.error());
  return ChrootMachine{fs::absolute(cache_dir), *mirror};
}

std::expected<DebianMirror, CiError> read_debian_mirror(const fs::path& sources_file) {
  std::error_code error;
  if (!fs::exists(sources_file, error)) return DebianMirror{};
  auto text = util::read_text_file_at_most(sources_file, 1u << 20);
  if (!text) return std::unexpected(CiError{CiError::Kind::unreadable, sources_file.string(), text.error().message});
  return debian_mirror_from_sources(*text, sources_file.string());
}

std::expected<std::string, CiError> debian_suite_of(const ImageDefinition& image) {
  // Debian's numbered releases that debootstrap knows by codename.
  static const std::pair<std::string_view, std::string_view> releases[] = {
      {"11", "bullseye"}, {"12", "bookworm"}, {"13", "trixie"}, {"14", "forky"}};
  const std::string_view prefix = "debian:";
  if (image.base.starts_with(prefix)) {
    const auto tag = std::string_view(image.base).substr(prefix.size());
    for (const auto& [number, codename] : releases) {
      if (tag == number || tag == codename) return std::string(codename);
    }
    if (is_suite(tag) && !std::all_of(tag.begin(), tag.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::string(tag);
    }
  }
  return std::unexpected(CiError{CiError::Kind::invalid, image.name,
                                 fmt::format("image {}: its base '{}' is not a Debian release (debian:12, debian:13 or "
                                             "debian:<codename>); the chroot runner makes Debian root filesystems "
                                             "only: use --runner podman or --runner docker",
                                             image.name, image.base)});
}

std::expected<DebianMirror, CiError> mirror_for_image(const DebianMirror& machine, const ImageDefinition& image) {
  auto suite = debian_suite_of(image);
  if (!suite) return std::unexpected(suite.error());
  return DebianMirror{machine.uri, *suite};
}

std::string base_rootfs_key(const DebianMirror& mirror) {
  return fmt::format("base-{}-{}", mirror.suite, short_hash(base_identity(mirror), 12));
}

std::string image_rootfs_key(const ImageDefinition& image, const DebianMirror& mirror) {
  // Everything that changes the tree, in a fixed order; the description and
  // the gpuenv binary (bind-mounted at run time) do not.
  std::string identity = base_identity(mirror);
  identity += fmt::format("sources {}\n", apt_sources_list(image, mirror));
  identity += fmt::format("apt {}\n", fmt::join(apt_packages(image), " "));
  if (image.cuda) {
    const auto& cuda = *image.cuda;
    identity += fmt::format("cuda {} provider {} home {} wheel_root {} channel {}\npackages {}\n", cuda.version,
                            static_cast<int>(cuda.provider), cuda.home, cuda.wheel_root, cuda.channel,
                            fmt::join(cuda.packages, " "));
    // Another digest for the same version is another file: a new tree.
    if (!cuda.wheel_sha256.empty()) identity += fmt::format("wheels {}\n", fmt::join(cuda.wheel_sha256, " "));
  }
  // A bundle image's /usr/local/bin/gpuenv is a link into the bundle's mount
  // point. Only then: the keys of the other images stay what they were.
  if (!image.gpuenv_bundle.empty()) identity += fmt::format("gpuenv bundle at {}\n", kGpuenvBundleDir);
  return fmt::format("{}-{}", image.name, short_hash(identity, 16));
}

RootfsPaths rootfs_paths(const fs::path& gpuenv_cache_dir, const ImageDefinition& image, const DebianMirror& mirror) {
  const auto root = gpuenv_cache_dir / "ci-rootfs";
  return {root, root / base_rootfs_key(mirror), root / image_rootfs_key(image, mirror)};
}

fs::path staging_path(const fs::path& final_path, long pid) {
  return final_path.parent_path() / fmt::format(".staging-{}-{}", final_path.filename().string(), pid);
}

namespace {
bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }
}  // namespace

void remove_stale_staging(const fs::path& cache_root) {
  std::error_code error;
  for (fs::directory_iterator it(cache_root, error), end; !error && it != end; it.increment(error)) {
    const auto name = it->path().filename().string();
    if (!name.starts_with(".staging-")) continue;
    const auto dash = name.find_last_of('-');
    const auto digits = name.substr(dash + 1, name.find('.', dash) - dash - 1);
    long pid = 0;
    try {
      pid = std::stol(digits);
    } catch (const std::exception&) {
      continue;
    }
    if (pid != ::getpid() && !process_alive(pid)) fs::remove_all(it->path(), error);
  }
}

std::vector<std::string> debootstrap_command(const DebianMirror& mirror, const fs::path& target) {
  return {"debootstrap", "--variant=minbase", "--components=main", mirror.suite, target.string(), mirror.uri};
}

std::string apt_sources_list(const ImageDefinition& image, const DebianMirror& mirror) {
  std::string components = "main";
  for (const auto& each : image.apt_components) components += " " + each;
  return fmt::format("deb {0} {1} {2}\ndeb {0} {1}-updates {2}\n", mirror.uri, mirror.suite, components);
}

std::vector<std::string> apt_packages(const ImageDefinition& image) {
  std::vector<std::string> packages = image.system_packages;
  packages.push_back(image.c_compiler);
  packages.push_back(image.cxx_compiler);
  if (image.cuda && image.cuda->provider == ToolkitProvider::debian) {
    packages.insert(packages.end(), image.cuda->packages.begin(), image.cuda->packages.end());
  }
  return packages;
}

std::vector<std::pair<std::string, std::string>> compiler_links(const ImageDefinition& image) {
  std::vector<std::pair<std::string, std::string>> links;
  if (image.c_compiler != "gcc") links.emplace_back("/usr/local/bin/gcc", "/usr/bin/" + image.c_compiler);
  if (image.cxx_compiler != "g++") links.emplace_back("/usr/local/bin/g++", "/usr/bin/" + image.cxx_compiler);
  return links;
}

std::vector<std::string> pip_download_command(const fs::path& requirements, const fs::path& wheel_dir) {
  return {"python3",   "-m",  "pip", "download", "--require-hashes", "--no-deps", "--only-binary=:all:",
          "--dest",    wheel_dir.string(), "-r", requirements.string()};
}

}  // namespace gpuenv::ci
