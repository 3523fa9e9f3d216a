// The C library a package's ELF files need becomes its run requirement
// (issue 34): read from the files, never assumed; a floor the recipe
// declares that a file breaks fails the build naming the file.
#include <gtest/gtest.h>

#include "gpuenv/builder/glibc_requirement.hpp"
#include "gpuenv/cuda_binary/symbol_versions.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::GlibcFloor;
using gpuenv::build::GlibcNeed;
using gpuenv::build::glibc_lower_bound;
using gpuenv::build::glibc_requirement;
using gpuenv::build::highest_glibc_need;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

TEST(GlibcRequirement, TheLowerBoundIsTheHighestGreaterOrEqualAmongTheGlibcSpecs) {
  EXPECT_EQ(glibc_lower_bound({"python >=3.13", "__glibc >=2.17,<3.0.a0", "__glibc >=2.28"}), (std::vector<int>{2, 28}));
  EXPECT_EQ(glibc_lower_bound({"__glibc >=2.36,<3.0.a0"}), (std::vector<int>{2, 36}));
  EXPECT_FALSE(glibc_lower_bound({"__glibc <3", "__glibcxx >=2.40", "__glibc >=2.17|>=1"}));
  EXPECT_FALSE(glibc_lower_bound({}));
}

TEST(GlibcRequirement, AddsTheNeededFloorUnlessAStricterOneIsThere) {
  const GlibcNeed need{"lib/libstencil.so", "libc.so.6", "GLIBC_2.34", {2, 34}};
  auto added = glibc_requirement(need, std::nullopt, {"__cuda >=13"});
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(*added, "__glibc >=2.34,<3.0.a0");
  // A looser floor from a run export: the stricter one is added beside it.
  added = glibc_requirement(need, std::nullopt, {"__glibc >=2.17,<3.0.a0"});
  ASSERT_TRUE(added);
  EXPECT_EQ(*added, "__glibc >=2.34,<3.0.a0");
  // The machine's sysroot stand-in already asks for 2.36.
  added = glibc_requirement(need, std::nullopt, {"__glibc >=2.36,<3.0.a0"});
  ASSERT_TRUE(added);
  EXPECT_FALSE(*added);
  added = glibc_requirement(std::nullopt, std::nullopt, {});
  ASSERT_TRUE(added);
  EXPECT_FALSE(*added);
}

TEST(GlibcRequirement, ADeclaredFloorAFileBreaksFailsNamingTheFileTheVersionAndTheFix) {
  const GlibcNeed need{"lib/libstencil.so", "libc.so.6", "GLIBC_2.34", {2, 34}};
  const auto refused = glibc_requirement(need, GlibcFloor{{2, 17}, "c_stdlib_version 2.17"}, {"__glibc >=2.17"});
  ASSERT_FALSE(refused);
  const auto& message = refused.error().message;
  EXPECT_NE(message.find("lib/libstencil.so needs GLIBC_2.34 (from libc.so.6)"), std::string::npos) << message;
  EXPECT_NE(message.find("declares glibc 2.17 as the oldest it supports (c_stdlib_version 2.17)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("raise the floor to 2.34"), std::string::npos) << message;
  // At or above the need: fine.
  EXPECT_TRUE(glibc_requirement(need, GlibcFloor{{2, 34}, "c_stdlib_version 2.34"}, {}));
}

TEST(GlibcRequirement, TheHighestNeedIsReadFromTheFilesTheMachinesGccMakes) {
  TempDirectory prefix;
  // reallocarray is GLIBC_2.26; the plain function only GLIBC_2.2.5 (x86-64's first).
  write_text_file(prefix / "new.c", "#include <stdlib.h>\nvoid *grow(void *p, size_t n) { return reallocarray(p, n, 8); }\n");
  write_text_file(prefix / "old.c", "#include <string.h>\nsize_t length(const char *s) { return strlen(s); }\n");
  fs::create_directories(prefix / "lib");
  for (const char* name : {"new", "old"}) {
    const auto compiled = gpuenv::testing::run_program(
        "gcc", {"-shared", "-fPIC", "-o", (prefix / "lib" / (std::string("lib") + name + ".so")).string(),
                (prefix / (std::string(name) + ".c")).string()});
    ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  }
  write_text_file(prefix / "share/readme.txt", "not ELF");
  fs::create_symlink("libnew.so", prefix / "lib/libnew.so.1");
  std::vector<std::string> warnings;
  const auto need = highest_glibc_need(prefix.path(), {"lib/libnew.so", "lib/libnew.so.1", "lib/libold.so",
                                                       "share/readme.txt"},
                                       [&warnings](const std::string& line) { warnings.push_back(line); });
  ASSERT_TRUE(need);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(need->file, "lib/libnew.so");
  EXPECT_EQ(need->library, "libc.so.6");
  // What the file says, read independently of the builder's choice.
  const auto versions = gpuenv::cuda_binary::read_symbol_versions((prefix / "lib/libnew.so").string());
  ASSERT_TRUE(versions);
  EXPECT_EQ(need->tag, gpuenv::cuda_binary::highest_version(gpuenv::cuda_binary::needed_versions(*versions), "GLIBC_")->tag);
  EXPECT_FALSE(gpuenv::cuda_binary::version_less(need->numbers, {2, 26})) << need->tag;

  const auto old_only = highest_glibc_need(prefix.path(), {"lib/libold.so"}, {});
  ASSERT_TRUE(old_only);
  EXPECT_TRUE(gpuenv::cuda_binary::version_less(old_only->numbers, {2, 26})) << old_only->tag;
  EXPECT_FALSE(highest_glibc_need(prefix.path(), {"share/readme.txt"}, {}));
}

TEST(GlibcRequirement, AnElfFileWhoseTablesCannotBeReadIsReportedAndPassedOver) {
  TempDirectory prefix;
  std::string cut_elf("\x7f" "ELF\x02\x01\x01", 7);
  cut_elf.append(20, '\0');
  write_text_file(prefix / "lib/libcut.so", cut_elf);
  std::vector<std::string> warnings;
  const auto need = highest_glibc_need(prefix.path(), {"lib/libcut.so"},
                                       [&warnings](const std::string& line) { warnings.push_back(line); });
  EXPECT_FALSE(need);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot read the symbol versions of lib/libcut.so"), std::string::npos) << warnings[0];
}

}  // namespace
