// make_demo_channel OUTPUT_DIR: writes gpuenv's embedded demo channel, a
// small conda channel built the way conda-forge ships CUDA software, so that
// `scripts/demo.sh` can show gpuenv's main job on any machine, offline:
//
//   gpuenv-demo 1.0      one package, four builds of the same version:
//     cuda118_0          depends __cuda >=11.8, cuda-version >=11.8,<12
//     cuda126_0          depends __cuda >=12,   cuda-version >=12.6,<13
//     cuda130_0          depends __cuda >=13,   cuda-version >=13.0,<14
//     cpu_0              no __cuda; track_features gpuenv-demo-cpu, so a
//                        solver takes it only when no CUDA build fits
//                        (conda-forge's way of ranking a CPU variant last)
//   cuda-version 11.8/12.6/13.0 (noarch)   constrains __cuda >=<major>,
//                        as conda-forge's metapackages do
//   gpuenv-demo-data 0.9 and 1.0 (noarch)  a message file and an
//                        activate.d script; gpuenv-demo needs >=1.0
//
// Each build's bin/gpuenv-demo is a shell script holding the build's
// prefix placeholder (replaced with the environment's path on install) that
// prints which CUDA build it is, where it is installed and what activation
// set. The CUDA builds are for the platform this tool is built on, so the
// demo works on linux-64 and linux-aarch64 alike. The output is the same on
// every run (fixed timestamps), so repodata.json only changes with this file.
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/specs/platform.hpp"

namespace {

using gpuenv::package::PackageMember;

// Replaced by the environment's path when the package is linked (a text
// file: any length works; conda-build's is this long so that binary files
// have room too).
const std::string placeholder = [] {
  std::string text = "/opt/gpuenv-demo/_build_env_placehold";
  while (text.size() < 200) text += "_placehold";
  return text;
}();

constexpr std::int64_t fixed_mtime = 1750000000;         // seconds
constexpr std::uint64_t fixed_timestamp = 1750000000000;  // milliseconds

struct DemoFile {
  std::string path;
  std::string content;
  unsigned mode = 0644;
  bool holds_prefix = false;
};

struct DemoPackage {
  std::string name = {};
  std::string version = {};
  std::string build = {};
  std::string subdir = {};
  bool noarch = false;
  std::vector<std::string> depends = {};
  std::vector<std::string> constrains = {};
  std::string track_features = {};
  std::vector<DemoFile> files = {};
};

nlohmann::json index_json(const DemoPackage& package) {
  nlohmann::json index = {{"name", package.name},
                          {"version", package.version},
                          {"build", package.build},
                          {"build_number", 0},
                          {"depends", package.depends},
                          {"constrains", package.constrains},
                          {"subdir", package.subdir},
                          {"license", "MIT"},
                          {"timestamp", fixed_timestamp}};
  if (package.noarch) index["noarch"] = "generic";
  if (!package.track_features.empty()) index["track_features"] = package.track_features;
  return index;
}

// Writes the .conda file; returns its repodata entry.
nlohmann::json write_package(const DemoPackage& package, const std::filesystem::path& channel) {
  gpuenv::package::PathsJson paths;
  std::vector<PackageMember> members;
  for (const auto& file : package.files) {
    gpuenv::package::PathEntry entry;
    entry.path = file.path;
    entry.sha256 = gpuenv::package::sha256_hex(file.content);
    entry.size_in_bytes = file.content.size();
    if (file.holds_prefix) entry.prefix_placeholder = placeholder;
    paths.paths.push_back(std::move(entry));
  }
  const auto add = [&](std::string path, std::string content, unsigned mode) {
    PackageMember member;
    member.path = std::move(path);
    member.content = std::move(content);
    member.mode = mode;
    member.mtime = fixed_mtime;
    members.push_back(std::move(member));
  };
  const auto index = index_json(package);
  add("info/index.json", index.dump(2), 0644);
  add("info/paths.json", gpuenv::package::paths_json_text(paths), 0644);
  add("info/about.json",
      nlohmann::json{{"summary", "gpuenv's demo: a package built for several CUDA versions"}}.dump(2), 0644);
  for (const auto& file : package.files) add(file.path, file.content, file.mode);

  const auto directory = channel / package.subdir;
  std::filesystem::create_directories(directory);
  const auto filename = package.name + "-" + package.version + "-" + package.build + ".conda";
  const auto output = directory / filename;
  gpuenv::package::write_package_members(output, members, {.compression_level = 19});

  auto record = gpuenv::package::record_from_json(index, filename);
  const auto digests = gpuenv::package::hash_file(output, true, true);
  record.sha256 = digests.sha256;
  record.md5 = digests.md5;
  record.size = digests.size;
  auto entry = gpuenv::package::record_to_json(record);
  for (const char* key : {"url", "channel", "fn"}) entry.erase(key);
  return entry;
}

std::string demo_script(const std::string& variant, const std::string& dist) {
  return fmt::format(R"SH(#!/bin/sh
# gpuenv-demo: prints which build of it the solver chose for this machine.
prefix="{placeholder}"
echo "gpuenv-demo 1.0, {variant} ({dist})"
echo "installed in:     $prefix"
echo "environment:      ${{CONDA_PREFIX:-<not activated: run it with gpuenv run>}}"
echo "activation:       ${{GPUENV_DEMO_ACTIVATED:-activate.d scripts did not run}}"
cat "$prefix/share/gpuenv-demo/message.txt"
)SH",
                     fmt::arg("placeholder", placeholder), fmt::arg("variant", variant), fmt::arg("dist", dist));
}

std::vector<DemoPackage> demo_packages(const std::string& platform) {
  std::vector<DemoPackage> packages;
  struct CudaBuild {
    std::string build, label, cuda_dependency, cuda_version;
  };
  const std::vector<CudaBuild> builds = {
      {"cuda118_0", "the CUDA 11.8 build", "__cuda >=11.8", "cuda-version >=11.8,<12"},
      {"cuda126_0", "the CUDA 12.6 build", "__cuda >=12", "cuda-version >=12.6,<13"},
      {"cuda130_0", "the CUDA 13.0 build", "__cuda >=13", "cuda-version >=13.0,<14"},
  };
  for (const auto& build : builds) {
    DemoPackage package{.name = "gpuenv-demo", .version = "1.0", .build = build.build, .subdir = platform};
    package.depends = {build.cuda_dependency, build.cuda_version, "gpuenv-demo-data >=1.0"};
    package.files = {{"bin/gpuenv-demo", demo_script(build.label, "gpuenv-demo-1.0-" + build.build), 0755, true}};
    packages.push_back(std::move(package));
  }
  DemoPackage cpu{.name = "gpuenv-demo", .version = "1.0", .build = "cpu_0", .subdir = platform};
  cpu.depends = {"gpuenv-demo-data >=1.0"};
  cpu.track_features = "gpuenv-demo-cpu";
  cpu.files = {{"bin/gpuenv-demo",
                demo_script("the CPU build (no CUDA driver was found, or none of the CUDA builds fits it)",
                            "gpuenv-demo-1.0-cpu_0"),
                0755, true}};
  packages.push_back(std::move(cpu));

  for (const auto& [version, build, major] : {std::tuple{"11.8", "h70ddcb2_3", "11"},
                                              std::tuple{"12.6", "h7480c83_3", "12"},
                                              std::tuple{"13.0", "hbd52c62_3", "13"}}) {
    packages.push_back({.name = "cuda-version",
                        .version = version,
                        .build = build,
                        .subdir = "noarch",
                        .noarch = true,
                        .constrains = {fmt::format("__cuda >={}", major),
                                       fmt::format("cudatoolkit {}|{}.*", version, version)}});
  }
  for (const auto& [version, text] :
       {std::pair{"0.9", "an old message nobody should see: the solver must pick gpuenv-demo-data 1.0\n"},
        std::pair{"1.0", "message:          from gpuenv-demo-data 1.0, a noarch package of the same environment\n"}}) {
    DemoPackage data{.name = "gpuenv-demo-data",
                     .version = version,
                     .build = "0",
                     .subdir = "noarch",
                     .noarch = true};
    data.files = {{"share/gpuenv-demo/message.txt", text},
                  {"etc/conda/activate.d/gpuenv-demo-data.sh",
                   "export GPUENV_DEMO_ACTIVATED=\"gpuenv-demo-data's activate.d script ran\"\n"}};
    packages.push_back(std::move(data));
  }
  return packages;
}

void write_repodata(const std::filesystem::path& channel, const std::string& subdir,
                    const std::map<std::string, nlohmann::json>& entries) {
  nlohmann::json document = {{"info", {{"subdir", subdir}}},
                             {"packages", nlohmann::json::object()},
                             {"packages.conda", nlohmann::json::object()},
                             {"removed", nlohmann::json::array()},
                             {"repodata_version", 1}};
  for (const auto& [filename, entry] : entries) document["packages.conda"][filename] = entry;
  std::filesystem::create_directories(channel / subdir);
  const auto path = channel / subdir / "repodata.json";
  const auto partial = channel / subdir / "repodata.json.partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << document.dump(1) << "\n";
    if (!out) throw std::runtime_error("cannot write " + partial.string());
  }
  std::filesystem::rename(partial, path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: make_demo_channel OUTPUT_DIR\n");
    return 2;
  }
  try {
    const std::filesystem::path channel = argv[1];
    const std::string platform(gpuenv::specs::Platform::current().str());
    std::map<std::string, std::map<std::string, nlohmann::json>> repodata;
    repodata[platform];
    repodata["noarch"];
    for (const auto& package : demo_packages(platform)) {
      const auto filename = package.name + "-" + package.version + "-" + package.build + ".conda";
      repodata[package.subdir][filename] = write_package(package, channel);
    }
    for (const auto& [subdir, entries] : repodata) write_repodata(channel, subdir, entries);
    return 0;
  } catch (const std::exception& error) {
    fmt::print(stderr, "make_demo_channel: {}\n", error.what());
    return 1;
  }
}
