// Reading recipe.yaml: the CEPs' examples, the CUDA recipes in the shared
// test data, selectors, outputs, and errors that point at the text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpuenv/recipe/recipe.hpp"

namespace gpuenv::recipe {
namespace {

std::filesystem::path testdata() {
  const char* configured = std::getenv("GPUENV_TESTDATA");
  return configured != nullptr ? configured : GPUENV_DEFAULT_TESTDATA;
}

RecipeOptions cuda_options(std::string platform = "linux-64") {
  RecipeOptions options;
  options.target_platform = platform;
  options.build_platform = platform;
  options.host_platform = platform;
  options.variant = {{"c_stdlib", "sysroot"},          {"c_stdlib_version", "2.17"}, {"c_compiler", "gcc"},
                     {"c_compiler_version", "13"},      {"cxx_compiler", "gxx"},      {"cxx_compiler_version", "13"},
                     {"cuda_compiler", "cuda-nvcc"},    {"cuda_compiler_version", "12.9"}, {"python", "3.12"}};
  return options;
}

Recipe read_ok(std::string_view text, const RecipeOptions& options = cuda_options()) {
  auto recipe = parse_recipe(text, "recipe.yaml", options);
  if (!recipe) {
    ADD_FAILURE() << recipe.error().message;
    return {};
  }
  return *recipe;
}

RecipeError read_error(std::string_view text, const RecipeOptions& options = cuda_options()) {
  auto recipe = parse_recipe(text, "recipe.yaml", options);
  if (recipe) {
    ADD_FAILURE() << "accepted";
    return {};
  }
  return recipe.error();
}

std::vector<std::string> specs_of(const std::vector<Dependency>& dependencies) {
  std::vector<std::string> specs;
  for (const auto& dependency : dependencies) specs.push_back(dependency.pin ? "pin:" + dependency.pin->name : dependency.spec);
  return specs;
}

// CEP 14's single-output example (xtensor), shortened; its test `files:` is
// the mapping rattler-build reads (the CEP's list form is refused, below).
constexpr std::string_view xtensor_recipe = R"(
$schema: https://raw.githubusercontent.com/prefix-dev/recipe-format/7e9363f2c/schema.json

schema_version: 1

context:
  name: xtensor
  version: 0.24.6

package:
  name: ${{ name|lower }}
  version: ${{ version }}

source:
  url: https://github.com/xtensor-stack/xtensor/archive/${{ version }}.tar.gz
  sha256: f87259b51aabafdd1183947747edfff4cff75d55375334f2e81cee6dc68ef655

build:
  number: 0
  skip:
    # note that the value is a minijinja expression
    - osx or win

requirements:
  build:
    - ${{ compiler('cxx') }}
    - cmake
    - if: unix
      then: make
  host:
    - xtl >=0.7,<0.8
  run:
    - xtl >=0.7,<0.8
  run_constraints:
    - xsimd >=8.0.3,<10

tests:
  - script:
      - if: unix
        then:
          - test -d ${PREFIX}/include/xtensor
          - test -f ${PREFIX}/include/xtensor/xarray.hpp
      - if: win
        then:
          - if not exist %LIBRARY_PREFIX%\include\xtensor\xarray.hpp (exit 1)
  - if: unix
    then:
      files:
        recipe:
          - testfiles/cmake/*
      requirements:
        build:
          - ${{ compiler('cxx') }}
          - cmake
          - ninja
      script: |
        cd testiles/cmake/
        ./target/hello_world

  - downstream: xtensor-python
  - python:
      imports:
        - xtensor_python
        - xtensor_python.numpy_adapter
)";

TEST(RecipeReader, ReadsCep14SingleOutputExample) {
  const Recipe recipe = read_ok(xtensor_recipe);
  EXPECT_EQ(recipe.name, "xtensor");
  EXPECT_EQ(recipe.version, "0.24.6");
  ASSERT_EQ(recipe.sources.size(), 1u);
  EXPECT_EQ(recipe.sources[0].urls, std::vector<std::string>{"https://github.com/xtensor-stack/xtensor/archive/0.24.6.tar.gz"});
  EXPECT_FALSE(recipe.build.skip);
  EXPECT_EQ(specs_of(recipe.requirements.build), (std::vector<std::string>{"gxx_linux-64 =13", "cmake", "make"}));
  EXPECT_EQ(specs_of(recipe.requirements.run_constraints), std::vector<std::string>{"xsimd >=8.0.3,<10"});
  ASSERT_EQ(recipe.tests.size(), 4u);
  EXPECT_EQ(recipe.tests[0].script.script.content.size(), 2u);
  EXPECT_EQ(recipe.tests[1].kind, TestElement::Kind::script);
  EXPECT_EQ(recipe.tests[1].script.recipe_files, std::vector<std::string>{"testfiles/cmake/*"});
  EXPECT_EQ(specs_of(recipe.tests[1].script.build_requirements), (std::vector<std::string>{"gxx_linux-64 =13", "cmake", "ninja"}));
  EXPECT_EQ(recipe.tests[2].downstream, "xtensor-python");
  EXPECT_EQ(recipe.tests[3].python.imports.size(), 2u);
  EXPECT_TRUE(recipe.tests[3].python.pip_check);

  // As written in the CEP (`files:` a list), rattler-build refuses it: "expected mapping".
  std::string as_in_cep(xtensor_recipe);
  as_in_cep.replace(as_in_cep.find("        recipe:\n"), 16, "");
  const RecipeError list_files = read_error(as_in_cep);
  EXPECT_EQ(list_files.kind, RecipeError::Kind::invalid_value);
  EXPECT_EQ(list_files.line, 49u);

  const Recipe on_windows = read_ok(xtensor_recipe, cuda_options("win-64"));
  EXPECT_TRUE(on_windows.build.skip);
  EXPECT_EQ(specs_of(on_windows.requirements.build), (std::vector<std::string>{"gxx_win-64 =13", "cmake"}));
  EXPECT_EQ(on_windows.tests.size(), 3u);  // the unix-only test is gone
}

TEST(RecipeReader, ReadsCep41StagingExample) {
  const Recipe recipe = read_ok(R"(
recipe:
  name: foo-split
  version: "1.0.0"
outputs:
  - staging:
      name: foo-cache
    source:
      - url: https://foo.bar/source.tar.bz
        sha256: 0000000000000000000000000000000000000000000000000000000000000000
    requirements:
      build:
        - ${{ compiler('c') }}
        - cmake
      host:
        - libzlib
      ignore_run_exports:
        by_name:
          - libfoo
    build:
      script: build_cache.sh
  - package:
      name: foo-headers
      version: "1.0.0"
    inherit:
      from: foo-cache
      run_exports: false
    build:
      files:
        - include/
  - package:
      name: foo
    inherit: foo-cache
    requirements:
      host:
        - ${{ pin_subpackage("foo-headers", exact=True) }}
)");
  EXPECT_TRUE(recipe.multi_output);
  ASSERT_EQ(recipe.outputs.size(), 3u);
  EXPECT_EQ(recipe.outputs[0].kind, Output::Kind::staging);
  EXPECT_EQ(recipe.outputs[0].build.script.file, "build_cache.sh");
  EXPECT_EQ(recipe.outputs[0].requirements.ignore_run_exports.by_name, std::vector<std::string>{"libfoo"});
  EXPECT_EQ(recipe.outputs[1].inherit_from, "foo-cache");
  EXPECT_FALSE(recipe.outputs[1].inherit_run_exports);
  EXPECT_EQ(recipe.outputs[1].build.files_include, std::vector<std::string>{"include/"});
  EXPECT_EQ(recipe.outputs[2].inherit_from, "foo-cache");
  EXPECT_TRUE(recipe.outputs[2].inherit_run_exports);
  EXPECT_FALSE(recipe.outputs[2].version.has_value());
  ASSERT_EQ(recipe.outputs[2].requirements.host.size(), 1u);
  const auto& pin = recipe.outputs[2].requirements.host[0].pin;
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->name, "foo-headers");
  EXPECT_TRUE(pin->exact);

  // A staging output takes no run requirements and no build fields but the script.
  EXPECT_EQ(read_error(R"(
recipe: {name: x, version: "1"}
outputs:
  - staging: {name: c}
    requirements:
      run: [foo]
)").kind, RecipeError::Kind::unknown_field);
}

TEST(RecipeReader, AnOutputsBuildIsMergedOverTheTopLevelsKeyByKey) {
  std::ostringstream text;
  text << std::ifstream(std::string(GPUENV_SOURCE_DIR) + "/tests/data/recipe/build_inheritance.yaml").rdbuf();
  const Recipe recipe = read_ok(text.str());
  ASSERT_EQ(recipe.outputs.size(), 3u);
  const Build& outa = recipe.outputs[0].build;
  EXPECT_EQ(outa.number, 3);
  EXPECT_EQ(outa.string_template, "abc");
  EXPECT_EQ(outa.noarch, "generic");
  EXPECT_EQ(outa.always_include_files, std::vector<std::string>{"a"});
  EXPECT_EQ(outa.dynamic_linking.rpaths, std::vector<std::string>{"lib/x"});
  const Build& outb = recipe.outputs[1].build;  // its dynamic_linking replaces the top level's
  EXPECT_EQ(outb.number, 3);
  EXPECT_TRUE(outb.dynamic_linking.rpaths.empty());
  EXPECT_EQ(outb.dynamic_linking.binary_relocation, false);
  EXPECT_FALSE(outb.string_template.has_value());
  EXPECT_EQ(recipe.outputs[2].build.dynamic_linking.rpaths, std::vector<std::string>{"lib/x"});
}

TEST(RecipeReader, ReadsEveryBuildField) {
  const Recipe recipe = read_ok(R"(
context:
  version: "2.1"
package: {name: lib, version: "${{ version }}"}
source:
  - git: https://github.com/x/y.git
    tag: v${{ version }}
    depth: 1
    target_directory: src
  - path: ../local
    use_gitignore: false
  - url: [https://a/x.tgz, https://b/x.tgz]
    md5: 0123456789abcdef0123456789abcdef
    file_name: x.tgz
    patches: [a.patch, b.patch]
build:
  number: ${{ 1 + 2 }}
  string: cuda${{ cuda_compiler_version | version_to_buildstring }}_h${{ hash }}_${{ build_number }}
  noarch: python
  merge_build_and_host_envs: true
  always_include_files: [lib/x.so]
  script:
    interpreter: bash
    env:
      CUDA: ${{ cuda_compiler_version }}
    secrets: [TOKEN]
    content:
      - make
      - make install CUDA=${{ cuda_compiler_version }}
  dynamic_linking:
    rpaths: [lib/, lib/stubs]
    binary_relocation: false
    missing_dso_allowlist: ["*/libcuda.so*"]
    overlinking_behavior: error
  prefix_detection:
    force_file_type:
      text: [share/*.txt]
    ignore: [bin/x]
    ignore_binary_files: true
  python:
    entry_points:
      - tool = pkg.cli:main
  variant:
    use_keys: [cuda_compiler_version]
requirements:
  run_exports:
    weak:
      - ${{ pin_subpackage('lib', upper_bound='x.x') }}
    strong: [libgcc]
    weak_constraints: [cuda-version >=12]
    strong_constraints: [__glibc >=2.17]
    noarch: [python]
  ignore_run_exports:
    from_package:
      - ${{ compiler('cuda') }}
    by_name: [cuda-cudart]
tests:
  - package_contents:
      lib: [x]
      include: [x.h]
      strict: true
about:
  license: MIT
  license_file: [LICENSE, NOTICE]
  summary: a library
)");
  ASSERT_EQ(recipe.sources.size(), 3u);
  EXPECT_EQ(recipe.sources[0].kind, Source::Kind::git);
  EXPECT_EQ(recipe.sources[0].tag, "v2.1");
  EXPECT_EQ(recipe.sources[0].depth, 1);
  EXPECT_EQ(recipe.sources[0].target_directory, "src");
  EXPECT_EQ(recipe.sources[1].kind, Source::Kind::path);
  EXPECT_FALSE(recipe.sources[1].use_gitignore);
  EXPECT_EQ(recipe.sources[2].urls.size(), 2u);
  EXPECT_EQ(recipe.sources[2].patches.size(), 2u);
  EXPECT_EQ(recipe.sources[2].file_name, "x.tgz");
  EXPECT_EQ(recipe.build.number, 3);
  EXPECT_EQ(recipe.build.string_template, "cuda${{ cuda_compiler_version | version_to_buildstring }}_h${{ hash }}_${{ build_number }}");
  EXPECT_EQ(recipe.build.noarch, "python");
  EXPECT_TRUE(recipe.build.merge_build_and_host_envs);
  EXPECT_EQ(recipe.build.script.interpreter, "bash");
  EXPECT_EQ(recipe.build.script.env.at("CUDA"), "12.9");
  EXPECT_EQ(recipe.build.script.content, (std::vector<std::string>{"make", "make install CUDA=${{ cuda_compiler_version }}"}));
  EXPECT_EQ(recipe.build.dynamic_linking.rpaths.size(), 2u);
  EXPECT_EQ(recipe.build.dynamic_linking.binary_relocation, false);
  EXPECT_EQ(recipe.build.dynamic_linking.overlinking_behavior, "error");
  EXPECT_EQ(recipe.build.prefix_detection.force_text, std::vector<std::string>{"share/*.txt"});
  EXPECT_EQ(recipe.build.prefix_detection.ignore, std::vector<std::string>{"bin/x"});
  EXPECT_EQ(recipe.build.python.entry_points, std::vector<std::string>{"tool = pkg.cli:main"});
  EXPECT_EQ(recipe.build.variant.use_keys, std::vector<std::string>{"cuda_compiler_version"});
  ASSERT_EQ(recipe.requirements.run_exports.weak.size(), 1u);
  EXPECT_EQ(recipe.requirements.run_exports.weak[0].pin->upper_bound, "x.x");
  EXPECT_EQ(recipe.requirements.run_exports.weak[0].pin->lower_bound, "x.x.x.x.x.x");
  EXPECT_EQ(specs_of(recipe.requirements.run_exports.strong_constraints), std::vector<std::string>{"__glibc >=2.17"});
  EXPECT_EQ(recipe.requirements.ignore_run_exports.from_package, std::vector<std::string>{"cuda-nvcc_linux-64"});
  EXPECT_EQ(recipe.tests[0].kind, TestElement::Kind::package_contents);
  EXPECT_TRUE(recipe.tests[0].package_contents.strict);
  EXPECT_EQ(recipe.about.license_file.size(), 2u);
  EXPECT_TRUE(std::find(recipe.used_names.begin(), recipe.used_names.end(), "cuda_compiler_version") != recipe.used_names.end());
}

TEST(RecipeReader, ContextIsEvaluatedInOrderAndTypedLikeRattlerBuild) {
  const Recipe recipe = read_ok(R"(
context:
  v: 1.10
  i: 5
  b: true
  q: '5'
  n: null
  l: [1, a]
  major: ${{ (v | split('.'))[0] }}
  next: ${{ i + 1 }}
package: {name: x, version: "${{ v }}"}
)");
  ASSERT_EQ(recipe.context.size(), 8u);
  EXPECT_EQ(recipe.context[0].second, Value::string("1.10"));
  EXPECT_EQ(recipe.context[1].second, Value::integer(5));
  EXPECT_EQ(recipe.context[2].second, Value::boolean(true));
  EXPECT_EQ(recipe.context[3].second, Value::string("5"));
  EXPECT_EQ(recipe.context[4].second, Value::string("null"));
  EXPECT_EQ(recipe.context[5].second.display(), "[1, \"a\"]");
  EXPECT_EQ(recipe.context[6].second, Value::string("1"));
  EXPECT_EQ(recipe.context[7].second, Value::integer(6));
  EXPECT_EQ(recipe.version, "1.10");

  const RecipeError later = read_error("context:\n  a: ${{ b }}\n  b: 1\npackage: {name: x, version: '1'}\n");
  EXPECT_EQ(later.kind, RecipeError::Kind::expression);
  EXPECT_EQ(later.line, 2u);
  EXPECT_EQ(later.column, 10u);
  EXPECT_EQ(later.offending, "b");
}

TEST(RecipeReader, SelectorsWorkInListsAtAnyDepthAndEmptyItemsDrop) {
  const std::string text = R"(
package: {name: x, version: "1"}
source:
  - if: linux
    then:
      url: https://x/linux.tgz
      sha256: 0000000000000000000000000000000000000000000000000000000000000000
    else:
      path: ./src
requirements:
  build:
    - ${{ "python" if win }}
    - if: cuda_compiler_version != "None"
      then:
        - ${{ compiler('cuda') }}
        - if: match(cuda_compiler_version, ">=12")
          then: cuda-cudart-dev
    - if: osx
      then: llvm-openmp
)";
  const Recipe linux_recipe = read_ok(text);
  EXPECT_EQ(linux_recipe.sources[0].kind, Source::Kind::url);
  EXPECT_EQ(specs_of(linux_recipe.requirements.build),
            (std::vector<std::string>{"cuda-nvcc_linux-64 =12.9", "cuda-cudart-dev"}));
  const Recipe osx_recipe = read_ok(text, cuda_options("osx-arm64"));
  EXPECT_EQ(osx_recipe.sources[0].kind, Source::Kind::path);
  EXPECT_EQ(specs_of(osx_recipe.requirements.build),
            (std::vector<std::string>{"cuda-nvcc_osx-arm64 =12.9", "cuda-cudart-dev", "llvm-openmp"}));
  // Not as a mapping's value (rattler-build: "unknown field 'if'"), except a single source.
  const RecipeError in_map = read_error("package: {name: x, version: '1'}\nabout:\n  summary:\n    if: linux\n    then: a\n");
  EXPECT_EQ(in_map.kind, RecipeError::Kind::unknown_field);
  EXPECT_EQ(in_map.line, 4u);
  const Recipe single_source = read_ok("package: {name: x, version: '1'}\nsource:\n  if: linux\n  then:\n    path: a\n");
  EXPECT_EQ(single_source.sources.size(), 1u);
}

TEST(RecipeReader, ErrorsNameFileLineColumnAndQuoteTheLine) {
  const RecipeError undefined = read_error("package:\n  name: x\n  version: '1'\nrequirements:\n  host:\n    - ${{ missing_thing }}\n");
  EXPECT_EQ(undefined.kind, RecipeError::Kind::expression);
  EXPECT_EQ(undefined.line, 6u);
  EXPECT_EQ(undefined.column, 11u);
  EXPECT_EQ(undefined.offending, "missing_thing");
  EXPECT_NE(undefined.message.find("recipe.yaml:6:11: undefined value"), std::string::npos) << undefined.message;
  EXPECT_NE(undefined.message.find("    - ${{ missing_thing }}"), std::string::npos) << undefined.message;
  EXPECT_NE(undefined.message.find("|           ^"), std::string::npos) << undefined.message;

  const RecipeError unknown = read_error("package: {name: x, version: '1'}\nbuild:\n  numbr: 1\n");
  EXPECT_EQ(unknown.kind, RecipeError::Kind::unknown_field);
  EXPECT_EQ(unknown.line, 3u);
  EXPECT_EQ(unknown.column, 3u);
  EXPECT_EQ(unknown.offending, "numbr");

  const RecipeError top = read_error("package: {name: x, version: '1'}\nfoo: 1\n");
  EXPECT_EQ(top.kind, RecipeError::Kind::unknown_field);
  EXPECT_EQ(top.offending, "foo");

  struct Case {
    const char* text;
    RecipeError::Kind kind;
    std::size_t line;
  };
  const Case cases[] = {
      {"package: {name: x, version: '1'}\nbuild:\n  number: abc\n", RecipeError::Kind::invalid_value, 3},
      {"package: {name: x, version: '1'}\nbuild:\n  merge_build_and_host_envs: yes\n", RecipeError::Kind::invalid_value, 3},
      {"package: {name: x, version: '1'}\nbuild:\n  noarch: foo\n", RecipeError::Kind::invalid_value, 3},
      {"package: {name: x, version: '1'}\nsource:\n  url: https://x/y.tgz\n  sha256: abc\n", RecipeError::Kind::invalid_value, 4},
      {"recipe: {name: x}\noutputs:\n  - package: {name: a}\n", RecipeError::Kind::missing_field, 3},
      {"package: {name: x, version: '1'}\nabout:\n  license_url: http://x\n", RecipeError::Kind::unknown_field, 3},
      {"package: {name: x, version: '1'}\nsource:\n  git: https://x\n  tag: a\n  branch: b\n", RecipeError::Kind::invalid_value, 3},
      {"package: {name: x, version: '1'}\nbuild:\n  dynamic_linking:\n    overlinking_behavior: warn\n", RecipeError::Kind::invalid_value, 4},
      {"package: {name: x, version: '1'}\nbuild:\n  python:\n    entry_points: [nonsense]\n", RecipeError::Kind::invalid_value, 4},
      {"package: {name: x, version: '1'}\nbuild:\n  number: 1\n  number: 2\n", RecipeError::Kind::invalid_value, 4},
      {"package: {name: x, version: '1'}\nrequirements:\n  run:\n    - foo[[[\n", RecipeError::Kind::invalid_value, 4},
      {"package: {name: x, version: '1'}\nrequirements:\n  run:\n    - if: linux\n      else: a\n", RecipeError::Kind::missing_field, 4},
      {"package: {name: x, version: '1'}\nrequirements:\n  run:\n    - if: linux +\n      then: a\n", RecipeError::Kind::expression, 4},
      {"package: {name: x}\n", RecipeError::Kind::missing_field, 1},
      {"package: {name: x, version: 'not a version!'}\n", RecipeError::Kind::invalid_value, 1},
      {"schema_version: 2\npackage: {name: x, version: '1'}\n", RecipeError::Kind::invalid_value, 1},
      {"build: {number: 1}\n", RecipeError::Kind::missing_field, 1},
      {"- a\n- b\n", RecipeError::Kind::invalid_value, 1},
      {"package: [\n", RecipeError::Kind::not_yaml, 0},
      {"recipe: {name: x, version: '1'}\noutputs:\n  - package: {name: a}\n  - package: {name: a}\n", RecipeError::Kind::invalid_value, 4},
      {"recipe: {name: x, version: '1'}\noutputs:\n  - package: {name: a}\n    inherit: nope\n", RecipeError::Kind::invalid_value, 3},
  };
  for (const auto& [text, kind, line] : cases) {
    SCOPED_TRACE(text);
    const RecipeError error = read_error(text);
    EXPECT_EQ(error.kind, kind) << error.message;
    if (line > 0) {
      EXPECT_EQ(error.line, line) << error.message;
    }
    EXPECT_NE(error.message.find("recipe.yaml"), std::string::npos) << error.message;
  }
}

TEST(RecipeReader, AYamlSyntaxErrorHasTheLineAndColumnWhereTheParserStopped) {
  auto recipe = parse_recipe("package:\n  name: x\n  version: [unclosed\n", "recipe.yaml", cuda_options());
  ASSERT_FALSE(recipe);
  EXPECT_EQ(recipe.error().kind, RecipeError::Kind::not_yaml);
  EXPECT_GE(recipe.error().line, 3u) << recipe.error().message;
  EXPECT_GT(recipe.error().column, 0u) << recipe.error().message;
}

TEST(RecipeReader, AnExpressionsReasonReadsOnceBeforeTheExpression) {
  for (const char* expression : {"${{ 1 // 0 }}", "${{ env.get('GPUENV_SURELY_UNSET_VARIABLE') }}", "${{ 'a' * 'b' }}"}) {
    auto recipe = parse_recipe(std::string("package:\n  name: x\n  version: \"") + expression + "\"\n", "recipe.yaml",
                               cuda_options());
    ASSERT_FALSE(recipe) << expression;
    EXPECT_EQ(recipe.error().message.find(" in in "), std::string::npos) << recipe.error().message;
    EXPECT_EQ(recipe.error().message.find(": in "), std::string::npos) << recipe.error().message;
    EXPECT_NE(recipe.error().message.find(" in '${{"), std::string::npos) << recipe.error().message;
  }
}

TEST(RecipeReader, HostileRecipesAreRefusedNotFatal) {
  RecipeOptions options = cuda_options();
  options.max_file_bytes = 1000;
  EXPECT_EQ(read_error(std::string(2000, '#'), options).kind, RecipeError::Kind::too_large);
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) laughs += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    laughs += "]\n";
  }
  EXPECT_EQ(read_error("package: {name: x, version: '1'}\nextra:\n  " + laughs.substr(0, laughs.size() - 1)).kind,
            RecipeError::Kind::too_large);
  std::string deep = "package: {name: x, version: '1'}\nextra: " + std::string(500, '[') + std::string(500, ']') + "\n";
  EXPECT_FALSE(parse_recipe(deep, "recipe.yaml", cuda_options()).has_value());
  EXPECT_EQ(read_recipe("/nonexistent/recipe.yaml").error().kind, RecipeError::Kind::unreadable);
}

// The conda-forge and RAPIDS CUDA recipes of the shared test data that need
// no files beside them (load_from_file, git.head_rev read the repository).
TEST(RecipeReader, ReadsTheCudaRecipesOfTheTestData) {
  const auto root = testdata() / "recipes";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no test data at " << root;
  int read = 0;
  for (const char* name : {"numba-cuda-feedstock", "dask-core-feedstock", "distributed-feedstock"}) {
    SCOPED_TRACE(name);
    for (const char* platform : {"linux-64", "linux-aarch64", "win-64", "osx-arm64"}) {
      auto recipe = read_recipe(root / name / "recipe" / "recipe.yaml", cuda_options(platform));
      ASSERT_TRUE(recipe.has_value()) << recipe.error().message;
      EXPECT_FALSE(recipe->name.empty());
      ++read;
    }
  }
  EXPECT_EQ(read, 12);
  auto numba_cuda = read_recipe(root / "numba-cuda-feedstock/recipe/recipe.yaml", cuda_options());
  ASSERT_TRUE(numba_cuda.has_value());
  EXPECT_EQ(specs_of(numba_cuda->requirements.build),
            (std::vector<std::string>{"sysroot_linux-64 =2.17", "gcc_linux-64 =13", "gxx_linux-64 =13"}));
  EXPECT_FALSE(numba_cuda->build.skip);
  EXPECT_TRUE(read_recipe(root / "numba-cuda-feedstock/recipe/recipe.yaml", cuda_options("osx-arm64"))->build.skip);
}

}  // namespace
}  // namespace gpuenv::recipe
