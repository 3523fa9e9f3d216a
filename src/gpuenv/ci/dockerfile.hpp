// The Dockerfile of a CI image, generated from its image.yaml so that the
// definition is the one place to change: deterministic text (the same
// definition gives the same bytes), with a header saying where it comes from.
// `gpuenv ci images --write` keeps ci-images/*/Dockerfile in step; --check
// (and a test) says which are stale.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"

namespace gpuenv::ci {

std::string render_dockerfile(const ImageDefinition& image);

struct ImageFileState {
  std::string image;             // the image's name
  std::filesystem::path dockerfile;
  bool up_to_date = false;       // before any write
};

// Compares every image's Dockerfile under `images_dir` with what its
// definition generates and, with `write`, rewrites the stale ones.
std::expected<std::vector<ImageFileState>, CiError> sync_dockerfiles(const std::filesystem::path& images_dir,
                                                                     bool write);

// The Dockerfiles of `states` that differ from their image.yaml, in order.
std::vector<std::string> stale_dockerfiles(const std::vector<ImageFileState>& states);

// `gpuenv ci images --json` (docs/json-output.md): each image, its
// Dockerfile, whether it was up to date and whether `write` rewrote it.
std::string dockerfile_states_json(const std::vector<ImageFileState>& states, bool write);

}  // namespace gpuenv::ci
