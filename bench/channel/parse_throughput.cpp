// Repodata parsing throughput over a channel's subdirs (the bench channel
// by default): the streaming parser gpuenv uses (records handed to a sink
// that only counts them), the whole-document parser it falls back to, and
// building the per-name index (parse + encode + write). Best of N runs, one
// thread. Built and run by run_bench.sh; by hand:
//
//   g++ -std=c++23 -O2 -Isrc bench/channel/parse_throughput.cpp \
//       BUILD/src/gpuenv/repodata/libgpuenv_repodata.a BUILD/src/gpuenv/specs/libgpuenv_specs.a \
//       BUILD/src/gpuenv/util/libgpuenv_util.a -lsimdjson -lfmt -o parse_throughput
//   ./parse_throughput build/bench/channel/linux-64/repodata.json build/bench/channel/noarch/repodata.json
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include <unistd.h>

#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "gpuenv/repodata/repodata_stream.hpp"

namespace {

using namespace gpuenv::repodata;

struct CountingSink final : RecordSink, RecordStreamSink {
  std::size_t records = 0;
  std::size_t dependencies = 0;
  void on_header(const RepodataHeader&) override {}
  void on_record(const RawRecord& record) override {
    ++records;
    dependencies += record.depends.size();
  }
};

double cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The best wall time of `runs`, and the best CPU time of this thread (what a
// shared, loaded machine inflates least).
struct Timing {
  double wall = 1e30;
  double cpu = 1e30;
};

Timing best_of(int runs, const std::function<bool()>& run) {
  Timing best;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    if (!run()) return {-1, -1};
    best.cpu = std::min(best.cpu, cpu_seconds() - cpu_start);
    best.wall = std::min(best.wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void report(const char* what, double bytes, const Timing& timing, const char* note = "") {
  std::printf("  %-17s %.3f s  %.2f GB/s wall   %.3f s  %.2f GB/s CPU%s\n", what, timing.wall, bytes / timing.wall / 1e9,
              timing.cpu, bytes / timing.cpu / 1e9, note);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = std::getenv("RUNS") ? std::atoi(std::getenv("RUNS")) : 5;
  const auto scratch = std::filesystem::temp_directory_path() / ("gpuenv-parse-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  double total_bytes = 0;
  Timing total_stream{0, 0}, total_whole{0, 0}, total_index{0, 0};
  const auto add = [](Timing& total, const Timing& one) {
    total.wall += one.wall;
    total.cpu += one.cpu;
  };
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path json = argv[i];
    const auto bytes = static_cast<double>(std::filesystem::file_size(json));
    total_bytes += bytes;
    std::size_t records = 0;
    const Timing stream = best_of(runs, [&] {
      CountingSink sink;
      const auto parsed = stream_repodata_file(json, sink);
      records = sink.records;
      return parsed.has_value();
    });
    const Timing whole = best_of(runs, [&] {
      CountingSink sink;
      return parse_repodata_file(json, sink).has_value();
    });
    const Timing index = best_of(runs, [&] {
      IndexBuildOptions options;
      options.stamp = "bench";
      return build_repodata_index(json, scratch / "bench.index", options).has_value();
    });
    if (stream.wall < 0 || whole.wall < 0 || index.wall < 0) {
      std::fprintf(stderr, "%s: cannot parse\n", json.c_str());
      return 1;
    }
    add(total_stream, stream);
    add(total_whole, whole);
    add(total_index, index);
    std::printf("%s: %.1f MB, %zu records\n", json.c_str(), bytes / 1e6, records);
    report("streaming parse", bytes, stream);
    report("whole-document", bytes, whole);
    report("index build", bytes, index, " (parse + encode + write)");
  }
  std::printf("all %.1f MB, best of %d, one thread:\n", total_bytes / 1e6, runs);
  report("streaming parse", total_bytes, total_stream);
  report("whole-document", total_bytes, total_whole);
  report("index build", total_bytes, total_index);
  std::filesystem::remove_all(scratch);
  return 0;
}
