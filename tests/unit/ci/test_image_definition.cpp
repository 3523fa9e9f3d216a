#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/ci/image_definition.hpp"
#include "support/temp_directory.hpp"

namespace {

using gpuenv::ci::CiError;
using gpuenv::ci::parse_image_definition;
using gpuenv::ci::ToolkitProvider;

const std::string cuda_image = R"(description: CUDA 13.0 image
base: debian:12
glibc: "2.36"
system_packages: [ca-certificates, python3-pip, libyaml-cpp0.7]
compilers: {c: gcc, cxx: g++}
cuda:
  version: "13.0"
  provider: pypi
  home: /opt/cuda-13.0
  wheel_root: nvidia/cu13
  packages:
    - {wheel: nvidia-cuda-nvcc==13.0.88, sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}
    - {wheel: nvidia-nvvm==13.0.88, sha256: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}
gpuenv: {binary: build/release/gpuenv}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ImageDefinition, ReadsEveryField) {
  auto image = parse_image_definition(cuda_image, "ci-images/cuda13.0/image.yaml", "cuda13.0");
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->name, "cuda13.0");
  EXPECT_EQ(image->base, "debian:12");
  EXPECT_EQ(image->glibc, "2.36");
  EXPECT_EQ(image->system_packages.size(), 3u);
  EXPECT_EQ(image->c_compiler, "gcc");
  EXPECT_EQ(image->cxx_compiler, "g++");
  ASSERT_TRUE(image->cuda);
  EXPECT_EQ(image->cuda->version, "13.0");
  EXPECT_EQ(image->cuda->provider, ToolkitProvider::pypi);
  EXPECT_EQ(image->cuda->home, "/opt/cuda-13.0");
  EXPECT_EQ(image->cuda->wheel_root, "nvidia/cu13");
  EXPECT_EQ(image->cuda->packages, (std::vector<std::string>{"nvidia-cuda-nvcc==13.0.88", "nvidia-nvvm==13.0.88"}));
  EXPECT_EQ(image->cuda->wheel_sha256, (std::vector<std::string>{std::string(64, 'a'), std::string(64, 'b')}));
  EXPECT_EQ(gpuenv::ci::pinned_wheel_requirements(*image->cuda),
            "nvidia-cuda-nvcc==13.0.88 --hash=sha256:" + std::string(64, 'a') + "\n" +
                "nvidia-nvvm==13.0.88 --hash=sha256:" + std::string(64, 'b') + "\n");
  EXPECT_EQ(image->gpuenv_binary, "build/release/gpuenv");
}

// A wheel is downloaded only with the sha256 the definition pins: like the
// Debian packages (apt) and conda packages (gpuenv) of the other providers.
TEST(ImageDefinition, PypiWheelsArePinnedToTheirSha256) {
  const std::string entry = "- {wheel: nvidia-cuda-nvcc==13.0.88, sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}";
  auto bare = parse_image_definition(replaced(cuda_image, entry, "- nvidia-cuda-nvcc==13.0.88"), "image.yaml", "x");
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.error().message.find("without its sha256"), std::string::npos) << bare.error().message;
  auto no_hash = parse_image_definition(replaced(cuda_image, entry, "- {wheel: nvidia-cuda-nvcc==13.0.88}"),
                                        "image.yaml", "x");
  ASSERT_FALSE(no_hash);
  EXPECT_NE(no_hash.error().message.find("sha256"), std::string::npos) << no_hash.error().message;
  for (const std::string& hash : {std::string(63, 'a'), std::string(64, 'A'), std::string(64, 'g'), std::string(65, 'a')}) {
    auto bad = parse_image_definition(
        replaced(cuda_image, entry, "- {wheel: nvidia-cuda-nvcc==13.0.88, sha256: " + hash + "}"), "image.yaml", "x");
    EXPECT_FALSE(bad) << hash;
  }
  for (const char* wheel : {"nvidia-cuda-nvcc>=13.0", "nvidia-cuda-nvcc", "nvidia-cuda-nvcc==13.0.*",
                            "'nvidia-cuda-nvcc==1;rm -rf /'", "==13.0", "-r==1", "nvidia-cuda-nvcc==13.0.88 --pre"}) {
    auto loose = parse_image_definition(
        replaced(cuda_image, entry, std::string("- {wheel: ") + wheel + ", sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}"), "image.yaml", "x");
    EXPECT_FALSE(loose) << wheel;
  }
  auto extra = parse_image_definition(
      replaced(cuda_image, entry, "- {wheel: nvidia-cuda-nvcc==13.0.88, sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, index: http://evil}"),
      "image.yaml", "x");
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message.find("index"), std::string::npos) << extra.error().message;
}

TEST(ImageDefinition, GpuenvComesAsABinaryOrABundleNeverBothOrNeither) {
  auto bundled = parse_image_definition(
      replaced(cuda_image, "gpuenv: {binary: build/release/gpuenv}", "gpuenv: {bundle: build/release/gpuenv-bundle}"),
      "image.yaml", "cuda12.4");
  ASSERT_TRUE(bundled) << bundled.error().message;
  EXPECT_EQ(bundled->gpuenv_bundle, "build/release/gpuenv-bundle");
  EXPECT_TRUE(bundled->gpuenv_binary.empty());
  for (const char* gpuenv : {"gpuenv: {binary: build/release/gpuenv, bundle: build/b}", "gpuenv: {}"}) {
    auto image = parse_image_definition(replaced(cuda_image, "gpuenv: {binary: build/release/gpuenv}", gpuenv),
                                        "image.yaml", "x");
    ASSERT_FALSE(image) << gpuenv;
    EXPECT_NE(image.error().message.find("exactly one of 'binary'"), std::string::npos) << image.error().message;
  }
  for (const char* path : {"../outside", "/abs/bundle", "build/$(reboot)"}) {
    auto image = parse_image_definition(
        replaced(cuda_image, "gpuenv: {binary: build/release/gpuenv}", std::string("gpuenv: {bundle: '") + path + "'}"),
        "image.yaml", "x");
    ASSERT_FALSE(image) << path;
    EXPECT_NE(image.error().message.find("'gpuenv.bundle'"), std::string::npos) << image.error().message;
  }
}

TEST(ImageDefinition, UnknownKeyIsNamed) {
  auto image = parse_image_definition(cuda_image + "entrypoint: /bin/sh\n", "image.yaml", "x");
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().kind, CiError::Kind::invalid);
  EXPECT_NE(image.error().message.find("unknown key 'entrypoint'"), std::string::npos) << image.error().message;
  EXPECT_NE(image.error().message.find("image.yaml"), std::string::npos) << image.error().message;

  auto nested = parse_image_definition(replaced(cuda_image, "home:", "run: x\n  home:"), "image.yaml", "x");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("unknown key 'run' in 'cuda'"), std::string::npos) << nested.error().message;
}

TEST(ImageDefinition, ShellMetacharactersNeverReachTheDockerfile) {
  const std::pair<std::string, std::string> hostile[] = {
      {"ca-certificates,", "ca-certificates;rm,"},
      {"python3-pip", "'python3-pip && curl evil | sh'"},
      {"/opt/cuda-13.0", "\"/opt/cuda $(id)\""},
      {"/opt/cuda-13.0", "/opt/../etc"},
      {"nvidia/cu13", "../../etc"},
      {"nvidia-nvvm==13.0.88", "'nvidia-nvvm>=13 ; echo'"},
      {"debian:12", "\"debian:12\\nRUN evil\""},
      {"build/release/gpuenv", "/etc/shadow"},
      {"c: gcc", "c: 'gcc`id`'"},
      {"CUDA 13.0 image", "\"two\\nlines\""},
      {"\"13.0\"", "\"13.0 && x\""},
  };
  for (const auto& [from, to] : hostile) {
    auto image = parse_image_definition(replaced(cuda_image, from, to), "image.yaml", "x");
    EXPECT_FALSE(image) << to;
    if (!image) {
      EXPECT_EQ(image.error().kind, CiError::Kind::invalid) << image.error().message;
    }
  }
}

TEST(ImageDefinition, DebianPackageNamesFollowPolicy) {
  for (const char* name : {"Gcc", "-gcc", "g", "gcc_12", "gcc 12"}) {
    auto image = parse_image_definition(replaced(cuda_image, "compilers: {c: gcc", std::string("compilers: {c: '") + name + "'"),
                                        "image.yaml", "x");
    EXPECT_FALSE(image) << name;
  }
  EXPECT_TRUE(parse_image_definition(replaced(cuda_image, "c: gcc", "c: gcc-11"), "image.yaml", "x"));
  EXPECT_TRUE(parse_image_definition(replaced(cuda_image, "libyaml-cpp0.7", "libstdc++6"), "image.yaml", "x"));
}

TEST(ImageDefinition, ProviderFieldsMustFit) {
  auto no_root = parse_image_definition(replaced(cuda_image, "  wheel_root: nvidia/cu13\n", ""), "image.yaml", "x");
  ASSERT_FALSE(no_root);
  EXPECT_NE(no_root.error().message.find("wheel_root"), std::string::npos);
  auto unknown = parse_image_definition(replaced(cuda_image, "provider: pypi", "provider: runfile"), "image.yaml", "x");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("runfile"), std::string::npos);
  auto conda = parse_image_definition(
      replaced(replaced(cuda_image, "provider: pypi", "provider: conda"),
               "    - {wheel: nvidia-cuda-nvcc==13.0.88, sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n    - {wheel: nvidia-nvvm==13.0.88, sha256: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}",
               "    - cuda-nvcc=13.0"),
      "image.yaml", "x");
  ASSERT_FALSE(conda);
  EXPECT_NE(conda.error().message.find("wheel_root"), std::string::npos) << conda.error().message;
}

TEST(ImageDefinition, BoundedInSizeAndListLength) {
  std::string big = cuda_image + "# " + std::string(gpuenv::ci::max_image_file_bytes, 'x') + "\n";
  auto image = parse_image_definition(big, "image.yaml", "x");
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().kind, CiError::Kind::too_large);

  std::string many = "[";
  for (int i = 0; i < 600; ++i) many += "pkg" + std::to_string(i) + ",";
  many += "last]";
  auto listed = parse_image_definition(replaced(cuda_image, "[ca-certificates, python3-pip, libyaml-cpp0.7]", many),
                                       "image.yaml", "x");
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().kind, CiError::Kind::too_large);
}

TEST(ImageDefinition, NotYamlOrNotAMappingIsAnError) {
  for (const char* text : {"[unclosed", "- a list\n", "", "base: [debian]\n"}) {
    auto image = parse_image_definition(text, "image.yaml", "x");
    ASSERT_FALSE(image) << text;
    EXPECT_NE(image.error().message.find("image.yaml"), std::string::npos) << image.error().message;
  }
}

TEST(ImageDefinition, FolderNameIsTheImageName) {
  EXPECT_FALSE(parse_image_definition(cuda_image, "image.yaml", "CUDA 13"));
  EXPECT_FALSE(parse_image_definition(cuda_image, "image.yaml", "../x"));
}

TEST(ImageDefinition, EveryRepositoryImageReads) {
  auto images = gpuenv::ci::read_image_definitions(std::filesystem::path(GPUENV_SOURCE_DIR) / "ci-images");
  ASSERT_TRUE(images) << images.error().message;
  std::vector<std::string> names;
  for (const auto& image : *images) names.push_back(image.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "cuda11.8", "cuda12.4", "cuda12.9", "cuda13.0"}));
  for (const auto& image : *images) {
    if (image.name == "cpu") {
      EXPECT_FALSE(image.cuda);
    } else {
      ASSERT_TRUE(image.cuda) << image.name;
      EXPECT_EQ("cuda" + image.cuda->version, image.name);
    }
  }
}

TEST(ImageDefinition, UnreadableFileIsNamed) {
  gpuenv::testing::TempDirectory dir;
  std::filesystem::create_directories(dir.path() / "cpu" / "image.yaml");  // a folder, not a file
  auto images = gpuenv::ci::read_image_definitions(dir.path());
  ASSERT_FALSE(images);
  EXPECT_NE(images.error().message.find("image.yaml"), std::string::npos) << images.error().message;
}

}  // namespace
