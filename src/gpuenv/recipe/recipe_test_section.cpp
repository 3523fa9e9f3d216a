// The `tests` section (CEP 14): script, python, package_contents and
// downstream elements, and rattler-build's perl/r/ruby ones.
#include "gpuenv/recipe/recipe_fields.hpp"
#include "gpuenv/recipe/recipe_sections.hpp"

namespace gpuenv::recipe::detail {
namespace {

TestElement read_script_test(const RecipeNode& node, const ReadState& state) {
  check_keys(node, {"script", "requirements", "files"}, "a script test", state);
  TestElement test;
  test.kind = TestElement::Kind::script;
  test.script.script = read_script(node.find("script"), "tests.script", state);
  if (const RecipeNode* requirements = node.find("requirements"); requirements != nullptr && requirements->kind != RecipeNode::Kind::null) {
    expect_map(*requirements, "a test's requirements", state);
    check_keys(*requirements, {"build", "run"}, "a test's requirements", state);
    test.script.build_requirements = dependency_list(requirements->find("build"), "tests.requirements.build", state);
    test.script.run_requirements = dependency_list(requirements->find("run"), "tests.requirements.run", state);
  }
  if (const RecipeNode* files = node.find("files"); files != nullptr && files->kind != RecipeNode::Kind::null) {
    expect_map(*files, "a test's files", state);
    check_keys(*files, {"source", "recipe"}, "a test's files", state);
    test.script.source_files = text_list(files->find("source"), "files.source", state);
    test.script.recipe_files = text_list(files->find("recipe"), "files.recipe", state);
  }
  return test;
}

TestElement read_python_test(const RecipeNode& node, const ReadState& state) {
  check_keys(node, {"python"}, "a python test", state);
  const RecipeNode& body = expect_map(*node.find("python"), "tests.python", state);
  check_keys(body, {"imports", "pip_check", "python_version"}, "tests.python", state);
  TestElement test;
  test.kind = TestElement::Kind::python;
  test.python.imports = text_list(body.find("imports"), "imports", state);
  if (const RecipeNode* pip_check = body.find("pip_check")) test.python.pip_check = bool_of(*pip_check, "pip_check", state);
  test.python.python_version = text_list(body.find("python_version"), "python_version", state);
  return test;
}

TestElement read_contents_test(const RecipeNode& node, const ReadState& state) {
  check_keys(node, {"package_contents"}, "a package_contents test", state);
  const RecipeNode& body = expect_map(*node.find("package_contents"), "tests.package_contents", state);
  check_keys(body, {"files", "site_packages", "bin", "lib", "include", "strict"}, "tests.package_contents", state);
  TestElement test;
  test.kind = TestElement::Kind::package_contents;
  auto& contents = test.package_contents;
  // files may also be {exists: [...], not_exists: [...]}.
  if (const RecipeNode* files = body.find("files"); files != nullptr && files->kind == RecipeNode::Kind::map) {
    check_keys(*files, {"exists", "not_exists"}, "package_contents.files", state);
    contents.files = text_list(files->find("exists"), "files.exists", state);
    contents.files_not_existing = text_list(files->find("not_exists"), "files.not_exists", state);
  } else {
    contents.files = text_list(files, "files", state);
  }
  contents.site_packages = text_list(body.find("site_packages"), "site_packages", state);
  contents.bin = text_list(body.find("bin"), "bin", state);
  contents.lib = text_list(body.find("lib"), "lib", state);
  contents.include = text_list(body.find("include"), "include", state);
  if (const RecipeNode* strict = body.find("strict")) contents.strict = bool_of(*strict, "strict", state);
  return test;
}

TestElement read_language_test(const RecipeNode& node, std::string_view language, TestElement::Kind kind, const ReadState& state) {
  check_keys(node, {language}, "a test", state);
  const RecipeNode& body = expect_map(*node.find(language), "tests." + std::string(language), state);
  TestElement test;
  test.kind = kind;
  for (const auto& [key, value] : body.entries) {
    for (auto& item : text_list(&value, key, state)) test.uses.push_back(std::move(item));
  }
  return test;
}

}  // namespace

std::vector<TestElement> read_tests(const RecipeNode* node, const ReadState& state) {
  std::vector<TestElement> tests;
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return tests;
  if (node->kind != RecipeNode::Kind::sequence) {
    state.fail(RecipeError::Kind::invalid_value, node->position, node->text, "tests must be a list, found");
  }
  for (const auto& item : node->items) {
    if (item.kind == RecipeNode::Kind::null) continue;
    expect_map(item, "a test", state);
    TestElement test;
    if (item.find("script") != nullptr) {
      test = read_script_test(item, state);
    } else if (item.find("python") != nullptr) {
      test = read_python_test(item, state);
    } else if (item.find("package_contents") != nullptr) {
      test = read_contents_test(item, state);
    } else if (item.find("downstream") != nullptr) {
      check_keys(item, {"downstream"}, "a downstream test", state);
      test.kind = TestElement::Kind::downstream;
      test.downstream = text_of(*item.find("downstream"), "downstream", state);
    } else if (item.find("perl") != nullptr) {
      test = read_language_test(item, "perl", TestElement::Kind::perl, state);
    } else if (item.find("r") != nullptr) {
      test = read_language_test(item, "r", TestElement::Kind::r, state);
    } else if (item.find("ruby") != nullptr) {
      test = read_language_test(item, "ruby", TestElement::Kind::ruby, state);
    } else {
      state.fail(RecipeError::Kind::invalid_value, item.position, item.entries.empty() ? "" : item.entries.front().key,
                 "a test is script, python, package_contents, downstream, perl, r or ruby, found");
    }
    test.position = item.position;
    tests.push_back(std::move(test));
  }
  return tests;
}

}  // namespace gpuenv::recipe::detail
