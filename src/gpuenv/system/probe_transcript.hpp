// What the probe child tells its parent, one fact per line as it learns it.
//
// Lines are "key<TAB>field<TAB>field...". The child writes each line the
// moment it knows the fact (and "call<TAB>name" before each driver call), so
// when the driver hangs or crashes the parent still knows how far it got and
// which call never returned.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"

namespace gpuenv::system {

// Child side: formats and writes lines to the pipe, unbuffered.
class ProbeWriter {
 public:
  explicit ProbeWriter(int fd) : fd_(fd) {}
  void line(std::string_view key, std::initializer_list<std::string_view> fields = {});
  void call(std::string_view function) { line("call", {function}); }
  void error(std::string_view function, int code);

 private:
  int fd_;
};

// A device as far as the child got with it.
struct ProbedDevice {
  CudaDevice device;
  bool has_name = false;
  bool has_compute_capability = false;
  bool has_memory = false;
};

// Parent side: everything the child wrote, parsed.
struct ProbeTranscript {
  std::vector<std::string> searched;
  // Candidates that failed to load.
  struct LoadError {
    std::string candidate;
    std::string message;  // the loader's, possibly translated
    bool file_missing = false;
  };
  std::vector<LoadError> load_errors;
  std::optional<std::size_t> loaded_index;
  std::string loaded_path;
  std::vector<std::string> missing_symbols;
  // The last call the child started; the one it was in if it never finished.
  std::string last_call;
  std::vector<DriverCallError> errors;
  std::optional<int> driver_version;
  std::optional<int> device_count;
  std::map<int, ProbedDevice> devices;
  std::string driver_release;  // NVML's nvmlSystemGetDriverVersion
  bool finished = false;       // the child reached its end normally

  // The error a given call returned, if it returned one.
  const DriverCallError* error_of(std::string_view function) const;
};

ProbeTranscript parse_probe_transcript(std::string_view output);

}  // namespace gpuenv::system
