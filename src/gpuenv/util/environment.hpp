#pragma once

#include <optional>
#include <string>

namespace gpuenv::util {

// The value of an environment variable; nullopt when it is not set at all
// (an empty value is returned as ""; conda's overrides tell the two apart).
std::optional<std::string> get_env(const char* name);

}  // namespace gpuenv::util
