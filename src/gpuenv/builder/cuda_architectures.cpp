#include "gpuenv/builder/cuda_architectures.hpp"

#include <algorithm>
#include <charconv>

namespace gpuenv::build {

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

// "-real" for all but the highest, which keeps SASS and PTX (CMake's plain
// entry): the smallest binary that still runs on GPUs newer than the list.
std::string cudaarchs_for(const std::vector<int>& numbers) {
  std::string text;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (!text.empty()) text += ';';
    text += std::to_string(numbers[i]);
    if (i + 1 < numbers.size()) text += "-real";
  }
  return text;
}

std::pair<int, int> major_minor(std::string_view version) {
  int major = 0;
  int minor = 0;
  const auto dot = version.find('.');
  std::from_chars(version.data(), version.data() + (dot == std::string_view::npos ? version.size() : dot), major);
  if (dot != std::string_view::npos) std::from_chars(version.data() + dot + 1, version.data() + version.size(), minor);
  return {major, minor};
}

}  // namespace

std::expected<CudaArchitectureList, std::string> parse_cuda_archs(std::string_view text) {
  CudaArchitectureList list;
  bool suffixed = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(';', start), text.size());
    auto entry = trimmed(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    std::string_view number_text = entry;
    for (const std::string_view prefix : {"sm_", "compute_"}) {
      if (number_text.starts_with(prefix)) number_text.remove_prefix(prefix.size());
    }
    for (const std::string_view suffix : {"-real", "-virtual"}) {
      if (number_text.ends_with(suffix)) {
        number_text.remove_suffix(suffix.size());
        suffixed = true;
      }
    }
    int number = 0;
    const auto [end_of_number, error] =
        std::from_chars(number_text.data(), number_text.data() + number_text.size(), number);
    if (error != std::errc() || end_of_number != number_text.data() + number_text.size() || number < 10 ||
        number > 999) {
      return std::unexpected("'" + entry + "' is no GPU architecture (write compute capabilities as in CUDAARCHS: "
                                           "\"75;80;90\")");
    }
    list.numbers.push_back(number);
  }
  if (list.numbers.empty()) return std::unexpected(std::string("the list names no GPU architecture"));
  std::sort(list.numbers.begin(), list.numbers.end());
  list.numbers.erase(std::unique(list.numbers.begin(), list.numbers.end()), list.numbers.end());
  // Suffixes written by the recipe say exactly what to build: keep them.
  list.cudaarchs = suffixed ? trimmed(text) : cudaarchs_for(list.numbers);
  return list;
}

CudaArchitectureList default_cuda_archs(std::string_view cuda_version) {
  const auto [major, minor] = major_minor(cuda_version);
  std::vector<int> numbers;
  if (major >= 13) {
    // CUDA 13 dropped Maxwell, Pascal and Volta; sm_110 is Thor.
    numbers = {75, 80, 86, 89, 90, 100, 110, 120};
  } else if (major == 12 && minor >= 8) {
    numbers = {50, 60, 70, 75, 80, 86, 89, 90, 100, 120};
  } else if (major == 12 || (major == 11 && minor >= 8)) {
    numbers = {50, 60, 70, 75, 80, 86, 89, 90};
  } else {
    numbers = {50, 60, 70, 75, 80};
  }
  return {numbers, cudaarchs_for(numbers)};
}

}  // namespace gpuenv::build
