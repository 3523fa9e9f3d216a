// Transactions on a prefix: create, update, remove; conda-meta records and
// history as conda writes them; prefixes conda and micromamba made.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::PackageBuilder;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class TransactionTest : public testing::PrefixTest {};

// The fields conda writes into every conda-meta record, with their JSON
// types (conda's PrefixRecord dump; CEP 32).
void expect_conda_schema(const nlohmann::json& record) {
  const std::vector<std::pair<std::string, nlohmann::json::value_t>> fields = {
      {"build", nlohmann::json::value_t::string},
      {"build_number", nlohmann::json::value_t::number_unsigned},
      {"channel", nlohmann::json::value_t::string},
      {"constrains", nlohmann::json::value_t::array},
      {"depends", nlohmann::json::value_t::array},
      {"extracted_package_dir", nlohmann::json::value_t::string},
      {"files", nlohmann::json::value_t::array},
      {"fn", nlohmann::json::value_t::string},
      {"license", nlohmann::json::value_t::string},
      {"license_family", nlohmann::json::value_t::string},
      {"link", nlohmann::json::value_t::object},
      {"md5", nlohmann::json::value_t::string},
      {"name", nlohmann::json::value_t::string},
      {"package_tarball_full_path", nlohmann::json::value_t::string},
      {"paths_data", nlohmann::json::value_t::object},
      {"requested_spec", nlohmann::json::value_t::string},
      {"sha256", nlohmann::json::value_t::string},
      {"size", nlohmann::json::value_t::number_unsigned},
      {"subdir", nlohmann::json::value_t::string},
      {"timestamp", nlohmann::json::value_t::number_unsigned},
      {"url", nlohmann::json::value_t::string},
      {"version", nlohmann::json::value_t::string},
  };
  for (const auto& [key, type] : fields) {
    ASSERT_TRUE(record.contains(key)) << key;
    EXPECT_EQ(record[key].type(), type) << key;
  }
  EXPECT_EQ(record["link"]["type"], 1);
  EXPECT_EQ(record["paths_data"]["paths_version"], 1);
  for (const auto& path : record["paths_data"]["paths"]) {
    EXPECT_TRUE(path["_path"].is_string());
    EXPECT_TRUE(path["path_type"].is_string());
  }
  std::vector<std::string> files;
  for (const auto& path : record["paths_data"]["paths"]) files.push_back(path["_path"]);
  EXPECT_EQ(record["files"].get<std::vector<std::string>>(), files);
}

TEST_F(TransactionTest, CreatesAPrefixWithCondaMetaRecordsAndHistory) {
  const auto lib = channel().add(PackageBuilder("libfoo", "1.2", "h0_0").file("lib/libfoo.so", "elf"));
  const auto app = channel().add(
      PackageBuilder("app", "2.0", "h1_3").depends({"libfoo >=1.2"}).file("bin/app", "app", 0755));
  auto install_options = options();
  install_options.update_specs = {"app >=2"};
  install_options.requested_specs = {{"app", "app >=2"}};
  const auto result = install_into(prefix(), {lib, app}, {}, install_options);
  ASSERT_EQ(result.linked.size(), 2u);
  EXPECT_EQ(result.recovery, RecoveryOutcome::nothing_to_recover);

  const auto record = nlohmann::json::parse(read_text(prefix() / "conda-meta/app-2.0-h1_3.json"));
  expect_conda_schema(record);
  EXPECT_EQ(record["name"], "app");
  EXPECT_EQ(record["depends"], nlohmann::json::array({"libfoo >=1.2"}));
  EXPECT_EQ(record["requested_spec"], "app >=2");
  EXPECT_EQ(record["requested_specs"], nlohmann::json::array({"app >=2"}));
  EXPECT_EQ(record["channel"], channel().root().string().insert(0, "file://") + "/linux-64");
  EXPECT_EQ(record["url"], app.url);
  EXPECT_EQ(record["sha256"], app.sha256);
  EXPECT_EQ(record["md5"], app.md5);
  EXPECT_EQ(record["extracted_package_dir"], (pkgs() / "app-2.0-h1_3").string());
  EXPECT_EQ(record["package_tarball_full_path"], (pkgs() / "app-2.0-h1_3.conda").string());
  expect_conda_schema(nlohmann::json::parse(read_text(prefix() / "conda-meta/libfoo-1.2-h0_0.json")));

  const auto history = read_text(prefix() / "conda-meta/history");
  const auto channel_url = "file://" + channel().root().string();
  EXPECT_NE(history.find("# cmd: gpuenv test\n# gpuenv version: 0.1.0\n+" + channel_url +
                         "/linux-64::app-2.0-h1_3\n+" + channel_url +
                         "/linux-64::libfoo-1.2-h0_0\n# update specs: ['app >=2']\n"),
            std::string::npos)
      << history;
  EXPECT_FALSE(std::filesystem::exists(prefix() / "conda-meta/.gpuenv-transaction"));

  const auto installed = read_prefix_records(prefix());
  ASSERT_EQ(installed.records.size(), 2u);
  EXPECT_EQ(installed.records[0].package.name, "app");
  EXPECT_EQ(installed.records[0].package.sha256, app.sha256);
}

// Issue 32: a cold install rewrites small placeholder files from what
// extraction kept in memory, a warm one from the cache entry's copies: the
// two prefixes are the same, file for file, mode for mode, record for record.
TEST_F(TransactionTest, PlaceholderFilesFromMemoryAndFromTheCacheAreTheSame) {
  const std::string ph = testing::long_placeholder();
  const auto record = channel().add(
      PackageBuilder("rewritten", "1.0")
          .text_with_prefix("bin/tool", "#!" + ph + "/bin/python\nimport os  # " + ph + "\n", ph, 0755)
          .text_with_prefix("etc/conf", "root=" + ph + "\n", ph, 0640)
          .binary_with_prefix("lib/libr.so", std::string("\x7f" "ELF\0", 5) + ph + "/lib:" + ph + std::string("\0end", 4), ph)
          .file("share/plain", "plain\n"));
  install({record});  // cold: extracted, then linked from memory
  // A prefix path as long as prefix()'s, so binary padding matches too.
  const auto warm_prefix = scratch() / "wrm";
  ASSERT_EQ(warm_prefix.string().size(), prefix().string().size());
  install_into(warm_prefix, {record}, {}, options());  // warm: the entry exists
  for (const auto* path : {"bin/tool", "etc/conf", "lib/libr.so", "share/plain"}) {
    const auto cold_text = read_text(prefix() / path);
    EXPECT_EQ(cold_text.find(ph), std::string::npos) << path;
    std::string warm_text = read_text(warm_prefix / path);
    for (auto at = warm_text.find(warm_prefix.string()); at != std::string::npos;
         at = warm_text.find(warm_prefix.string(), at)) {
      warm_text.replace(at, warm_prefix.string().size(), prefix().string());
    }
    EXPECT_EQ(cold_text, warm_text) << path;
    EXPECT_EQ(std::filesystem::status(prefix() / path).permissions(),
              std::filesystem::status(warm_prefix / path).permissions())
        << path;
  }
  EXPECT_NE(read_text(prefix() / "bin/tool").find("#!" + prefix().string() + "/bin/python"), std::string::npos);
  const auto cold_record = nlohmann::json::parse(read_text(prefix() / "conda-meta/rewritten-1.0-0.json"));
  const auto warm_record = nlohmann::json::parse(read_text(warm_prefix / "conda-meta/rewritten-1.0-0.json"));
  ASSERT_EQ(cold_record["paths_data"]["paths"].size(), warm_record["paths_data"]["paths"].size());
  for (std::size_t i = 0; i < cold_record["paths_data"]["paths"].size(); ++i) {
    const auto& cold = cold_record["paths_data"]["paths"][i];
    const auto& warm = warm_record["paths_data"]["paths"][i];
    EXPECT_EQ(cold["_path"], warm["_path"]);
    EXPECT_EQ(cold["size_in_bytes"], warm["size_in_bytes"]) << cold["_path"];
    EXPECT_EQ(cold.contains("sha256_in_prefix"), warm.contains("sha256_in_prefix")) << cold["_path"];
  }
}

// Past package::kMaxKeptFileBytes a placeholder file is neither kept nor
// read whole: it is streamed from the cache entry, cold and warm alike.
TEST_F(TransactionTest, APlaceholderFileLargerThanWhatIsKeptIsStreamed) {
  const std::string ph = testing::long_placeholder();
  const std::string middle(package::kMaxKeptFileBytes + 4096, 'a');
  const auto record =
      channel().add(PackageBuilder("large", "1.0").text_with_prefix("share/large.txt", ph + middle + ph + "\n", ph));
  install({record});
  const auto warm_prefix = scratch() / "wrm";
  install_into(warm_prefix, {record}, {}, options());
  for (const auto& root : {prefix(), warm_prefix}) {
    EXPECT_EQ(read_text(root / "share/large.txt"), root.string() + middle + root.string() + "\n") << root;
  }
}

TEST_F(TransactionTest, UpdatesAPackageAndCleansUpAfterTheOldVersion) {
  const auto v1 = channel().add(PackageBuilder("tool", "1.0")
                                    .file("bin/tool", "v1", 0755)
                                    .file("share/tool/v1-only/data", "old")
                                    .file("share/tool/common", "v1"));
  const auto v2 = channel().add(PackageBuilder("tool", "2.0")
                                    .file("bin/tool", "v2", 0755)
                                    .file("share/tool/common", "v2"));
  install({v1});
  const auto result = install({v2}, {v1});
  ASSERT_EQ(result.unlinked.size(), 1u);
  EXPECT_EQ(read_text(prefix() / "bin/tool"), "v2");
  EXPECT_EQ(read_text(prefix() / "share/tool/common"), "v2");
  EXPECT_FALSE(std::filesystem::exists(prefix() / "share/tool/v1-only")) << "emptied directories go";
  EXPECT_FALSE(std::filesystem::exists(prefix() / "conda-meta/tool-1.0-0.json"));
  EXPECT_TRUE(std::filesystem::exists(prefix() / "conda-meta/tool-2.0-0.json"));
  EXPECT_TRUE(result.clobbers.empty()) << "replacing the old version's files is no clobber";
  const auto history = read_text(prefix() / "conda-meta/history");
  EXPECT_NE(history.find("-file://"), std::string::npos);
  EXPECT_NE(history.find("::tool-1.0-0\n+"), std::string::npos) << history;
}

TEST_F(TransactionTest, RemovesAPackageWithThePycFilesPythonWrote) {
  const auto keep = channel().add(PackageBuilder("keep", "1.0").file("lib/py/shared/keep.py", "k"));
  const auto gone = channel().add(
      PackageBuilder("gone", "1.0").file("lib/py/shared/gone.py", "g").file("lib/py/gone/mod.py", "m"));
  install({keep, gone});
  // What python leaves next to imported modules.
  std::filesystem::create_directories(prefix() / "lib/py/gone/__pycache__");
  std::ofstream(prefix() / "lib/py/gone/__pycache__/mod.cpython-312.pyc") << "pyc";
  std::filesystem::create_directories(prefix() / "lib/py/shared/__pycache__");
  std::ofstream(prefix() / "lib/py/shared/__pycache__/gone.cpython-312.pyc") << "pyc";
  std::ofstream(prefix() / "lib/py/shared/__pycache__/keep.cpython-312.pyc") << "pyc";
  auto remove_options = options();
  remove_options.remove_specs = {"gone"};
  install_into(prefix(), {}, {gone}, remove_options);
  EXPECT_FALSE(std::filesystem::exists(prefix() / "lib/py/gone"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "lib/py/shared/gone.py"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "lib/py/shared/__pycache__/gone.cpython-312.pyc"));
  EXPECT_TRUE(std::filesystem::exists(prefix() / "lib/py/shared/__pycache__/keep.cpython-312.pyc"));
  EXPECT_TRUE(std::filesystem::exists(prefix() / "lib/py/shared/keep.py"));
  EXPECT_NE(read_text(prefix() / "conda-meta/history").find("# remove specs: ['gone']"), std::string::npos);
}

TEST_F(TransactionTest, KeepsAClobberedFileAnotherPackageStillOwns) {
  const auto first = channel().add(PackageBuilder("first", "1.0").file("bin/shared", "first"));
  const auto second = channel().add(PackageBuilder("second", "1.0").file("bin/shared", "second"));
  install({first, second});
  install({}, {second});
  EXPECT_TRUE(std::filesystem::exists(prefix() / "bin/shared")) << "first still owns bin/shared";
}

TEST_F(TransactionTest, RefusesToUnlinkWhatIsNotInstalled) {
  const auto package = channel().add(PackageBuilder("pkg", "1.0").file("a", "a"));
  try {
    install({}, {package});
    FAIL() << "unlinked a missing package";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("pkg-1.0-0 from"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("not installed"), std::string::npos) << error.what();
  }
}

TEST_F(TransactionTest, RefusesToLinkWhatIsAlreadyInstalled) {
  const auto package = channel().add(PackageBuilder("pkg", "1.0").file("a", "a"));
  install({package});
  EXPECT_THROW(install({package}), PrefixError);
  install({package}, {package});  // a reinstall unlinks it in the same transaction
  EXPECT_EQ(read_text(prefix() / "a"), "a");
}

TEST_F(TransactionTest, RespectsAFrozenPrefix) {
  const auto package = channel().add(PackageBuilder("pkg", "1.0").file("a", "a"));
  std::filesystem::create_directories(prefix() / "conda-meta");
  std::ofstream(prefix() / "conda-meta/frozen") << R"({"message": "production service"})";
  try {
    install({package});
    FAIL() << "changed a frozen prefix";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("production service"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(prefix() / "a"));
  auto override_options = options();
  override_options.override_frozen = true;
  install_into(prefix(), {package}, {}, override_options);
  EXPECT_TRUE(std::filesystem::exists(prefix() / "a"));
}

TEST_F(TransactionTest, RollsBackWhenADownloadFailsHalfWay) {
  const auto first = channel().add(PackageBuilder("first", "1.0").file("share/first", "1"));
  auto second = channel().add(PackageBuilder("second", "1.0").file("share/second", "2"));
  const auto old = channel().add(PackageBuilder("old", "1.0").file("share/old", "old"));
  install({old});
  const auto before = testing::snapshot_prefix(prefix());
  second.sha256 = std::string(64, 'f');
  try {
    install({first, second}, {old});
    FAIL() << "installed a corrupted download";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(second.url), std::string::npos) << message;
    EXPECT_NE(message.find("as it was before"), std::string::npos) << message;
  }
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
  EXPECT_FALSE(std::filesystem::exists(pkgs() / "second-1.0-0")) << "the corrupted file was not extracted";
}

TEST_F(TransactionTest, RemovesPackagesCondaAndMicromambaInstalled) {
  // Records as conda and micromamba write them, for files they put there.
  std::filesystem::create_directories(prefix() / "conda-meta");
  std::filesystem::create_directories(prefix() / "lib/python3.12/site-packages/tqdm/__pycache__");
  std::filesystem::create_directories(prefix() / "bin");
  std::ofstream(prefix() / "lib/python3.12/site-packages/tqdm/__init__.py") << "";
  std::ofstream(prefix() / "lib/python3.12/site-packages/tqdm/__pycache__/__init__.cpython-312.pyc") << "";
  std::ofstream(prefix() / "bin/tqdm") << "#!/env/bin/python3.12\n";
  std::ofstream(prefix() / "conda-meta/tqdm-4.66.4-pyhd8ed1ab_0.json") << R"({
    "name": "tqdm", "version": "4.66.4", "build": "pyhd8ed1ab_0", "build_number": 0,
    "channel": "https://conda.anaconda.org/conda-forge/noarch", "subdir": "noarch",
    "noarch": "python", "arch": null, "platform": null, "requested_spec": "",
    "files": ["lib/python3.12/site-packages/tqdm/__init__.py",
              "lib/python3.12/site-packages/tqdm/__pycache__/__init__.cpython-312.pyc", "bin/tqdm"],
    "paths_data": {"paths": [
      {"_path": "lib/python3.12/site-packages/tqdm/__init__.py", "path_type": "hardlink"},
      {"_path": "lib/python3.12/site-packages/tqdm/__pycache__/__init__.cpython-312.pyc", "path_type": "pyc_file"},
      {"_path": "bin/tqdm", "path_type": "unix_python_entry_point"}], "paths_version": 1},
    "link": {"source": "/pkgs/tqdm-4.66.4-pyhd8ed1ab_0", "type": 1}})";
  std::filesystem::create_directories(prefix() / "lib");
  std::ofstream(prefix() / "lib/libold.so") << "";
  std::ofstream(prefix() / "conda-meta/old-1.0-0.json")
      << R"({"name": "old", "version": "1.0", "build": "0", "files": ["lib/libold.so"]})";
  std::ofstream(prefix() / "conda-meta/history") << "==> 2024-01-01 00:00:00 <==\n# cmd: conda create\n";

  const auto installed = read_prefix_records(prefix());
  ASSERT_EQ(installed.records.size(), 2u);
  std::vector<specs::PackageRecord> unlink;
  for (const auto& record : installed.records) unlink.push_back(record.package);
  install({}, unlink);
  EXPECT_FALSE(std::filesystem::exists(prefix() / "lib/python3.12"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "bin/tqdm"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "lib/libold.so"));
  EXPECT_TRUE(read_prefix_records(prefix()).records.empty());
  const auto history = read_text(prefix() / "conda-meta/history");
  EXPECT_EQ(history.rfind("==> 2024-01-01 00:00:00 <==\n# cmd: conda create\n==> ", 0), 0u) << history;
  EXPECT_NE(history.find("-conda-forge/noarch::tqdm-4.66.4-pyhd8ed1ab_0\n"), std::string::npos) << history;
}

TEST_F(TransactionTest, NeverRemovesPathsOutsideThePrefixThatARecordNames) {
  std::filesystem::create_directories(prefix() / "conda-meta");
  std::ofstream(scratch() / "outside") << "not the prefix's";
  std::ofstream(prefix() / "conda-meta/odd-1.0-0.json")
      << R"({"name": "odd", "version": "1.0", "build": "0", "files": ["../outside", "/etc/hostname"]})";
  const auto installed = read_prefix_records(prefix());
  ASSERT_EQ(installed.records.size(), 1u);
  install({}, {installed.records[0].package});
  EXPECT_TRUE(std::filesystem::exists(scratch() / "outside"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "conda-meta/odd-1.0-0.json"));
}

TEST_F(TransactionTest, RecordsRepodataFieldsOverIndexJson) {
  // A channel may patch its repodata (CEP 32: the record follows it).
  auto record = channel().add(PackageBuilder("patched", "1.0").depends({"python"}).file("a", "a"));
  record.depends = {"python >=3.8,<4"};
  install({record});
  const auto json = nlohmann::json::parse(read_text(prefix() / "conda-meta/patched-1.0-0.json"));
  EXPECT_EQ(json["depends"], nlohmann::json::array({"python >=3.8,<4"}));
}

}  // namespace
}  // namespace gpuenv::prefix
