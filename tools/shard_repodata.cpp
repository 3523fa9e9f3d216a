// Writes CEP 16 sharded repodata (repodata_shards.msgpack.zst and shards/)
// beside each given subdir's repodata.json: the benchmark's sharded copy of
// a generated channel. `gpuenv index` writes shards itself; this is for
// channels that exist only as repodata.json.
//
//   shard_repodata SUBDIR_DIR...
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "gpuenv/repodata/shard_writer.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: shard_repodata SUBDIR_DIR...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path dir = argv[i];
    const auto start = std::chrono::steady_clock::now();
    const auto written = gpuenv::repodata::write_shards_for_repodata(dir / "repodata.json", dir, 16);
    if (!written) {
      fmt::print(stderr, "shard_repodata: {}\n", written.error());
      return 1;
    }
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{}: {} names, {} new shards ({:.1f} s)\n", dir.string(), written->names, written->shards_written,
               seconds);
  }
  return 0;
}
