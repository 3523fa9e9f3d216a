#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/ci/rootfs.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::CudaToolkit;
using gpuenv::ci::DebianMirror;
using gpuenv::ci::ImageDefinition;
using gpuenv::ci::ToolkitProvider;

ImageDefinition cuda_image() {
  ImageDefinition image;
  image.name = "cuda13.0";
  image.base = "debian:12";
  image.glibc = "2.36";
  image.system_packages = {"ca-certificates", "python3-pip"};
  image.c_compiler = "gcc";
  image.cxx_compiler = "g++";
  CudaToolkit cuda;
  cuda.version = "13.0";
  cuda.provider = ToolkitProvider::pypi;
  cuda.home = "/opt/cuda-13.0";
  cuda.wheel_root = "nvidia/cu13";
  cuda.packages = {"nvidia-cuda-nvcc==13.0.88"};
  cuda.wheel_sha256 = {std::string(64, 'a')};
  image.cuda = cuda;
  image.gpuenv_binary = "build/release/gpuenv";
  return image;
}

const char* kHostSources = R"(Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
)";

TEST(DebianMirror, TheHostsFirstReleaseStanzaIsTheMirror) {
  const auto mirror = gpuenv::ci::debian_mirror_from_sources(kHostSources, "debian.sources");
  ASSERT_TRUE(mirror) << mirror.error().message;
  EXPECT_EQ(mirror->uri, "http://deb.debian.org/debian");
  EXPECT_EQ(mirror->suite, "bookworm");
}

TEST(DebianMirror, SourceStanzasAndSecurityOnlyFilesAreNotAMirror) {
  const auto only_sources = gpuenv::ci::debian_mirror_from_sources(
      "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n", "src.sources");
  ASSERT_FALSE(only_sources);
  EXPECT_NE(only_sources.error().message.find("src.sources: no 'Types: deb' entry"), std::string::npos);
  EXPECT_FALSE(gpuenv::ci::debian_mirror_from_sources(
      "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n", "s.sources"));
}

TEST(DebianMirror, AUriThatCouldBeMisreadIsRefusedNamingTheFile) {
  const auto hostile = gpuenv::ci::debian_mirror_from_sources(
      "Types: deb\nURIs: http://x/$(reboot)\nSuites: bookworm\n", "/etc/apt/sources.list.d/evil.sources");
  ASSERT_FALSE(hostile);
  EXPECT_NE(hostile.error().message.find("/etc/apt/sources.list.d/evil.sources"), std::string::npos);
  EXPECT_FALSE(gpuenv::ci::debian_mirror_from_sources("Types: deb\nURIs: file:///mnt\nSuites: bookworm\n", "f"));
  EXPECT_FALSE(
      gpuenv::ci::debian_mirror_from_sources("Types: deb\nURIs: http://d/debian\nSuites: Bookworm;x\n", "f"));
}

TEST(RootfsKey, TheSameDefinitionGivesTheSameKeyAndPaths) {
  const DebianMirror mirror;
  const auto image = cuda_image();
  const auto key = gpuenv::ci::image_rootfs_key(image, mirror);
  EXPECT_EQ(key, gpuenv::ci::image_rootfs_key(cuda_image(), mirror));
  EXPECT_TRUE(key.starts_with("cuda13.0-")) << key;
  EXPECT_EQ(key.size(), std::string("cuda13.0-").size() + 16);
  const auto paths = gpuenv::ci::rootfs_paths("/cache/gpuenv", image, mirror);
  EXPECT_EQ(paths.cache_root, fs::path("/cache/gpuenv/ci-rootfs"));
  EXPECT_EQ(paths.image, fs::path("/cache/gpuenv/ci-rootfs") / key);
  EXPECT_EQ(paths.base.parent_path(), paths.cache_root);
  EXPECT_TRUE(paths.base.filename().string().starts_with("base-bookworm-")) << paths.base;
}

TEST(RootfsKey, WhatChangesTheTreeChangesTheKeyAndNothingElseDoes) {
  const DebianMirror mirror;
  const auto key = gpuenv::ci::image_rootfs_key(cuda_image(), mirror);
  auto described = cuda_image();
  described.description = "another description";
  described.gpuenv_binary = "build/dev/gpuenv";  // bind-mounted at run time, not in the tree
  EXPECT_EQ(gpuenv::ci::image_rootfs_key(described, mirror), key);

  auto more_packages = cuda_image();
  more_packages.system_packages.push_back("cmake");
  EXPECT_NE(gpuenv::ci::image_rootfs_key(more_packages, mirror), key);
  auto other_toolkit = cuda_image();
  other_toolkit.cuda->packages = {"nvidia-cuda-nvcc==13.0.48"};
  EXPECT_NE(gpuenv::ci::image_rootfs_key(other_toolkit, mirror), key);
  auto other_wheel_digest = cuda_image();
  other_wheel_digest.cuda->wheel_sha256 = {std::string(64, 'b')};
  EXPECT_NE(gpuenv::ci::image_rootfs_key(other_wheel_digest, mirror), key);
  auto non_free = cuda_image();
  non_free.apt_components = {"contrib", "non-free"};
  EXPECT_NE(gpuenv::ci::image_rootfs_key(non_free, mirror), key);
  EXPECT_NE(gpuenv::ci::image_rootfs_key(cuda_image(), DebianMirror{"http://mirror.example/debian", "bookworm"}),
            key);
  EXPECT_NE(gpuenv::ci::base_rootfs_key(DebianMirror{"http://deb.debian.org/debian", "trixie"}),
            gpuenv::ci::base_rootfs_key(mirror));
}

TEST(RootfsKey, ABundleImageGetsItsOwnTree) {
  // Its /usr/local/bin/gpuenv is a link into the bundle's mount point.
  auto bundled = cuda_image();
  bundled.gpuenv_binary.clear();
  bundled.gpuenv_bundle = "build/release/gpuenv-bundle";
  EXPECT_NE(gpuenv::ci::image_rootfs_key(bundled, DebianMirror{}), gpuenv::ci::image_rootfs_key(cuda_image(), DebianMirror{}));
}

TEST(DebianMirror, EachImageGetsItsOwnReleaseFromTheMachinesMirror) {
  const DebianMirror machine{"http://mirror.example/debian", "bookworm"};
  auto image = cuda_image();
  for (const auto& [base, suite] : std::vector<std::pair<std::string, std::string>>{
           {"debian:12", "bookworm"}, {"debian:13", "trixie"}, {"debian:trixie", "trixie"}, {"debian:sid", "sid"}}) {
    image.base = base;
    auto mirror = gpuenv::ci::mirror_for_image(machine, image);
    ASSERT_TRUE(mirror) << base << ": " << mirror.error().message;
    EXPECT_EQ(mirror->uri, machine.uri) << base;
    EXPECT_EQ(mirror->suite, suite) << base;
  }
  image.base = "debian:13";
  const auto trixie = gpuenv::ci::rootfs_paths("/cache", image, *gpuenv::ci::mirror_for_image(machine, image));
  EXPECT_EQ(trixie.base.filename().string().rfind("base-trixie-", 0), 0u) << trixie.base;
  image.base = "debian:12";
  const auto bookworm = gpuenv::ci::rootfs_paths("/cache", image, *gpuenv::ci::mirror_for_image(machine, image));
  EXPECT_EQ(bookworm.base.filename().string().rfind("base-bookworm-", 0), 0u) << bookworm.base;
  for (const char* base : {"ubuntu:24.04", "debian:99", "debian:12-slim", "almalinux:8"}) {
    image.base = base;
    auto mirror = gpuenv::ci::mirror_for_image(machine, image);
    ASSERT_FALSE(mirror) << base;
    EXPECT_NE(mirror.error().message.find("not a Debian release"), std::string::npos) << mirror.error().message;
  }
}

TEST(RootfsKey, StagingTreesAreHiddenBesideTheirFinalPlace) {
  const auto staging = gpuenv::ci::staging_path("/cache/ci-rootfs/cuda13.0-0123", 4242);
  EXPECT_EQ(staging, fs::path("/cache/ci-rootfs/.staging-cuda13.0-0123-4242"));
}

TEST(RootfsCommands, DebootstrapMakesAMinimalBaseFromTheMirror) {
  const std::vector<std::string> expected{"debootstrap", "--variant=minbase", "--components=main", "bookworm",
                                          "/tmp/base",   "http://deb.debian.org/debian"};
  EXPECT_EQ(gpuenv::ci::debootstrap_command(DebianMirror{}, "/tmp/base"), expected);
}

TEST(RootfsCommands, TheImagesComponentsAndPackagesAsItsDockerfileHasThem) {
  auto image = cuda_image();
  image.apt_components = {"contrib", "non-free"};
  image.cuda->provider = ToolkitProvider::debian;
  image.cuda->packages = {"nvidia-cuda-toolkit"};
  EXPECT_EQ(gpuenv::ci::apt_sources_list(image, DebianMirror{}),
            "deb http://deb.debian.org/debian bookworm main contrib non-free\n"
            "deb http://deb.debian.org/debian bookworm-updates main contrib non-free\n");
  const std::vector<std::string> packages{"ca-certificates", "python3-pip", "gcc", "g++", "nvidia-cuda-toolkit"};
  EXPECT_EQ(gpuenv::ci::apt_packages(image), packages);
  // A pypi toolkit is not an apt package.
  EXPECT_EQ(gpuenv::ci::apt_packages(cuda_image()).size(), 4u);
}

TEST(RootfsCommands, WheelsAreDownloadedPinnedWithoutDependenciesAsBinaries) {
  const std::vector<std::string> expected{"python3",  "-m", "pip", "download", "--require-hashes", "--no-deps",
                                          "--only-binary=:all:", "--dest", "/tmp/wheels", "-r", "/tmp/wheels.txt"};
  EXPECT_EQ(gpuenv::ci::pip_download_command("/tmp/wheels.txt", "/tmp/wheels"), expected);
  EXPECT_EQ(gpuenv::ci::pinned_wheel_requirements(*cuda_image().cuda),
            "nvidia-cuda-nvcc==13.0.88 --hash=sha256:" + std::string(64, 'a') + "\n");
}

// pip itself enforces the pins: a wheel whose bytes are not the pinned
// sha256 (a compromised mirror, a replaced upload) is refused, the pinned
// one downloaded. Served from a local directory instead of PyPI.
TEST(RootfsCommands, PipRefusesAWheelThatIsNotThePinnedOne) {
  gpuenv::testing::TempDirectory dir;
  const fs::path index = dir.path() / "index";
  fs::create_directories(index);
  const fs::path wheel = index / "gpuenv_pin_test-1.0-py3-none-any.whl";
  const auto made = gpuenv::testing::run_program(
      "python3", {"-c",
                  "import sys, zipfile\n"
                  "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                  "    info = 'gpuenv_pin_test-1.0.dist-info/'\n"
                  "    z.writestr(info + 'METADATA', 'Metadata-Version: 2.1\\nName: gpuenv-pin-test\\nVersion: 1.0\\n')\n"
                  "    z.writestr(info + 'WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
                  "    z.writestr(info + 'RECORD', '')\n",
                  wheel.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto hashed = gpuenv::testing::run_program(
      "python3", {"-c", "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
                  wheel.string()});
  ASSERT_EQ(hashed.exit_code, 0) << hashed.err;
  const std::string right = hashed.out.substr(0, 64);

  CudaToolkit toolkit;
  toolkit.packages = {"gpuenv-pin-test==1.0"};
  for (const auto& [sha256, accepted] : {std::pair{std::string(64, '0'), false}, std::pair{right, true}}) {
    toolkit.wheel_sha256 = {sha256};
    const fs::path requirements = dir.path() / "requirements.txt";
    gpuenv::testing::write_text_file(requirements, gpuenv::ci::pinned_wheel_requirements(toolkit));
    const fs::path downloads = dir.path() / ("downloads-" + sha256.substr(0, 8));
    auto command = gpuenv::ci::pip_download_command(requirements, downloads);
    command.insert(command.end(), {"--no-index", "--find-links", index.string()});
    const auto pip = gpuenv::testing::run_program(command.front(), {command.begin() + 1, command.end()});
    EXPECT_EQ(pip.exit_code == 0, accepted) << pip.out << pip.err;
    EXPECT_EQ(fs::exists(downloads / wheel.filename()), accepted);
    if (!accepted) {
      EXPECT_NE(pip.err.find("DO NOT MATCH THE HASHES"), std::string::npos) << pip.err;
    }
  }
}

}  // namespace

namespace {

TEST(RootfsCommands, AnImagesVersionedCompilersBecomeItsGccAndGxx) {
  auto image = cuda_image();
  EXPECT_TRUE(gpuenv::ci::compiler_links(image).empty()) << "gcc and g++ are already the machine's";
  image.c_compiler = "gcc-11";
  image.cxx_compiler = "g++-11";
  const std::vector<std::pair<std::string, std::string>> expected{{"/usr/local/bin/gcc", "/usr/bin/gcc-11"},
                                                                  {"/usr/local/bin/g++", "/usr/bin/g++-11"}};
  EXPECT_EQ(gpuenv::ci::compiler_links(image), expected);
}

TEST(DebianMirror, TheSourcesFileIsGpuenvCiDebianSourcesWhenSetElseApts) {
  using gpuenv::util::fixed_environment;
  EXPECT_EQ(gpuenv::ci::debian_sources_file(fixed_environment({})), "/etc/apt/sources.list.d/debian.sources");
  EXPECT_EQ(gpuenv::ci::debian_sources_file(fixed_environment({{"GPUENV_CI_DEBIAN_SOURCES", ""}})),
            "/etc/apt/sources.list.d/debian.sources");
  EXPECT_EQ(gpuenv::ci::debian_sources_file(fixed_environment({{"GPUENV_CI_DEBIAN_SOURCES", "/tmp/mirror.sources"}})),
            "/tmp/mirror.sources");
}

}  // namespace
