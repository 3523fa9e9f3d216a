// The ELF step on a prefix prepared by hand: which files it touches, the
// kind of search path it keeps, and what happens without patchelf.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gpuenv/builder/elf_post_process.hpp"
#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_program;
using gpuenv::testing::write_text_file;

class ElfPostProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix = dir.path() / "host_env_placehold";
    write_text_file(dir / "main.c", "int main(void) { return 0; }\n");
    fs::create_directories(prefix / "bin");
    request.host_prefix = prefix;
    request.before = gpuenv::build::prefix_listing(prefix);
    request.search_path = "/usr/bin:/bin";
    request.log = [this](const std::string& line) { log += line + "\n"; };
  }

  // gcc's own choice of tag, or DT_RPATH with --disable-new-dtags.
  void compile(const std::string& relative, const std::string& rpath, bool old_tag = false) {
    std::vector<std::string> args = {"-o", (prefix / relative).string(), (dir / "main.c").string(),
                                     "-Wl,-rpath," + rpath};
    args.push_back(old_tag ? "-Wl,--disable-new-dtags" : "-Wl,--enable-new-dtags");
    const auto compiled = run_program("gcc", args);
    ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  }

  gpuenv::cuda_binary::DynamicLinking linking_of(const std::string& relative) const {
    auto linking = gpuenv::cuda_binary::read_dynamic_linking((prefix / relative).string());
    EXPECT_TRUE(linking) << linking.error().message;
    return linking ? *linking : gpuenv::cuda_binary::DynamicLinking{};
  }

  gpuenv::testing::TempDirectory dir;
  fs::path prefix;
  gpuenv::build::ElfPostProcessRequest request;
  std::string log;
};

TEST_F(ElfPostProcess, KeepsTheKindOfSearchPathAndSkipsWhatIsNotADynamicElfFile) {
  compile("bin/new-tags", (prefix / "lib").string());
  compile("bin/old-tags", (prefix / "lib").string() + ":/opt/elsewhere", true);
  write_text_file(prefix / "bin/script.sh", "#!/bin/sh\n");
  write_text_file(prefix / "lib/libthing.a", "!<arch>\n");
  write_text_file(prefix / "lib/broken.so", std::string("\x7f" "ELF\x02\x01", 6));
  fs::create_symlink("new-tags", prefix / "bin/alias");

  const auto done = gpuenv::build::post_process_elf(request);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->elf_files, 2u);
  EXPECT_EQ(done->relocated, 2u);
  EXPECT_EQ(linking_of("bin/new-tags").runpath, "$ORIGIN/../lib");
  EXPECT_EQ(linking_of("bin/new-tags").rpath, "");
  EXPECT_EQ(linking_of("bin/old-tags").rpath, "$ORIGIN/../lib");
  EXPECT_EQ(linking_of("bin/old-tags").runpath, "");
  EXPECT_NE(log.find("lib/broken.so left as it is, it cannot be read as ELF"), std::string::npos) << log;
  EXPECT_NE(log.find("bin/old-tags: rpath entry /opt/elsewhere is outside the host prefix, dropped"),
            std::string::npos)
      << log;

  // Nothing left to change: patchelf does not run again.
  const auto again = gpuenv::build::post_process_elf(request);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->relocated, 0u);
}

TEST_F(ElfPostProcess, WithoutPatchelfARewriteIsAnErrorThatSaysWhatToDo) {
  compile("bin/tool", "/build/machine/lib");
  request.search_path = (dir / "empty-bin").string();
  const auto done = gpuenv::build::post_process_elf(request);
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().kind, gpuenv::build::BuildErrorKind::linking);
  EXPECT_NE(done.error().message.find("relocating bin/tool"), std::string::npos) << done.error().message;
  EXPECT_NE(done.error().message.find("apt-get install patchelf"), std::string::npos) << done.error().message;
  EXPECT_NE(done.error().message.find("binary_relocation: false"), std::string::npos) << done.error().message;

  request.settings.binary_relocation = false;
  EXPECT_TRUE(gpuenv::build::post_process_elf(request));
  EXPECT_EQ(linking_of("bin/tool").runpath, "/build/machine/lib");
}

TEST_F(ElfPostProcess, AnOverlinkingErrorQuotesTheFirstProblemsAndTheLogHasAll) {
  write_text_file(dir / "missing.c", "int missing(void) { return 0; }\n");
  write_text_file(dir / "user.c", "int missing(void);\nint main(void) { return missing(); }\n");
  const auto library = run_program("gcc", {"-shared", "-fPIC", "-o", (dir / "libmissing.so").string(),
                                           (dir / "missing.c").string()});
  ASSERT_EQ(library.exit_code, 0) << library.err;
  const auto user = run_program("gcc", {"-o", (prefix / "bin/user0").string(), (dir / "user.c").string(),
                                        "-L" + dir.path().string(), "-lmissing"});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  for (int index = 1; index < 25; ++index) fs::copy_file(prefix / "bin/user0", prefix / ("bin/user" + std::to_string(index)));

  request.settings.overlinking_behavior = "error";
  const auto done = gpuenv::build::post_process_elf(request);
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("bin/user0 links libmissing.so, which neither the package"), std::string::npos)
      << done.error().message;
  EXPECT_NE(done.error().message.find("and 5 more (the build log lists them all)"), std::string::npos)
      << done.error().message;
  std::size_t logged = 0;
  for (auto at = log.find("error: overlinking"); at != std::string::npos; at = log.find("error: overlinking", at + 1)) {
    ++logged;
  }
  EXPECT_EQ(logged, 25u);

  request.settings.overlinking_behavior.reset();
  EXPECT_TRUE(gpuenv::build::post_process_elf(request));
}

// The linking check sees the run requirements after pins and run_exports
// are resolved: plain match specs.
TEST_F(ElfPostProcess, RunRequirementNamesComeFromTheResolvedSpecs) {
  const std::vector<std::string> run{"zlib >=1.3", "conda-forge::libpng 1.6.*", "tool-libs >=2.1,<2.2.0a0"};
  EXPECT_EQ(gpuenv::build::requirement_names(run), (std::set<std::string>{"libpng", "tool-libs", "zlib"}));
}

}  // namespace
