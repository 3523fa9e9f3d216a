// The relocation's rpath rules, without building anything: prefix entries
// become $ORIGIN-relative, outside entries are dropped unless allowlisted,
// and a file with nothing left gets dynamic_linking.rpaths when it links
// libraries of the prefix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/builder/rpath_rewrite.hpp"

namespace {

using gpuenv::build::rewrite_rpath;
using gpuenv::build::RpathRewriteInput;
using Entries = std::vector<std::string>;

RpathRewriteInput input(std::string current, std::string file) {
  RpathRewriteInput in;
  in.current = std::move(current);
  in.file = std::move(file);
  in.prefix = "/b/host_env_placehold";
  return in;
}

TEST(RpathRewrite, PrefixEntriesBecomeOriginRelative) {
  const auto rewrite = rewrite_rpath(input("/b/host_env_placehold/lib:/b/host_env_placehold/lib/sub/../extra", "bin/tool"));
  EXPECT_EQ(rewrite.entries, (Entries{"$ORIGIN/../lib", "$ORIGIN/../lib/extra"}));
  EXPECT_TRUE(rewrite.dropped.empty());
  EXPECT_EQ(rewrite.joined(), "$ORIGIN/../lib:$ORIGIN/../lib/extra");
}

TEST(RpathRewrite, AnEntryOfTheFilesOwnDirectoryIsOrigin) {
  EXPECT_EQ(rewrite_rpath(input("/b/host_env_placehold/lib", "lib/libx.so")).entries, (Entries{"$ORIGIN"}));
  EXPECT_EQ(rewrite_rpath(input("/b/host_env_placehold/lib/", "lib/deep/libx.so")).entries, (Entries{"$ORIGIN/.."}));
}

TEST(RpathRewrite, OutsideEntriesAreDroppedUnlessAllowlisted) {
  auto in = input("/usr/local/lib:/b/build_env/lib:/opt/vendor/lib:relative/dir:/b/host_env_placehold/lib", "bin/tool");
  in.allowlist = {"/opt/vendor/*"};
  const auto rewrite = rewrite_rpath(in);
  EXPECT_EQ(rewrite.entries, (Entries{"/opt/vendor/lib", "$ORIGIN/../lib"}));
  EXPECT_EQ(rewrite.dropped, (Entries{"/usr/local/lib", "/b/build_env/lib", "relative/dir"}));
}

TEST(RpathRewrite, APrefixThatOnlySharesTheLeadingCharactersIsOutside) {
  const auto rewrite = rewrite_rpath(input("/b/host_env_placehold_other/lib", "bin/tool"));
  EXPECT_TRUE(rewrite.entries.empty());
  EXPECT_EQ(rewrite.dropped, (Entries{"/b/host_env_placehold_other/lib"}));
}

TEST(RpathRewrite, OriginEntriesStayAndDuplicatesGo) {
  const auto rewrite =
      rewrite_rpath(input("$ORIGIN/../lib:${ORIGIN}/x:/b/host_env_placehold/lib::$ORIGIN/../lib", "bin/tool"));
  EXPECT_EQ(rewrite.entries, (Entries{"$ORIGIN/../lib", "${ORIGIN}/x"}));
}

TEST(RpathRewrite, AFileLeftWithoutEntriesThatLinksThePrefixGetsTheDefaultRpaths) {
  auto in = input("/usr/local/lib", "bin/tool");
  in.links_prefix_libraries = true;
  EXPECT_EQ(rewrite_rpath(in).entries, (Entries{"$ORIGIN/../lib"}));
  in.default_rpaths = {"lib/", "lib64/private"};
  in.file = "libexec/pkg/helper";
  EXPECT_EQ(rewrite_rpath(in).entries, (Entries{"$ORIGIN/../../lib", "$ORIGIN/../../lib64/private"}));
}

TEST(RpathRewrite, AFileThatLinksNothingOfThePrefixGetsNoRpath) {
  EXPECT_TRUE(rewrite_rpath(input("", "bin/tool")).entries.empty());
  auto in = input("/b/host_env_placehold/lib", "bin/tool");
  in.links_prefix_libraries = true;  // entries kept: no default added
  EXPECT_EQ(rewrite_rpath(in).entries, (Entries{"$ORIGIN/../lib"}));
}

TEST(RpathRewrite, DefaultRpathsAreLibWhenTheRecipeGivesNone) {
  EXPECT_EQ(gpuenv::build::effective_default_rpaths({}), (Entries{"lib/"}));
  EXPECT_EQ(gpuenv::build::effective_default_rpaths({"lib64"}), (Entries{"lib64"}));
}

}  // namespace
