// CEP 43 `when=` conditions: the grammar (and / or / parentheses over match
// specs), its canonical text, evaluation, and the conditions inside MatchSpec.
#include <gtest/gtest.h>

#include <set>

#include "gpuenv/specs/condition.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs {
namespace {

SpecError condition_error(std::string_view text) {
  try {
    (void)Condition::parse(text);
  } catch (const SpecError& error) {
    return error;
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return SpecError("condition", text, "accepted");
}

// Evaluates with the named packages present (any version).
bool holds_with(const Condition& condition, std::set<std::string> present) {
  return condition.holds([&](const MatchSpec& spec) { return present.contains(spec.name().str()); });
}

TEST(Condition, ASingleSpecIsALeaf) {
  const auto condition = Condition::parse("__cuda>=12");
  ASSERT_EQ(condition.kind(), Condition::Kind::spec);
  EXPECT_EQ(condition.spec().name().str(), "__cuda");
  EXPECT_EQ(condition.spec().version_text(), ">=12");
  EXPECT_EQ(condition.str(), "__cuda>=12");
}

TEST(Condition, AndBindsTighterThanOrAsInPython) {
  const auto condition = Condition::parse("a or b and c");
  ASSERT_EQ(condition.kind(), Condition::Kind::any_of);
  ASSERT_EQ(condition.operands().size(), 2u);
  EXPECT_EQ(condition.operands()[1].kind(), Condition::Kind::all_of);
  EXPECT_TRUE(holds_with(condition, {"a"}));
  EXPECT_FALSE(holds_with(condition, {"b"}));
  EXPECT_TRUE(holds_with(condition, {"b", "c"}));
}

TEST(Condition, ParenthesesOverridePrecedence) {
  const auto condition = Condition::parse("(a or b) and c");
  ASSERT_EQ(condition.kind(), Condition::Kind::all_of);
  EXPECT_FALSE(holds_with(condition, {"a"}));
  EXPECT_TRUE(holds_with(condition, {"a", "c"}));
  EXPECT_EQ(condition.str(), "(a or b) and c");
}

// rattler reads `python >=3.10` (with a space) as one leaf; so does gpuenv,
// and the canonical text drops the space as rattler prints it.
TEST(Condition, LeavesMayHaveSpacesAndBrackets) {
  const auto condition = Condition::parse("python >=3.10 and __glibc[version='>=2.17'] or (__win)");
  EXPECT_EQ(condition.str(), "python>=3.10 and __glibc>=2.17 or __win");
  std::vector<std::string> names;
  condition.for_each_spec([&](const MatchSpec& spec) { names.push_back(spec.name().str()); });
  EXPECT_EQ(names, (std::vector<std::string>{"python", "__glibc", "__win"}));
}

TEST(Condition, CanonicalTextParsesBackToAnEqualCondition) {
  for (const char* text : {"a", "a and b", "a or b", "(a or b) and (c or d)", "a and (b and c)",
                           "((a))", "x[version='>=1,<2'] or y 1.0 and z", "a or (b or c) and d"}) {
    const auto condition = Condition::parse(text);
    EXPECT_EQ(Condition::parse(condition.str()), condition) << text << " -> " << condition.str();
    EXPECT_EQ(Condition::parse(condition.str()).str(), condition.str()) << text;
  }
  EXPECT_EQ(Condition::parse("a and (b and c)").str(), "a and b and c");
}

TEST(Condition, ErrorsNameTheProblemAndColumn) {
  EXPECT_EQ(condition_error("").reason(), "the condition is empty");
  EXPECT_EQ(condition_error("a and").reason(), "a match spec is missing at the end of the condition");
  const auto unclosed = condition_error("x and (a or b");
  EXPECT_EQ(unclosed.reason(), "a '(' is not closed");
  EXPECT_EQ(unclosed.column(), 7u);
  EXPECT_EQ(condition_error("a )").reason(), "unexpected ')'");
  EXPECT_EQ(condition_error("and a").reason(), "expected a match spec or '(' but found 'and'");
  EXPECT_NE(condition_error("a and b[when=c]").reason().find("cannot have its own 'when'"),
            std::string::npos);
  const auto leaf = condition_error("a and b >=1..");
  EXPECT_NE(leaf.reason().find("'b >=1..' is not a valid match spec"), std::string::npos);
  EXPECT_EQ(leaf.column(), 7u);
}

TEST(Condition, HostileNestingIsRefusedNotACrash) {
  const std::string deep = std::string(5000, '(') + "a" + std::string(5000, ')');
  EXPECT_NE(condition_error(deep).reason().find("nested too deeply"), std::string::npos);
  EXPECT_NE(condition_error("a and 'b").reason().find("quote"), std::string::npos);
}

TEST(MatchSpecCondition, TheWhenKeyHoldsACanonicalCondition) {
  const auto spec = MatchSpec::parse("numpy>=2[when=\"python >=3.10 and (__unix or __win)\"]");
  EXPECT_EQ(spec.when(), "python>=3.10 and (__unix or __win)");
  EXPECT_EQ(spec.str(), "numpy[version='>=2',when='python>=3.10 and (__unix or __win)']");
  EXPECT_EQ(MatchSpec::parse(spec.str()), spec);
  // CEP 48's example writes the condition unquoted.
  EXPECT_EQ(MatchSpec::parse("package[version=2,build_number=0,when=__unix]").when(), "__unix");
}

TEST(MatchSpecCondition, AConditionErrorIsTheSpecsWithItsColumn) {
  const auto error = [](std::string_view text) {
    try {
      (void)MatchSpec::parse(text);
    } catch (const SpecError& e) {
      return e;
    }
    ADD_FAILURE() << text;
    return SpecError("match spec", text, "accepted");
  };
  const auto grammar = error("foo[when=\"a and\"]");
  EXPECT_EQ(grammar.kind(), "match spec");
  EXPECT_EQ(grammar.reason(), "invalid condition 'a and': a match spec is missing at the end of the condition");
  const auto leaf = error("foo[when=\"a and bar V1\"]");
  EXPECT_EQ(leaf.reason(),
            "the condition 'bar V1' is not a valid match spec: the version 'V1' must start with "
            "a digit or a lower-case letter");
  EXPECT_EQ(leaf.column(), 17u);
  EXPECT_NE(error("foo[when=\"bar[when=baz]\"]").reason().find("own 'when'"), std::string::npos);
}

TEST(MatchSpecCondition, ExtrasAndFlagsNamesFollowTheirCeps) {
  EXPECT_EQ(MatchSpec::parse("foo[extras=a]").extras(), (std::vector<std::string>{"a"}));
  EXPECT_EQ(MatchSpec::parse("foo[extras=[ a.b , c+d_-1 ]]").extras(), (std::vector<std::string>{"a.b", "c+d_-1"}));
  EXPECT_THROW((void)MatchSpec::parse("foo[extras=[A]]"), SpecError);
  EXPECT_THROW((void)MatchSpec::parse("foo[extras=[" + std::string(65, 'a') + "]]"), SpecError);
  EXPECT_EQ(MatchSpec::parse("foo[flags=[cuda, 'blas:*']]").flags(), (std::vector<std::string>{"blas:*", "cuda"}));
  EXPECT_THROW((void)MatchSpec::parse("foo[flags=[a:b:c]]"), SpecError);
  EXPECT_THROW((void)MatchSpec::parse("foo[flags=[GPU]]"), SpecError);
  EXPECT_THROW((void)MatchSpec::parse("foo[flags=[':a']]"), SpecError);
}

}  // namespace
}  // namespace gpuenv::specs
