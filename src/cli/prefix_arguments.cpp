#include "prefix_arguments.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>


namespace gpuenv::cli {
namespace {

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// conda's "Argument --name requires a value": an empty -n or -p is not
// "no -n or -p" (that would fall back to the active environment).
CLI::Validator not_blank(std::string what) {
  return CLI::Validator(
      [what](std::string& value) {
        return is_blank(value) ? fmt::format("needs {}, not an empty or blank value", what) : std::string();
      },
      "", "not blank");
}

}  // namespace

void add_prefix_options(CLI::App* command, PrefixArguments& arguments) {
  auto* prefix =
      command->add_option("-p,--prefix", arguments.prefix, "Path of the environment")->check(not_blank("a path"));
  command->add_option("-n,--name", arguments.name, "Name of the environment (in the envs directory)")
      ->check(not_blank("a name"))
      ->excludes(prefix);
}

}  // namespace gpuenv::cli
