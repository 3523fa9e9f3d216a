// pre-link, post-link and pre-unlink scripts (CEP 34), with conda's own
// test packages and with packages the tests build.
#include <gtest/gtest.h>

#include <fstream>

#include "channel_records.hpp"
#include "gpuenv/prefix/link_scripts.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::channel_record;
using testing::PackageBuilder;
using testing::testdata_dir;

const std::filesystem::path kTestRecipes = testdata_dir() / "channels/conda-test-recipes";

specs::PackageRecord recipe(const std::string& fn) {
  return channel_record(kTestRecipes, "noarch", fn, "file://" + kTestRecipes.string());
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class LinkScriptTest : public testing::PrefixTest {};

TEST_F(LinkScriptTest, RunsCondasPostLinkTestScript) {
  // post_link-e's script writes bin/file into the prefix.
  install({recipe("post_link-e-1.0-0.conda")});
  EXPECT_EQ(read_text(prefix() / "bin/file"), "test\n");
}

TEST_F(LinkScriptTest, AFailingPostLinkScriptRollsTheTransactionBack) {
  const auto keep = channel().add(PackageBuilder("keep", "1.0").file("share/keep", "k"));
  install({keep});
  const auto before = testing::snapshot_prefix(prefix());
  try {
    install({recipe("failing_post_link-1.0-0.conda")});
    FAIL() << "a failing post-link script was accepted";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("post-link script of failing_post_link-1.0-0 failed (exit status 1)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("exit 1"), std::string::npos) << "the traced output is shown:\n" << message;
  }
  const auto after = testing::snapshot_prefix(prefix());
  EXPECT_EQ(after, before) << testing::describe_difference(after, before);
}

TEST_F(LinkScriptTest, GivesScriptsCondasEnvironmentAndCollectsTheirMessages) {
  const auto package = channel().add(
      PackageBuilder("scripted", "2.5", "h0_7")
          .file("share/scripted/data", "d")
          .file("bin/.scripted-post-link.sh",
                "test -f \"$PREFIX/share/scripted/data\" || exit 3\n"
                "echo \"post $PKG_NAME $PKG_VERSION $PKG_BUILDNUM $ROOT_PREFIX\" >> \"$PREFIX/.messages.txt\"\n"
                "case \"$PATH\" in \"$PREFIX/bin:\"*) ;; *) exit 4 ;; esac\n",
                0755)
          .file("bin/.scripted-pre-link.sh",
                "test ! -e \"$PREFIX/share/scripted/data\" || exit 5\n"
                "test -f \"$SOURCE_DIR/info/index.json\" || exit 6\n"
                "echo pre >> \"$PREFIX/.messages.txt\"\n",
                0755));
  auto script_options = options();
  script_options.root_prefix = "/opt/root";
  // The builder records build_number 0; the channel's record says 7.
  auto record = package;
  record.build_number = 7;
  std::filesystem::create_directories(prefix());
  const auto result = install_into(prefix(), {record}, {}, script_options);
  EXPECT_EQ(result.script_messages, "pre\npost scripted 2.5 7 /opt/root\n");
  EXPECT_FALSE(std::filesystem::exists(prefix() / ".messages.txt"));
}

TEST_F(LinkScriptTest, APreLinkScriptSeesEveryPackageBeforeItLinked) {
  // The packages before it are linked while the next is planned
  // (PrefixLinker::start_link); a pre-link script still sees them all,
  // here the last file of one with many.
  PackageBuilder many("many", "1.0");
  for (int i = 0; i < 1000; ++i) many.file("share/many/f" + std::to_string(1000 + i), "file\n");
  const auto first = channel().add(many);
  const auto scripted = channel().add(
      PackageBuilder("scripted", "1.0")
          .file("share/scripted/data", "d")
          .file("bin/.scripted-pre-link.sh", "test -f \"$PREFIX/share/many/f1999\" || exit 3\n", 0755));
  install({first, scripted});
  EXPECT_EQ(read_text(prefix() / "share/scripted/data"), "d");
}

TEST_F(LinkScriptTest, APackageNameNeverNamesAScriptOutsideThePackage) {
  // bin/.<name>-post-link.sh with a hostile record's name "./../evil"
  // would be <root>/../evil-post-link.sh.
  const auto root = scratch() / "pkg";
  std::filesystem::create_directories(root / "bin");
  const auto marker = scratch() / "ran";
  std::ofstream(scratch() / "evil-post-link.sh") << "touch '" << marker.string() << "'\n";
  specs::PackageRecord record;
  record.name = "./../evil";
  record.version = "1.0";
  EXPECT_FALSE(has_link_script(LinkScript::post_link, record, root));
  const auto run = run_link_script(LinkScript::post_link, record, root, prefix(), "");
  EXPECT_FALSE(run.ran);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST_F(LinkScriptTest, AFailingPreUnlinkScriptIsReportedAndTheUnlinkGoesOn) {
  const auto package = channel().add(PackageBuilder("stubborn", "1.0")
                                         .file("share/stubborn", "s")
                                         .file("bin/.stubborn-pre-unlink.sh", "echo no; exit 9\n", 0755));
  install({package});
  const auto result = install({}, {package});
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(result.warnings[0].find("pre-unlink script of stubborn-1.0-0 failed (exit status 9)"),
            std::string::npos)
      << result.warnings[0];
  EXPECT_FALSE(std::filesystem::exists(prefix() / "share/stubborn"));
}

TEST_F(LinkScriptTest, ScriptsCanBeSwitchedOff) {
  auto quiet = options();
  quiet.run_link_scripts = false;
  install_into(prefix(), {recipe("failing_post_link-1.0-0.conda")}, {}, quiet);
  EXPECT_TRUE(std::filesystem::exists(prefix() / "conda-meta/failing_post_link-1.0-0.json"));
}

}  // namespace
}  // namespace gpuenv::prefix
