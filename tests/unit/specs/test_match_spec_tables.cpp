// The MatchSpec conformance tables (../shared/testdata/vectors/matchspec_*.tsv),
// one TEST per table, every row checked.
//
// Fields without a suffix are conda's answer (gpuenv follows conda); a
// `(libmamba)` / `(rattler)` suffix asks for that project's printed form, and
// the test-only printers for those dialects (support/) answer it. conda_build_form rows taken
// from libmamba's suite assert libmamba's MatchSpec::conda_build_form, so they
// are checked against dialects::libmamba_conda_build_form() (tests/unit/specs/support).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "match_spec_test_support.hpp"
#include "record_from_json.hpp"
#include "support/libmamba_printer.hpp"
#include "support/rattler_printer.hpp"
#include "support/testdata.hpp"

namespace gpuenv::specs {
namespace {

using gpuenv::testing::read_tsv;
using gpuenv::testing::where;
using test::bool_text;

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string optional_text(const std::optional<std::string>& value, const char* none) {
  return value ? *value : none;
}

const Channel* resolved_channel(const MatchSpec& spec) {
  return spec.channel() ? spec.channel()->channel() : nullptr;
}

// The value of one asserted field, printed the way the table writes it.
std::string field_value(const MatchSpec& spec, const std::string& field) {
  if (field == "valid") return "true";
  if (field == "name") return spec.name().str();
  if (field == "version") return std::string(spec.version_text());
  if (field == "build") return spec.build().str();
  if (field == "channel") return spec.channel() ? spec.channel()->str() : "<none>";
  if (field == "subdir") return spec.subdir_str();
  if (field == "build_number") return spec.build_number().str();
  if (field == "fn") return std::string(spec.fn());
  if (field == "url") return std::string(spec.url());
  if (field == "md5") return std::string(spec.md5());
  if (field == "track_features") {
    return spec.track_features() ? join(*spec.track_features(), " ") : "<none>";
  }
  if (field == "optional") return bool_text(spec.optional());
  if (field == "exact_name") return optional_text(spec.exact_name(), "<None>");
  if (field == "exact_version") return optional_text(spec.exact_version(), "<None>");
  if (field == "exact_build") return optional_text(spec.exact_build(), "<None>");
  if (field == "strictness") return std::to_string(spec.strictness());
  if (field == "version_is_free") return bool_text(!spec.has_version());
  if (field == "build_is_free") return bool_text(spec.build().is_any());
  if (field == "build_number_is_free") return bool_text(spec.build_number().is_explicitly_free());
  if (field == "build_is_glob") return bool_text(spec.build().is_glob());
  if (field == "is_simple") return bool_text(spec.is_simple());
  if (field == "is_only_package_name") return bool_text(spec.is_only_package_name());
  if (field == "is_file") return bool_text(spec.is_file());
  if (field == "version_expression_size") {
    return std::to_string(dialects::libmamba_version_expression_size(spec));
  }
  if (field == "version(libmamba)") return dialects::libmamba_version_str(spec);
  if (field == "build_number(libmamba)") return dialects::libmamba_build_number_str(spec);
  if (field == "channel(libmamba)") return dialects::libmamba_channel_str(spec);
  if (field == "channel.location") {
    const auto channel = dialects::libmamba_channel_str(spec);
    return channel.substr(0, channel.ends_with(']') ? channel.rfind('[') : channel.size());
  }
  if (field == "version(rattler)") return dialects::rattler_version_str(spec);
  if (field == "build_number(rattler)") return dialects::rattler_build_number_str(spec);
  if (field == "channel(rattler).name") {
    return resolved_channel(spec) ? resolved_channel(spec)->name() : "<none>";
  }
  if (field == "channel(rattler).base_url") {
    return resolved_channel(spec) ? resolved_channel(spec)->base_url() : "<none>";
  }
  ADD_FAILURE() << "the test does not know the field '" << field << "'";
  return {};
}

bool is_nameless_row(const std::string& source) {
  return source.find("(NamelessMatchSpec)") != std::string::npos;
}

MatchSpec parse_row(const std::string& input, const std::string& source, ParseMode mode) {
  const auto context = test::test_context();
  return is_nameless_row(source) ? MatchSpec::parse_nameless(input, context, mode)
                                 : MatchSpec::parse(input, context, mode);
}

TEST(MatchSpecTables, ParseTableFields) {
  const auto table = read_tsv("vectors/matchspec_parse.tsv");
  const auto input_column = table.column("input");
  const auto field_column = table.column("field");
  const auto expected_column = table.column("expected");
  const auto source_column = table.column("source");
  EXPECT_EQ(table.rows.size(), 510u);
  int checked = 0;
  int skipped = 0;
  for (const auto& row : table.rows) {
    const auto& input = row[input_column];
    const auto& field = row[field_column];
    if (test::is_deviating(input, field)) {
      ++skipped;
      continue;
    }
    ++checked;
    if (field == "extracted_name") {  // a function of the text; `>=1.0` is no spec
      EXPECT_EQ(optional_text(MatchSpec::extract_name(input), "<none>"), row[expected_column])
          << where(table, row) << ": '" << input << "'";
      continue;
    }
    try {
      const auto spec = parse_row(input, row[source_column], ParseMode::conda);
      EXPECT_EQ(field_value(spec, field), test::expand_placeholders(row[expected_column]))
          << where(table, row) << ": field " << field << " of '" << input << "'";
    } catch (const SpecError& error) {
      ADD_FAILURE() << where(table, row) << ": '" << input << "' did not parse: " << error.what();
    }
  }
  EXPECT_EQ(skipped, 2) << "rows listed in docs/spec-deviations.md";
  EXPECT_EQ(checked + skipped, 510);
}

TEST(MatchSpecTables, InvalidSpecsAreRejected) {
  const auto table = read_tsv("vectors/matchspec_invalid.tsv");
  const auto input_column = table.column("input");
  const auto source_column = table.column("source");
  EXPECT_EQ(table.rows.size(), 52u);
  int skipped = 0;
  for (const auto& row : table.rows) {
    const auto& input = row[input_column];
    const auto& source = row[source_column];
    if (test::is_deviating(input, "<invalid>")) {
      ++skipped;
      continue;
    }
    // Rows for rattler's strict mode are checked in gpuenv's strict mode; conda
    // accepts several of them (matchspec_parse.tsv).
    const ParseMode mode =
        source.find("[Strict mode]") != std::string::npos ? ParseMode::strict : ParseMode::conda;
    try {
      const auto spec = parse_row(input, source, mode);
      ADD_FAILURE() << where(table, row) << ": '" << input << "' was accepted as " << spec.str();
    } catch (const SpecError& error) {
      const std::string marker = "message contains '";
      if (const auto pos = source.find(marker); pos != std::string::npos) {
        const auto start = pos + marker.size();
        const auto phrase = source.substr(start, source.find('\'', start) - start);
        EXPECT_TRUE(test::contains_ignoring_case(error.what(), phrase))
            << where(table, row) << ": message '" << error.what() << "' lacks '" << phrase << "'";
      }
    } catch (const std::exception& error) {
      ADD_FAILURE() << where(table, row) << ": '" << input << "' threw a "
                    << "non-SpecError: " << error.what();
    }
  }
  EXPECT_EQ(skipped, 1) << "rows listed in docs/spec-deviations.md";
}

TEST(MatchSpecTables, CanonicalStringForms) {
  const auto table = read_tsv("vectors/matchspec_canonical_str.tsv");
  const auto input_column = table.column("input");
  const auto form_column = table.column("form");
  const auto expected_column = table.column("expected");
  const auto source_column = table.column("source");
  EXPECT_EQ(table.rows.size(), 157u);
  for (const auto& row : table.rows) {
    const auto& input = row[input_column];
    const auto& form = row[form_column];
    const auto& expected = row[expected_column];
    const bool from_libmamba = row[source_column].starts_with("mamba-org/");
    try {
      const auto spec = MatchSpec::parse(input, test::test_context());
      if (form == "str(conda)") {
        EXPECT_EQ(spec.str(), expected) << where(table, row) << ": '" << input << "'";
        // The canonical form reads back as itself (the fuzz target's property).
        EXPECT_EQ(MatchSpec::parse(spec.str(), test::test_context()).str(), spec.str())
            << where(table, row) << ": '" << input << "'";
      } else if (form == "str(libmamba)") {
        EXPECT_EQ(dialects::libmamba_str(spec), expected) << where(table, row) << ": '" << input << "'";
      } else if (form == "conda_build_form") {
        const auto printed =
            from_libmamba ? dialects::libmamba_conda_build_form(spec) : spec.conda_build_form();
        EXPECT_EQ(printed, expected) << where(table, row) << ": '" << input << "'";
      } else if (form == "conda_env_form") {
        EXPECT_EQ(spec.conda_env_form(), expected) << where(table, row) << ": '" << input << "'";
      } else if (form == "equivalent_to") {
        const auto other = MatchSpec::parse(expected, test::test_context());
        EXPECT_EQ(spec, other) << where(table, row) << ": '" << input << "' (" << spec.str()
                               << ") vs '" << expected << "' (" << other.str() << ")";
      } else {
        ADD_FAILURE() << where(table, row) << ": unknown form " << form;
      }
    } catch (const SpecError& error) {
      ADD_FAILURE() << where(table, row) << ": " << error.what();
    }
  }
}

// Every row of a `spec record expected` table: does the spec match the record?
void check_match_rows(const gpuenv::testing::TsvTable& table) {
  const auto spec_column = table.column("spec");
  const auto record_column = table.column("record");
  const auto expected_column = table.column("expected");
  for (const auto& row : table.rows) {
    try {
      const auto spec = MatchSpec::parse(row[spec_column]);
      const auto record = test::record_from_json(nlohmann::json::parse(row[record_column]));
      EXPECT_EQ(bool_text(spec.matches(record)), row[expected_column])
          << where(table, row) << ": '" << row[spec_column] << "' against " << row[record_column];
    } catch (const SpecError& error) {
      ADD_FAILURE() << where(table, row) << ": " << error.what();
    }
  }
}

TEST(MatchSpecTables, MatchesRecords) {
  const auto table = read_tsv("vectors/matchspec_match.tsv");
  EXPECT_EQ(table.rows.size(), 115u);
  check_match_rows(table);
}

// Rows derived from conda itself for gpuenv (tests/unit/specs/data, written by
// tests/differential/derive_rows.py): the MatchSpec classes of issue 10.
std::string derived_table(const char* name) {
  return std::string(GPUENV_SOURCE_DIR) + "/tests/unit/specs/data/" + name;
}

std::string derived_field_value(const MatchSpec& spec, const std::string& field) {
  if (field == "str") return spec.str();
  if (field == "conda_env_form") return spec.conda_env_form();
  if (field == "conda_build_form") {
    try {
      return spec.conda_build_form();
    } catch (const SpecError&) {
      return "<raises>";
    }
  }
  if (field == "version") {
    if (spec.has_version()) return std::string(spec.version_text());
    return spec.version_written_as_star() ? "*" : "<none>";
  }
  if (field == "build") return spec.build().is_any() ? "<none>" : spec.build().str();
  if (field == "channel") return spec.channel() ? spec.channel()->str() : "<none>";
  if (field == "subdir") return spec.subdirs().empty() ? "<none>" : spec.subdir_str();
  if (field == "build_number") return spec.build_number_str();
  return field_value(spec, field);
}

TEST(MatchSpecTables, DerivedFromCondaParse) {
  const auto table = read_tsv(derived_table("matchspec_parse_derived.tsv"));
  const auto input_column = table.column("input");
  const auto field_column = table.column("field");
  const auto expected_column = table.column("expected");
  for (const auto& row : table.rows) {
    const auto& input = row[input_column];
    const auto& field = row[field_column];
    if (field == "<invalid>") {
      try {
        const auto spec = MatchSpec::parse(input);
        ADD_FAILURE() << where(table, row) << ": '" << input << "' was accepted as " << spec.str();
      } catch (const SpecError& error) {
        // The message names the input, as every MatchSpec error does.
        EXPECT_NE(std::string(error.what()).find(input), std::string::npos) << error.what();
      }
      continue;
    }
    try {
      const auto spec = MatchSpec::parse(input);
      EXPECT_EQ(derived_field_value(spec, field), row[expected_column])
          << where(table, row) << ": field " << field << " of '" << input << "'";
    } catch (const SpecError& error) {
      ADD_FAILURE() << where(table, row) << ": '" << input << "' did not parse: " << error.what();
    }
  }
}

TEST(MatchSpecTables, DerivedFromCondaMatch) {
  check_match_rows(read_tsv(derived_table("matchspec_match_derived.tsv")));
}

}  // namespace
}  // namespace gpuenv::specs
