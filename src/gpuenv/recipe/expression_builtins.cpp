// The functions and names rattler-build defines for recipes: compiler(),
// stdlib(), cdt(), the pin functions, match(), the platform tests and
// booleans, env.get/env.exists. Outputs were taken from rattler-build's render
// (tests/unit/recipe/expression_test.cpp keeps them).
#include <algorithm>
#include <string>

#include "gpuenv/recipe/expression_functions.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"
#include "gpuenv/specs/version_spec.hpp"

namespace gpuenv::recipe::detail {
namespace {

using Kind = ExpressionError::Kind;

struct PlatformParts {
  std::string os;    // linux, osx, win, emscripten, noarch, ...
  std::string arch;  // 64, aarch64, arm64, ppc64le, 32, wasm32, ...
};

PlatformParts split_platform(std::string_view platform) {
  const auto dash = platform.find('-');
  if (dash == std::string_view::npos) return {std::string(platform), ""};
  return {std::string(platform.substr(0, dash)), std::string(platform.substr(dash + 1))};
}

std::string_view architecture_name(std::string_view arch) {
  if (arch == "64") return "x86_64";
  if (arch == "32") return "x86";
  return arch;
}

const Value& argument(const std::optional<Value>& value) { return *value; }

std::string variant_value(const CallSite& site, const std::string& key) {
  if (site.context.used_names != nullptr) site.context.used_names->insert(key);
  const auto found = site.context.variant.find(key);
  if (found != site.context.variant.end()) return found->second;
  if (const auto variable = site.context.variables.find(key); variable != site.context.variables.end() &&
                                                               !variable->second.is_undefined()) {
    return variable->second.display();
  }
  return {};
}

// rattler-build's default compiler package names per language and platform.
std::string default_compiler(std::string_view language, std::string_view target_platform) {
  const std::string os = split_platform(target_platform).os;
  if (language == "c") return os == "osx" ? "clang" : os == "win" ? "vs2022" : "gcc";
  if (language == "cxx") return os == "osx" ? "clangxx" : os == "win" ? "vs2022" : "gxx";
  if (language == "fortran") return os == "win" ? "flang" : "gfortran";
  return std::string(language);
}

// "<name>_<target_platform>" and " =<version>" when the variant names one.
Value toolchain_spec(const CallSite& site, const std::string& language, const std::string& kind_name) {
  std::string name = variant_value(site, language + "_" + kind_name);
  const std::string version = variant_value(site, language + "_" + kind_name + "_version");
  if (name.empty()) {
    if (kind_name == "stdlib") {
      site.fail(Kind::undefined, "no stdlib for language '" + language + "' (add `" + language +
                                     "_stdlib` to the variant config) in");
    }
    name = default_compiler(language, site.context.target_platform);
  }
  std::string spec = name + "_" + site.context.target_platform;
  if (!version.empty()) spec += " =" + version;
  return Value::string(std::move(spec));
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[(c >> 4) & 0xf];
      out += hex[c & 0xf];
      continue;
    }
    out += c;
  }
  out += '"';
}

// pin_subpackage / pin_compatible print as the JSON rattler-build puts in the
// rendered recipe, which reads it back as a pin:
//   {"pin_subpackage":{"name":"x","lower_bound":"x.x.x.x.x.x","upper_bound":"x"}}
Value pin(std::string_view function, const Arguments& arguments, const CallSite& site) {
  for (const auto& [keyword, value] : arguments.keywords) {
    if (keyword == "max_pin" || keyword == "min_pin") {
      site.fail(Kind::invalid_operation, "`" + keyword + "` is not supported any more (use upper_bound/lower_bound) in");
    }
  }
  const Parameters parameters(arguments, {"name", "lower_bound", "upper_bound", "exact", "build"}, 1, site);
  const bool exact = parameters[3] && parameters[3]->truthy();
  std::string json = "{";
  append_json_string(json, function);
  json += ":{\"name\":";
  append_json_string(json, argument(parameters[0]).display());
  if (exact) {
    if (parameters[1] || parameters[2]) {
      site.fail(Kind::invalid_operation, "exact=true takes no lower_bound or upper_bound in");
    }
    json += ",\"exact\":true";
  } else {
    const auto bound = [&](const std::optional<Value>& given, std::string_view key, std::string_view fallback) {
      if (given && given->kind() == Value::Kind::none) return;
      json += ",\"";
      json += key;
      json += "\":";
      append_json_string(json, given ? given->display() : std::string(fallback));
    };
    bound(parameters[1], "lower_bound", "x.x.x.x.x.x");
    bound(parameters[2], "upper_bound", "x");
  }
  if (parameters[4] && parameters[4]->kind() != Value::Kind::none) {
    json += ",\"build\":";
    append_json_string(json, parameters[4]->display());
  }
  json += "}}";
  return Value::string(std::move(json));
}

Value match(const Arguments& arguments, const CallSite& site) {
  const Parameters parameters(arguments, {"value", "spec"}, 2, site);
  const Value& value = argument(parameters[0]);
  // rattler-build matches a missing (none) variant value against anything.
  if (value.kind() == Value::Kind::none) return Value::boolean(true);
  const std::string& spec_text = expect_string(argument(parameters[1]), site, "the version spec");
  // As rattler-build: a variant value is often a spec itself
  // (conda-forge's python "3.12.* *_cpython"): its first word, without a
  // trailing ".*" or "*", is the version.
  std::string text = value.display();
  text = text.substr(0, text.find(' '));
  if (text.ends_with(".*")) text.resize(text.size() - 2);
  while (text.ends_with('*')) text.pop_back();
  try {
    const auto spec = specs::VersionSpec::parse(spec_text);
    const auto version = specs::Version::try_parse(text);
    if (!version) site.fail(Kind::invalid_operation, "'" + value.display() + "' is not a version, in");
    return Value::boolean(spec.contains(*version));
  } catch (const specs::SpecError& error) {
    site.fail(Kind::invalid_operation, error.what() + std::string(" in"));
  }
}

Value platform_test(std::string_view function, const Arguments& arguments, const CallSite& site) {
  const Parameters parameters(arguments, {"platform"}, 1, site);
  const std::string os = split_platform(argument(parameters[0]).display()).os;
  if (function == "is_linux") return Value::boolean(os == "linux");
  if (function == "is_osx") return Value::boolean(os == "osx");
  if (function == "is_windows") return Value::boolean(os == "win");
  return Value::boolean(os == "linux" || os == "osx" || os == "emscripten" || os == "wasi");  // is_unix
}

}  // namespace

Value call_function(std::string_view name, const Arguments& arguments, const CallSite& site) {
  if (name == "compiler" || name == "stdlib") {
    const Parameters parameters(arguments, {"language"}, 1, site);
    return toolchain_spec(site, argument(parameters[0]).display(), std::string(name));
  }
  if (name == "cdt") {
    const Parameters parameters(arguments, {"name"}, 1, site);
    // The target's architecture, else the build machine's (a noarch target).
    std::string arch_part = split_platform(site.context.target_platform).arch;
    if (arch_part.empty()) arch_part = split_platform(site.context.build_platform).arch;
    if (arch_part.empty()) site.fail(Kind::undefined, "no target or build architecture for");
    std::string arch = std::string(architecture_name(arch_part));
    if (arch == "x86") arch = "x86_64";
    std::string cdt_name = variant_value(site, "cdt_name");
    if (cdt_name.empty()) cdt_name = (arch == "aarch64" || arch == "ppc64le" || arch == "s390x") ? "cos7" : "cos6";
    if (const std::string cdt_arch = variant_value(site, "cdt_arch"); !cdt_arch.empty()) arch = cdt_arch;
    return Value::string(argument(parameters[0]).display() + "-" + cdt_name + "-" + arch);
  }
  if (name == "pin_subpackage" || name == "pin_compatible") return pin(name, arguments, site);
  if (name == "match") return match(arguments, site);
  if (name == "is_linux" || name == "is_osx" || name == "is_windows" || name == "is_unix") {
    return platform_test(name, arguments, site);
  }
  site.fail(Kind::unknown_name, "unknown function '" + std::string(name) + "' in");
}

Value call_env_method(std::string_view method, const Arguments& arguments, const CallSite& site) {
  const auto& environment = site.context.environment;
  if (method == "get") {
    // `default` is keyword-only, as in rattler-build.
    if (arguments.positional.size() > 1) site.fail(Kind::invalid_operation, "too many arguments (use default=...) in");
    const Parameters parameters(arguments, {"env_var", "default"}, 1, site);
    const std::string key = argument(parameters[0]).display();
    if (const auto found = environment.find(key); found != environment.end()) return Value::string(found->second);
    if (parameters[1]) return *parameters[1];
    site.fail(Kind::invalid_operation, "environment variable " + key + " not found (give env.get a default=) in");
  }
  if (method == "exists") {
    const Parameters parameters(arguments, {"env_var"}, 1, site);
    return Value::boolean(environment.contains(argument(parameters[0]).display()));
  }
  site.fail(Kind::unknown_name, "env has no method '" + std::string(method) + "' (only get and exists) in");
}

std::optional<Value> lookup_name(std::string_view name, const EvaluationContext& context) {
  if (const auto found = context.variables.find(name); found != context.variables.end()) return found->second;
  if (const auto found = context.variant.find(name); found != context.variant.end()) return Value::string(found->second);
  if (name == "target_platform") return Value::string(context.target_platform);
  if (name == "build_platform") return Value::string(context.build_platform);
  if (name == "host_platform") return Value::string(context.host_platform);
  const PlatformParts parts = split_platform(context.target_platform);
  const std::string_view arch = architecture_name(parts.arch);
  const bool unix_like = parts.os == "linux" || parts.os == "osx" || parts.os == "emscripten";
  if (name == "linux" || name == "osx" || name == "win" || name == "emscripten") return Value::boolean(parts.os == name);
  if (name == "unix") return Value::boolean(unix_like);
  if (name == "x86_64" || name == "x86" || name == "aarch64" || name == "arm64" || name == "ppc64le" ||
      name == "s390x" || name == "wasm32" || name == "armv6l" || name == "armv7l" || name == "riscv64") {
    return Value::boolean(arch == name);
  }
  if (name == "linux64" || name == "linux32" || name == "win64" || name == "win32" || name == "osx64") {
    const std::string_view os = name.substr(0, name.size() - 2);
    return Value::boolean(parts.os == os && parts.arch == name.substr(name.size() - 2));
  }
  return std::nullopt;
}

}  // namespace gpuenv::recipe::detail
