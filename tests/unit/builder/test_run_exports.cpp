// run_exports.json read from a package and applied as rattler-build 0.73
// applied it to the same packages (see run_exports.hpp): which lists go
// where, their order, ignore_run_exports, noarch, and hostile files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/builder/run_exports.hpp"

namespace {

using gpuenv::build::apply_run_exports;
using gpuenv::build::ExportedSpecs;
using gpuenv::build::PackageRunExports;
using gpuenv::build::parse_run_exports_json;
using Specs = std::vector<std::string>;

TEST(RunExportsJson, ReadsEveryListAndTheOldPlainList) {
  const auto parsed = parse_run_exports_json(
      R"({"weak": ["a >=1,<2"], "strong": ["s"], "noarch": ["n"], "weak_constrains": ["wc <5"],
          "strong_constrains": ["sc <9"], "future_key": {"x": 1}})",
      "origin");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->weak, Specs{"a >=1,<2"});
  EXPECT_EQ(parsed->strong, Specs{"s"});
  EXPECT_EQ(parsed->noarch, Specs{"n"});
  EXPECT_EQ(parsed->weak_constrains, Specs{"wc <5"});
  EXPECT_EQ(parsed->strong_constrains, Specs{"sc <9"});
  const auto old = parse_run_exports_json(R"(["zlib >=1.2"])", "origin");
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->weak, Specs{"zlib >=1.2"});
  EXPECT_TRUE(parse_run_exports_json("{}", "origin")->empty());
}

TEST(RunExportsJson, MalformedFilesAreErrorsNamingTheFile) {
  for (const char* text : {"{", R"({"weak": "a"})", R"({"weak": [1]})", R"({"weak": [""]})", "42",
                           R"({"weak": [[[[[["deep"]]]]]]})"}) {
    const auto parsed = parse_run_exports_json(text, "info/run_exports.json of libfoo 1.0 h0_0");
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().message.find("info/run_exports.json of libfoo 1.0 h0_0"), std::string::npos)
        << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("ignore_run_exports"), std::string::npos) << parsed.error().message;
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(parse_run_exports_json(deep, "origin"));
}

PackageRunExports package(std::string name, ExportedSpecs exports) { return {std::move(name), std::move(exports)}; }

// The packages of rattler-build's check: apkg (depends on cpkg) and cpkg.
const PackageRunExports apkg = package("apkg", {.noarch = {"anoarch"},
                                                .strong = {"astrong >=2"},
                                                .strong_constrains = {"bconstr <9"},
                                                .weak = {"apkg >=1.0,<2"},
                                                .weak_constrains = {"aconstr <5"}});
const PackageRunExports cpkg = package("cpkg", [] {
  ExportedSpecs exports;
  exports.weak = {"cpkg >=3"};
  return exports;
}());

TEST(ApplyRunExports, BuildStrongGoesToHostAndRunHostStrongAndWeakToRun) {
  // rattler-build: build [apkg], host [apkg, cpkg] (linked cpkg first).
  const auto applied = apply_run_exports({apkg}, {cpkg, apkg}, {}, false);
  EXPECT_EQ(applied.host, Specs{"astrong >=2"});
  EXPECT_EQ(applied.run, (Specs{"astrong >=2", "cpkg >=3", "apkg >=1.0,<2"}));
  EXPECT_EQ(applied.run_constraints, (Specs{"bconstr <9", "aconstr <5"}));
}

TEST(ApplyRunExports, BuildWeakExportsAreNotApplied) {
  const auto applied = apply_run_exports({cpkg}, {}, {}, false);
  EXPECT_TRUE(applied.host.empty());
  EXPECT_TRUE(applied.run.empty());
}

TEST(ApplyRunExports, IgnoreByNameAndFromPackage) {
  gpuenv::recipe::IgnoreRunExports ignore;
  ignore.by_name = {"apkg"};
  ignore.from_package = {"cpkg"};
  const auto applied = apply_run_exports({}, {cpkg, apkg}, ignore, false);
  EXPECT_EQ(applied.run, Specs{"astrong >=2"});
  EXPECT_EQ(applied.run_constraints, (Specs{"bconstr <9", "aconstr <5"}));
  ignore = {};
  ignore.from_package = {"apkg"};
  EXPECT_EQ(apply_run_exports({apkg}, {apkg}, ignore, false).run, Specs{});
}

TEST(ApplyRunExports, NoarchTakesOnlyTheHostsNoarchExports) {
  const auto applied = apply_run_exports({apkg}, {cpkg, apkg}, {}, true);
  EXPECT_TRUE(applied.host.empty());
  EXPECT_EQ(applied.run, Specs{"anoarch"});
  EXPECT_TRUE(applied.run_constraints.empty());
}

}  // namespace
