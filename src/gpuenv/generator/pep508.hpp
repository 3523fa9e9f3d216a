// PEP 508 dependency specifiers ("msgpack>=1.0.2; python_version < '3.12'"),
// as PyPI's core metadata (Requires-Dist) and pyproject.toml
// ([build-system] requires) write them, and what they become in a conda
// recipe: a match spec under the conda name, kept, dropped (an extra, a
// Windows-only dependency) or guarded by a selector.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::generate {

struct Pep508Requirement {
  std::string name;                  // as written ("PyYAML")
  std::vector<std::string> extras;   // "dask[array]" -> {"array"}
  std::string specifiers;            // ">=1.0,<2" (PEP 440, spaces removed); empty: any version
  std::string marker;                // the text after ';', trimmed; empty: none
  std::string url;                   // "name @ url": the url (not representable in conda)
};

// Bounded (4 KiB); an error names what is wrong.
std::expected<Pep508Requirement, std::string> parse_pep508(std::string_view text);

// PEP 503 normalized: lowercase, runs of -_. as one '-'.
std::string normalize_python_name(std::string_view name);

// PEP 440 specifiers as a conda version spec: "~=1.4" -> ">=1.4,<2",
// "~=1.4.2" -> ">=1.4.2,<1.5", "===1.0" -> "==1.0", "==1.*" -> "1.*";
// nullopt for one conda cannot read (arbitrary equality of a non-version).
std::optional<std::string> conda_version_spec(std::string_view specifiers);

// The machine a marker is judged for: Linux x86-64 CPython, every Python
// from `python_min` to `python_max` (minor versions).
struct MarkerMachine {
  int python_min = 10;  // 3.10
  int python_max = 14;  // 3.14
};

enum class MarkerVerdict {
  always,   // true on every Python of the range (or no marker)
  some,     // true on some Pythons of the range only
  never,    // false on every one: not a dependency there
  extra,    // names an extra (`extra == "test"`): an optional dependency
};

struct MarkerJudgement {
  MarkerVerdict verdict = MarkerVerdict::always;
  // For `some`: the Python versions (minor numbers) on which it holds.
  std::vector<int> pythons;
};

// Evaluates `marker` per PEP 508 for each Python of the range on Linux
// x86-64 CPython. Unknown variables or malformed markers are errors.
std::expected<MarkerJudgement, std::string> judge_marker(std::string_view marker, const MarkerMachine& machine);

}  // namespace gpuenv::generate
