// Internal to the package module: walking the members of a package file's
// tarballs with libarchive, for both formats, streaming (nothing is
// decompressed to a temporary file).
#pragma once

#include <filesystem>
#include <functional>

struct archive;
struct archive_entry;

namespace gpuenv::package {

enum class MemberSelection {
  info_only,  // a .conda's info-*.tar.zst alone; a .tar.bz2 still reads all
  everything,
};

// Gets each member; reads its data with archive_read_data*(reader, ...).
// Returns false to stop the walk early.
using MemberVisitor = std::function<bool(archive* reader, archive_entry* entry)>;

// Walks the members of `archive_path` (.conda or .tar.bz2, told by its name).
// Throws PackageError naming the file for archives libarchive cannot read
// (corrupt, truncated, not a package) and for a .conda without its
// info-*.tar.zst (or, with `everything`, pkg-*.tar.zst) member. A .conda's
// info member comes first, whatever the zip's order.
void for_each_member(const std::filesystem::path& archive_path, MemberSelection selection,
                     const MemberVisitor& visit);

// libarchive's message for `reader`'s last error, or a generic one.
std::string archive_error_text(archive* reader);

}  // namespace gpuenv::package
