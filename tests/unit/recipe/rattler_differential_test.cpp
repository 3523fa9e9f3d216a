// The recipe reader against rattler-build itself: the same recipe, platform
// and variant read by gpuenv and rendered by rattler-build (py-rattler-build,
// installed by scripts/setup.sh into build/deps/test-tools) must agree on
// what each package is: name, version, build number, noarch, requirements,
// run_exports, ignore_run_exports, sources, about, tests. Match specs are
// compared as rattler prints them (py-rattler normalizes gpuenv's strings),
// URLs as rattler's url crate prints them (a bare host gets its "/").
// build.skip is not compared: rattler-build's render API does not evaluate
// it (the unit tests check it). Skips, saying why, when the tools are missing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <expected>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "expression_cases.hpp"
#include "rattler_tool.hpp"
#include "gpuenv/recipe/recipe.hpp"

namespace gpuenv::recipe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing::testdata;

std::map<std::string, std::string, std::less<>> cuda_variant() {
  return {{"c_stdlib", "sysroot"},       {"c_stdlib_version", "2.17"}, {"c_compiler", "gcc"},
          {"c_compiler_version", "13"},   {"cxx_compiler", "gxx"},      {"cxx_compiler_version", "13"},
          {"cuda_compiler", "cuda-nvcc"}, {"cuda_compiler_version", "12.9"}, {"python", "3.12"}};
}

std::string dependency_text(const Dependency& dependency) {
  if (!dependency.pin) return dependency.spec;
  return std::string(dependency.pin->kind == Pin::Kind::subpackage ? "pin_subpackage:" : "pin_compatible:") +
         dependency.pin->name;
}

// What gpuenv says one package output is, in the helper's JSON shape.
json describe(const std::string& name, const std::string& version, const Build& build, const Requirements& requirements,
              const std::vector<Source>& sources, const About& about, const std::vector<TestElement>& tests,
              std::set<std::string>& specs) {
  auto list = [&](const std::vector<Dependency>& dependencies) {
    json items = json::array();
    for (const auto& dependency : dependencies) {
      items.push_back(dependency_text(dependency));
      if (!dependency.pin) specs.insert(dependency.spec);
    }
    return items;
  };
  json result;
  result["name"] = name;
  result["version"] = version;
  result["number"] = build.number;
  result["noarch"] = build.noarch ? json(*build.noarch) : json(nullptr);
  result["requirements"] = {{"build", list(requirements.build)}, {"host", list(requirements.host)},
                            {"run", list(requirements.run)}, {"run_constraints", list(requirements.run_constraints)}};
  const auto& exports = requirements.run_exports;
  result["run_exports"] = {{"weak", list(exports.weak)}, {"strong", list(exports.strong)}, {"noarch", list(exports.noarch)},
                           {"weak_constraints", list(exports.weak_constraints)},
                           {"strong_constraints", list(exports.strong_constraints)}};
  result["ignore_run_exports"] = {{"by_name", requirements.ignore_run_exports.by_name},
                                  {"from_package", requirements.ignore_run_exports.from_package}};
  result["sources"] = json::array();
  for (const auto& source : sources) {
    auto optional = [](const std::optional<std::string>& value) { return value ? json(*value) : json(nullptr); };
    result["sources"].push_back({{"url", source.urls},
                                 {"sha256", optional(source.sha256)},
                                 {"md5", optional(source.md5)},
                                 {"git", source.kind == Source::Kind::git ? json(source.git) : json(nullptr)},
                                 {"path", source.kind == Source::Kind::path ? json(source.path) : json(nullptr)},
                                 {"patches", source.patches},
                                 {"target_directory", optional(source.target_directory)}});
  }
  auto optional = [](const std::optional<std::string>& value) { return value ? json(*value) : json(nullptr); };
  auto url = [](const std::optional<std::string>& value) {
    if (!value) return json(nullptr);
    const auto scheme = value->find("://");
    const bool bare_host = scheme != std::string::npos && value->find('/', scheme + 3) == std::string::npos;
    return json(bare_host ? *value + "/" : *value);
  };
  result["about"] = {{"summary", optional(about.summary)}, {"license", optional(about.license)},
                     {"homepage", url(about.homepage)},    {"repository", url(about.repository)},
                     {"documentation", url(about.documentation)}};
  static constexpr const char* kinds[] = {"script", "python", "package_contents", "downstream", "perl", "r", "ruby"};
  result["tests"] = json::array();
  for (const auto& test : tests) result["tests"].push_back(kinds[static_cast<int>(test.kind)]);
  return result;
}

// The package outputs gpuenv reads, as rattler-build renders them: an output without its own about/source/version takes the
// top level's (CEP 14 inheritance, which is all these recipes use).
json describe_recipe(const Recipe& recipe, std::set<std::string>& specs) {
  json outputs = json::array();
  if (!recipe.multi_output) {
    outputs.push_back(describe(recipe.name, recipe.version, recipe.build, recipe.requirements, recipe.sources,
                               recipe.about, recipe.tests, specs));
    return outputs;
  }
  for (const auto& output : recipe.outputs) {
    if (output.kind != Output::Kind::package) continue;
    outputs.push_back(describe(output.name, output.version.value_or(recipe.version), output.build, output.requirements,
                               output.sources.empty() && !output.inherit_from ? recipe.sources : output.sources,
                               output.about.value_or(recipe.about), output.tests, specs));
  }
  return outputs;
}

// Replaces each match spec with rattler's printed form of it.
void normalize(json& outputs, const json& normalized) {
  auto fix = [&](json& list) {
    for (auto& item : list) {
      const std::string text = item.get<std::string>();
      if (normalized.contains(text)) item = normalized[text];
    }
  };
  for (auto& output : outputs) {
    for (auto& [key, list] : output["requirements"].items()) fix(list);
    for (auto& [key, list] : output["run_exports"].items()) fix(list);
  }
}

struct Case {
  fs::path recipe;
  std::string platform;
};

std::vector<Case> differential_cases() {
  std::vector<Case> cases;
  const fs::path own = fs::path(GPUENV_SOURCE_DIR) / "tests/data/recipe";
  const fs::path shared = testdata() / "recipes";
  for (const char* platform : {"linux-64", "linux-aarch64", "osx-arm64", "win-64"}) {
    for (const char* name : {"xtensor.yaml", "cuda_library.yaml", "staging.yaml", "mamba_multi_output.yaml",
                             "platform_selectors.yaml", "per_output_variant.yaml", "staging_keys.yaml",
                             "build_inheritance.yaml"}) {
      cases.push_back({own / name, platform});
    }
    for (const char* feedstock : {"numba-cuda-feedstock", "dask-core-feedstock", "distributed-feedstock"}) {
      cases.push_back({shared / feedstock / "recipe/recipe.yaml", platform});
    }
  }
  // RAPIDS recipes read pyproject.toml (load_from_file) and git, and need
  // RAPIDS' CI environment: both tools must refuse them without it.
  for (const char* recipe : {"rapidsai-rmm/conda/recipes/librmm", "rapidsai-rmm/conda/recipes/rmm",
                             "rapidsai-ucxx/conda/recipes/libucxx", "rapidsai-ucxx/conda/recipes/ucxx",
                             "rapidsai-ucx-py/conda/recipes/ucx-py"}) {
    cases.push_back({shared / recipe / "recipe.yaml", "linux-64"});
  }
  return cases;
}

// rattler_render.py's answers to `requests`, one per request; empty when
// the tools are missing or did not answer (`why` says what happened).
json ask_rattler_build(const json& requests, std::string& why) {
  return testing::ask_rattler_helper("rattler_render.py", requests, why);
}

TEST(RecipeRattlerDifferential, ExpressionsPrintWhatRattlerBuildPrints) {
  struct Ours {
    std::string expression;
    std::string platform;
    std::optional<std::string> printed;  // nullopt: refused
  };
  std::vector<Ours> ours;
  auto add = [&](const char* expression, const std::string& platform) {
    std::optional<std::string> printed;
    try {
      // rattler_render.py renders with all three platforms the same.
      auto context = testing::sample_context(platform);
      context.build_platform = context.host_platform = platform;
      printed = render_template("${{ " + std::string(expression) + " }}", context).display();
    } catch (const ExpressionError&) {
    }
    ours.push_back({expression, platform, printed});
  };
  for (const auto& [expression, expected] : testing::rattler_build_cases) add(expression, "linux-64");
  for (const auto& [expression, kind] : testing::rattler_build_errors) add(expression, "linux-64");
  for (const char* platform : {"osx-arm64", "win-64", "linux-aarch64", "noarch"}) {
    for (const char* expression : {"[linux, osx, win, unix, x86_64, aarch64, arm64, ppc64le, linux64, win64, osx64]",
                                   "compiler('c') ~ ' ' ~ compiler('cxx') ~ ' ' ~ compiler('fortran')", "cdt('x')",
                                   "[is_linux(target_platform), is_osx(target_platform), is_unix(target_platform)]"}) {
      add(expression, platform);
    }
  }
  json requests = json::array();
  for (const auto& item : ours) requests.push_back({{"expression", item.expression}, {"platform", item.platform}});
  std::string why;
  const json answers = ask_rattler_build(requests, why);
  if (answers.is_null()) GTEST_SKIP() << why;
  int matched = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    SCOPED_TRACE(ours[i].expression + " on " + ours[i].platform);
    const json& theirs = answers[i];
    if (theirs.contains("error")) {
      EXPECT_FALSE(ours[i].printed.has_value()) << "gpuenv printed '" << *ours[i].printed
                                                << "'; rattler-build refused: " << theirs["error"];
      if (!ours[i].printed) ++matched;
    } else if (!ours[i].printed) {
      ADD_FAILURE() << "gpuenv refused; rattler-build printed " << theirs["printed"];
    } else {
      EXPECT_EQ(*ours[i].printed, theirs["printed"].get<std::string>());
      if (*ours[i].printed == theirs["printed"].get<std::string>()) ++matched;
    }
  }
  std::printf("expression differential: %zu expressions compared with rattler-build, %d matched\n", ours.size(), matched);
  EXPECT_EQ(static_cast<std::size_t>(matched), ours.size());
}

// Whether gpuenv and rattler-build both accept or both refuse each recipe.
void compare_acceptance(const std::vector<std::string>& recipes, const char* label) {
  json requests = json::array();
  std::vector<bool> accepted;
  for (const auto& text : recipes) {
    RecipeOptions options;
    options.variant = cuda_variant();
    accepted.push_back(parse_recipe(text, "recipe.yaml", options).has_value());
    requests.push_back({{"recipe_text", text}, {"platform", "linux-64"}, {"variant", cuda_variant()}, {"specs", json::array()}});
  }
  std::string why;
  const json answers = ask_rattler_build(requests, why);
  if (answers.is_null()) GTEST_SKIP() << why;
  int matched = 0;
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    SCOPED_TRACE(recipes[i]);
    const bool rattler_accepted = !answers[i].contains("error");
    EXPECT_EQ(accepted[i], rattler_accepted) << answers[i].dump();
    if (accepted[i] == rattler_accepted) ++matched;
  }
  std::printf("%s: %zu recipes compared with rattler-build, %d matched\n", label, accepted.size(), matched);
}

// Small recipes at the edges of the format: both tools accept, or both refuse.
TEST(RecipeRattlerDifferential, AcceptsAndRefusesWhatRattlerBuildDoes) {
  const char* recipes[] = {
      // accepted
      "package: {name: x, version: '1'}\nsource:\n  url: https://x/y.tgz\n",
      "package: {name: X_Y, version: '1'}\n",
      "package: {name: x, version: '1'}\nrequirements:\n  ignore_run_exports:\n    by_name: ['foo >=1']\n",
      "package: {name: x, version: '1'}\nbuild:\n  number: '3'\n",
      "package: {name: x, version: 1.10}\n",
      "package: {name: x, version: '1'}\nrequirements:\n  build:\n    - ${{ 'python' if win }}\n    - cmake\n",
      "recipe: {name: x, version: '1'}\noutputs:\n  - package: {name: a}\n  - package: {name: b, version: '2'}\n",
      "package: {name: x, version: '1'}\nsource:\n  if: linux\n  then:\n    url: https://x/y.tgz\n",
      // refused
      "package: {name: x, version: '1'}\nfoo: 1\n",
      "package: {name: x, version: '1'}\nbuild:\n  foo: 1\n",
      "package: {name: x, version: '1'}\nbuild:\n  if: linux\n  then:\n    number: 3\n",
      "package: {name: x, version: '1'}\nabout:\n  summary:\n    if: linux\n    then: a\n",
      "package: {name: x, version: '1'}\nbuild:\n  script:\n    if: linux\n    then: echo 1\n",
      "package: {name: x, version: '1'}\nbuild:\n  number: abc\n",
      "package: {name: x, version: '1'}\nbuild:\n  merge_build_and_host_envs: yes\n",
      "package: {name: x, version: '1'}\nbuild:\n  noarch: foo\n",
      "package: {name: x, version: '1'}\nsource:\n  url: https://x/y.tgz\n  sha256: abc\n",
      "package: {name: x, version: '1'}\nbuild:\n  number: 1\n  number: 2\n",
      "package: {name: x, version: '1'}\nrequirements:\n  run:\n    - foo[[[\n",
      "package: {name: x, version: '1'}\nrequirements:\n  run:\n    - if: linux\n      else: a\n",
      "package: {name: x}\n",
      "package: {name: x, version: 'not a version!'}\n",
      "schema_version: 2\npackage: {name: x, version: '1'}\n",
      "build: {number: 1}\n",
      "recipe: {name: x}\noutputs:\n  - package: {name: a}\n",
      "package: {name: x, version: '1'}\nbuild:\n  python:\n    entry_points: [nonsense]\n",
      "package: {name: x, version: '1'}\nsource:\n  git: https://x\n  tag: a\n  branch: b\n",
      "package: {name: x, version: '1'}\nbuild:\n  dynamic_linking:\n    overlinking_behavior: warn\n",
      "package: {name: x, version: '1'}\nabout:\n  license_url: http://x\n",
      "package: {name: x, version: '1'}\ntests:\n  - script: [echo]\n    files:\n      - a/*\n",
      "context:\n  a: ${{ b }}\n  b: 1\npackage: {name: x, version: '1'}\n",
  };
  compare_acceptance(std::vector<std::string>(std::begin(recipes), std::end(recipes)), "recipe edge differential");
}

// The full recipes among CEP 13's and CEP 14's examples. Their text predates
// today's v1 format (`test:` with commands, `about.home`, `.split()`), so
// rattler-build refuses most of them: gpuenv must give the same answers.
// tests/data/recipe/mamba_multi_output.yaml is CEP 14's big example in
// today's syntax, compared in full below.
TEST(RecipeRattlerDifferential, TheCepsOwnExamplesAsRattlerBuildReadsThem) {
  const fs::path ceps = testdata().parent_path() / "specs" / "ceps";
  std::vector<std::string> examples;
  for (const char* cep : {"cep-0013.md", "cep-0014.md"}) {
    std::ifstream file(ceps / cep);
    if (!file) GTEST_SKIP() << "the CEPs are not in " << ceps.string();
    std::string line, block;
    bool in_yaml = false;
    while (std::getline(file, line)) {
      if (!in_yaml && line.starts_with("```yaml")) {
        in_yaml = true;
        block.clear();
      } else if (in_yaml && line.starts_with("```")) {
        in_yaml = false;
        const bool names_itself = block.find("package:") != std::string::npos || block.find("recipe:") != std::string::npos;
        if (names_itself && block.find("version") != std::string::npos) examples.push_back(block);
      } else if (in_yaml) {
        block += line + "\n";
      }
    }
  }
  EXPECT_GE(examples.size(), 5u);
  compare_acceptance(examples, "CEP 13/14 examples");
}

TEST(RecipeRattlerDifferential, ReadsWhatRattlerBuildRenders) {
  struct Ours {
    std::string label;
    std::expected<Recipe, RecipeError> recipe;
    json outputs;
  };
  std::vector<Ours> ours;
  json requests = json::array();
  for (const auto& [path, platform] : differential_cases()) {
    if (!fs::exists(path)) continue;
    RecipeOptions options;
    options.target_platform = options.build_platform = options.host_platform = platform;
    options.variant = cuda_variant();
    auto recipe = read_recipe(path, options);
    std::set<std::string> specs;
    json outputs = recipe ? describe_recipe(*recipe, specs) : json();
    ours.push_back({path.string() + " on " + platform, std::move(recipe), std::move(outputs)});
    requests.push_back({{"recipe", path.string()}, {"platform", platform}, {"variant", cuda_variant()}, {"specs", specs}});
  }
  std::string why;
  const json answers = ask_rattler_build(requests, why);
  if (answers.is_null()) GTEST_SKIP() << why;
  int compared = 0;
  int matched = 0;
  int packages = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    auto& [label, recipe, outputs] = ours[i];
    const json& theirs = answers[i];
    SCOPED_TRACE(label);
    ++compared;
    if (theirs.contains("error")) {
      EXPECT_FALSE(recipe.has_value()) << "rattler-build refused it: " << theirs["error"];
      if (!recipe.has_value()) ++matched;
      continue;
    }
    ASSERT_TRUE(recipe.has_value()) << recipe.error().message;
    normalize(outputs, theirs["normalized"]);
    EXPECT_EQ(outputs.dump(1), theirs["outputs"].dump(1));
    if (outputs == theirs["outputs"]) {
      ++matched;
      packages += static_cast<int>(outputs.size());
    }
  }
  std::printf("recipe differential: %d recipe/platform pairs compared with rattler-build, %d matched (%d packages)\n",
              compared, matched, packages);
  EXPECT_EQ(compared, matched);
  EXPECT_GE(compared, 12);
}

}  // namespace
}  // namespace gpuenv::recipe
