// `gpuenv inspect FILE...`: which GPUs each CUDA binary carries code for,
// read from its fatbins without a CUDA toolkit (text or --json).
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "command.hpp"
#include "gpuenv/cuda_binary/listing_json.hpp"
#include "gpuenv/cuda_binary/listing_summary.hpp"
#include "gpuenv/cuda_binary/reader.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::cli {
namespace {

namespace cb = cuda_binary;

struct InspectArguments {
  std::vector<std::string> files;
  bool json = false;
  bool entries = false;
  bool registered_only = false;
  bool print_ptx = false;
  std::string extract_directory;
  std::size_t threads = 0;
};

// A PTX module or container larger than this is not printed or written.
constexpr std::uint64_t max_extracted_bytes = 512ull << 20;

std::string join_targets(const std::vector<cb::GpuArchitecture>& archs) {
  std::string out;
  for (const auto& arch : archs) out += (out.empty() ? "" : " ") + arch.sm_name();
  return out;
}

std::string join_ptx(const std::vector<cb::PtxTarget>& targets) {
  std::string out;
  for (const auto& target : targets)
    out += fmt::format("{}{} (PTX ISA {})", out.empty() ? "" : ", ", target.arch.compute_name(), to_string(target.isa));
  return out;
}

void print_listing(const cb::BinaryListing& listing, bool with_entries) {
  const auto summary = cb::summarize(listing.entries);
  fmt::print("{} ({})\n", listing.path, to_string(listing.format));
  if (listing.entries.empty()) {
    fmt::print("  no device code\n");
    return;
  }
  std::string compression;
  for (const auto& [kind, count] : summary.entries_by_compression)
    compression += fmt::format("{}{} {}", compression.empty() ? "" : ", ", count, to_string(kind));
  fmt::print("  {} entries in {} fatbin containers ({}); {} stored, {} uncompressed\n", listing.entries.size(),
             listing.container_count, compression, util::describe_byte_count(summary.stored_bytes),
             util::describe_byte_count(summary.uncompressed_bytes));
  if (!summary.sass.empty()) fmt::print("  SASS: {}\n", join_targets(summary.sass));
  if (!summary.ptx.empty()) fmt::print("  PTX:  {}\n", join_ptx(summary.ptx));
  if (!summary.lto_ir.empty()) fmt::print("  LTO-IR: {}\n", join_targets(summary.lto_ir));
  if (summary.empty_modules)
    fmt::print("  {} of the cubins define nothing (no kernel, device function or variable): never loaded, so "
               "they do not limit the GPUs the file runs on\n",
               summary.empty_modules);
  if (summary.unregistered_entries)
    fmt::print("  {} of the entries are in fatbins the CUDA runtime does not register (the library loads them "
               "itself; cuobjdump does not list them)\n",
               summary.unregistered_entries);
  if (!with_entries) return;
  for (const auto& entry : listing.entries) {
    fmt::print("    {:<6} {:<13} {:<8} {:<5} {:>10} {:>10}  {} @{:#x}\n", to_string(entry.kind), cb::target_name(entry),
               entry.ptx_isa ? "ISA " + to_string(*entry.ptx_isa) : "", to_string(entry.compression),
               entry.stored_size, entry.uncompressed_size, entry.location, entry.payload_offset);
  }
}

// The containers go to files; only a failure is said.
bool extract_containers(const cb::BinaryListing& listing, const std::string& directory) {
  const auto written = cb::write_containers(listing, directory, max_extracted_bytes);
  if (!written) fmt::print(stderr, "gpuenv: error: {}\n", written.error());
  return written.has_value();
}

bool print_ptx(const cb::BinaryListing& listing) {
  for (const auto& entry : listing.entries) {
    if (entry.kind != cb::CodeKind::ptx) continue;
    auto text = cb::extract_payload(listing.path, entry, max_extracted_bytes);
    if (!text) {
      fmt::print(stderr, "gpuenv: error: {}\n", text.error().message);
      return false;
    }
    fmt::print("// {} {} @{:#x}\n{}\n", listing.path, entry.arch.compute_name(), entry.payload_offset, *text);
  }
  return true;
}

int run_inspect(const InspectArguments& arguments) {
  cb::ReadOptions options;
  options.registered_only = arguments.registered_only;
  const auto results = cb::read_device_code(arguments.files, options, arguments.threads);
  bool all_read = true;
  for (const auto& result : results) {
    if (!result) {
      all_read = false;
      if (!arguments.json) fmt::print(stderr, "gpuenv: error: {}\n", result.error().message);
      continue;
    }
    if (arguments.print_ptx) {
      all_read = print_ptx(*result) && all_read;
      continue;
    }
    if (!arguments.extract_directory.empty()) all_read = extract_containers(*result, arguments.extract_directory) && all_read;
    if (!arguments.json) print_listing(*result, arguments.entries);
  }
  if (arguments.json && !arguments.print_ptx)
    fmt::print("{}\n", cb::inspect_report_json(results, arguments.entries, all_read));
  return all_read ? 0 : 1;
}

}  // namespace

void add_inspect_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<InspectArguments>();
  auto* sub = app.add_subcommand("inspect", "List the GPU code (SASS and PTX per architecture) in CUDA binaries");
  sub->add_option("files", arguments->files,
                  "Shared libraries, executables, object files, static archives, .fatbin, .cubin or .ptx files")
      ->required();
  sub->add_flag("--json", arguments->json, "Print JSON");
  sub->add_flag("--entries", arguments->entries, "List every fatbin entry, not only the distinct targets");
  sub->add_flag("--registered-only", arguments->registered_only,
                "Only the fatbins the CUDA runtime registers (what cuobjdump lists), not those a library keeps in data sections");
  sub->add_flag("--ptx", arguments->print_ptx, "Print the PTX text (decompressed)");
  sub->add_option("--extract-containers", arguments->extract_directory,
                  "Write each fatbin container found to this directory as a .fatbin file");
  sub->add_option("--threads", arguments->threads, "Files read at once (default: one per core)");
  sub->callback([&run, arguments] { run = [arguments] { return run_inspect(*arguments); }; });
}

}  // namespace gpuenv::cli
