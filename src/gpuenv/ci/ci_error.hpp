// Why `gpuenv ci` refused an input: an image definition, a recipe, a variant
// file or the dependency graph between recipes. `message` is complete: it
// names the file (or the recipes of a cycle) and says what to do.
#pragma once

#include <string>

namespace gpuenv::ci {

struct CiError {
  enum class Kind {
    unreadable,     // a file or directory cannot be read
    too_large,      // beyond the bounds (file size, entries, list lengths)
    invalid,        // a value of the wrong type or form, an unknown key
    render,         // a recipe or variant file failed to render
    inconsistent,   // variant files and images disagree (docker_image, CUDA version)
    cycle,          // recipes that need each other's packages
    unavailable,    // a runner cannot work here (no container engine, not root, no debootstrap)
    run,            // a runner's command failed (making a rootfs, building an image, the build)
  };
  Kind kind = Kind::invalid;
  std::string input;  // the file or recipe concerned
  std::string message;
};

}  // namespace gpuenv::ci
