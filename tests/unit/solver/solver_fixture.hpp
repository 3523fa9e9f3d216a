// Shared helpers of the solver tests: databases from the real channels in
// ../shared/testdata, small hand-written channels, and solutions reduced to
// comparable strings.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/solver/package_database.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "support/testdata.hpp"

namespace gpuenv::testing {

inline solver::ChannelSubdir channel_subdir(const std::string& channel_url, const std::string& subdir,
                                            int rank = 0, const std::string& name = "") {
  solver::ChannelSubdir source;
  source.channel_url = channel_url;
  source.channel_name = name.empty() ? channel_url : name;
  source.subdir = subdir;
  source.subdir_url = channel_url + "/" + subdir + "/";
  source.channel_rank = rank;
  return source;
}

// Loads a repodata file of ../shared/testdata as one subdir of a channel.
inline void add_testdata(solver::PackageDatabase& database, const std::string& relative,
                         const std::string& channel_url, const std::string& subdir, int rank = 0) {
  const auto loaded = database.add_repodata(testdata_dir() / relative, channel_subdir(channel_url, subdir, rank));
  ASSERT_TRUE(loaded) << loaded.error().message;
}

inline specs::PackageRecord package(const std::string& name, const std::string& version,
                                    const std::string& build = "0", std::uint64_t build_number = 0,
                                    std::vector<std::string> depends = {},
                                    std::vector<std::string> constrains = {}) {
  specs::PackageRecord record;
  record.name = name;
  record.set_version(version);
  record.build = build;
  record.build_number = build_number;
  record.depends = std::move(depends);
  record.constrains = std::move(constrains);
  record.fn = record.dist_str() + ".conda";
  record.subdir = "linux-64";
  return record;
}

inline std::vector<specs::MatchSpec> specs_of(const std::vector<std::string>& texts) {
  std::vector<specs::MatchSpec> result;
  for (const auto& text : texts) result.push_back(specs::MatchSpec::parse(text));
  return result;
}

inline solver::SolveRequest install(const std::vector<std::string>& texts) {
  solver::SolveRequest request;
  request.install = specs_of(texts);
  return request;
}

// "name version build" for each record, sorted, for EXPECT_EQ.
inline std::vector<std::string> dists(const std::vector<specs::PackageRecord>& records) {
  std::vector<std::string> result;
  for (const auto& record : records) result.push_back(record.name + " " + record.version + " " + record.build);
  std::sort(result.begin(), result.end());
  return result;
}

inline std::string joined_lines(const solver::Unsolvable& unsolvable) {
  std::string text;
  for (const auto& line : unsolvable.lines()) text += line + "\n";
  return text;
}

}  // namespace gpuenv::testing
