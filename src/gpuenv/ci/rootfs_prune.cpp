#include "gpuenv/ci/rootfs_prune.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuenv/util/file_io.hpp"

#include <algorithm>
#include <sstream>

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

// /proc/self/mounts writes space, tab, newline and backslash in a path as
// \040, \011, \012 and \134.
std::string unescape_mount_path(std::string_view text) {
  std::string path;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const auto digits = text.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        path += static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    path += text[i];
  }
  return path;
}

std::vector<fs::path> mount_points(std::string_view mount_table) {
  std::vector<fs::path> points;
  std::istringstream lines{std::string(mount_table)};
  std::string device;
  std::string point;
  std::string rest;
  while (lines >> device >> point && std::getline(lines, rest)) points.emplace_back(unescape_mount_path(point));
  return points;
}

bool has_mount_under(const fs::path& tree, const std::vector<fs::path>& points) {
  const std::string prefix = tree.lexically_normal().string();
  return std::any_of(points.begin(), points.end(), [&](const fs::path& point) {
    const std::string text = point.lexically_normal().string();
    return text == prefix || text.starts_with(prefix + "/");
  });
}

std::uint64_t bytes_under(const fs::path& tree) {
  std::uint64_t bytes = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(tree, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored) && !it->is_symlink(ignored)) bytes += it->file_size(ignored);
  }
  return bytes;
}

}  // namespace

std::vector<std::string> rootfs_keys_in_use(const std::vector<ImageDefinition>& images,
                                            const DebianMirror& machine_mirror) {
  std::vector<std::string> keys;
  for (const auto& image : images) {
    const auto mirror = mirror_for_image(machine_mirror, image);
    if (!mirror) continue;  // not Debian-based: the chroot runner makes no tree for it
    keys.push_back(base_rootfs_key(*mirror));
    keys.push_back(image_rootfs_key(image, *mirror));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

PruneReport prune_rootfs(const fs::path& cache_root, const std::vector<std::string>& keep, std::string_view mount_table,
                         bool dry_run) {
  PruneReport report;
  const auto points = mount_points(mount_table);
  std::vector<fs::path> trees;
  std::error_code error;
  for (fs::directory_iterator it(cache_root, error), end; !error && it != end; it.increment(error)) {
    std::error_code ignored;
    // The chroot runner's trees only: real directories it marked.
    if (it->is_symlink(ignored) || !it->is_directory(ignored)) continue;
    if (it->path().filename().string().starts_with(".")) continue;  // staging: remove_stale_staging's
    if (!fs::is_regular_file(fs::symlink_status(it->path() / rootfs_marker, ignored))) continue;
    trees.push_back(it->path());
  }
  std::sort(trees.begin(), trees.end());
  for (const auto& tree : trees) {
    const std::string name = tree.filename().string();
    if (std::find(keep.begin(), keep.end(), name) != keep.end()) {
      report.kept.push_back({tree, 0});
      continue;
    }
    if (has_mount_under(tree, points)) {
      report.in_use.push_back({tree, 0});
      continue;
    }
    PrunedTree pruned{tree, bytes_under(tree)};
    const fs::path wheels = tree.string() + ".wheels";
    std::error_code ignored;
    const bool has_wheels = fs::is_directory(fs::symlink_status(wheels, ignored));  // symlink_status: a link is not one
    if (has_wheels) pruned.bytes += bytes_under(wheels);
    if (!dry_run) {
      std::error_code removal;
      fs::remove_all(tree, removal);
      if (!removal && has_wheels) fs::remove_all(wheels, removal);
      if (removal) {
        report.errors.push_back(fmt::format("cannot remove {}: {}; run gpuenv ci prune as the user who made it "
                                            "(root, for the chroot runner's trees)",
                                            tree.string(), removal.message()));
        continue;
      }
    }
    report.freed_bytes += pruned.bytes;
    report.removed.push_back(std::move(pruned));
  }
  return report;
}

std::expected<PruneReport, CiError> prune_unused_rootfs(const fs::path& images_dir, const ChrootMachine& machine,
                                                        bool dry_run) {
  auto images = read_image_definitions(images_dir);
  if (!images) return std::unexpected(images.error());
  const fs::path mounts_file = "/proc/self/mounts";
  auto mounts = util::read_text_file_at_most(mounts_file, 16u << 20);
  if (!mounts) {
    return std::unexpected(CiError{CiError::Kind::unreadable, mounts_file.string(),
                                   fmt::format("cannot read {} ({}): it says which root filesystems a running job "
                                               "uses; run gpuenv where /proc is mounted",
                                               mounts_file.string(), mounts.error().message)});
  }
  const auto cache_root = machine.gpuenv_cache_dir / "ci-rootfs";
  if (!dry_run) remove_stale_staging(cache_root);
  return prune_rootfs(cache_root, rootfs_keys_in_use(*images, machine.mirror), *mounts, dry_run);
}

std::string prune_report_json(const PruneReport& report, bool dry_run) {
  const auto trees = [](const std::vector<PrunedTree>& list, bool with_bytes) {
    auto array = nlohmann::ordered_json::array();
    for (const auto& tree : list) {
      nlohmann::ordered_json entry{{"path", tree.path.string()}};
      if (with_bytes) entry["bytes"] = tree.bytes;
      array.push_back(std::move(entry));
    }
    return array;
  };
  const nlohmann::ordered_json document{{"dry_run", dry_run},
                                        {"removed", trees(report.removed, true)},
                                        {"in_use", trees(report.in_use, false)},
                                        {"kept", trees(report.kept, false)},
                                        {"errors", report.errors},
                                        {"freed_bytes", report.freed_bytes}};
  return document.dump(2);
}

}  // namespace gpuenv::ci
