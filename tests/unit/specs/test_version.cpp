// Version: conda's VersionOrder, driven by the conformance tables in
// ../shared/testdata/vectors (version_order, version_parse, version_invalid).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_set>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"
#include "support/testdata.hpp"

namespace gpuenv::specs {
// Readable failure messages instead of byte dumps.
void PrintTo(const Version& version, std::ostream* out) { *out << "Version(" << version.original() << ")"; }
}  // namespace gpuenv::specs

namespace {

using gpuenv::specs::SpecError;
using gpuenv::specs::Version;
using gpuenv::testing::read_tsv;
using gpuenv::testing::where;

// Parses a table cell; a failure is reported against the row, not thrown.
std::optional<Version> parse_cell(const std::string& text, const std::string& location) {
  try {
    return Version::parse(text);
  } catch (const SpecError& error) {
    ADD_FAILURE() << location << ": '" << text << "' did not parse: " << error.what();
    return std::nullopt;
  }
}

TEST(VersionTable, Order) {
  const auto table = read_tsv("vectors/version_order.tsv");
  const auto a_col = table.column("a");
  const auto op_col = table.column("op");
  const auto b_col = table.column("b");
  ASSERT_GT(table.rows.size(), 100u);
  for (const auto& row : table.rows) {
    const std::string at = where(table, row);
    const auto a = parse_cell(row[a_col], at);
    const auto b = parse_cell(row[b_col], at);
    if (!a || !b) continue;
    if (row[op_col] == "<") {
      EXPECT_TRUE(*a < *b) << at << ": expected '" << row[a_col] << "' < '" << row[b_col] << "'";
      EXPECT_TRUE(*b > *a) << at;
      EXPECT_FALSE(*b < *a) << at;
      EXPECT_FALSE(*a == *b) << at;
    } else if (row[op_col] == "==") {
      EXPECT_TRUE(*a == *b) << at << ": expected '" << row[a_col] << "' == '" << row[b_col] << "'";
      EXPECT_EQ(a->hash(), b->hash()) << at << ": equal versions must hash alike";
      EXPECT_FALSE(*a < *b) << at;
      EXPECT_FALSE(*b < *a) << at;
    } else {
      ADD_FAILURE() << at << ": unknown op '" << row[op_col] << "'";
    }
  }
}

// The row's source note may give rattler's local part: "(... local=[[2]])".
std::optional<std::string> local_from_note(const std::string& note) {
  const auto start = note.find("local=");
  if (start == std::string::npos) return std::nullopt;
  const auto end = note.rfind(')');
  if (end == std::string::npos || end < start) return std::nullopt;
  return note.substr(start + 6, end - start - 6);
}

TEST(VersionTable, Parse) {
  const auto table = read_tsv("vectors/version_parse.tsv");
  const auto version_col = table.column("version");
  const auto parsed_col = table.column("parsed");
  const auto str_col = table.column("str");
  const auto source_col = table.column("source");
  ASSERT_GT(table.rows.size(), 40u);
  for (const auto& row : table.rows) {
    const std::string at = where(table, row);
    const auto version = parse_cell(row[version_col], at);
    if (!version) continue;
    EXPECT_EQ(version->main_repr(), row[parsed_col]) << at << ": segments of '" << row[version_col] << "'";
    if (!row[str_col].empty()) {
      EXPECT_EQ(version->str(), row[str_col]) << at << ": str() of '" << row[version_col] << "'";
    }
    if (const auto local = local_from_note(row[source_col])) {
      EXPECT_EQ(version->local_repr(), *local) << at << ": local segments of '" << row[version_col] << "'";
    }
  }
}

TEST(VersionTable, Invalid) {
  const auto table = read_tsv("vectors/version_invalid.tsv");
  const auto version_col = table.column("version");
  ASSERT_GT(table.rows.size(), 20u);
  for (const auto& row : table.rows) {
    const std::string at = where(table, row);
    EXPECT_THROW((void)Version::parse(row[version_col]), SpecError)
        << at << ": '" << row[version_col] << "' must be rejected";
    EXPECT_FALSE(Version::try_parse(row[version_col]).has_value()) << at;
  }
}

TEST(Version, TrailingZerosAreEqualAndHashAlike) {
  const auto a = Version::parse("1.0");
  const auto b = Version::parse("1.0.0");
  const auto c = Version::parse("1");
  const auto d = Version::parse("1.0+0");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, d);
  EXPECT_EQ(std::hash<Version>{}(a), std::hash<Version>{}(b));
  EXPECT_EQ(a.hash(), c.hash());
  EXPECT_EQ(a.hash(), d.hash());
  EXPECT_NE(Version::parse("1.0.1"), Version::parse("1.1"));
  EXPECT_NE(Version::parse("1.0.1").hash(), Version::parse("1.1").hash());
  std::unordered_set<Version> set{a, b, c, d, Version::parse("1.0.0.0")};
  EXPECT_EQ(set.size(), 1u);
  EXPECT_EQ(Version(), Version::parse("0.0"));
}

TEST(Version, StrLowerCasesAndReadsDashesAsUnderscores) {
  EXPECT_EQ(Version::parse("  1.0-RC1 ").str(), "1.0_rc1");
  EXPECT_EQ(Version::parse("  1.0-RC1 ").original(), "1.0-RC1");
  EXPECT_EQ(Version::parse("1.2").original(), "1.2");
}

TEST(Version, BigNumbersCompareByValue) {
  const auto small = Version::parse("1.18446744073709551615");  // 2^64 - 1
  const auto big = Version::parse("1.18446744073709551616");
  const auto bigger = Version::parse("1.100000000000000000000");
  EXPECT_LT(small, big);
  EXPECT_LT(big, bigger);
  EXPECT_EQ(Version::parse("1.00018446744073709551616"), big);
  EXPECT_EQ(Version::parse("1.00018446744073709551616").hash(), big.hash());
  EXPECT_LT(bigger, Version::parse("1.100000000000000000000post"));
  EXPECT_GT(Version::parse("1.1dev"), Version::parse("1.0.18446744073709551616"));
}

TEST(Version, StartsWith) {
  EXPECT_TRUE(Version::parse("1.2.3").starts_with(Version::parse("1.2")));
  EXPECT_TRUE(Version::parse("1.2").starts_with(Version::parse("1.2.0")));
  EXPECT_FALSE(Version::parse("1.20").starts_with(Version::parse("1.2")));
  EXPECT_TRUE(Version::parse("2013ab").starts_with(Version::parse("2013a")));
  EXPECT_TRUE(Version::parse("1.2+4.5").starts_with(Version::parse("1.2+4")));
  EXPECT_FALSE(Version::parse("1.2+5").starts_with(Version::parse("1.2+4")));
  EXPECT_FALSE(Version::parse("1!1.2").starts_with(Version::parse("1.2")));
}

TEST(Version, CompatibleWith) {
  const auto base = Version::parse("1.4.2");
  EXPECT_TRUE(Version::parse("1.4.2").compatible_with(base));
  EXPECT_TRUE(Version::parse("1.4.9").compatible_with(base));
  EXPECT_FALSE(Version::parse("1.5.0").compatible_with(base));
  EXPECT_FALSE(Version::parse("1.4.1").compatible_with(base));
  EXPECT_TRUE(Version::parse("7").compatible_with(Version::parse("1")));
  EXPECT_FALSE(Version::parse("1!7").compatible_with(Version::parse("1")));
}

TEST(Version, ErrorsNameTheTextAndColumn) {
  try {
    (void)Version::parse("1.2$3");
    FAIL() << "expected SpecError";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.input(), "1.2$3");
    EXPECT_EQ(error.column(), 4u);
    EXPECT_STREQ(error.what(), "invalid version '1.2$3': invalid character '$' at column 4");
  }
  try {
    (void)Version::parse("  5.5..mw");
    FAIL() << "expected SpecError";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.column(), 7u) << error.what();
    EXPECT_NE(std::string(error.what()).find("'  5.5..mw'"), std::string::npos) << error.what();
  }
  try {
    (void)Version::parse("1!2!3");
    FAIL() << "expected SpecError";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.column(), 4u) << error.what();
  }
}

// Sorting a shuffled copy of the CEP 33 example list gives it back: the order
// is total and consistent, not just right pairwise.
TEST(Version, SortingIsConsistent) {
  const std::vector<std::string> sorted_texts = {
      "0.4", "0.4.1.rc", "0.4.1+local", "0.4.1+0.local", "0.4.1", "0.4.1+1.local", "0.5a1",
      "0.5b3", "0.5C1", "0.5", "0.9.6", "0.960923", "1.0", "1.1dev1", "1.1a1", "1.1.0dev1",
      "1.1.a1", "1.1.0rc1", "1.1.0.0", "1.1.post1", "1.1post1", "1996.07.12", "1!0.4.1",
      "1!3.1.1.6", "2!0.4.1"};
  std::vector<Version> versions;
  for (const auto& text : sorted_texts) versions.push_back(Version::parse(text));
  auto shuffled = versions;
  std::mt19937 random(42);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  std::sort(shuffled.begin(), shuffled.end());
  for (std::size_t i = 0; i < versions.size(); ++i) {
    EXPECT_EQ(shuffled[i].original(), versions[i].original()) << "position " << i;
  }
}

}  // namespace
