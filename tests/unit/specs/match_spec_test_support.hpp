// Helpers shared by the MatchSpec test files.
#pragma once

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::specs::test {

// The directories rattler's snapshots stand for with <HOME> and <CRATE>.
inline constexpr const char* test_home = "/home/tester";
inline constexpr const char* test_cwd = "/crate";

inline ChannelContext test_context() {
  ChannelContext context;
  context.home_directory = test_home;
  context.current_directory = test_cwd;
  return context;
}

inline std::string expand_placeholders(std::string text) {
  for (const auto& [placeholder, value] :
       {std::pair<std::string, std::string>{"<HOME>", test_home}, {"<CRATE>", test_cwd}}) {
    for (auto pos = text.find(placeholder); pos != std::string::npos;
         pos = text.find(placeholder)) {
      text.replace(pos, placeholder.size(), value);
    }
  }
  return text;
}

inline std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

inline bool contains_ignoring_case(const std::string& text, const std::string& part) {
  return lower(text).find(lower(part)) != std::string::npos;
}

inline std::string bool_text(bool value) { return value ? "true" : "false"; }

// Rows of the conformance tables gpuenv deliberately does not follow, each
// explained in docs/spec-deviations.md ("MatchSpec"). Keyed by (input, field).
inline const std::set<std::pair<std::string, std::string>>& deviating_rows() {
  static const std::set<std::pair<std::string, std::string>> rows = {
      // libmamba lets positional values win over brackets; conda and CEP 29
      // let brackets win (build is '3').
      {R"(defaults::numpy=1.8=py27_0 [name="pytorch",channel='anaconda',version=">=1.8,<2|1.9", build='3'])",
       "build"},
      // libmamba ignores [subdir=] when the channel names a subdir; conda lets
      // the bracket value win (subdir is 'linux64').
      {"conda-forge[noarch]::tzdata[subdir=linux64]", "subdir"},
      // libmamba rejects `version>3`; conda accepts it (matchspec_match.tsv
      // matches `numpy[version<2]`).
      {"python[version>3]", "<invalid>"},
  };
  return rows;
}

inline bool is_deviating(const std::string& input, const std::string& field) {
  return deviating_rows().contains({input, field});
}

}  // namespace gpuenv::specs::test
