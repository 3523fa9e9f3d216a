#include "gpuenv/recipe/variant_hash.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <map>
#include <cstdio>
#include <vector>

#include "gpuenv/util/hex.hpp"

namespace gpuenv::recipe {
namespace {

// A JSON string as serde_json writes it: quotes, backslashes and control
// characters escaped, everything else (UTF-8 included) as is.
void append_json_string(std::string& out, const std::string& text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> escaped{};
          std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
          out += escaped.data();
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void append_json_value(std::string& out, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::string: append_json_string(out, value.as_string()); break;
    case Value::Kind::boolean: out += value.as_bool() ? "true" : "false"; break;
    case Value::Kind::integer: out += std::to_string(value.as_integer()); break;
    case Value::Kind::floating: out += format_double(value.as_double()); break;
    case Value::Kind::list: {
      out += '[';
      bool first = true;
      for (const auto& item : value.as_list()) {
        if (!first) out += ", ";
        first = false;
        append_json_value(out, item);
      }
      out += ']';
      break;
    }
    default: out += "null"; break;
  }
}

// The first `parts` dot-separated parts of a version, joined without dots:
// "3.10.1" with 2 parts is "310".
std::string short_version(const std::string& version, std::size_t parts) {
  std::string result;
  std::size_t start = 0;
  for (std::size_t taken = 0; taken < parts; ++taken) {
    const auto dot = version.find('.', start);
    result += version.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return result;
}

}  // namespace

std::string variant_hash_input(const Variant& variant) {
  // Keys as rattler-build normalizes them ('-' is '_': an exact pin on
  // py-foo hashes as py_foo), sorted as sort_keys=True sorts them.
  std::map<std::string, const Value*> normalized;
  for (const auto& [key, value] : variant) {
    std::string name = key;
    std::replace(name.begin(), name.end(), '-', '_');
    normalized[name] = &value;
  }
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : normalized) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, key);
    out += ": ";
    append_json_value(out, *value);
  }
  out += '}';
  return out;
}

std::string variant_hash(const std::string& hash_input) {
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(hash_input.data()), hash_input.size(), digest.data());
  return util::hex_string(digest.data(), 4).substr(0, 7);
}

std::string variant_hash_prefix(const Variant& variant, const std::optional<std::string>& noarch) {
  if (noarch == "python") return "py";
  // In this order; perl keeps three version parts, the others two.
  struct Part {
    const char* key;
    const char* prefix;
    std::size_t parts;
  };
  static constexpr std::array<Part, 6> order{{{"numpy", "np", 2}, {"python", "py", 2}, {"perl", "pl", 3},
                                              {"lua", "lua", 2}, {"r_base", "r", 2}, {"r", "r", 2}}};
  std::string prefix;
  bool r_done = false;
  for (const auto& part : order) {
    const auto found = variant.find(part.key);
    if (found == variant.end()) continue;
    if (part.prefix == std::string_view("r")) {
      if (r_done) continue;
      r_done = true;
    }
    prefix += part.prefix + short_version(found->second.display(), part.parts);
  }
  return prefix;
}

std::string default_build_string(const std::string& prefix, const std::string& hash, std::int64_t build_number) {
  return prefix + "h" + hash + "_" + std::to_string(build_number);
}

}  // namespace gpuenv::recipe
