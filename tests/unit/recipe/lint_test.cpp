// `lint_recipe_file`: one recipe per check that triggers it and its clean
// counterpart, reader refusals as findings, hostile input, and every recipe
// of ../shared/testdata/recipes linted without a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/recipe/lint.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::recipe {
namespace {

namespace fs = std::filesystem;
using testing::TempDirectory;
using testing::write_text_file;

const std::string sha256 = "5f1a2bd1b4a4e04c19e2d5e50ce5e74d2d8a1e3b0c4f5a6b7c8d9e0f1a2b3c4d";

const std::string cuda_variants = R"(c_compiler: [gcc]
c_compiler_version: ['13']
c_stdlib: [sysroot]
c_stdlib_version: ['2.17']
cxx_compiler: [gxx]
cxx_compiler_version: ['13']
cuda_compiler: [cuda-nvcc]
cuda_compiler_version: [None, '12.9', '13.0']
)";

const std::string source_ok = "source:\n  url: https://example.invalid/foo-1.0.tar.gz\n  sha256: " + sha256 + "\n";

const std::string about_ok = R"(about:
  homepage: https://example.invalid/foo
  license: MIT
  license_file: LICENSE
  summary: A library
)";

// A CUDA library as conda-forge writes it: clean.
const std::string clean_cuda_library = R"(context:
  version: "1.0"
package:
  name: libfoo
  version: ${{ version }}
)" + source_ok + R"(requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ stdlib('c') }}
    - if: cuda_compiler_version != "None"
      then: ${{ compiler('cuda') }}
  run_exports:
    - ${{ pin_subpackage('libfoo', upper_bound='x.x') }}
)" + about_ok;

class LintFixture : public ::testing::Test {
 protected:
  // Writes recipe.yaml (and variants.yaml next to it when given) and lints it.
  std::vector<LintFinding> lint(const std::string& recipe, const std::string& variants = cuda_variants,
                                LintRequest request = {}) {
    recipe_path_ = dir_ / "recipe" / "recipe.yaml";
    write_text_file(recipe_path_, recipe);
    if (!variants.empty()) write_text_file(dir_ / "recipe" / "variants.yaml", variants);
    auto findings = lint_recipe_file(recipe_path_, request);
    if (!findings) {
      ADD_FAILURE() << findings.error().message;
      return {};
    }
    return *findings;
  }

  static std::vector<std::string> checks(const std::vector<LintFinding>& findings) {
    std::vector<std::string> ids;
    for (const auto& finding : findings) ids.push_back(finding.check);
    return ids;
  }

  static const LintFinding* find(const std::vector<LintFinding>& findings, std::string_view check) {
    for (const auto& finding : findings) {
      if (finding.check == check) return &finding;
    }
    return nullptr;
  }

  static std::string printed(const std::vector<LintFinding>& findings) {
    std::string text;
    for (const auto& finding : findings) {
      text += std::string(severity_name(finding.severity)) + " " + finding.check + " " + std::to_string(finding.position.line) +
              ":" + std::to_string(finding.position.column) + " [" + finding.output + "] " + finding.message + " / " +
              finding.fix + "\n";
    }
    return text;
  }

  TempDirectory dir_;
  fs::path recipe_path_;
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST_F(LintFixture, CleanCudaLibraryHasNoFindings) {
  const auto findings = lint(clean_cuda_library);
  EXPECT_TRUE(findings.empty()) << printed(findings);
  EXPECT_FALSE(has_lint_errors(findings));
}

// --- sources ---

TEST_F(LintFixture, UrlSourceWithoutChecksumIsAnError) {
  const auto findings = lint(replaced(clean_cuda_library, "  sha256: " + sha256 + "\n", ""));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"source-sha256-missing"}) << printed(findings);
  const auto& finding = findings.front();
  EXPECT_EQ(finding.severity, LintFinding::Severity::error);
  EXPECT_EQ(finding.file, recipe_path_.string());
  EXPECT_EQ(finding.position.line, 7u);
  EXPECT_NE(finding.fix.find("sha256"), std::string::npos) << finding.fix;
  EXPECT_TRUE(has_lint_errors(findings));
}

TEST_F(LintFixture, Md5AloneIsAWarning) {
  const auto findings =
      lint(replaced(clean_cuda_library, "sha256: " + sha256, "md5: d41d8cd98f00b204e9800998ecf8427e"));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"source-md5-only"}) << printed(findings);
  EXPECT_EQ(findings.front().severity, LintFinding::Severity::warning);
  EXPECT_FALSE(has_lint_errors(findings));
}

TEST_F(LintFixture, MalformedSha256IsAnErrorAtItsLineOnce) {
  // The reader refuses it too; lint reports it once, under its own check.
  const auto findings = lint(replaced(clean_cuda_library, sha256, "5f1a2bd1"));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"source-sha256-malformed"}) << printed(findings);
  EXPECT_EQ(findings.front().position.line, 8u);
  EXPECT_EQ(findings.front().severity, LintFinding::Severity::error);
}

TEST_F(LintFixture, TemplatedMalformedSha256IsFoundOnceRendered) {
  const std::string recipe = replaced(replaced(clean_cuda_library, "  version: \"1.0\"\n",
                                               "  version: \"1.0\"\n  digest: 5f1a2bd1\n"),
                                      "sha256: " + sha256, "sha256: ${{ digest }}");
  const auto findings = lint(recipe);
  ASSERT_EQ(checks(findings), std::vector<std::string>{"source-sha256-malformed"}) << printed(findings);
  EXPECT_EQ(findings.front().position.line, 9u);
}

TEST_F(LintFixture, MalformedChecksumsInABranchNotTakenAreFound) {
  const std::string recipe = replaced(clean_cuda_library, source_ok, R"(source:
  - url: https://example.invalid/foo-1.0.tar.gz
    sha256: )" + sha256 + R"(
  - if: win
    then:
      url: https://example.invalid/win.zip
      sha256: not-hex-at-all-and-too-short
      md5: abc
)");
  const auto findings = lint(recipe);
  EXPECT_EQ(checks(findings), (std::vector<std::string>{"source-sha256-malformed", "source-md5-malformed"}))
      << printed(findings);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].position.line, 12u);
  EXPECT_EQ(findings[1].position.line, 13u);
}

TEST_F(LintFixture, GitAndPathSourcesNeedNoChecksum) {
  const auto findings = lint(replaced(clean_cuda_library, source_ok,
                                      "source:\n  - git: https://example.invalid/foo.git\n    tag: v1.0\n  - path: ../src\n"));
  EXPECT_TRUE(findings.empty()) << printed(findings);
}

// --- CUDA pinning ---

// A CUDA variant (cuda_compiler_version not None) built without
// compiler('cuda') and with no cuda-version/__cuda constraint.
const std::string unpinned_cuda = R"(package:
  name: foo
  version: "1.0"
)" + source_ok + R"(requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ stdlib('c') }}
  host:
    - if: cuda_compiler_version != "None"
      then: cuda-cudart-dev
  run:
    - RUN_LINE
)" + about_ok;

TEST_F(LintFixture, CudaVariantWithoutCudaVersionConstraintIsAnError) {
  const auto findings = lint(replaced(unpinned_cuda, "    - RUN_LINE\n", ""));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"cuda-version-unpinned"}) << printed(findings);
  const auto& finding = findings.front();
  EXPECT_EQ(finding.severity, LintFinding::Severity::error);
  EXPECT_EQ(finding.output, "foo");
  EXPECT_NE(finding.message.find("12.9"), std::string::npos) << finding.message;
  EXPECT_NE(finding.fix.find("cuda-version"), std::string::npos) << finding.fix;
  EXPECT_GT(finding.position.line, 0u);
}

TEST_F(LintFixture, CudaVersionOrCudaVirtualPackageConstraintPins) {
  for (const std::string line : {"    - cuda-version >=${{ cuda_compiler_version }}\n",
                                 "    - ${{ pin_compatible('cuda-version', upper_bound='x') }}\n",
                                 "    - __cuda >=12\n"}) {
    const auto findings = lint(replaced(unpinned_cuda, "    - RUN_LINE\n", line));
    EXPECT_TRUE(findings.empty()) << line << printed(findings);
  }
  const std::string constrained = replaced(replaced(unpinned_cuda, "    - RUN_LINE\n", ""), "about:",
                                           "  run_constraints:\n    - __cuda >=12\nabout:");
  const auto findings = lint(constrained);
  EXPECT_TRUE(findings.empty()) << printed(findings);
}

TEST_F(LintFixture, SkippedVariantsAreNotLinted) {
  const std::string recipe = replaced(replaced(unpinned_cuda, "    - RUN_LINE\n", ""), "requirements:",
                                      "build:\n  skip:\n    - cuda_compiler_version != \"None\"\nrequirements:");
  const auto findings = lint(recipe);
  EXPECT_TRUE(findings.empty()) << printed(findings);
}

TEST_F(LintFixture, NoneOnlyMatrixIsNotACudaBuild) {
  const std::string variants = replaced(cuda_variants, "[None, '12.9', '13.0']", "[None]");
  const auto findings = lint(replaced(unpinned_cuda, "    - RUN_LINE\n", ""), variants);
  // No CUDA build, so nothing to pin; the CUDA-only selector is now dead.
  EXPECT_EQ(checks(findings), std::vector<std::string>{"selector-never-true"}) << printed(findings);
}

// --- run_exports of shared libraries ---

TEST_F(LintFixture, SharedLibraryWithoutRunExportsIsAWarning) {
  const std::string recipe =
      replaced(clean_cuda_library, "  run_exports:\n    - ${{ pin_subpackage('libfoo', upper_bound='x.x') }}\n", "");
  const auto findings = lint(recipe);
  ASSERT_EQ(checks(findings), std::vector<std::string>{"run-exports-missing"}) << printed(findings);
  EXPECT_EQ(findings.front().severity, LintFinding::Severity::warning);
  EXPECT_EQ(findings.front().output, "libfoo");
  EXPECT_NE(findings.front().fix.find("pin_subpackage"), std::string::npos);
  // Not a library by name: no finding.
  const auto renamed = lint(replaced(recipe, "name: libfoo", "name: foo-tools"));
  EXPECT_TRUE(renamed.empty()) << printed(renamed);
}

// --- about ---

TEST_F(LintFixture, MissingLicenseIsAnErrorOtherAboutFieldsWarnings) {
  const auto findings = lint(replaced(clean_cuda_library, about_ok, "about:\n  description: nothing else\n"));
  EXPECT_EQ(checks(findings), (std::vector<std::string>{"about-license-missing", "about-license-file-missing",
                                                        "about-homepage-missing", "about-summary-missing"}))
      << printed(findings);
  ASSERT_EQ(findings.size(), 4u);
  EXPECT_EQ(findings[0].severity, LintFinding::Severity::error);
  for (std::size_t i = 1; i < findings.size(); ++i) EXPECT_EQ(findings[i].severity, LintFinding::Severity::warning);
  // No about section at all: the same findings.
  EXPECT_EQ(checks(lint(replaced(clean_cuda_library, about_ok, ""))), checks(findings));
}

TEST_F(LintFixture, RepositoryStandsForHomepageAndOutputsInheritAbout) {
  const auto with_repository =
      lint(replaced(clean_cuda_library, "  homepage: https://example.invalid/foo\n", "  repository: https://example.invalid/r\n"));
  EXPECT_TRUE(with_repository.empty()) << printed(with_repository);

  const std::string multi = R"(recipe:
  name: foo-split
  version: "1.0"
)" + source_ok + R"(outputs:
  - package:
      name: foo-data
    build:
      noarch: generic
  - package:
      name: foo-docs
    build:
      noarch: generic
    about:
      summary: The documentation
      license: CC-BY-4.0
)" + about_ok;
  const auto findings = lint(multi);
  EXPECT_TRUE(findings.empty()) << printed(findings);
  const auto unlicensed = lint(replaced(multi, "  license: MIT\n", ""));
  ASSERT_EQ(checks(unlicensed), std::vector<std::string>{"about-license-missing"}) << printed(unlicensed);
  EXPECT_EQ(unlicensed.front().output, "foo-data");
}

// --- noarch ---

TEST_F(LintFixture, NoarchWithCompilerIsAnError) {
  const std::string noarch = R"(package:
  name: foo
  version: "1.0"
)" + source_ok + R"(build:
  noarch: python
requirements:
  build:
    - BUILD_LINE
  host:
    - python
    - pip
  run:
    - python
)" + about_ok;
  const auto findings = lint(replaced(noarch, "BUILD_LINE", "${{ compiler('c') }}"));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"noarch-with-compiler"}) << printed(findings);
  EXPECT_EQ(findings.front().severity, LintFinding::Severity::error);
  EXPECT_EQ(findings.front().position.line, 11u);
  EXPECT_NE(findings.front().message.find("compiler('c')"), std::string::npos) << findings.front().message;
  const auto clean = lint(replaced(noarch, "BUILD_LINE", "git"));
  EXPECT_TRUE(clean.empty()) << printed(clean);
}

// --- selectors ---

TEST_F(LintFixture, SelectorsThatNeverHoldAreWarnings) {
  const std::string recipe = replaced(clean_cuda_library, "  run_exports:", R"(  host:
    - if: linux and win
      then: zlib
    - if: cuda_compiler_version == "11.8"
      then: cudatoolkit
    - if: linux
      then:
        - if: osx
          then: libcxx
    - if: ppc64le
      then: libpower
    - if: cuda_compiler_version != "None"
      then:
        - if: match(cuda_compiler_version, ">=13")
          then: libcublas-dev
  run_exports:)");
  const auto findings = lint(recipe);
  EXPECT_EQ(checks(findings),
            (std::vector<std::string>{"selector-never-true", "selector-never-true", "selector-never-true"}))
      << printed(findings);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].position.line, 16u);
  EXPECT_EQ(findings[1].position.line, 18u);
  EXPECT_EQ(findings[2].position.line, 22u);
  EXPECT_EQ(findings[0].severity, LintFinding::Severity::warning);
  EXPECT_NE(findings[0].message.find("linux and win"), std::string::npos) << findings[0].message;
}

TEST_F(LintFixture, SelectorThatCannotBeEvaluatedIsOneError) {
  const auto findings = lint(replaced(clean_cuda_library, "  run_exports:",
                                      "  host:\n    - if: not_a_variant_key == \"1\"\n      then: zlib\n  run_exports:"));
  ASSERT_EQ(checks(findings), std::vector<std::string>{"selector-invalid"}) << printed(findings);
  EXPECT_EQ(findings.front().position.line, 16u);
  EXPECT_NE(findings.front().message.find("not_a_variant_key"), std::string::npos) << findings.front().message;
}

// --- what the reader refuses ---

TEST_F(LintFixture, ReaderRefusalsAreErrorFindingsAtTheirPosition) {
  const auto unknown = lint(replaced(clean_cuda_library, "about:", "abuot: x\nabout:"));
  ASSERT_EQ(checks(unknown), std::vector<std::string>{"recipe-unknown-field"}) << printed(unknown);
  EXPECT_EQ(unknown.front().position.line, 17u);
  EXPECT_EQ(unknown.front().message.find(recipe_path_.string()), std::string::npos)
      << "the location is in the finding, not repeated in its message: " << unknown.front().message;

  const auto not_yaml = lint("package:\n  name: x\n  version: [unclosed\n");
  ASSERT_EQ(checks(not_yaml), std::vector<std::string>{"recipe-yaml-syntax"}) << printed(not_yaml);
  EXPECT_GE(not_yaml.front().position.line, 3u) << printed(not_yaml);  // where the parser stopped
  EXPECT_GT(not_yaml.front().position.column, 0u) << printed(not_yaml);

  const auto missing = lint_recipe_file(dir_ / "no-such" / "recipe.yaml", {});
  ASSERT_TRUE(missing);
  ASSERT_EQ(checks(*missing), std::vector<std::string>{"recipe-unreadable"}) << printed(*missing);
}

TEST_F(LintFixture, BadVariantFileIsAFindingInThatFile) {
  const auto findings = lint(clean_cuda_library, "cuda_compiler_version: [None, '12.9'\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().check, "variant-config-invalid") << printed(findings);
  EXPECT_EQ(findings.front().file, (dir_ / "recipe" / "variants.yaml").string());
  EXPECT_TRUE(has_lint_errors(findings));
}

TEST_F(LintFixture, MalformedOverrideIsAUsageError) {
  write_text_file(dir_ / "r" / "recipe.yaml", clean_cuda_library);
  LintRequest request;
  request.render.overrides = {"no-equals-sign"};
  const auto result = lint_recipe_file(dir_ / "r" / "recipe.yaml", request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().file, "--variant");
}

// --- hostile input ---

TEST_F(LintFixture, DeeplyNestedHugeAndExpandingRecipesGiveAClearError) {
  const auto nested = lint("package:\n  name: " + std::string(100'000, '[') + "\n", "");
  ASSERT_EQ(nested.size(), 1u) << printed(nested);
  EXPECT_EQ(nested.front().severity, LintFinding::Severity::error);
  EXPECT_FALSE(nested.front().message.empty());

  std::string huge = clean_cuda_library + "extra:\n  padding: \"" + std::string(2u << 20, 'x') + "\"\n";
  const auto large = lint(huge, "");
  ASSERT_EQ(checks(large), std::vector<std::string>{"recipe-too-large"}) << printed(large);

  // Aliases that expand to a billion values.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char name = 'b'; name <= 'j'; ++name) {
    laughs += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + static_cast<char>(name - 1);
    laughs += "]\n";
  }
  const auto expanding = lint(laughs, "");
  ASSERT_FALSE(expanding.empty());
  EXPECT_EQ(expanding.front().severity, LintFinding::Severity::error) << printed(expanding);
}

// --- the shared test data ---

TEST(LintReport, TheJsonCountsEachRecipeAndAllAndNullsAWholeFilesPosition) {
  LintFinding error;
  error.severity = LintFinding::Severity::error;
  error.check = "source-sha256-missing";
  error.file = "a/recipe.yaml";
  error.position = {3, 5};
  error.message = "no sha256";
  error.fix = "add one";
  LintFinding warning;
  warning.severity = LintFinding::Severity::warning;
  warning.check = "about-license-file";
  warning.file = "b/recipe.yaml";
  warning.output = "libb";
  warning.message = "no license file";
  warning.fix = "name it";
  const std::vector<LintedRecipe> linted = {{"a", {error}}, {"b", {warning, warning}}, {"c", {}}};
  const auto total = total_lint_counts(linted);
  EXPECT_EQ(total.errors, 1u);
  EXPECT_EQ(total.warnings, 2u);
  const auto text = lint_report_json("linux-64", linted);
  EXPECT_EQ(text.substr(0, text.find("\"recipes\"")), R"({
  "schema_version": 1,
  "target_platform": "linux-64",
  "errors": 1,
  "warnings": 2,
  )");
  EXPECT_NE(text.find(R"("recipe": "a",
      "errors": 1,
      "warnings": 0,
      "findings": [
        {
          "severity": "error",
          "check": "source-sha256-missing",
          "file": "a/recipe.yaml",
          "line": 3,
          "column": 5,
          "output": null,)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("line": null,
          "column": null,
          "output": "libb",)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("recipe": "c",
      "errors": 0,
      "warnings": 0,
      "findings": [])"),
            std::string::npos)
      << text;
}

TEST(LintCounts, ErrorsAndWarningsAreCountedApartAndAddUp) {
  const auto finding = [](LintFinding::Severity severity) {
    LintFinding made;
    made.severity = severity;
    return made;
  };
  const std::vector<LintFinding> findings = {finding(LintFinding::Severity::warning),
                                             finding(LintFinding::Severity::error),
                                             finding(LintFinding::Severity::warning)};
  auto counts = count_lint_findings(findings);
  EXPECT_EQ(counts.errors, 1u);
  EXPECT_EQ(counts.warnings, 2u);
  counts += count_lint_findings({finding(LintFinding::Severity::error)});
  EXPECT_EQ(counts.errors, 2u);
  EXPECT_EQ(counts.warnings, 2u);
  const auto none = count_lint_findings({});
  EXPECT_EQ(none.errors + none.warnings, 0u);
}

TEST(LintTestdata, EveryRecipeLintsWithoutCrashingAndRenderableOnesHaveNoReaderErrors) {
  const fs::path root = testing::testdata_dir() / "recipes";
  if (!fs::exists(root)) GTEST_SKIP() << "no " << root;
  const fs::path pinning = testing::testdata_dir() / "pinning" / "conda_build_config.yaml";
  std::map<std::string, int> counts;
  int recipes = 0;
  int renderable = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "recipe.yaml") continue;
    for (const bool with_pinning : {false, true}) {
      LintRequest request;
      if (with_pinning) request.render.variant_files = {pinning};
      ++recipes;
      const bool renders = static_cast<bool>(render_recipe_file(entry.path(), request.render));
      renderable += renders ? 1 : 0;
      const auto findings = lint_recipe_file(entry.path(), request);
      ASSERT_TRUE(findings) << findings.error().message;
      std::printf("%s%s: %s, %zu findings\n", fs::relative(entry.path(), root).c_str(),
                  with_pinning ? " + pinning" : "", renders ? "renders" : "refused", findings->size());
      for (const auto& finding : *findings) {
        ++counts[std::string(severity_name(finding.severity)) + " " + finding.check];
        if (renders) {
          EXPECT_NE(finding.check.rfind("recipe-", 0), 0u)
              << entry.path() << " renders but lint says: " << finding.message;
        }
      }
    }
  }
  EXPECT_GT(recipes, 0);
  std::printf("linted %d recipe/variant-file pairs (%d render)\n", recipes, renderable);
  for (const auto& [check, count] : counts) std::printf("  %s: %d\n", check.c_str(), count);
}

}  // namespace
}  // namespace gpuenv::recipe
