#include "build_observer.hpp"

#include <fmt/core.h>

#include <cstdio>

namespace gpuenv::cli {

void CliBuildObserver::step(std::string_view message) {
  if (!quiet_) fmt::print(stderr, "{}\n", message);
}

void CliBuildObserver::script_output(std::string_view piece) {
  if (!quiet_) std::fwrite(piece.data(), 1, piece.size(), stderr);
}

}  // namespace gpuenv::cli
