#include "gpuenv/builder/script_templates.hpp"

#include "gpuenv/recipe/expression.hpp"

namespace gpuenv::build {

std::expected<recipe::Script, BuildError> render_script_templates(const recipe::Script& script,
                                                                  const ScriptTemplateNames& names,
                                                                  const std::string& what) {
  recipe::Script rendered = script;
  bool any = false;
  for (const auto& line : script.content) any = any || recipe::has_expression(line);
  if (!any) return rendered;

  recipe::EvaluationContext context;
  if (names.variant != nullptr) {
    for (const auto& [name, value] : names.variant->recipe.context) context.variables[name] = value;
    for (const auto& [key, value] : names.variant->variant) context.variant[key] = value.display();
  }
  for (const auto& [name, value] : names.script_variables) context.variables[name] = recipe::Value::string(value);
  if (const auto prefix = names.script_variables.find("PREFIX"); prefix != names.script_variables.end()) {
    context.variables["PYTHON"] = recipe::Value::string(prefix->second + "/bin/python");
  }
  context.target_platform = names.target_platform;
  context.build_platform = names.build_platform;
  context.host_platform = names.host_platform;
  context.environment = names.environment;
  for (std::size_t index = 0; index < rendered.content.size(); ++index) {
    auto& line = rendered.content[index];
    if (!recipe::has_expression(line)) continue;
    try {
      line = recipe::render_template(line, context).display();
    } catch (const recipe::ExpressionError& error) {
      return std::unexpected(BuildError{BuildErrorKind::script, what + " line " + std::to_string(index + 1) + " '" +
                                                                    line + "' cannot be rendered: " + error.what()});
    }
  }
  return rendered;
}

}  // namespace gpuenv::build
