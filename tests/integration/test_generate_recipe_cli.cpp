// `gpuenv generate-recipe pypi` end to end against a PyPI stand-in: a
// file:// index of project JSON files and sdists the test makes. No network.
// The recipe it writes lints clean and says what the metadata says (conda
// names, markers judged, extras left out, noarch decided from the files);
// bad and hostile input gives an error naming the package and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/package/hashing.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::run_program;
using gpuenv::testing::write_text_file;

class GenerateRecipeCli : public ::testing::Test {
 protected:
  fs::path index() const { return machine / "index"; }

  // An sdist <name>-<version>.tar.gz of `files` (path -> text) under
  // <name>-<version>/, listed in index/<project>.json.
  void publish(const std::string& project, const std::string& version,
               const std::vector<std::pair<std::string, std::string>>& files, const std::string& archive_top = "") {
    const auto stem = project + "-" + version;
    const auto tree = machine / "trees" / stem;
    for (const auto& [path, text] : files) write_text_file(tree / (archive_top.empty() ? stem : archive_top) / path, text);
    fs::create_directories(index());
    const auto sdist = index() / (stem + ".tar.gz");
    const auto packed = run_program("tar", {"-czf", sdist.string(), "-C", tree.string(), archive_top.empty() ? stem : archive_top});
    ASSERT_EQ(packed.exit_code, 0) << packed.err;
    const auto sha256 = gpuenv::package::hash_file(sdist, true, false).sha256;
    const nlohmann::json document = {
        {"info", {{"name", project}, {"version", version}, {"summary", "A demo"}}},
        {"releases", {{version, {{{"filename", stem + ".tar.gz"}, {"packagetype", "sdist"},
                                  {"url", "file://" + sdist.string()}, {"digests", {{"sha256", sha256}}},
                                  {"requires_python", ">=3.10"}, {"yanked", false}}}}}}};
    write_text_file(index() / (project + ".json"), document.dump());
  }

  gpuenv::testing::CommandOutput generate(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"generate-recipe", "pypi", "--index-url", "file://" + index().string(),
                                     "--output-dir", (machine / "recipes").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  gpuenv::testing::SolveCliMachine machine;
};

const char* const demo_pkg_info = "Metadata-Version: 2.3\nName: demo-pkg\nVersion: 1.0\nSummary: A demo: with a colon\n"
                                  "Requires-Python: >=3.10\nLicense-Expression: MIT\nLicense-File: LICENSE\n"
                                  "Project-URL: Homepage, https://example.org/demo\n"
                                  "Requires-Dist: msgpack>=1.0.2\nRequires-Dist: PyYAML~=6.0\n"
                                  "Requires-Dist: tomli>=2; python_version < \"3.11\"\n"
                                  "Requires-Dist: pywin32; sys_platform == \"win32\"\n"
                                  "Requires-Dist: pytest; extra == \"test\"\nProvides-Extra: test\n\nThe description.\n";

TEST_F(GenerateRecipeCli, APurePythonSdistBecomesANoarchRecipeThatLintsClean) {
  publish("demo-pkg", "1.0", {{"PKG-INFO", demo_pkg_info},
                              {"pyproject.toml", "[build-system]\nrequires = [\"flit_core >=3.2,<4\"]\n"
                                                 "build-backend = \"flit_core.buildapi\"\n[project.scripts]\ndemo = \"demo_pkg:main\"\n"},
                              {"demo_pkg/__init__.py", "def main():\n    pass\n"},
                              {"LICENSE", "MIT License\n"}});
  const auto result = generate({"demo-pkg", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["written"].size(), 1u);
  EXPECT_EQ(report["written"][0]["name"], "demo-pkg");
  EXPECT_EQ(report["written"][0]["noarch"], true);
  const auto recipe = read_file(machine / "recipes/demo-pkg/recipe.yaml");
  for (const char* expected : {"  noarch: python\n", "  python_min: \"3.10\"\n", "    - flit-core >=3.2,<4\n",
                               "    - msgpack-python >=1.0.2\n", "    - pyyaml >=6.0,<7\n",
                               "    # needed on Python 3.10 only (python_version < \"3.11\")\n    - tomli >=2\n",
                               "      - demo = demo_pkg:main\n", "        - demo_pkg\n", "      pip_check: true\n",
                               "  summary: \"A demo: with a colon\"\n", "  license: MIT\n", "  license_file: LICENSE\n",
                               "  homepage: https://example.org/demo\n"}) {
    EXPECT_NE(recipe.find(expected), std::string::npos) << expected << "\n" << recipe;
  }
  EXPECT_EQ(recipe.find("pytest"), std::string::npos) << recipe;   // an extra
  EXPECT_EQ(recipe.find("pywin32"), std::string::npos) << recipe;  // Windows only
  const auto lint = run_gpuenv({"lint", (machine / "recipes/demo-pkg").string()}, machine.env());
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_NE(lint.out.find("0 errors, 0 warnings"), std::string::npos) << lint.out;

  // Written once: a second run refuses to replace it without --overwrite.
  const auto again = generate({"demo-pkg"});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("exists: pass --overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(generate({"demo-pkg", "--overwrite"}).exit_code, 0);
}

TEST_F(GenerateRecipeCli, ACompiledSdistIsNotNoarchAndNeedsTheCompilers) {
  publish("fastthing", "2.0", {{"PKG-INFO", "Metadata-Version: 2.1\nName: fastthing\nVersion: 2.0\nLicense: BSD\n"},
                               {"setup.py", "from setuptools import setup, Extension\n"},
                               {"fastthing.egg-info/requires.txt", "numpy>=1.24\n[test]\npytest\n"},
                               {"fastthing/__init__.py", ""},
                               {"fastthing/_core.c", "int core(void) { return 1; }\n"},
                               {"LICENSE.txt", "BSD\n"}});
  const auto result = generate({"fastthing==2.0"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto recipe = read_file(machine / "recipes/fastthing/recipe.yaml");
  EXPECT_EQ(recipe.find("noarch: python"), std::string::npos) << recipe;
  for (const char* expected : {"    - ${{ compiler('c') }}\n", "    - ${{ stdlib('c') }}\n", "    - setuptools\n",
                               "    - numpy >=1.24\n", "  license: BSD-3-Clause\n", "fastthing/_core.c is compiled"}) {
    EXPECT_NE(recipe.find(expected), std::string::npos) << expected << "\n" << recipe;
  }
  EXPECT_EQ(recipe.find("pytest"), std::string::npos) << recipe;
}

TEST_F(GenerateRecipeCli, BadAndHostileInputIsRefusedNamingThePackageAndNothingIsWritten) {
  // Unknown project, unknown version, malformed request.
  fs::create_directories(index());
  auto result = generate({"no-such-project"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("no-such-project: no such project"), std::string::npos) << result.err;
  publish("demo-pkg", "1.0", {{"PKG-INFO", demo_pkg_info}, {"demo_pkg/__init__.py", ""}});
  result = generate({"demo-pkg==9.9"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("demo-pkg has no release 9.9 on PyPI"), std::string::npos) << result.err;
  result = generate({"demo-pkg>=1"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("is not NAME or NAME==VERSION"), std::string::npos) << result.err;

  // An sdist member that climbs out of the work directory.
  publish("escape", "1.0", {{"PKG-INFO", "Metadata-Version: 2.1\nName: escape\nVersion: 1.0\n"}});
  const auto evil_tree = machine / "evil";
  write_text_file(evil_tree / "escape-1.0/PKG-INFO", "Metadata-Version: 2.1\nName: escape\nVersion: 1.0\n");
  write_text_file(machine / "outside.txt", "owned");
  const auto evil = index() / "escape-1.0.tar.gz";
  fs::remove(evil);
  ASSERT_EQ(run_program("tar", {"-czf", evil.string(), "-C", evil_tree.string(), "--absolute-names", "escape-1.0",
                                (machine / "outside.txt").string()}).exit_code, 0);
  auto document = nlohmann::json::parse(read_file(index() / "escape.json"));
  document["releases"]["1.0"][0]["digests"]["sha256"] = gpuenv::package::hash_file(evil, true, false).sha256;
  write_text_file(index() / "escape.json", document.dump());
  result = generate({"escape", "demo-pkg"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("escape 1.0: its sdist"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("nothing was written"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(machine / "recipes")) << "nothing is written when one package fails";

  // A digest that does not match the file.
  document["releases"]["1.0"][0]["digests"]["sha256"] = std::string(64, 'a');
  write_text_file(index() / "escape.json", document.dump());
  result = generate({"escape"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("sha256"), std::string::npos) << result.err;

  // An index that slips YAML into a version, or answers for another project.
  auto lying = nlohmann::json::parse(read_file(index() / "demo-pkg.json"));
  lying["info"]["version"] = "1.0\nbuild: {script: evil}";
  write_text_file(index() / "liar.json", lying.dump());
  result = generate({"liar"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("gives a version that is not one"), std::string::npos) << result.err;
  write_text_file(index() / "other.json", read_file(index() / "demo-pkg.json"));
  result = generate({"other"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("other: the index answered for another project, demo-pkg"), std::string::npos) << result.err;

  // A project JSON that is not one.
  write_text_file(index() / "junk.json", "<html>rate limited</html>");
  result = generate({"junk"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("junk: PyPI's answer is not a project JSON document"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(machine / "recipes"));
}

TEST_F(GenerateRecipeCli, RecursiveWritesTheRequirementsTheChannelsLack) {
  publish("top-pkg", "1.0", {{"PKG-INFO", "Metadata-Version: 2.2\nName: top-pkg\nVersion: 1.0\n"
                                          "Requires-Dist: leaf-pkg>=0.5\nRequires-Dist: msgpack\n"},
                             {"top_pkg/__init__.py", ""}});
  publish("leaf-pkg", "0.5", {{"PKG-INFO", "Metadata-Version: 2.2\nName: leaf-pkg\nVersion: 0.5\n"},
                              {"leaf_pkg/__init__.py", ""}});
  // msgpack-python is in the channel, and what a setup.py sdist builds with.
  nlohmann::json packages = nlohmann::json::object();
  for (const char* name : {"msgpack-python", "setuptools", "wheel"}) {
    packages[std::string(name) + "-1.0-0.tar.bz2"] = {{"name", name}, {"version", "1.0"}, {"build", "0"},
                                                       {"build_number", 0}, {"depends", nlohmann::json::array()},
                                                       {"subdir", "noarch"}};
  }
  write_text_file(machine / "channel/noarch/repodata.json",
                  nlohmann::json{{"info", {{"subdir", "noarch"}}}, {"packages", packages}}.dump());
  write_text_file(machine / "channel/linux-64/repodata.json", R"({"info": {"subdir": "linux-64"}, "packages": {}})");
  const auto result = generate({"top-pkg", "--recursive", "-c", "file://" + (machine / "channel").string(),
                                "--override-channels", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const auto report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["written"].size(), 2u) << result.out;
  EXPECT_EQ(report["written"][1]["name"], "leaf-pkg");
  EXPECT_TRUE(fs::exists(machine / "recipes/leaf-pkg/recipe.yaml"));
  EXPECT_FALSE(fs::exists(machine / "recipes/msgpack-python"));
  EXPECT_NE(report["not_needed"].dump().find("msgpack-python (in the channels)"), std::string::npos) << result.out;
}

}  // namespace
