#include "gpuenv/recipe/test_list.hpp"

#include "gpuenv/recipe/recipe.hpp"
#include "gpuenv/recipe/recipe_node.hpp"
#include "gpuenv/recipe/recipe_sections.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::recipe {
namespace {

// A YAML double-quoted scalar: any text survives the round trip.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      static const char* const digits = "0123456789abcdef";
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void add_list(std::string& out, const std::string& indent, std::string_view key, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out += indent + std::string(key) + ":\n";
  for (const auto& item : items) out += indent + "  - " + yaml_quoted(item) + "\n";
}

std::vector<std::string> dependency_texts(const std::vector<Dependency>& dependencies) {
  std::vector<std::string> texts;
  for (const auto& dependency : dependencies) texts.push_back(dependency_text(dependency));
  return texts;
}

void add_script_test(std::string& out, const ScriptTest& test) {
  const auto& script = test.script;
  out += "- script:\n";
  if (script.interpreter) out += "    interpreter: " + yaml_quoted(*script.interpreter) + "\n";
  if (!script.env.empty()) {
    out += "    env:\n";
    for (const auto& [name, value] : script.env) out += "      " + yaml_quoted(name) + ": " + yaml_quoted(value) + "\n";
  }
  if (script.cwd) out += "    cwd: " + yaml_quoted(*script.cwd) + "\n";
  if (script.file) out += "    file: " + yaml_quoted(*script.file) + "\n";
  if (script.content.empty() && !script.file) out += "    content: []\n";
  add_list(out, "    ", "content", script.content);
  if (!test.build_requirements.empty() || !test.run_requirements.empty()) {
    out += "  requirements:\n";
    add_list(out, "    ", "build", dependency_texts(test.build_requirements));
    add_list(out, "    ", "run", dependency_texts(test.run_requirements));
  }
  if (!test.source_files.empty() || !test.recipe_files.empty()) {
    out += "  files:\n";
    add_list(out, "    ", "source", test.source_files);
    add_list(out, "    ", "recipe", test.recipe_files);
  }
}

void add_contents_test(std::string& out, const PackageContentsTest& test) {
  out += "- package_contents:\n";
  if (test.files_not_existing.empty()) {
    add_list(out, "    ", "files", test.files);
  } else {
    out += "    files:\n";
    add_list(out, "      ", "exists", test.files);
    add_list(out, "      ", "not_exists", test.files_not_existing);
  }
  add_list(out, "    ", "site_packages", test.site_packages);
  add_list(out, "    ", "bin", test.bin);
  add_list(out, "    ", "lib", test.lib);
  add_list(out, "    ", "include", test.include);
  out += std::string("    strict: ") + (test.strict ? "true" : "false") + "\n";
}

}  // namespace

std::string test_list_yaml(const std::vector<TestElement>& tests) {
  if (tests.empty()) return "[]\n";
  std::string out;
  for (const auto& test : tests) {
    switch (test.kind) {
      case TestElement::Kind::script: add_script_test(out, test.script); break;
      case TestElement::Kind::python:
        out += "- python:\n";
        add_list(out, "    ", "imports", test.python.imports);
        out += std::string("    pip_check: ") + (test.python.pip_check ? "true" : "false") + "\n";
        add_list(out, "    ", "python_version", test.python.python_version);
        break;
      case TestElement::Kind::package_contents: add_contents_test(out, test.package_contents); break;
      case TestElement::Kind::downstream: out += "- downstream: " + yaml_quoted(test.downstream) + "\n"; break;
      case TestElement::Kind::perl:
      case TestElement::Kind::r:
      case TestElement::Kind::ruby: {
        const char* language = test.kind == TestElement::Kind::perl ? "perl" : test.kind == TestElement::Kind::r ? "r" : "ruby";
        out += std::string("- ") + language + ":\n";
        add_list(out, "    ", test.kind == TestElement::Kind::r ? "libraries" : "uses", test.uses);
        if (test.uses.empty()) out += "    uses: []\n";
        break;
      }
    }
  }
  return out;
}

std::expected<std::vector<TestElement>, RecipeError> parse_test_list(std::string_view text, std::string_view file) {
  const RecipeOptions options;
  if (text.size() > options.max_file_bytes) {
    RecipeError error;
    error.kind = RecipeError::Kind::too_large;
    error.file = std::string(file);
    error.message = std::string(file) + ": larger than " + std::to_string(options.max_file_bytes) +
                    " bytes; a package's tests.yaml is a few KiB (is the package damaged?)";
    return std::unexpected(std::move(error));
  }
  auto root = detail::load_recipe_yaml(text, file, options);
  if (!root) return std::unexpected(std::move(root.error()));
  try {
    const detail::ReadState state = detail::read_state(file, text, options);
    const detail::RecipeNode document = detail::copy_yaml(*root, state);
    const detail::RecipeNode resolved = detail::resolve(document, state, "tests");
    return detail::read_tests(&resolved, state);
  } catch (detail::RecipeFailure& failure) {
    return std::unexpected(std::move(failure.error));
  }
}

}  // namespace gpuenv::recipe
