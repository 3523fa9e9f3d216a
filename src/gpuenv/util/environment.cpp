#include "gpuenv/util/environment.hpp"

#include <cstdlib>

namespace gpuenv::util {

std::optional<std::string> get_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace gpuenv::util
