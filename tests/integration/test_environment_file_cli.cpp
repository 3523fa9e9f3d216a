// `gpuenv create --file` and `gpuenv install --file`: environment.yml,
// explicit lockfiles (@EXPLICIT) and spec lists, and the errors bad files
// get (each naming the file and the line).
#include <gtest/gtest.h>

#include "gpuenv/package/hashing.hpp"
#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::read_file;
using gpuenv::testing::read_json_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;
using Dists = std::vector<std::string>;

using gpuenv::testing::contains;

class EnvironmentFileCli : public ::testing::Test {
 protected:
  // `gpuenv <command> -y --file <file> args...` (no -c: the file names its channels).
  gpuenv::testing::CommandOutput gpuenv(const std::string& command, const fs::path& file,
                                        std::vector<std::string> args = {}) {
    std::vector<std::string> all = {command, "-y", "--file", file.string()};
    all.insert(all.end(), args.begin(), args.end());
    return run_gpuenv(all, machine_.env({"CONDA_CHANNELS=" + (machine_ / "not-a-channel").string()}));
  }

  std::string package_url(const std::string& fn) const { return machine_.channel() + "/linux-64/" + fn; }
  std::string sha256_of(const std::string& fn) const {
    return gpuenv::package::hash_file(machine_.channel_dir() / "linux-64" / fn, true, false).sha256;
  }

  InstallCliMachine machine_;
};

TEST_F(EnvironmentFileCli, EnvironmentYamlCreatesTheNamedEnvironment) {
  const auto file = machine_ / "environment.yml";
  write_text_file(file, "name: analysis\n"
                        "channels:\n"
                        "  - " + machine_.channel() + "\n"
                        "dependencies:\n"
                        "  - app\n"
                        "  - libdep =1.0\n"
                        "variables:\n"
                        "  MODE: fast\n");
  const auto result = gpuenv("create", file, {"--override-channels"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto prefix = machine_ / "root/envs/analysis";
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-1.0-h0_0"}));
  EXPECT_EQ(read_json_file(prefix / "conda-meta/libdep-1.0-h0_0.json")["requested_spec"], "libdep =1.0");
  // What gpuenv does not act on is said, with its line.
  EXPECT_TRUE(contains(result.err, file.string() + ":7: 'variables' is not used by gpuenv")) << result.err;

  // -p wins over the file's name; specs on the command line add to the file's.
  const auto elsewhere = gpuenv("create", file, {"--override-channels", "-p", (machine_ / "env").string(), "tool"});
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_EQ(installed_dists(machine_ / "env"), (Dists{"app-1.0-h1_0", "libdep-1.0-h0_0", "tool-1.0-0"}));
}

TEST_F(EnvironmentFileCli, PipDependenciesAreRefusedClearly) {
  const auto file = machine_ / "environment.yml";
  write_text_file(file, "name: withpip\n"
                        "channels: [" + machine_.channel() + "]\n"
                        "dependencies:\n"
                        "  - app\n"
                        "  - pip:\n"
                        "      - requests\n");
  const auto result = gpuenv("create", file, {"--override-channels"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, file.string() + ":5: gpuenv does not install pip packages")) << result.err;
  EXPECT_FALSE(fs::exists(machine_ / "root/envs/withpip"));
}

TEST_F(EnvironmentFileCli, BadEnvironmentFilesNameTheLine) {
  const auto file = machine_ / "environment.yml";
  write_text_file(file, "name: broken\ndependencies:\n  - app\n  - 'libdep >=>1'\n");
  auto result = gpuenv("create", file);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, file.string() + ":4: 'libdep >=>1' is not a package spec")) << result.err;

  write_text_file(file, "name: broken\ndependencies:\n  - app\n - tool\n");
  result = gpuenv("create", file);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, file.string() + ":4: this is not valid YAML")) << result.err;

  write_text_file(file, "- app\n- tool\n");
  result = gpuenv("create", file, {"-p", (machine_ / "env").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "is a mapping with name, channels and dependencies; this one is a list"))
      << result.err;

  write_text_file(file, "name: broken\ndependencies:\n  - {numpy: 1}\n");
  result = gpuenv("create", file);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, file.string() + ":3: each dependency must be a package spec")) << result.err;

  result = gpuenv("create", machine_ / "missing.yml", {"-p", (machine_ / "env").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "missing.yml: no such file")) << result.err;
  EXPECT_FALSE(fs::exists(machine_ / "root/envs/broken"));
  EXPECT_FALSE(fs::exists(machine_ / "env"));
}

TEST_F(EnvironmentFileCli, ExplicitFilesInstallExactlyTheirPackagesWithoutSolving) {
  const auto file = machine_ / "explicit.txt";
  write_text_file(file, "# This file may be used to create an environment using:\n"
                        "# platform: linux-64\n"
                        "@EXPLICIT\n" +
                            package_url("libdep-1.0-h0_0.conda") + "#" + sha256_of("libdep-1.0-h0_0.conda") + "\n" +
                            package_url("app-1.0-h1_0.conda") + "#sha256:" + sha256_of("app-1.0-h1_0.conda") + "\n");
  // No repodata is read: the channel's index may as well be gone.
  fs::remove(machine_.channel_dir() / "linux-64/repodata.json");
  const auto prefix = machine_ / "env";
  const auto result = gpuenv("create", file, {"-p", prefix.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-1.0-h0_0"}));
  EXPECT_EQ(read_file(prefix / "share/libdep/VERSION"), "1.0\n");
  const auto record = read_json_file(prefix / "conda-meta/app-1.0-h1_0.json");
  EXPECT_EQ(record["url"], package_url("app-1.0-h1_0.conda"));
  EXPECT_EQ(record["channel"], machine_.channel() + "/linux-64");
  EXPECT_EQ(record["subdir"], "linux-64");
  EXPECT_EQ(record["sha256"], sha256_of("app-1.0-h1_0.conda"));
  // From the package's index.json: the URL does not say.
  EXPECT_EQ(record["depends"], nlohmann::json::array({"libdep >=1.0"}));
  EXPECT_EQ(record["license"], "BSD-3-Clause");
}

// Packages made by conda-build (conda-package-handling's test package,
// checked by md5) and rattler-build (ca-certificates, by sha256; `empty`,
// unchecked), named by path.
TEST_F(EnvironmentFileCli, ExplicitFilesOfRealPackages) {
  const auto packages = fs::weakly_canonical(gpuenv::testing::testdata_dir() / "packages");
  const auto cph = packages / "conda-package-handling/cph_test_data-0.0.1-0.tar.bz2";
  const auto certificates = packages / "rattler/ca-certificates-2024.7.4-hbcca054_0.conda";
  const auto empty = packages / "rattler/packages/empty-0.1.0-h4616a5c_0.conda";
  const auto md5 = gpuenv::package::hash_file(cph, false, true).md5;
  const auto sha256 = gpuenv::package::hash_file(certificates, true, false).sha256;
  const auto file = machine_ / "explicit.txt";
  write_text_file(file, "@EXPLICIT\n" + cph.string() + "#" + md5 + "\n" + certificates.string() + "#" + sha256 +
                            "\n" + empty.string() + "\n");
  const auto prefix = machine_ / "env";
  const auto result = gpuenv("create", file, {"-p", prefix.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix),
            (Dists{"ca-certificates-2024.7.4-hbcca054_0", "cph_test_data-0.0.1-0", "empty-0.1.0-h4616a5c_0"}));
  const auto record = read_json_file(prefix / "conda-meta/cph_test_data-0.0.1-0.json");
  EXPECT_EQ(record["md5"], md5);
  EXPECT_EQ(record["url"], "file://" + cph.string());
  EXPECT_FALSE(record["files"].empty());
  for (const auto* name : {"cph_test_data-0.0.1-0", "ca-certificates-2024.7.4-hbcca054_0"}) {
    for (const auto& path : read_json_file(prefix / "conda-meta" / (std::string(name) + ".json"))["files"]) {
      EXPECT_TRUE(fs::exists(fs::symlink_status(prefix / path.get<std::string>()))) << path;
    }
  }
  const auto certificates_record = read_json_file(prefix / "conda-meta/ca-certificates-2024.7.4-hbcca054_0.json");
  EXPECT_EQ(certificates_record["sha256"], sha256);
  EXPECT_EQ(certificates_record["subdir"], "linux-64");  // from index.json: the path has no subdir
  EXPECT_TRUE(fs::exists(prefix / "ssl/cacert.pem"));
}

TEST_F(EnvironmentFileCli, AnExplicitHashThatDoesNotMatchIsRefused) {
  const auto file = machine_ / "explicit.txt";
  const std::string wrong(64, 'e');
  write_text_file(file, "@EXPLICIT\n" + package_url("tool-1.0-0.conda") + "#" + wrong + "\n");
  const auto prefix = machine_ / "env";
  const auto result = gpuenv("create", file, {"-p", prefix.string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, package_url("tool-1.0-0.conda"))) << result.err;
  EXPECT_TRUE(contains(result.err, wrong)) << result.err;
  EXPECT_TRUE(contains(result.err, sha256_of("tool-1.0-0.conda"))) << result.err;
  EXPECT_TRUE(installed_dists(prefix).empty());
  EXPECT_FALSE(fs::exists(prefix / "bin/tool"));
}

TEST_F(EnvironmentFileCli, BadExplicitLinesNameTheLine) {
  const auto file = machine_ / "explicit.txt";
  const auto prefix = (machine_ / "env").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"@EXPLICIT\n" + package_url("tool-1.0-0.conda") + "#abc\n", ":2: '#abc' is not a package hash"},
      {"@EXPLICIT\n\nnumpy=1.26\n", ":3: 'numpy=1.26' is neither a package URL nor a path"},
      {"@EXPLICIT\nhttps://example.com/linux-64/readme.txt\n", ":2: 'https://example.com/linux-64/readme.txt' "
                                                                "does not name a package file"},
      {"@EXPLICIT\nhttps://example.com/linux-64/tool.conda\n", ":2: 'tool.conda' is not a package file name"},
      {"@EXPLICIT\n" + package_url("tool-1.0-0.conda") + "\n" + package_url("tool-1.0-0.conda") + "\n",
       ":3: tool is listed twice (also on line 2)"},
  };
  for (const auto& [text, message] : cases) {
    write_text_file(file, text);
    const auto result = gpuenv("create", file, {"-p", prefix});
    EXPECT_EQ(result.exit_code, 1) << text;
    EXPECT_TRUE(contains(result.err, file.string() + message)) << result.err;
    EXPECT_FALSE(fs::exists(prefix));
  }
  write_text_file(file, "@EXPLICIT\n" + package_url("tool-1.0-0.conda") + "\n");
  const auto mixed = gpuenv("create", file, {"-p", prefix, "other"});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_TRUE(contains(mixed.err, "give it alone")) << mixed.err;
}

TEST_F(EnvironmentFileCli, InstallFromFilesIntoAnExistingEnvironment) {
  const auto prefix = machine_ / "env";
  ASSERT_EQ(machine_.gpuenv("create", prefix, {"app", "libdep=1.0"}).exit_code, 0);

  // An explicit file replaces the builds it names and leaves the rest.
  const auto explicit_file = machine_ / "explicit.txt";
  write_text_file(explicit_file, "@EXPLICIT\n" + package_url("libdep-2.0-h0_0.conda") + "\n" +
                                     package_url("app-1.0-h1_0.conda") + "\n" + package_url("tool-1.0-0.conda") + "\n");
  auto result = gpuenv("install", explicit_file, {"-p", prefix.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0", "tool-1.0-0"}));
  EXPECT_TRUE(contains(result.out, "Linked 2 packages, unlinked 1")) << result.out;

  // A spec list: one spec a line, comments allowed.
  const auto spec_list = machine_ / "requirements.txt";
  write_text_file(spec_list, "# what else we need\nother  # data\n\n");
  result = gpuenv("install", spec_list, {"-p", prefix.string(), "-c", machine_.channel(), "--override-channels"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0", "other-1.0-0", "tool-1.0-0"}));

  write_text_file(spec_list, "other\nlibdep >=>2\n");
  result = gpuenv("install", spec_list, {"-p", prefix.string(), "-c", machine_.channel(), "--override-channels"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, spec_list.string() + ":2: 'libdep >=>2' is not a package spec")) << result.err;
}

}  // namespace
