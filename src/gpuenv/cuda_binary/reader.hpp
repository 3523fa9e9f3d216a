// Lists the device code in CUDA binaries without a CUDA toolkit: shared
// libraries, executables, object files, static archives, .fatbin, .cubin
// and .ptx files. Reads headers only; payloads stay on disk unless
// extract_payload asks for one.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/device_code.hpp"

namespace gpuenv::cuda_binary {

struct ReadOptions {
  std::size_t max_entries = 1 << 20;  // per file
  // Only the fatbins the CUDA runtime registers (DeviceCode::registered):
  // what cuobjdump lists. Otherwise data sections are scanned for fatbin
  // containers too.
  bool registered_only = false;
};

using ReadResult = std::expected<BinaryListing, ReadError>;

ReadResult read_device_code(const std::string& path, const ReadOptions& options = {});

// Several files at once on `threads` threads (0: one per core); results in
// the order of `paths`, one failure never stopping the others.
std::vector<ReadResult> read_device_code(const std::vector<std::string>& paths, const ReadOptions& options,
                                         std::size_t threads);

// Whether the first bytes look like something read_device_code reads: a
// cheap filter for walking a directory tree.
bool may_hold_device_code(const std::string& path);

// The entry's payload, decompressed: cubin bytes or PTX text (trailing
// padding removed). Refuses, before allocating, an entry that would
// decompress to more than `max_bytes`, and a payload that decompresses to
// anything but the size its header states.
std::expected<std::string, ReadError> extract_payload(const std::string& path, const DeviceCode& code,
                                                      std::uint64_t max_bytes);

// The bytes of the fatbin container holding the entry, as a .fatbin file
// cuobjdump reads on its own.
std::expected<std::string, ReadError> extract_container(const std::string& path, const DeviceCode& code,
                                                        std::uint64_t max_bytes);

// Writes each distinct container of `listing` into `directory` (made if
// missing) as <file name>.<offset in hex>.fatbin, so that cuobjdump can list
// what gpuenv found outside the registered sections. Returns the files
// written; the error is the first failure's message (those written before
// it stay).
std::expected<std::vector<std::filesystem::path>, std::string> write_containers(const BinaryListing& listing,
                                                                                const std::filesystem::path& directory,
                                                                                std::uint64_t max_bytes);

}  // namespace gpuenv::cuda_binary
