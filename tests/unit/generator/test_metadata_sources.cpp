// The metadata `gpuenv generate-recipe pypi` reads: PyPI's project JSON
// (recorded answers), the sdist's PKG-INFO and pyproject.toml.
#include <gtest/gtest.h>

#include "gpuenv/generator/core_metadata.hpp"
#include "gpuenv/generator/pypi_project.hpp"
#include "gpuenv/generator/pyproject_toml.hpp"

namespace gpuenv::generate {
namespace {

// The shape of https://pypi.org/pypi/toolz/json, cut to two releases.
const char* const toolz_json = R"({
  "info": {"name": "toolz", "version": "1.0.0", "summary": "List processing tools and functional utilities",
           "home_page": "https://github.com/pytoolz/toolz/", "license": "BSD", "license_expression": null},
  "releases": {
    "0.12.1": [
      {"filename": "toolz-0.12.1-py3-none-any.whl", "packagetype": "bdist_wheel", "url": "https://files.pythonhosted.org/packages/b7/8a/toolz-0.12.1-py3-none-any.whl",
       "digests": {"sha256": "d22731364c07d72eea0a0ad45bafb2c2937ab6fd38a3507bf55eae8744aa7d85"}, "yanked": false},
      {"filename": "toolz-0.12.1.tar.gz", "packagetype": "sdist", "url": "https://files.pythonhosted.org/packages/3e/bf/toolz-0.12.1.tar.gz",
       "digests": {"sha256": "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d"}, "requires_python": ">=3.7", "size": 66550, "yanked": false}
    ],
    "1.0.0": [
      {"filename": "toolz-1.0.0.tar.gz", "packagetype": "sdist", "url": "https://files.pythonhosted.org/packages/8a/0b/toolz-1.0.0.tar.gz",
       "digests": {"sha256": "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02"}, "requires_python": ">=3.8", "size": 66790, "yanked": false}
    ],
    "2.0.0": [
      {"filename": "toolz-2.0.0-py3-none-any.whl", "packagetype": "bdist_wheel", "url": "https://files.pythonhosted.org/x.whl",
       "digests": {"sha256": "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02"}, "yanked": false}
    ]
  }
})";

TEST(PypiProject, TheLatestReleaseAndItsSdistAreChosen) {
  const auto release = select_release(toolz_json, "toolz", std::nullopt);
  ASSERT_TRUE(release) << release.error();
  EXPECT_EQ(release->name, "toolz");
  EXPECT_EQ(release->version, "1.0.0");
  EXPECT_TRUE(release->is_latest);
  EXPECT_EQ(release->sdist.filename, "toolz-1.0.0.tar.gz");
  EXPECT_EQ(release->sdist.sha256, "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02");
  EXPECT_EQ(release->sdist.requires_python, ">=3.8");
  EXPECT_EQ(release->summary, "List processing tools and functional utilities");
  const auto older = select_release(toolz_json, "toolz", std::string("0.12.1"));
  ASSERT_TRUE(older);
  EXPECT_EQ(older->sdist.filename, "toolz-0.12.1.tar.gz");  // never the wheel
  EXPECT_FALSE(older->is_latest);
  EXPECT_TRUE(older->summary.empty());
}

TEST(PypiProject, AVersionWithoutAnSdistOrUnknownIsRefusedNamingThePackage) {
  auto refused = select_release(toolz_json, "toolz", std::string("2.0.0"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("toolz 2.0.0 has no sdist (only wheels)"), std::string::npos) << refused.error();
  refused = select_release(toolz_json, "toolz", std::string("9.9"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("toolz has no release 9.9 on PyPI"), std::string::npos) << refused.error();
  refused = select_release(std::string(max_project_json_bytes + 1, ' '), "toolz", std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("toolz: PyPI's answer is larger than 64 MiB"), std::string::npos) << refused.error();
  refused = select_release("<html>rate limited</html>", "toolz", std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("toolz: PyPI's answer is not a project JSON document"), std::string::npos);
  // An sdist served over plain http, or without a digest: refused, not trusted.
  std::string insecure = toolz_json;
  insecure.replace(insecure.find("https://files.pythonhosted.org/packages/8a"), 8, "http://");
  refused = select_release(insecure, "toolz", std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("without an https url"), std::string::npos) << refused.error();
}

// Some mirrors (this machine's PyPI among them) write file urls relative to
// the JSON's own url.
TEST(PypiProject, RelativeFileUrlsAreResolvedAgainstTheJsonsUrl) {
  const std::string json_url = "https://pypi.org/pypi/dask/json";
  EXPECT_EQ(resolve_url(json_url, "../../packages/packages/aa/bb/dask-1.0.tar.gz"),
            "https://pypi.org/packages/packages/aa/bb/dask-1.0.tar.gz");
  EXPECT_EQ(resolve_url(json_url, "/x/y.tar.gz"), "https://pypi.org/x/y.tar.gz");
  EXPECT_EQ(resolve_url(json_url, "//files.example.org/y.tar.gz"), "https://files.example.org/y.tar.gz");
  EXPECT_EQ(resolve_url(json_url, "https://files.pythonhosted.org/a.tar.gz"), "https://files.pythonhosted.org/a.tar.gz");
  EXPECT_EQ(resolve_url(json_url, "../../../../../../etc/passwd"), "https://pypi.org/etc/passwd");
  EXPECT_EQ(project_json_url("https://pypi.org/pypi/", "dask"), json_url);
  std::string relative = toolz_json;
  relative.replace(relative.find("https://files.pythonhosted.org/packages/8a/0b/toolz-1.0.0.tar.gz"),
                   std::string("https://files.pythonhosted.org/packages/8a/0b/toolz-1.0.0.tar.gz").size(),
                   "../../packages/8a/0b/toolz-1.0.0.tar.gz");
  const auto release = select_release(relative, "toolz", std::nullopt, "https://pypi.org/pypi/toolz/json");
  ASSERT_TRUE(release) << release.error();
  EXPECT_EQ(release->sdist.url, "https://pypi.org/packages/8a/0b/toolz-1.0.0.tar.gz");
}

TEST(CoreMetadata, ReadsTheHeadersAndStopsAtTheDescription) {
  const auto metadata = parse_core_metadata(
      "Metadata-Version: 2.1\r\nName: distributed\nVersion: 2025.1.0\nSummary: Distributed scheduler for Dask\n"
      "License: BSD-3-Clause\nProject-URL: Homepage, https://distributed.dask.org\n"
      "Project-URL: Source, https://github.com/dask/distributed\nRequires-Python: >=3.10\n"
      "Requires-Dist: click>=8.0\nRequires-Dist: msgpack>=1.0.2\n"
      "Requires-Dist: pytest; extra == \"test\"\nProvides-Extra: test\nClassifier: Programming Language :: Python\n"
      "License-File: LICENSE.txt\n\nRequires-Dist: not-a-header\n");
  ASSERT_TRUE(metadata) << metadata.error();
  EXPECT_EQ(metadata->name, "distributed");
  EXPECT_EQ(metadata->version, "2025.1.0");
  EXPECT_EQ(metadata->requires_python, ">=3.10");
  EXPECT_EQ(metadata->requires_dist.size(), 3u);
  EXPECT_EQ(metadata->license_files, (std::vector<std::string>{"LICENSE.txt"}));
  EXPECT_TRUE(metadata->declares_dependencies);
  EXPECT_EQ(project_url(*metadata, {"homepage"}), "https://distributed.dask.org");
  EXPECT_EQ(project_url(*metadata, {"repository", "source"}), "https://github.com/dask/distributed");
  EXPECT_EQ(project_url(*metadata, {"documentation"}), "");
}

TEST(CoreMetadata, OldSetuptoolsMetadataWithoutRequiresDistDeclaresNothing) {
  auto metadata = parse_core_metadata("Metadata-Version: 2.1\nName: old\nVersion: 1.0\n");
  ASSERT_TRUE(metadata);
  EXPECT_FALSE(metadata->declares_dependencies);  // look in the egg-info or pyproject.toml
  metadata = parse_core_metadata("Metadata-Version: 2.2\nName: new\nVersion: 1.0\n");
  ASSERT_TRUE(metadata);
  EXPECT_TRUE(metadata->declares_dependencies);  // 2.2+: static unless Dynamic says otherwise
  metadata = parse_core_metadata("Metadata-Version: 2.2\nName: new\nVersion: 1.0\nDynamic: Requires-Dist\n");
  ASSERT_TRUE(metadata);
  EXPECT_FALSE(metadata->declares_dependencies);
  EXPECT_FALSE(parse_core_metadata("Metadata-Version: 2.1\nSummary: nameless\n"));
  std::string huge = "Name: x\nVersion: 1\n";
  for (int i = 0; i < 20000; ++i) huge += "Classifier: x\n";
  EXPECT_FALSE(parse_core_metadata(huge));
}

TEST(PyprojectToml, ReadsTheBuildSystemAndTheProjectTable) {
  const auto info = parse_pyproject(R"(
[build-system]
requires = ["setuptools>=62.6", "versioneer[toml]==0.29"]
build-backend = "setuptools.build_meta"

[project]
name = "dask"
requires-python = ">=3.10"
license = "BSD-3-Clause"
dependencies = ["click >= 8.1", "cloudpickle >= 3.0.0"]
dynamic = ["version"]

[project.scripts]
dask = "dask.__main__:main"
)");
  ASSERT_TRUE(info) << info.error();
  EXPECT_TRUE(info->has_build_system);
  EXPECT_EQ(info->build_requires, (std::vector<std::string>{"setuptools>=62.6", "versioneer[toml]==0.29"}));
  EXPECT_EQ(info->build_backend, "setuptools.build_meta");
  EXPECT_EQ(info->dependencies.size(), 2u);
  EXPECT_EQ(info->requires_python, ">=3.10");
  EXPECT_EQ(info->license_expression, "BSD-3-Clause");
  ASSERT_EQ(info->scripts.size(), 1u);
  EXPECT_EQ(info->scripts[0], (std::pair<std::string, std::string>{"dask", "dask.__main__:main"}));
}

TEST(PyprojectToml, NotTomlOrWrongTypesAreErrorsSayingWhere) {
  auto info = parse_pyproject("[build-system\nrequires = 1\n");
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().find("pyproject.toml is not valid TOML"), std::string::npos) << info.error();
  info = parse_pyproject("[build-system]\nrequires = \"setuptools\"\n");
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().find("[build-system] requires is not an array"), std::string::npos) << info.error();
  info = parse_pyproject("");
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->has_build_system);
  // hatchling builds itself from src/.
  info = parse_pyproject("[build-system]\nrequires = []\nbuild-backend = 'hatchling.ouroboros'\nbackend-path = ['src']\n");
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->in_tree_backend);
}

}  // namespace
}  // namespace gpuenv::generate
