// BuildNumberSpec, driven by ../shared/testdata/vectors/build_number_spec.tsv.
#include <gtest/gtest.h>

#include <charconv>

#include "gpuenv/specs/build_number_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "support/testdata.hpp"

namespace {

using gpuenv::specs::BuildNumberSpec;
using gpuenv::specs::SpecError;
using gpuenv::testing::read_tsv;
using gpuenv::testing::where;

TEST(BuildNumberSpecTable, Match) {
  const auto table = read_tsv("vectors/build_number_spec.tsv");
  const auto spec_col = table.column("spec");
  const auto number_col = table.column("build_number");
  const auto expected_col = table.column("expected");
  ASSERT_GT(table.rows.size(), 15u);
  for (const auto& row : table.rows) {
    const std::string at = where(table, row);
    const std::string& expected = row[expected_col];
    if (expected == "invalid") {
      EXPECT_THROW((void)BuildNumberSpec::parse(row[spec_col]), SpecError)
          << at << ": '" << row[spec_col] << "' must be rejected";
      continue;
    }
    ASSERT_TRUE(expected == "true" || expected == "false") << at;
    std::uint64_t number = 0;
    const std::string& text = row[number_col];
    ASSERT_EQ(std::from_chars(text.data(), text.data() + text.size(), number).ec, std::errc{}) << at;
    try {
      const auto spec = BuildNumberSpec::parse(row[spec_col]);
      EXPECT_EQ(spec.contains(number), expected == "true")
          << at << ": '" << row[spec_col] << "' contains " << number;
      // The printed form reads back as the same spec.
      EXPECT_EQ(BuildNumberSpec::parse(spec.str()), spec) << at << ": " << spec.str();
    } catch (const SpecError& error) {
      ADD_FAILURE() << at << ": " << error.what();
    }
  }
}

TEST(BuildNumberSpec, PrintsCanonically) {
  EXPECT_EQ(BuildNumberSpec::parse(" >= 3 ").str(), ">=3");
  EXPECT_EQ(BuildNumberSpec::parse("==3").str(), "3");
  EXPECT_EQ(BuildNumberSpec::parse("=3"), BuildNumberSpec::parse("3"));
  EXPECT_EQ(BuildNumberSpec::parse("").str(), "*");
  EXPECT_TRUE(BuildNumberSpec::parse("*").is_explicitly_free());
  EXPECT_EQ(BuildNumberSpec::parse("=3").hash(), BuildNumberSpec::parse("3").hash());
}

TEST(BuildNumberSpec, ErrorsNameTheTextAndColumn) {
  try {
    (void)BuildNumberSpec::parse("<2.4");
    FAIL();
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(),
                 "invalid build number spec '<2.4': unexpected character '.' (build numbers are "
                 "integers) at column 3");
    EXPECT_EQ(error.column(), 3u);
  }
  EXPECT_THROW((void)BuildNumberSpec::parse("99999999999999999999999"), SpecError);
}

}  // namespace
