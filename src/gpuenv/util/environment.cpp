#include "gpuenv/util/environment.hpp"

#include <cstdlib>
#include <string_view>

extern char** environ;

namespace gpuenv::util {

std::optional<std::string> get_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

EnvLookup process_environment() {
  return [](std::string_view name) { return get_env(std::string(name).c_str()); };
}

std::map<std::string, std::string, std::less<>> environment_variables() {
  std::map<std::string, std::string, std::less<>> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos || equals == 0) continue;
    variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return variables;
}

EnvLookup fixed_environment(std::map<std::string, std::string, std::less<>> variables) {
  return [variables = std::move(variables)](std::string_view name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace gpuenv::util
