// What generate-recipe reads from an unpacked sdist (sdists the tests make).
#include <gtest/gtest.h>

#include "gpuenv/generator/pypi_recipe.hpp"
#include "gpuenv/generator/sdist_inspection.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::generate {
namespace {

using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

TEST(SdistInspection, EggInfoRequirementsKeepMarkerSectionsAndDropExtras) {
  EXPECT_EQ(egg_info_requirements("click>=8.0\ncloudpickle\n\n[:python_version < \"3.12\"]\nimportlib-metadata>=4.13\n"
                                  "[test]\npytest\n[complete:python_version >= \"3.9\"]\nbokeh\n"),
            (std::vector<std::string>{"click>=8.0", "cloudpickle", "importlib-metadata>=4.13; python_version < \"3.12\""}));
}

TEST(SdistInspection, ConsoleScriptsComeFromEntryPointsOrSetupCfg) {
  EXPECT_EQ(console_scripts_of_ini("[console_scripts]\ndask = dask.__main__:main\nweird = mod:fn [extra]\n"
                                   "[gui_scripts]\ngui = x:y\n",
                                   "console_scripts", false),
            (std::vector<std::pair<std::string, std::string>>{{"dask", "dask.__main__:main"}, {"weird", "mod:fn"}}));
  EXPECT_EQ(console_scripts_of_ini("[metadata]\nname = x\n[options.entry_points]\nconsole_scripts =\n"
                                   "    tool = pkg.cli:main\n    other = pkg.cli:other\n",
                                   "options.entry_points", true),
            (std::vector<std::pair<std::string, std::string>>{{"tool", "pkg.cli:main"}, {"other", "pkg.cli:other"}}));
}

TEST(SdistInspection, APurePythonSdistIsNoarchWithItsModulesAndLicense) {
  TempDirectory root;
  write_text_file(root / "PKG-INFO", "Metadata-Version: 2.3\nName: demo-pkg\nVersion: 1.0\nLicense-File: COPYING\n");
  write_text_file(root / "pyproject.toml", "[build-system]\nrequires = [\"flit_core >=3.2,<4\"]\nbuild-backend = \"flit_core.buildapi\"\n");
  write_text_file(root / "src/demo_pkg/__init__.py", "");
  write_text_file(root / "src/_demo_private/__init__.py", "");
  write_text_file(root / "src/tests_core/__init__.py", "");  // flit-core's test package
  write_text_file(root / "tests/test_c_helper.c", "int main(void) { return 0; }\n");  // tests are not installed
  write_text_file(root / "COPYING", "MIT\n");
  const auto facts = inspect_sdist(root.path());
  ASSERT_TRUE(facts) << facts.error();
  EXPECT_FALSE(facts->compiled) << facts->compiled_because;
  EXPECT_EQ(facts->top_level_modules, (std::vector<std::string>{"demo_pkg"}));
  EXPECT_EQ(facts->license_files, (std::vector<std::string>{"COPYING"}));
  ASSERT_TRUE(facts->pyproject);
  EXPECT_EQ(facts->pyproject->build_backend, "flit_core.buildapi");
}

// PyYAML keeps its package in lib/, poetry-core in the namespace src/poetry/.
TEST(SdistInspection, PackagesUnderLibAndNamespacePackagesAreFound) {
  TempDirectory yaml;
  write_text_file(yaml / "PKG-INFO", "Metadata-Version: 2.1\nName: PyYAML\nVersion: 6.0\n");
  write_text_file(yaml / "lib/yaml/__init__.py", "");
  write_text_file(yaml / "setup.py", "");
  auto facts = inspect_sdist(yaml.path());
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->top_level_modules, (std::vector<std::string>{"yaml"}));
  TempDirectory poetry;
  write_text_file(poetry / "src/poetry/core/__init__.py", "");
  facts = inspect_sdist(poetry.path());
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->top_level_modules, (std::vector<std::string>{"poetry.core"}));
}

TEST(SdistInspection, CSourcesOrACompilingBackendMeanNotNoarch) {
  TempDirectory root;
  write_text_file(root / "PKG-INFO", "Metadata-Version: 2.1\nName: fast\nVersion: 1.0\n");
  write_text_file(root / "setup.py", "from setuptools import setup, Extension\n");
  write_text_file(root / "fast/__init__.py", "");
  write_text_file(root / "fast/_speedups.cpp", "int f() { return 1; }\n");
  auto facts = inspect_sdist(root.path());
  ASSERT_TRUE(facts);
  EXPECT_TRUE(facts->compiled);
  EXPECT_TRUE(facts->cxx);
  EXPECT_EQ(facts->compiled_because, "fast/_speedups.cpp");

  TempDirectory meson;
  write_text_file(meson / "pyproject.toml", "[build-system]\nrequires = [\"meson-python\"]\nbuild-backend = \"mesonpy\"\n");
  facts = inspect_sdist(meson.path());
  ASSERT_TRUE(facts);
  EXPECT_TRUE(facts->compiled);
  EXPECT_EQ(facts->compiled_because, "the build backend mesonpy");
}

TEST(SdistInspection, AnUnreadablePkgInfoOrPyprojectIsAnErrorNamingIt) {
  TempDirectory root;
  write_text_file(root / "PKG-INFO", "Summary: no name\n");
  auto facts = inspect_sdist(root.path());
  ASSERT_FALSE(facts);
  EXPECT_NE(facts.error().find("PKG-INFO cannot be read"), std::string::npos) << facts.error();
  TempDirectory broken;
  write_text_file(broken / "pyproject.toml", "[build-system\n");
  facts = inspect_sdist(broken.path());
  ASSERT_FALSE(facts);
  EXPECT_NE(facts.error().find("pyproject.toml is not valid TOML"), std::string::npos) << facts.error();
}

TEST(CondaNames, TheShippedTableMapsGrayskullsNamesAndOthersNormalize) {
  const auto& names = shipped_conda_names();
  EXPECT_EQ(conda_name(names, "msgpack"), "msgpack-python");
  EXPECT_EQ(conda_name(names, "dask"), "dask-core");
  EXPECT_EQ(conda_name(names, "torch"), "pytorch");
  EXPECT_EQ(conda_name(names, "tables"), "pytables");
  EXPECT_EQ(conda_name(names, "typing_extensions"), "typing_extensions");
  EXPECT_EQ(conda_name(names, "PyYAML"), "pyyaml");
  EXPECT_EQ(conda_name(names, "importlib_metadata"), "importlib-metadata");
  EXPECT_FALSE(parse_conda_names("pypi_name\tconda_name\tsource\nPyYAML\tpyyaml\tx\n"));  // not normalized
  EXPECT_FALSE(parse_conda_names("pypi_name\tconda_name\tsource\nmsgpack\n"));
}

// hatchling's backend is hatchling itself (backend-path): what it needs at
// run time must be in the host environment to build it.
TEST(PypiRecipe, AnInTreeBackendGetsItsRunRequirementsInHost) {
  PypiRelease release;
  release.name = "hatchling";
  release.version = "1.33.0";
  release.sdist = {"hatchling-1.33.0.tar.gz", "https://files.example.org/hatchling-1.33.0.tar.gz",
                   std::string(64, 'a'), "sdist", ">=3.9", 1, false};
  SdistFacts facts;
  facts.pkg_info = *parse_core_metadata("Metadata-Version: 2.4\nName: hatchling\nVersion: 1.33.0\n"
                                        "Requires-Dist: pathspec>=0.10.1\nRequires-Dist: pluggy>=1.0.0\n");
  facts.pyproject = *parse_pyproject("[build-system]\nrequires = []\nbuild-backend = 'hatchling.ouroboros'\n"
                                     "backend-path = ['src']\n");
  facts.top_level_modules = {"hatchling"};
  const RecipeSources sources{&release, &facts, &shipped_conda_names(), 14};
  const auto recipe = write_pypi_recipe(sources);
  ASSERT_TRUE(recipe) << recipe.error();
  const auto host = recipe->text.find("  host:\n");
  const auto run = recipe->text.find("  run:\n");
  ASSERT_NE(host, std::string::npos);
  const auto host_section = recipe->text.substr(host, run - host);
  EXPECT_NE(host_section.find("    - pathspec >=0.10.1\n"), std::string::npos) << recipe->text;
  EXPECT_NE(host_section.find("    - pluggy >=1.0.0\n"), std::string::npos) << recipe->text;
  EXPECT_NE(recipe->text.find("  homepage: https://pypi.org/project/hatchling/\n"), std::string::npos) << recipe->text;
  EXPECT_NE(recipe->text.find("  license: LicenseRef-unknown\n"), std::string::npos) << recipe->text;
  EXPECT_FALSE(recipe->notes.empty());  // the license and the license file to check
}

TEST(PypiRecipe, LicensesAndPythonBoundsAreReadAsTheMetadataWritesThem) {
  EXPECT_EQ(spdx_license("License :: OSI Approved :: BSD License"), "BSD-3-Clause");
  EXPECT_EQ(spdx_license("Apache Software License 2.0"), "Apache-2.0");
  EXPECT_EQ(spdx_license("MIT License."), "MIT");
  EXPECT_EQ(spdx_license("Copyright (c) 2010 someone, all rights reserved ..."), "");
  EXPECT_EQ(python_lower_bound(">=3.9"), "3.9");
  EXPECT_EQ(python_lower_bound(">=2.7, !=3.0.*, !=3.1.*"), "2.7");
  EXPECT_EQ(python_lower_bound("!=3.0.*, >= 3.10.2"), "3.10");
  EXPECT_EQ(python_lower_bound("<4"), "");
}

}  // namespace
}  // namespace gpuenv::generate
