#include "gpuenv/util/environment.hpp"

#include <cstdlib>

namespace gpuenv::util {

std::optional<std::string> get_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

EnvLookup process_environment() {
  return [](std::string_view name) { return get_env(std::string(name).c_str()); };
}

EnvLookup fixed_environment(std::map<std::string, std::string, std::less<>> variables) {
  return [variables = std::move(variables)](std::string_view name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace gpuenv::util
