#include "gpuenv/prefix/prefix_replacement.hpp"

namespace gpuenv::prefix {

std::string replace_prefix_in_text(std::string_view content, std::string_view placeholder,
                                   std::string_view new_prefix) {
  std::string result;
  result.reserve(content.size() + 64);
  std::size_t start = 0;
  while (true) {
    const auto found = content.find(placeholder, start);
    if (found == std::string_view::npos || placeholder.empty()) break;
    result.append(content.substr(start, found - start));
    result.append(new_prefix);
    start = found + placeholder.size();
  }
  result.append(content.substr(start));
  return shorten_long_shebang(std::move(result));
}

std::optional<std::string> replace_prefix_in_binary(std::string_view content,
                                                    std::string_view placeholder,
                                                    std::string_view new_prefix) {
  std::string result;
  result.reserve(content.size());
  std::size_t start = 0;
  while (!placeholder.empty()) {
    const auto found = content.find(placeholder, start);
    if (found == std::string_view::npos) break;
    // conda's pattern needs the string's terminating NUL; an occurrence
    // running into the end of the file is left alone, as conda leaves it.
    const auto end = content.find('\0', found);
    if (end == std::string_view::npos) break;
    if (new_prefix.size() > placeholder.size()) return std::nullopt;
    result.append(content.substr(start, found - start));
    const auto cstring = content.substr(found, end - found);
    std::size_t occurrences = 0;
    std::size_t piece = 0;
    while (true) {
      const auto next = cstring.find(placeholder, piece);
      if (next == std::string_view::npos) break;
      result.append(cstring.substr(piece, next - piece));
      result.append(new_prefix);
      piece = next + placeholder.size();
      ++occurrences;
    }
    result.append(cstring.substr(piece));
    result.append(occurrences * (placeholder.size() - new_prefix.size()), '\0');
    start = end;  // the terminating NUL is copied with the rest
  }
  result.append(content.substr(start));
  return result;
}

std::string shorten_long_shebang(std::string content) {
  if (!content.starts_with("#!")) return content;
  const auto line_end = std::min(content.find_first_of("\r\n"), content.size());
  const std::string_view line = std::string_view(content).substr(0, line_end);
  // The interpreter runs to the first unescaped space (conda's SHEBANG_REGEX).
  std::size_t executable_end = 2;
  bool escaped_space = false;
  while (executable_end < line.size()) {
    if (line[executable_end] == '\\' && executable_end + 1 < line.size() &&
        line[executable_end + 1] == ' ') {
      escaped_space = true;
      executable_end += 2;
      continue;
    }
    if (line[executable_end] == ' ') break;
    ++executable_end;
  }
  if (line.size() <= kMaxShebangLength && !escaped_space) return content;
  const std::string_view executable = line.substr(2, executable_end - 2);
  const auto slash = executable.find_last_of('/');
  if (slash == std::string_view::npos) return content;  // not a path: nothing to shorten
  std::string shebang = "#!/usr/bin/env ";
  shebang.append(executable.substr(slash + 1));
  shebang.append(line.substr(executable_end));
  return shebang + content.substr(line_end);
}

}  // namespace gpuenv::prefix
