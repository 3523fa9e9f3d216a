// `gpuenv doctor`'s ELF load check (issue 34): the glibc each file needs
// against the machine's, the versions it needs of the libstdc++ the loader
// will really find (the environment's before the system's), and NEEDED
// libraries found nowhere. The files are made by the machine's gcc here.
#include <gtest/gtest.h>

#include <fstream>

#include "gpuenv/cuda_binary/symbol_versions.hpp"
#include "gpuenv/environment/elf_load_check.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

ElfLoadMachine machine_with_glibc(std::vector<int> glibc) {
  ElfLoadMachine machine;
  machine.glibc = std::move(glibc);
  machine.system_library_dirs = ld_so_conf_directories("/etc/ld.so.conf");
  for (const char* directory : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) machine.system_library_dirs.emplace_back(directory);
  return machine;
}

void compile(const std::string& compiler, const fs::path& source, const fs::path& output,
             std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"-shared", "-fPIC", "-o", output.string(), source.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto compiled = gpuenv::testing::run_program(compiler, args);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Replaces the string `from` (whole, between NULs) by `to` of the same length.
void rename_version(const fs::path& file, const std::string& from, const std::string& to) {
  ASSERT_EQ(from.size(), to.size());
  auto bytes = read_bytes(file);
  const auto at = bytes.find(std::string(1, '\0') + from + std::string(1, '\0'));
  ASSERT_NE(at, std::string::npos) << from << " not in " << file;
  bytes.replace(at + 1, from.size(), to);
  fs::remove(file);
  write_text_file(file, bytes);
}

TEST(ElfLoadCheck, LdSoConfIncludesAreFollowedInOrderAndCommentsAndLoopsIgnored) {
  TempDirectory root;
  write_text_file(root / "ld.so.conf", "# the loader's list\ninclude conf.d/*.conf\n/opt/first\n  /opt/second  # why\n"
                                       "include " + (root / "ld.so.conf").string() + "\n");
  write_text_file(root / "conf.d/a.conf", "/usr/lib/x86_64-linux-gnu\n");
  write_text_file(root / "conf.d/b.conf", "relative/ignored\n/usr/local/lib\n");
  EXPECT_EQ(ld_so_conf_directories(root / "ld.so.conf"),
            (std::vector<fs::path>{"/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/opt/first", "/opt/second"}));
  EXPECT_TRUE(ld_so_conf_directories(root / "absent.conf").empty());
}

TEST(ElfLoadCheck, AGlibcNeedAboveTheMachinesFailsNamingTheFileAndTheVersion) {
  TempDirectory prefix;
  write_text_file(prefix / "new.c", "#include <stdlib.h>\nvoid *grow(void *p, size_t n) { return reallocarray(p, n, 8); }\n");
  fs::create_directories(prefix / "lib");
  compile("gcc", prefix / "new.c", prefix / "lib/libnew.so");
  const auto needs = cuda_binary::read_symbol_versions((prefix / "lib/libnew.so").string());
  ASSERT_TRUE(needs);
  const auto highest = cuda_binary::highest_version(cuda_binary::needed_versions(*needs), "GLIBC_");
  ASSERT_TRUE(highest);

  auto check = check_elf_loading(prefix.path(), machine_with_glibc({2, 25}));
  EXPECT_EQ(check.glibc, "2.25");
  EXPECT_EQ(check.elf_files, 1u);
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0].file, "lib/libnew.so");
  EXPECT_EQ(check.problems[0].missing, highest->tag + " (libc.so.6)");
  EXPECT_NE(check.problems[0].explanation.find("this machine's glibc is 2.25"), std::string::npos)
      << check.problems[0].explanation;
  EXPECT_NE(check.problems[0].fix.find("__glibc >=" + cuda_binary::dotted(highest->numbers)), std::string::npos);

  check = check_elf_loading(prefix.path(), machine_with_glibc(highest->numbers));
  EXPECT_TRUE(check.everything_can_load()) << check.problems[0].explanation;
}

TEST(ElfLoadCheck, ANeededLibraryFoundNowhereFailsAndOneFoundThroughOriginDoesNot) {
  TempDirectory prefix;
  write_text_file(prefix / "helper.c", "int helper(void) { return 1; }\n");
  write_text_file(prefix / "user.c", "int helper(void);\nint user(void) { return helper(); }\n");
  fs::create_directories(prefix / "lib/private");
  compile("gcc", prefix / "helper.c", prefix / "lib/private/libhelper.so", {"-Wl,-soname,libhelper.so"});
  compile("gcc", prefix / "user.c", prefix / "lib/libuser.so",
          {"-L" + (prefix / "lib/private").string(), "-lhelper", "-Wl,-rpath,$ORIGIN/private"});
  const auto machine = machine_with_glibc({2, 99});
  auto check = check_elf_loading(prefix.path(), machine);
  EXPECT_TRUE(check.everything_can_load()) << check.problems[0].explanation;
  EXPECT_EQ(check.elf_files, 2u);

  fs::remove(prefix / "lib/private/libhelper.so");
  check = check_elf_loading(prefix.path(), machine);
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0].file, "lib/libuser.so");
  EXPECT_EQ(check.problems[0].missing, "libhelper.so");
  EXPECT_NE(check.problems[0].explanation.find("in none of its RPATH/RUNPATH directories"), std::string::npos);
}

// A C++ library needing a libstdc++ version no libstdc++ has (the test makes
// it up): the system's fails it; the environment's own libstdc++, defining
// it, is the one the loader finds first, so the file loads.
TEST(ElfLoadCheck, ALibstdcxxVersionIsJudgedAgainstTheEnvironmentsLibstdcxxBeforeTheSystems) {
  TempDirectory prefix;
  write_text_file(prefix / "cxx.cpp", "#include <string>\nstd::string greet(const std::string& who) { return \"hi \" + who; }\n");
  fs::create_directories(prefix / "lib");
  compile("g++", prefix / "cxx.cpp", prefix / "lib/libgreet.so");
  const auto needs = cuda_binary::read_symbol_versions((prefix / "lib/libgreet.so").string());
  ASSERT_TRUE(needs);
  std::string real;
  for (const auto& need : needs->needs) {
    for (const auto& version : need.versions) {
      if (need.library == "libstdc++.so.6" && version.starts_with("GLIBCXX_3.4.")) real = version;
    }
  }
  ASSERT_FALSE(real.empty()) << "g++ made a library needing no GLIBCXX_3.4.x";
  std::string made_up = "GLIBCXX_9.9." + std::string(real.size() - 12, '9');
  rename_version(prefix / "lib/libgreet.so", real, made_up);

  const auto machine = machine_with_glibc({2, 99});
  auto check = check_elf_loading(prefix.path(), machine);
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0].missing, made_up + " (libstdc++.so.6)");
  EXPECT_NE(check.problems[0].explanation.find("the system's) defines up to GLIBCXX_3.4."), std::string::npos)
      << check.problems[0].explanation;
  EXPECT_NE(check.problems[0].fix.find("libstdcxx"), std::string::npos) << check.problems[0].fix;

  // The environment's own libstdc++ (a copy of the system's defining the made-up version).
  fs::path system_libstdcxx;
  for (const auto& directory : machine.system_library_dirs) {
    if (fs::exists(directory / "libstdc++.so.6")) {
      system_libstdcxx = directory / "libstdc++.so.6";
      break;
    }
  }
  ASSERT_FALSE(system_libstdcxx.empty());
  fs::copy_file(system_libstdcxx, prefix / "lib/libstdc++.so.6");
  rename_version(prefix / "lib/libstdc++.so.6", real, made_up);
  check = check_elf_loading(prefix.path(), machine);
  EXPECT_TRUE(check.everything_can_load()) << check.problems[0].explanation;
}

TEST(ElfLoadCheck, DriverLibrariesAreLeftToTheCudaChecksAndNonElfFilesAreSkipped) {
  TempDirectory prefix;
  TempDirectory elsewhere;
  write_text_file(prefix / "lib/readme.txt", "text");
  // A device-code ELF (e_machine 190, EM_CUDA) is not this machine's.
  write_text_file(prefix / "lib/kernel.cubin",
                  std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(11, '\0') + std::string("\xbe\x00", 2));
  // A library linked against the driver's libcuda.so.1, which is not on this machine.
  write_text_file(elsewhere / "driver.c", "int cuInit(unsigned flags) { return (int)flags; }\n");
  write_text_file(prefix / "user.c", "int cuInit(unsigned);\nint start(void) { return cuInit(0); }\n");
  compile("gcc", elsewhere / "driver.c", elsewhere / "libcuda.so.1", {"-Wl,-soname,libcuda.so.1"});
  compile("gcc", prefix / "user.c", prefix / "lib/libstart.so", {"-L" + elsewhere.path().string(), "-l:libcuda.so.1"});
  const auto check = check_elf_loading(prefix.path(), machine_with_glibc({2, 36}));
  EXPECT_TRUE(check.everything_can_load()) << check.problems[0].explanation;
  EXPECT_EQ(check.elf_files, 1u);
  EXPECT_TRUE(check.unreadable.empty());
}

}  // namespace
}  // namespace gpuenv::environment
