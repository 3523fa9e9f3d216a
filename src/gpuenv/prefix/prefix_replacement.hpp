// Replacing the build prefix placeholder in installed files (CEP 34's
// prefix_placeholder), the way conda does.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::prefix {

// Linux's limit on the length of a `#!` line (BINPRM_BUF_SIZE - 1).
inline constexpr std::size_t kMaxShebangLength = 127;

// Text files: every occurrence of `placeholder` becomes `new_prefix`, any
// length. A shebang line that ends up longer than the kernel accepts (or
// that names an interpreter path with an escaped space) is rewritten to
// `#!/usr/bin/env <interpreter name> <arguments>`, as conda does.
std::string replace_prefix_in_text(std::string_view content, std::string_view placeholder,
                                   std::string_view new_prefix);

// Binary files: each NUL-terminated string holding `placeholder` gets every
// occurrence replaced and is padded with NULs to its old length, so offsets
// inside the binary do not move. Returns nullopt when `new_prefix` is longer
// than `placeholder` and the placeholder occurs: the file cannot be fixed
// (the package must be rebuilt with a longer placeholder, or the prefix
// path shortened).
std::optional<std::string> replace_prefix_in_binary(std::string_view content,
                                                    std::string_view placeholder,
                                                    std::string_view new_prefix);

// Reads up to `size` bytes of the source at `offset` into `buffer`; 0 at
// its end. Throws on failure.
using ReadAt = std::function<std::size_t(std::uint64_t offset, char* buffer, std::size_t size)>;
// Takes the next piece of the output.
using WriteOut = std::function<void(std::string_view bytes)>;

// The same rewrite as replace_prefix_in_text (binary: _in_binary), streamed:
// the source is read in chunks of `chunk` bytes and the output written as it
// is produced, so memory stays a few chunks whatever the file's size.
// Returns false (binary only) where replace_prefix_in_binary returns
// nullopt; some output may have been written by then.
bool stream_prefix_replacement(const ReadAt& read, const WriteOut& write,
                               std::string_view placeholder, std::string_view new_prefix,
                               bool binary, std::size_t chunk = 1u << 20);

// The shebang rewrite alone (used by replace_prefix_in_text).
std::string shorten_long_shebang(std::string content);

}  // namespace gpuenv::prefix
