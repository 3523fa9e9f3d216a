// PEP 508 requirements and markers as `gpuenv generate-recipe pypi` turns
// them into conda run requirements.
#include <gtest/gtest.h>

#include "gpuenv/generator/pep508.hpp"

namespace gpuenv::generate {
namespace {

TEST(Pep508, ParsesNameExtrasSpecifiersAndMarker) {
  auto parsed = parse_pep508("dask[array, dataframe] (>= 2024.1 , <2026) ; python_version < '3.12'");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->name, "dask");
  EXPECT_EQ(parsed->extras, (std::vector<std::string>{"array", "dataframe"}));
  EXPECT_EQ(parsed->specifiers, ">=2024.1,<2026");
  EXPECT_EQ(parsed->marker, "python_version < '3.12'");
  parsed = parse_pep508("PyYAML>=5.3.1");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->name, "PyYAML");
  EXPECT_EQ(parsed->specifiers, ">=5.3.1");
  parsed = parse_pep508("pip @ https://example.org/pip.whl");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->url, "https://example.org/pip.whl");
  EXPECT_FALSE(parse_pep508(">=1.0"));
  EXPECT_FALSE(parse_pep508("name[extra"));
  EXPECT_FALSE(parse_pep508("name >=1.0 `rm -rf`"));
  EXPECT_FALSE(parse_pep508(std::string(5000, 'a')));
}

TEST(Pep508, NamesNormalizeAsPep503Says) {
  EXPECT_EQ(normalize_python_name("PyYAML"), "pyyaml");
  EXPECT_EQ(normalize_python_name("typing_extensions"), "typing-extensions");
  EXPECT_EQ(normalize_python_name("zope.interface"), "zope-interface");
  EXPECT_EQ(normalize_python_name("a__b--c"), "a-b-c");
}

TEST(Pep508, VersionSpecifiersBecomeCondaSpecs) {
  EXPECT_EQ(conda_version_spec(">=1.0,<2"), ">=1.0,<2");
  EXPECT_EQ(conda_version_spec("~=1.4.2"), ">=1.4.2,<1.5");
  EXPECT_EQ(conda_version_spec("~=2.2"), ">=2.2,<3");
  EXPECT_EQ(conda_version_spec("==1.*"), "1.*");
  EXPECT_EQ(conda_version_spec("===1.0"), "==1.0");
  EXPECT_EQ(conda_version_spec("!=1.5,>=1"), "!=1.5,>=1");
  EXPECT_EQ(conda_version_spec(""), "");
  EXPECT_FALSE(conda_version_spec("~=1"));
  EXPECT_FALSE(conda_version_spec("===foobar"));
}

TEST(Pep508, MarkersAreJudgedOnLinuxForEachPythonOfTheRange) {
  const MarkerMachine machine{10, 14};
  const auto judge = [&](const char* marker) { return judge_marker(marker, machine); };
  EXPECT_EQ(judge("")->verdict, MarkerVerdict::always);
  EXPECT_EQ(judge("sys_platform == 'win32'")->verdict, MarkerVerdict::never);
  EXPECT_EQ(judge("platform_system != \"Windows\"")->verdict, MarkerVerdict::always);
  EXPECT_EQ(judge("python_version >= '3.8'")->verdict, MarkerVerdict::always);
  EXPECT_EQ(judge("python_version < '3.10'")->verdict, MarkerVerdict::never);
  const auto some = judge("python_version < \"3.12\"");
  ASSERT_TRUE(some);
  EXPECT_EQ(some->verdict, MarkerVerdict::some);
  EXPECT_EQ(some->pythons, (std::vector<int>{10, 11}));
  EXPECT_EQ(judge("extra == 'test'")->verdict, MarkerVerdict::extra);
  EXPECT_EQ(judge("python_version < '3.11' and extra == \"toml\"")->verdict, MarkerVerdict::extra);
  EXPECT_EQ(judge("(os_name == 'nt' or sys_platform == 'darwin') and python_version > '3'")->verdict,
            MarkerVerdict::never);
  EXPECT_EQ(judge("platform_python_implementation == 'PyPy'")->verdict, MarkerVerdict::never);
  EXPECT_EQ(judge("python_full_version >= '3.11.0'")->pythons, (std::vector<int>{11, 12, 13, 14}));
  EXPECT_EQ(judge("python_version == '3.1*'")->verdict, MarkerVerdict::never);  // a string compare, no wildcard
  EXPECT_EQ(judge("'linux' in sys_platform")->verdict, MarkerVerdict::always);
  EXPECT_FALSE(judge("python_version <"));
  EXPECT_FALSE(judge("unknown_variable == '1'"));
  EXPECT_FALSE(judge("(python_version > '3'"));
  EXPECT_FALSE(judge(std::string(300, '(').c_str()));
}

}  // namespace
}  // namespace gpuenv::generate
