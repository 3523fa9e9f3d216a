// Linking packages the tests build: hard links, copies, prefix
// replacement, symbolic links, modes, directories, noarch: python, clobbers.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <utility>
#include <vector>

#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::long_placeholder;
using testing::PackageBuilder;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct stat stat_of(const std::filesystem::path& path) {
  struct stat info {};
  ::lstat(path.c_str(), &info);
  return info;
}

PrefixRecord installed_record(const std::filesystem::path& prefix, const std::string& dist) {
  return parse_prefix_record(read_text(prefix / "conda-meta" / (dist + ".json")), dist);
}

const PrefixPathEntry& path_entry(const PrefixRecord& record, const std::string& path) {
  for (const auto& entry : record.paths) {
    if (entry.path == path) return entry;
  }
  throw std::runtime_error(path + " is not in the record");
}

class LinkPackageTest : public testing::PrefixTest {};

TEST_F(LinkPackageTest, HardLinksFilesFromTheCache) {
  const auto record = channel().add(PackageBuilder("tool", "1.0")
                                        .file("bin/tool", "#!/bin/sh\necho tool\n", 0755)
                                        .file("share/tool/data.txt", "data\n"));
  install({record});
  const auto in_prefix = stat_of(prefix() / "bin/tool");
  const auto in_cache = stat_of(pkgs() / "tool-1.0-0/bin/tool");
  EXPECT_EQ(in_prefix.st_ino, in_cache.st_ino);
  EXPECT_EQ(in_prefix.st_mode & 0777, 0755u);
  EXPECT_EQ(read_text(prefix() / "share/tool/data.txt"), "data\n");
  const auto installed = installed_record(prefix(), "tool-1.0-0");
  EXPECT_EQ(installed.link_type, LinkType::hardlink);
  EXPECT_EQ(installed.link_source, (pkgs() / "tool-1.0-0").string());
  EXPECT_EQ(installed.files, (std::vector<std::string>{"bin/tool", "share/tool/data.txt"}));
  EXPECT_EQ(path_entry(installed, "bin/tool").sha256_in_prefix, package::sha256_hex("#!/bin/sh\necho tool\n"));
}

TEST_F(LinkPackageTest, CopiesWhenAskedAndForNoLinkFiles) {
  const auto record = channel().add(PackageBuilder("tool", "1.0")
                                        .file("bin/tool", "#!/bin/sh\n", 0755)
                                        .no_link("etc/tool.conf", "setting=1\n"));
  auto copy_options = options();
  copy_options.link_mode = LinkMode::copy;
  install_into(prefix(), {record}, {}, copy_options);
  EXPECT_NE(stat_of(prefix() / "bin/tool").st_ino, stat_of(pkgs() / "tool-1.0-0/bin/tool").st_ino);
  EXPECT_EQ(stat_of(prefix() / "bin/tool").st_mode & 0777, 0755u);
  EXPECT_EQ(read_text(prefix() / "bin/tool"), "#!/bin/sh\n");
  EXPECT_EQ(installed_record(prefix(), "tool-1.0-0").link_type, LinkType::copy);

  // With hard links allowed, no_link files are still copies.
  const auto other = scratch() / "other";
  install_into(other, {record}, {}, options());
  EXPECT_NE(stat_of(other / "etc/tool.conf").st_ino, stat_of(pkgs() / "tool-1.0-0/etc/tool.conf").st_ino);
  EXPECT_EQ(stat_of(other / "bin/tool").st_ino, stat_of(pkgs() / "tool-1.0-0/bin/tool").st_ino);
  EXPECT_TRUE(path_entry(installed_record(other, "tool-1.0-0"), "etc/tool.conf").no_link);
}

// A cache on one filesystem and the prefix on another (home and scratch on
// a cluster): no hard links, and copy_file_range refuses (EXDEV) between
// filesystems of different kinds, so the files go through read/write. Sizes
// around the copy buffer's (1 MiB) and an empty file, each byte checked.
TEST_F(LinkPackageTest, CopiesEveryByteWhenThePrefixIsOnAnotherFilesystem) {
  std::string pattern = "/dev/shm/gpuenv-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) GTEST_SKIP() << "no /dev/shm to put a prefix on";
  const std::filesystem::path elsewhere = pattern;
  struct Remover {
    std::filesystem::path path;
    ~Remover() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remover{elsewhere};
  if (stat_of(elsewhere).st_dev == stat_of(scratch().path()).st_dev) {
    GTEST_SKIP() << "/dev/shm is on the test directory's filesystem";
  }
  const auto bytes = [](std::size_t size, unsigned seed) {
    std::string text(size, '\0');
    for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>((i * 131 + seed) % 251);
    return text;
  };
  const std::vector<std::pair<std::string, std::string>> files = {
      {"lib/empty.txt", ""},
      {"lib/small.bin", bytes(5, 1)},
      {"lib/one-mib.bin", bytes(1u << 20, 2)},
      {"lib/larger.bin", bytes((3u << 20) + 7, 3)},
  };
  PackageBuilder builder("data", "1.0");
  builder.file("bin/data-tool", "#!/bin/sh\necho data\n", 0755);
  for (const auto& [path, content] : files) builder.file(path, content);
  const auto record = channel().add(builder);
  const auto env = elsewhere / "env";
  install_into(env, {record}, {}, options());
  for (const auto& [path, content] : files) {
    EXPECT_EQ(read_text(env / path), content) << path;
    EXPECT_NE(stat_of(env / path).st_ino, stat_of(pkgs() / "data-1.0-0" / path).st_ino) << path;
  }
  EXPECT_EQ(read_text(env / "bin/data-tool"), "#!/bin/sh\necho data\n");
  EXPECT_EQ(stat_of(env / "bin/data-tool").st_mode & 0777, 0755u);
  EXPECT_EQ(installed_record(env, "data-1.0-0").link_type, LinkType::copy);
}

TEST_F(LinkPackageTest, ReplacesThePlaceholderInTextFiles) {
  const auto content = "#!" + long_placeholder() + "/bin/python\nPREFIX=" + long_placeholder() + "\n";
  const auto record = channel().add(
      PackageBuilder("scripts", "1.0").text_with_prefix("bin/script", content, long_placeholder(), 0755));
  install({record});
  const auto expected = "#!" + prefix().string() + "/bin/python\nPREFIX=" + prefix().string() + "\n";
  EXPECT_EQ(read_text(prefix() / "bin/script"), expected);
  EXPECT_EQ(stat_of(prefix() / "bin/script").st_mode & 0777, 0755u);
  EXPECT_EQ(read_text(pkgs() / "scripts-1.0-0/bin/script"), content) << "the cache stays as it was";
  const auto entry = path_entry(installed_record(prefix(), "scripts-1.0-0"), "bin/script");
  EXPECT_EQ(entry.prefix_placeholder, long_placeholder());
  EXPECT_EQ(entry.file_mode, package::FileMode::text);
  EXPECT_EQ(entry.sha256, package::sha256_hex(content));
  EXPECT_EQ(entry.sha256_in_prefix, package::sha256_hex(expected));
  EXPECT_EQ(entry.size_in_bytes, expected.size());
}

TEST_F(LinkPackageTest, ReplacesThePlaceholderInBinariesKeepingTheirLength) {
  using namespace std::string_literals;
  const auto binary = "\x7f" "ELF\0\0RPATH="s + long_placeholder() + "/lib\0other\0"s;
  const auto record = channel().add(PackageBuilder("lib", "1.0").binary_with_prefix("lib/libx.so", binary));
  install({record});
  const auto installed = read_text(prefix() / "lib/libx.so");
  ASSERT_EQ(installed.size(), binary.size());
  const auto expected_string = "RPATH=" + prefix().string() + "/lib";
  EXPECT_EQ(installed.substr(6, expected_string.size()), expected_string);
  const auto padding = long_placeholder().size() - prefix().string().size();
  EXPECT_EQ(installed.substr(6 + expected_string.size(), padding + 1), std::string(padding + 1, '\0'));
  EXPECT_EQ(installed.substr(installed.size() - 6), "other"s + '\0');
}

TEST_F(LinkPackageTest, RefusesABinaryPlaceholderShorterThanThePrefixAndRollsBack) {
  using namespace std::string_literals;
  const auto good = channel().add(PackageBuilder("good", "1.0").file("share/good", "good\n"));
  const auto bad = channel().add(PackageBuilder("bad", "1.0")
                                     .file("share/bad/first", "first\n")
                                     .binary_with_prefix("lib/libbad.so", "x/ph/lib\0"s, "/ph"));
  const auto before = testing::snapshot_prefix(prefix());
  try {
    install({good, bad});
    FAIL() << "a too short placeholder was accepted";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("lib/libbad.so"), std::string::npos) << message;
    EXPECT_NE(message.find("placeholder"), std::string::npos) << message;
    EXPECT_NE(message.find("as it was before"), std::string::npos) << message;
  }
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

// A package of many files is placed by several threads: every file lands,
// the record lists them in the package's order, and a failure in the
// middle (a binary placeholder too short) still rolls everything back.
TEST_F(LinkPackageTest, PlacesAManyFilePackageOnSeveralThreadsAndRollsItBackWhole) {
  using namespace std::string_literals;
  PackageBuilder big("big", "1.0");
  std::vector<std::string> expected_files;
  for (int i = 0; i < 600; ++i) {
    const auto path = "share/big/d" + std::to_string(i / 50) + "/f" + std::to_string(1000 + i);
    if (i % 7 == 0) {
      big.text_with_prefix(path, "PREFIX=" + long_placeholder() + "\n", long_placeholder(), 0755);
    } else {
      big.file(path, "file " + std::to_string(i) + "\n");
    }
    expected_files.push_back(path);
  }
  install({channel().add(big)});
  const auto installed = installed_record(prefix(), "big-1.0-0");
  EXPECT_EQ(installed.files, expected_files);
  for (int i = 0; i < 600; ++i) {
    const auto& path = expected_files[static_cast<std::size_t>(i)];
    const auto expected = i % 7 == 0 ? "PREFIX=" + prefix().string() + "\n" : "file " + std::to_string(i) + "\n";
    ASSERT_EQ(read_text(prefix() / path), expected) << path;
    EXPECT_EQ(path_entry(installed, path).sha256_in_prefix, package::sha256_hex(expected)) << path;
  }
  EXPECT_EQ(installed.link_type, LinkType::hardlink);

  PackageBuilder broken("broken", "1.0");
  for (int i = 0; i < 600; ++i) {
    const auto path = "share/broken/f" + std::to_string(1000 + i);
    if (i == 450) {
      broken.binary_with_prefix(path, "x/ph/lib\0"s, "/ph");
    } else {
      broken.file(path, "file\n");
    }
  }
  const auto other = scratch() / "other";
  std::filesystem::create_directories(other);
  const auto before = testing::snapshot_prefix(other);
  EXPECT_THROW(install_into(other, {channel().add(broken)}, {}, options()), PrefixError);
  const auto after = testing::snapshot_prefix(other);
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(LinkPackageTest, RecreatesSymbolicLinksAndDirectories) {
  const auto record = channel().add(PackageBuilder("links", "1.0")
                                        .file("lib/libx.so.1.2", "binary")
                                        .symlink("lib/libx.so.1", "libx.so.1.2")
                                        .symlink("lib/libx.so", "libx.so.1")
                                        .directory("var/cache/links"));
  install({record});
  EXPECT_EQ(std::filesystem::read_symlink(prefix() / "lib/libx.so"), "libx.so.1");
  EXPECT_EQ(read_text(prefix() / "lib/libx.so"), "binary");
  EXPECT_TRUE(std::filesystem::is_directory(prefix() / "var/cache/links"));
  const auto installed = installed_record(prefix(), "links-1.0-0");
  EXPECT_EQ(path_entry(installed, "lib/libx.so").path_type, PrefixPathType::softlink);
  EXPECT_EQ(path_entry(installed, "var/cache/links").path_type, PrefixPathType::directory);
}

PackageBuilder python(const std::string& version, const std::string& site_packages = "") {
  PackageBuilder builder("python", version);
  const auto short_version = version.substr(0, version.find('.', version.find('.') + 1));
  builder.file("bin/python" + short_version, "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 0755);
  if (!site_packages.empty()) builder.index_field("python_site_packages_path", site_packages);
  return builder;
}

TEST_F(LinkPackageTest, PutsNoarchPythonPackagesIntoThePythonOfThePrefix) {
  const auto interpreter = channel().add(python("3.12.4"));
  const auto package = channel().add(PackageBuilder("sample", "1.0", "py_0")
                                         .noarch_python({"sample-cli = sample.cli:main.run"})
                                         .depends({"python"})
                                         .file("site-packages/sample/__init__.py", "VERSION = 1\n")
                                         .file("site-packages/sample/cli.py", "def main(): pass\n")
                                         .file("python-scripts/sample-script", "#!/bin/sh\n", 0755));
  install({interpreter, package});
  const auto site = prefix() / "lib/python3.12/site-packages";
  EXPECT_EQ(read_text(site / "sample/__init__.py"), "VERSION = 1\n");
  EXPECT_TRUE(std::filesystem::is_regular_file(prefix() / "bin/sample-script"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "site-packages"));
  EXPECT_FALSE(std::filesystem::exists(site / "sample/__pycache__")) << ".pyc files are python's to write";

  const auto script = read_text(prefix() / "bin/sample-cli");
  EXPECT_EQ(script.substr(0, script.find('\n')), "#!" + prefix().string() + "/bin/python3.12");
  EXPECT_NE(script.find("from sample.cli import main\n"), std::string::npos) << script;
  EXPECT_NE(script.find("sys.exit(main.run())"), std::string::npos) << script;
  EXPECT_EQ(stat_of(prefix() / "bin/sample-cli").st_mode & 0777, 0755u);

  const auto installed = installed_record(prefix(), "sample-1.0-py_0");
  EXPECT_EQ(installed.package.noarch, specs::NoarchType::python);
  EXPECT_EQ(path_entry(installed, "lib/python3.12/site-packages/sample/cli.py").path_type,
            PrefixPathType::hardlink);
  const auto& entry_point = path_entry(installed, "bin/sample-cli");
  EXPECT_EQ(entry_point.path_type, PrefixPathType::unix_python_entry_point);
  EXPECT_EQ(entry_point.sha256_in_prefix, package::sha256_hex(script));
}

TEST_F(LinkPackageTest, HonoursThePythonSitePackagesPath) {
  // CEP 17: a free-threading python says where its site-packages is.
  const auto interpreter = channel().add(python("3.13.1", "lib/python3.13t/site-packages"));
  const auto package = channel().add(
      PackageBuilder("sample", "1.0", "py_0").noarch_python().file("site-packages/sample.py", "x = 1\n"));
  install({interpreter});
  install({package});  // python comes from the installed record this time
  EXPECT_TRUE(std::filesystem::is_regular_file(prefix() / "lib/python3.13t/site-packages/sample.py"));
}

TEST_F(LinkPackageTest, UsesATrampolineForAnInterpreterPathLinuxCannotRun) {
  const auto interpreter = channel().add(python("3.12.4"));
  const auto package = channel().add(
      PackageBuilder("sample", "1.0", "py_0").noarch_python({"sample = sample:main"}).file("site-packages/sample.py", ""));
  const auto deep = scratch() / std::string(60, 'd') / std::string(60, 'e');
  install_into(deep, {interpreter, package}, {}, options());
  const auto script = read_text(deep / "bin/sample");
  EXPECT_EQ(script.rfind("#!/bin/sh\n'''exec' \"" + deep.string() + "/bin/python3.12\" \"$0\" \"$@\" #'''\n", 0), 0u)
      << script;
}

TEST_F(LinkPackageTest, RefusesNoarchPythonWithoutPython) {
  const auto package = channel().add(
      PackageBuilder("sample", "1.0", "py_0").noarch_python().file("site-packages/sample.py", ""));
  try {
    install({package});
    FAIL() << "linked without python";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("noarch: python"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(prefix() / "conda-meta/sample-1.0-py_0.json"));
}

TEST_F(LinkPackageTest, ReportsAClobberBetweenNewPackagesAndKeepsTheLaterFile) {
  const auto first = channel().add(PackageBuilder("first", "1.0").file("bin/shared", "first\n"));
  const auto second = channel().add(PackageBuilder("second", "1.0").file("bin/shared", "second\n"));
  const auto result = install({first, second});
  EXPECT_EQ(read_text(prefix() / "bin/shared"), "second\n");
  ASSERT_EQ(result.clobbers.size(), 1u);
  EXPECT_EQ(result.clobbers[0].path, "bin/shared");
  EXPECT_EQ(result.clobbers[0].winner, "second-1.0-0");
  EXPECT_EQ(result.clobbers[0].previous_owner, "first-1.0-0");
  // Both records own it, as conda records it.
  EXPECT_EQ(installed_record(prefix(), "first-1.0-0").files, std::vector<std::string>{"bin/shared"});
  EXPECT_EQ(installed_record(prefix(), "second-1.0-0").files, std::vector<std::string>{"bin/shared"});
}

// One package's files are placed while the next one is planned
// (PrefixLinker::start_link). Each test below puts what the next package
// depends on at the end of a package of many files, where the placement
// threads reach it last: the next package's plan must wait for it.
PackageBuilder many_files_then(const std::string& name, int files) {
  PackageBuilder builder(name, "1.0");
  for (int i = 0; i < files; ++i) builder.file("share/" + name + "/f" + std::to_string(1000 + i), "file\n");
  return builder;
}

TEST_F(LinkPackageTest, ThePackageAfterAPackageInFlightLinksThroughTheDirectoryLinkItPlaces) {
  auto first = many_files_then("first", 1000);
  first.file("lib/libfirst.so", "first\n").symlink("lib64", "lib");
  const auto second = channel().add(PackageBuilder("second", "1.0").file("lib64/libsecond.so", "second\n"));
  install({channel().add(first), second});
  EXPECT_EQ(std::filesystem::read_symlink(prefix() / "lib64"), "lib");
  EXPECT_EQ(read_text(prefix() / "lib/libsecond.so"), "second\n");
  EXPECT_EQ(installed_record(prefix(), "second-1.0-0").files, std::vector<std::string>{"lib64/libsecond.so"});
}

TEST_F(LinkPackageTest, ThePackageAfterAPackageInFlightReplacesTheFileItPlacesLast) {
  // The shared file comes after two that are slow to place (a prefix to
  // replace in 4 MiB each), in the same run: while one thread writes those,
  // the other is free for `second`. Four prefixes: which thread takes that
  // run is a matter of timing.
  auto first = many_files_then("first", 1000);
  const std::string large = std::string(4 << 20, 'x') + "\n" + long_placeholder() + "\n";
  first.text_with_prefix("share/first/large1", large, long_placeholder())
      .text_with_prefix("share/first/large2", large, long_placeholder())
      .file("bin/shared", "first\n");
  const auto first_record = channel().add(first);
  const auto second = channel().add(PackageBuilder("second", "1.0").file("bin/shared", "second\n"));
  for (int i = 0; i < 4; ++i) {
    const auto target = scratch() / ("env" + std::to_string(i));
    const auto result = install_into(target, {first_record, second}, {}, options());
    EXPECT_EQ(read_text(target / "bin/shared"), "second\n") << target;
    ASSERT_EQ(result.clobbers.size(), 1u);
    EXPECT_EQ(result.clobbers[0].winner, "second-1.0-0");
  }
}

TEST_F(LinkPackageTest, ThePackageAfterAPackageInFlightSeesTheFilesItPlacesInADirectoryInItsWay) {
  // old's directory share/d is emptied by its unlink; `first` puts a file
  // back into it, last; `second` has a file share/d. Linked one after the
  // other, share/d is not empty when `second` is planned.
  const auto old = channel().add(PackageBuilder("old", "1.0").file("share/d/a", "old\n"));
  install({old});
  auto first = many_files_then("first", 1000);
  first.file("share/d/b", "first\n");
  const auto second = channel().add(PackageBuilder("second", "1.0").file("share/d", "second\n"));
  const auto before = testing::snapshot_prefix(prefix());
  try {
    install({channel().add(first), second}, {old});
    FAIL() << "share/d was removed with first's file in it";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("still holds other packages' files: share/d/b (first-1.0-0)"),
              std::string::npos)
        << error.what();
  }
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(LinkPackageTest, APackageThatFailsInFlightRollsBackThePackagesStartedAfterIt) {
  using namespace std::string_literals;
  auto broken = many_files_then("broken", 600);
  broken.binary_with_prefix("share/broken/short", "x/ph/lib\0"s, "/ph");  // shorter than the prefix
  const auto after_it = channel().add(many_files_then("after", 1000));
  std::filesystem::create_directories(prefix());
  const auto before = testing::snapshot_prefix(prefix());
  EXPECT_THROW(install({channel().add(broken), after_it}), PrefixError);
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(LinkPackageTest, RefusesADirectoryWhereAnInstalledPackageHasAFile) {
  install({channel().add(PackageBuilder("first", "1.0").file("share/tool", "first\n"))});
  const auto before = testing::snapshot_prefix(prefix());
  try {
    install({channel().add(PackageBuilder("second", "1.0").file("share/tool/data.txt", "second\n"))});
    FAIL() << "linked under a file";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("share/tool is a file (of first-1.0-0)"), std::string::npos)
        << error.what();
  }
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(LinkPackageTest, ReportsClobbersOfInstalledAndUntrackedFiles) {
  const auto first = channel().add(PackageBuilder("first", "1.0").file("bin/shared", "first\n"));
  install({first});
  std::filesystem::create_directories(prefix() / "etc");
  std::ofstream(prefix() / "etc/user.conf") << "mine\n";
  const auto second = channel().add(PackageBuilder("second", "1.0")
                                        .file("bin/shared", "second\n")
                                        .file("etc/user.conf", "packaged\n"));
  const auto result = install({second});
  ASSERT_EQ(result.clobbers.size(), 2u);
  EXPECT_EQ(result.clobbers[0].path, "bin/shared");
  EXPECT_EQ(result.clobbers[0].previous_owner, "first-1.0-0");
  EXPECT_EQ(result.clobbers[1].path, "etc/user.conf");
  EXPECT_EQ(result.clobbers[1].previous_owner, "");
  EXPECT_EQ(read_text(prefix() / "etc/user.conf"), "packaged\n");
}

TEST_F(LinkPackageTest, PreventPolicyRefusesClobbersAndLeavesThePrefixAlone) {
  std::filesystem::create_directories(prefix() / "etc");
  std::ofstream(prefix() / "etc/user.conf") << "mine\n";
  const auto package = channel().add(PackageBuilder("pkg", "1.0").file("etc/user.conf", "packaged\n"));
  const auto before = testing::snapshot_prefix(prefix());
  auto strict = options();
  strict.path_conflicts = PathConflictPolicy::prevent;
  try {
    install_into(prefix(), {package}, {}, strict);
    FAIL() << "clobbered";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("etc/user.conf (a file no package owns)"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(read_text(prefix() / "etc/user.conf"), "mine\n");
  EXPECT_EQ(testing::snapshot_prefix(prefix()), before);
}

}  // namespace
}  // namespace gpuenv::prefix
