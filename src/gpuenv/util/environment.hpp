#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpuenv::util {

// The value of an environment variable; nullopt when it is not set at all
// (an empty value is returned as ""; conda's overrides tell the two apart).
std::optional<std::string> get_env(const char* name);

// How configuration code reads the environment. Passing one in (instead of
// calling getenv deep inside) keeps configuration a value: tests hand in a
// map, the program hands in the real process environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Reads the real process environment.
EnvLookup process_environment();

// Every variable of the process environment, for the recipe module (what
// env.get() in a recipe and os.environ.get() in a variant file see).
std::map<std::string, std::string, std::less<>> environment_variables();

// A fixed environment, for tests and for callers that assemble one.
EnvLookup fixed_environment(std::map<std::string, std::string, std::less<>> variables);

}  // namespace gpuenv::util
