#include "gpuenv/builder/new_prefix_files.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "gpuenv/package/hashing.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

bool matches_any(const std::vector<std::string>& patterns, const std::string& path) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return ::fnmatch(pattern.c_str(), path.c_str(), 0) == 0; });
}

struct ContentFacts {
  std::string sha256;
  std::uint64_t size = 0;
  bool holds_prefix = false;
  bool has_nul = false;
};

// One streaming pass: digest, size, whether `needle` occurs (across
// block boundaries) and whether any NUL byte does.
std::expected<ContentFacts, BuildError> read_facts(const fs::path& file, const std::string& needle) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(BuildError{BuildErrorKind::packaging, "cannot read " + file.string()});
  ContentFacts facts;
  package::StreamingHash sha256(package::HashAlgorithm::sha256);
  std::string window;  // the previous block's tail, so a match may straddle two blocks
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto count = static_cast<std::size_t>(in.gcount());
    if (count == 0) break;
    const std::string_view piece(block.data(), count);
    sha256.update(piece);
    facts.size += count;
    if (!facts.has_nul && piece.find('\0') != std::string_view::npos) facts.has_nul = true;
    if (!facts.holds_prefix) {
      window.append(piece);
      if (window.find(needle) != std::string::npos) facts.holds_prefix = true;
      if (window.size() >= needle.size()) window.erase(0, window.size() - (needle.size() - 1));
    }
  }
  facts.sha256 = sha256.finish_hex();
  return facts;
}

}  // namespace

std::set<std::string> prefix_listing(const fs::path& prefix) {
  std::set<std::string> listing;
  std::error_code error;
  fs::recursive_directory_iterator walk(prefix, fs::directory_options::none, error);
  for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
    const auto relative = walk->path().lexically_relative(prefix).generic_string();
    if (relative == "conda-meta") {
      walk.disable_recursion_pending();
      continue;
    }
    if (walk->is_symlink() || !walk->is_directory()) listing.insert(relative);
  }
  return listing;
}

bool bytecode_of_an_earlier_file(const std::string& path, const std::set<std::string>& before) {
  if (!path.ends_with(".pyc")) return false;
  const auto slash = path.rfind('/');
  const auto directory = slash == std::string::npos ? std::string() : path.substr(0, slash);
  const auto name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  std::string source;
  if (directory == "__pycache__" || directory.ends_with("/__pycache__")) {
    // .../__pycache__/module.cpython-313[.opt-1].pyc -> .../module.py (a
    // module's name has no dot)
    const auto parent = directory.size() > 11 ? directory.substr(0, directory.size() - 12) : std::string();
    const auto stem = name.substr(0, name.find('.'));
    source = (parent.empty() ? "" : parent + "/") + stem + ".py";
  } else {
    source = path.substr(0, path.size() - 1);  // module.pyc -> module.py
  }
  return before.contains(source);
}

std::expected<std::vector<NewPrefixFile>, BuildError> new_prefix_files(const fs::path& prefix,
                                                                       const std::set<std::string>& before,
                                                                       const recipe::PrefixDetection& detection) {
  std::vector<NewPrefixFile> files;
  const std::string prefix_text = prefix.string();
  for (const auto& path : prefix_listing(prefix)) {
    if (before.contains(path)) continue;
    // Bytecode Python wrote for a module that was there before the script
    // (pip's own, while it installed this package): not this package's,
    // as rattler-build filters it.
    if (bytecode_of_an_earlier_file(path, before)) continue;
    NewPrefixFile file;
    file.source = prefix / path;
    file.entry.path = path;
    struct stat info {};
    if (::lstat(file.source.c_str(), &info) != 0) {
      return std::unexpected(BuildError{BuildErrorKind::packaging, "cannot read " + file.source.string()});
    }
    file.mode = info.st_mode & 07777;
    if (S_ISLNK(info.st_mode)) {
      std::error_code error;
      file.link_target = fs::read_symlink(file.source, error).string();
      file.entry.path_type = package::PathType::softlink;
      // As conda-build and rattler-build record a link: its own size, and
      // the digest of the file it reaches inside the prefix.
      file.entry.size_in_bytes = static_cast<std::uint64_t>(info.st_size);
      const auto reached = fs::weakly_canonical(file.source, error);
      const auto root = fs::weakly_canonical(prefix, error);
      const auto inside = reached.lexically_relative(root);
      if (!error && fs::is_regular_file(reached, error) && !inside.empty() && *inside.begin() != "..") {
        auto facts = read_facts(reached, prefix_text);
        if (facts) file.entry.sha256 = facts->sha256;
      }
      files.push_back(std::move(file));
      continue;
    }
    if (!S_ISREG(info.st_mode)) {
      return std::unexpected(BuildError{BuildErrorKind::packaging,
                                        "the build left " + file.source.string() +
                                            ", which is neither a file, a directory nor a symbolic link: a "
                                            "package cannot hold it"});
    }
    auto facts = read_facts(file.source, prefix_text);
    if (!facts) return std::unexpected(facts.error());
    file.entry.sha256 = facts->sha256;
    file.entry.size_in_bytes = facts->size;
    bool binary = facts->has_nul;
    if (matches_any(detection.force_text, path)) binary = false;
    if (matches_any(detection.force_binary, path)) binary = true;
    const bool ignored = detection.ignore_all || matches_any(detection.ignore, path) ||
                         (binary && detection.ignore_binary_files.value_or(false));
    if (facts->holds_prefix && !ignored) {
      file.entry.prefix_placeholder = prefix_text;
      file.entry.file_mode = binary ? package::FileMode::binary : package::FileMode::text;
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace gpuenv::build
