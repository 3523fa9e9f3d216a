// The one error type of the build module: what `gpuenv build` reports when
// a variant cannot be built. The message is complete (names the recipe, the
// source, the patch or the log) and says what to do.
#pragma once

#include <string>

namespace gpuenv::build {

enum class BuildErrorKind {
  source,       // a source could not be fetched, verified, extracted or patched
  environment,  // the build or host environment could not be created
  unsupported,  // the recipe asks for something this builder does not do yet
  script,       // the build script failed
  packaging,    // the package could not be written, or the output directory indexed
  linking,      // an ELF file could not be relocated, or overlinks/overdepends where the recipe makes that an error
  cuda_check,   // the package's device code lacks an architecture the variant asked for
  recipe,       // the recipe or a variant file cannot be read or rendered
  variant_override,  // a --variant KEY=VALUE is malformed (a usage mistake)
  option,       // another command-line value is malformed (--package-format, --source)
  test,         // a test of the built package failed, or could not be set up
};

struct BuildError {
  BuildErrorKind kind = BuildErrorKind::source;
  std::string message;
};

}  // namespace gpuenv::build
