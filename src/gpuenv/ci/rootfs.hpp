// The chroot runner's root filesystems: what goes into each image's rootfs
// (the same Debian release, mirror and packages as its Dockerfile), the key
// it is cached under, and the commands that make it. Pure: nothing here runs
// anything (rootfs_builder.hpp does), so the tests can check every command.
//
// Layout under <gpuenv cache>/ci-rootfs/:
//   base-<suite>-<hash>/   debootstrap --variant=minbase, shared by all images
//   <image>-<hash>/        the base plus the image's packages and toolkit
//   .staging-<key>-<pid>/  one being built; renamed into place when complete
// The hash covers everything that changes the tree (mirror, suite,
// components, packages, toolkit), so an edited image.yaml gets a new rootfs
// and an old one is never reused by mistake.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::ci {

// Where the Debian packages come from: the host's own apt source, so the
// rootfs matches the machine's snapshot and needs no other mirror.
struct DebianMirror {
  std::string uri = "http://deb.debian.org/debian";
  std::string suite = "bookworm";
};

// The first `Types: deb` stanza of a deb822 sources file (apt's
// /etc/apt/sources.list.d/debian.sources) whose Suites include a release
// (not -updates or -security). Refused, naming `file`: no such stanza, or a
// URI or suite with characters a command line could misread.
std::expected<DebianMirror, CiError> debian_mirror_from_sources(std::string_view deb822_text, std::string_view file);

// The mirror in `sources_file` (GPUENV_CI_DEBIAN_SOURCES, else apt's
// /etc/apt/sources.list.d/debian.sources); deb.debian.org's bookworm when the
// file does not exist (a machine that is not Debian).
std::expected<DebianMirror, CiError> read_debian_mirror(const std::filesystem::path& sources_file);

// The sources file read_debian_mirror reads: GPUENV_CI_DEBIAN_SOURCES when
// set and not empty, else /etc/apt/sources.list.d/debian.sources.
std::filesystem::path debian_sources_file(const util::EnvLookup& env);

// What the chroot runner takes from this machine: gpuenv's cache directory
// (absolute; the trees live under ci-rootfs/) and its Debian mirror.
struct ChrootMachine {
  std::filesystem::path gpuenv_cache_dir;
  DebianMirror mirror;
};
std::expected<ChrootMachine, CiError> chroot_machine(const util::EnvLookup& env);

// The Debian release an image's base is, as debootstrap names it:
// debian:12 -> bookworm, debian:13 -> trixie, debian:<codename> -> itself.
// Refused, naming the image: a base that is not a Debian release (the chroot
// runner makes Debian trees only).
std::expected<std::string, CiError> debian_suite_of(const ImageDefinition& image);

// The mirror an image's tree comes from: the machine's mirror URI (reachable
// from here) with the image's release, so a debian:13 image gets a trixie
// tree on a bookworm machine.
std::expected<DebianMirror, CiError> mirror_for_image(const DebianMirror& machine, const ImageDefinition& image);

// Bumped when the way a rootfs is made changes, so old caches are not reused.
inline constexpr int rootfs_format_version = 1;

// "base-bookworm-0123456789ab": the shared debootstrap tree.
std::string base_rootfs_key(const DebianMirror& mirror);
// "cuda13.0-0123456789abcdef": the image's tree; the hash covers the base too.
std::string image_rootfs_key(const ImageDefinition& image, const DebianMirror& mirror);

struct RootfsPaths {
  std::filesystem::path cache_root;  // <cache>/ci-rootfs
  std::filesystem::path base;
  std::filesystem::path image;
};
RootfsPaths rootfs_paths(const std::filesystem::path& gpuenv_cache_dir, const ImageDefinition& image,
                         const DebianMirror& mirror);

// Where a tree is built before the rename: beside its final place (same
// file system), named after the key and this process, hidden by the dot.
std::filesystem::path staging_path(const std::filesystem::path& final_path, long pid);

// Removes the `.staging-*-<pid>` entries of `directory` whose process no
// longer runs: what an interrupted build (a tree, a wheel folder, a bundle)
// left behind.
void remove_stale_staging(const std::filesystem::path& directory);

// The marker written last into a complete tree; a tree without it is debris.
inline constexpr std::string_view rootfs_marker = "gpuenv-ci-rootfs.json";

std::vector<std::string> debootstrap_command(const DebianMirror& mirror, const std::filesystem::path& target);

// /etc/apt/sources.list of the image: the release and its -updates, with
// main and the image's components.
std::string apt_sources_list(const ImageDefinition& image, const DebianMirror& mirror);

// Everything apt installs: system packages, compilers, a Debian toolkit.
std::vector<std::string> apt_packages(const ImageDefinition& image);

// gpuenv build's machine compilers are `gcc` and `g++` on PATH: an image
// whose compilers are versioned (gcc-11 for CUDA 11.8) gets links to them in
// /usr/local/bin (link, target), so its builds use them, as its Dockerfile does.
std::vector<std::pair<std::string, std::string>> compiler_links(const ImageDefinition& image);

// Run on the host (its pip has the host's certificates and index settings):
// the wheels `requirements` pins (pinned_wheel_requirements), each checked
// against its sha256, no dependencies, binaries only.
std::vector<std::string> pip_download_command(const std::filesystem::path& requirements,
                                              const std::filesystem::path& wheel_dir);

}  // namespace gpuenv::ci
