// A recipe's git source, checked out as rattler-build does: the working tree
// of the asked revision with its .git directory (so `git describe` works in
// the script), history cut at `depth` when given.
//
// The repository is mirrored once per URL under
// <cache>/build-sources/git/<sha256(url)>.git (a bare `git clone --mirror`)
// and fetched again only when the recipe asks for a branch (which moves), or
// for a tag or revision the mirror lacks; the checkout is cloned from the
// mirror, so a second build of the same revision needs no network.
//
// The URL is hostile input: one starting with '-' (git would read an option)
// and transports other than file, https, http, ssh and git (ext:: runs a
// command) are refused; git runs with GIT_ALLOW_PROTOCOL set to those and
// never prompts. Submodules are not fetched (the recipe format has no way
// to ask for them); LFS files only with `lfs: true`, through git-lfs.
#pragma once

#include <expected>
#include <filesystem>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/sources.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

// Checks `source` (Kind::git) out into `checkout_dir`, which must not exist.
std::expected<void, BuildError> checkout_git_source(const recipe::Source& source,
                                                    const std::filesystem::path& checkout_dir,
                                                    const SourceSettings& settings);

}  // namespace gpuenv::build
