#include "gpuenv/builder/rendered_recipe.hpp"

#include <yaml-cpp/yaml.h>

namespace gpuenv::build {

namespace {

void emit_list(YAML::Emitter& out, const char* key, const std::vector<std::string>& items) {
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const auto& item : items) out << item;
  out << YAML::EndSeq;
}

void emit_environment(YAML::Emitter& out, const char* key, const std::vector<specs::PackageRecord>& records) {
  std::vector<std::string> listed;
  for (const auto& record : records) listed.push_back(record.name + " " + record.version + " " + record.build);
  emit_list(out, key, listed);
}

}  // namespace

std::string rendered_recipe_yaml(const RenderedRecipeInput& input) {
  const auto& variant = *input.variant;
  const auto& build = variant.output_index < variant.recipe.outputs.size()
                          ? variant.recipe.outputs[variant.output_index].build
                          : variant.recipe.build;
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "recipe" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "package" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << variant.output_name;
  out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << variant.output_version;
  out << YAML::EndMap;
  out << YAML::Key << "build" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "string" << YAML::Value << variant.build_string;
  out << YAML::Key << "number" << YAML::Value << build.number;
  if (build.noarch) out << YAML::Key << "noarch" << YAML::Value << *build.noarch;
  out << YAML::EndMap;
  out << YAML::Key << "requirements" << YAML::Value << YAML::BeginMap;
  emit_list(out, "build", input.build_specs);
  emit_list(out, "host", input.host_specs);
  if (input.requirements != nullptr) {
    emit_list(out, "run", input.requirements->run);
    emit_list(out, "run_constraints", input.requirements->run_constraints);
  }
  out << YAML::EndMap << YAML::EndMap;

  out << YAML::Key << "build_configuration" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "target_platform" << YAML::Value << input.subdir;
  out << YAML::Key << "build_platform" << YAML::Value << input.build_platform;
  out << YAML::Key << "variant" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : variant.variant) {
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value.display();
  }
  out << YAML::EndMap;
  out << YAML::Key << "hash" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "hash" << YAML::Value << variant.hash;
  out << YAML::Key << "hash_input" << YAML::Value << variant.hash_input;
  out << YAML::EndMap;
  out << YAML::Key << "environments" << YAML::Value << YAML::BeginMap;
  emit_environment(out, "build", input.build_environment);
  emit_environment(out, "host", input.host_environment);
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gpuenv::build
