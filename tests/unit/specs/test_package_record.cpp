#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::specs {
namespace {

// What a repodata loader would do with one "packages.conda" entry.
PackageRecord record_from_repodata(const std::string& filename, const nlohmann::json& entry) {
  PackageRecord record;
  record.fn = filename;
  record.name = entry.at("name").get<std::string>();
  record.set_version(entry.at("version").get<std::string>());
  record.build = entry.at("build").get<std::string>();
  record.build_number = entry.at("build_number").get<std::uint64_t>();
  record.subdir = entry.value("subdir", "");
  record.depends = entry.value("depends", std::vector<std::string>{});
  record.constrains = entry.value("constrains", std::vector<std::string>{});
  record.md5 = entry.value("md5", "");
  record.sha256 = entry.value("sha256", "");
  record.size = entry.value("size", std::uint64_t{0});
  record.license = entry.value("license", "");
  record.license_family = entry.value("license_family", "");
  record.set_track_features(entry.value("track_features", ""));
  record.timestamp = normalize_timestamp(entry.value("timestamp", std::uint64_t{0}));
  if (entry.contains("noarch")) {
    const auto& noarch = entry.at("noarch");
    record.noarch = parse_noarch(noarch.is_boolean() ? (noarch.get<bool>() ? "true" : "")
                                                     : noarch.get<std::string>());
  }
  record.python_site_packages_path = entry.value("python_site_packages_path", "");
  return record;
}

TEST(PackageRecord, BuiltFromRepodataJson) {
  const auto entry = nlohmann::json::parse(R"({
    "build": "py312h8753938_0", "build_number": 0,
    "depends": ["libblas >=3.9.0,<4.0a0", "python >=3.12,<3.13.0a0"],
    "constrains": ["numpy-base <0a0"],
    "license": "BSD-3-Clause", "license_family": "BSD",
    "md5": "a07a7c0c5d6e3b6b5f4a1c1b1d1e1f10",
    "name": "numpy", "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "size": 7484186, "subdir": "linux-64", "timestamp": 1707225380,
    "track_features": "", "version": "1.26.4"
  })");
  const auto record = record_from_repodata("numpy-1.26.4-py312h8753938_0.conda", entry);
  EXPECT_EQ(record.name, "numpy");
  ASSERT_TRUE(record.parsed_version);
  EXPECT_EQ(*record.parsed_version, Version::parse("1.26.4"));
  EXPECT_EQ(record.depends.size(), 2u);
  EXPECT_EQ(record.constrains, std::vector<std::string>{"numpy-base <0a0"});
  EXPECT_EQ(record.size, 7484186u);
  EXPECT_EQ(record.timestamp, 1707225380000u);  // seconds became milliseconds
  EXPECT_TRUE(record.track_features.empty());
  EXPECT_EQ(record.noarch, NoarchType::none);
  EXPECT_EQ(record.dist_str(), "numpy-1.26.4-py312h8753938_0");

  EXPECT_TRUE(MatchSpec::parse("numpy >=1.26,<2 py312*").matches(record));
  EXPECT_TRUE(MatchSpec::parse("numpy[license_family=bsd, subdir=linux-64]").matches(record));
  EXPECT_FALSE(MatchSpec::parse("numpy[subdir=osx-64]").matches(record));

  const auto copy = record;
  EXPECT_EQ(copy, record);
}

TEST(PackageRecord, InvalidVersionMatchesNoVersionConstraint) {
  PackageRecord record;
  record.name = "odd";
  record.set_version("1.0 beta");  // a space: not a conda version
  EXPECT_EQ(record.version, "1.0 beta");
  EXPECT_FALSE(record.parsed_version);
  EXPECT_TRUE(MatchSpec::parse("odd").matches(record));
  EXPECT_FALSE(MatchSpec::parse("odd >=0").matches(record));
}

TEST(PackageRecord, FeatureStrings) {
  EXPECT_EQ(split_features("mkl avx"), (std::vector<std::string>{"avx", "mkl"}));
  EXPECT_EQ(split_features("mkl,openssl"), (std::vector<std::string>{"mkl", "openssl"}));
  EXPECT_EQ(split_features(" mkl, ,mkl  avx "), (std::vector<std::string>{"avx", "mkl"}));
  EXPECT_TRUE(split_features("").empty());
  PackageRecord record;
  record.set_features("blas_mkl");
  EXPECT_EQ(record.features, std::vector<std::string>{"blas_mkl"});
}

TEST(PackageRecord, Noarch) {
  EXPECT_EQ(parse_noarch("python"), NoarchType::python);
  EXPECT_EQ(parse_noarch("generic"), NoarchType::generic);
  EXPECT_EQ(parse_noarch("true"), NoarchType::generic);  // legacy `noarch: true`
  EXPECT_EQ(parse_noarch(""), NoarchType::none);
  EXPECT_EQ(to_string(NoarchType::python), "python");
  EXPECT_EQ(to_string(NoarchType::none), "");
}

TEST(PackageRecord, Timestamps) {
  EXPECT_EQ(normalize_timestamp(1707225380), 1707225380000u);
  EXPECT_EQ(normalize_timestamp(1707225380123), 1707225380123u);
  EXPECT_EQ(normalize_timestamp(0), 0u);
}

}  // namespace
}  // namespace gpuenv::specs
