// What the user asked for, read back from conda-meta/history: the specs of
// every `# update specs:` / `# install specs:` / `# create specs:` line,
// minus those a later `# remove specs:` line took away, as conda's
// History.get_requested_specs_map() reads them (for `env export
// --from-history`). Reads what conda, mamba and gpuenv write.
// `update` and `remove` solve with these, as conda does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::environment {

// One spec string per package name, in the order each name was first
// asked for; the latest request for a name wins. `installed_names`
// filters out packages no longer in the environment (conda does the same:
// old histories did not always record removals).
std::vector<std::string> requested_specs_from_history(std::string_view history_text,
                                                      const std::vector<std::string>& installed_names);

// Python's literal list of strings, as conda writes it: ['a', "b's"].
// Also the old comma-separated form without brackets. Items that are not
// strings are skipped.
std::vector<std::string> parse_python_string_list(std::string_view text);

}  // namespace gpuenv::environment
