// YAML alias bombs for the tests of the bounded loader (issue 9), built the
// same way wherever a reader of YAML is tested.
#pragma once

#include <string>

namespace gpuenv::testing {

// Nine levels of nine aliases, the last under `key`: 9^9 (387 million)
// values once expanded, in a file of about 450 bytes.
inline std::string billion_laughs(const std::string& key) {
  std::string text = "a0: &a0 [lol]\n";
  for (int level = 1; level < 9; ++level) {
    const auto previous = "*a" + std::to_string(level - 1);
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [" + previous;
    for (int i = 1; i < 9; ++i) text += ", " + previous;
    text += "]\n";
  }
  return text + key + ": *a8\n";
}

}  // namespace gpuenv::testing
