// Hand-written MatchSpec tests: error messages, modes, channels, matching
// details and robustness. The conformance tables are in test_match_spec_tables.cpp.
#include <gtest/gtest.h>

#include <random>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "support/libmamba_printer.hpp"
#include "support/rattler_printer.hpp"

namespace gpuenv::specs {
namespace {

SpecError parse_error(std::string_view text, ParseMode mode = ParseMode::conda) {
  try {
    (void)MatchSpec::parse(text, mode);
  } catch (const SpecError& error) {
    return error;
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return SpecError("match spec", text, "accepted");
}

PackageRecord record(std::string name, std::string version, std::string build = "0") {
  PackageRecord out;
  out.name = std::move(name);
  out.set_version(std::move(version));
  out.build = std::move(build);
  return out;
}

TEST(MatchSpecErrors, NameTheTextAndTheColumn) {
  const auto error = parse_error("numpy[version=1.7, version=2]");
  EXPECT_EQ(error.kind(), "match spec");
  EXPECT_EQ(error.input(), "numpy[version=1.7, version=2]");
  EXPECT_EQ(error.column(), 20u);
  EXPECT_EQ(std::string(error.what()),
            "invalid match spec 'numpy[version=1.7, version=2]': a key can only be specified once "
            "at column 20");
}

TEST(MatchSpecErrors, ColumnsPointAtTheProblem) {
  EXPECT_EQ(parse_error("pack@ge >=1").column(), 1u);
  EXPECT_EQ(parse_error("conda-forge::pkg..name").column(), 14u);
  EXPECT_EQ(parse_error("pkg[build=0][version=2]").column(), 13u);
  EXPECT_EQ(parse_error("pkg[colour=red]").column(), 5u);
  EXPECT_EQ(parse_error("pkg[build=]").column(), 5u);
  EXPECT_EQ(parse_error("pkg[build=1] trailing").column(), 14u);
  EXPECT_EQ(parse_error("numpy 1.7 py27@x").column(), 11u);
  EXPECT_EQ(parse_error("foo V0.9.24").column(), 5u);
  // Version errors point into the version text.
  const auto version = parse_error("numpy >=1.7,,<2");
  EXPECT_GE(version.column(), 7u);
  EXPECT_NE(version.reason().find("invalid version"), std::string::npos);
  const auto bracket_version = parse_error("numpy[version='>=1.7,,<2']");
  EXPECT_GE(bracket_version.column(), 16u);
}

TEST(MatchSpecErrors, Reasons) {
  EXPECT_NE(parse_error("pack@ge").reason().find("invalid characters"), std::string::npos);
  EXPECT_NE(parse_error("-pkg").reason().find("invalid package name"), std::string::npos);
  EXPECT_NE(parse_error("pkg[colour=red]").reason().find("cannot match on field 'colour'"),
            std::string::npos);
  EXPECT_NE(parse_error("numpy >=1.8 <2").reason().find("not a build string"), std::string::npos);
  EXPECT_NE(parse_error("=1.0").reason().find("no package name"), std::string::npos);
  EXPECT_NE(parse_error("conda@forge::pkg").reason().find("invalid channel"), std::string::npos);
  EXPECT_NE(parse_error("pkg[when='x[when=\"y[build=]\"]']").reason().find("condition"),
            std::string::npos);
}

// A failure in a part read by another parser (a version spec, a build number,
// a channel, a pattern, a condition) is reported as the match spec's, with
// that parser's reason and the column of the part.
TEST(MatchSpecErrors, APartsFailureIsTheSpecsWithThePartsReason) {
  const auto version = parse_error("foo >=1,,2");
  EXPECT_EQ(version.input(), "foo >=1,,2");
  EXPECT_EQ(version.reason(), "invalid version '>=1,,2': empty clause");
  EXPECT_EQ(version.column(), 9u);
  EXPECT_EQ(parse_error("foo >=1,,2", ParseMode::strict).reason(),
            "empty clause (rattler's strict mode)");
  const auto build_number = parse_error("foo[build_number='>=a']");
  EXPECT_EQ(build_number.reason(),
            "invalid build number '>=a': unexpected character 'a' (build numbers are integers)");
  EXPECT_EQ(build_number.column(), 19u);
  const auto channel = parse_error("https://x.org/a//b::foo");
  EXPECT_EQ(channel.reason(),
            "invalid channel 'https://x.org/a//b': the URL's path has an empty part ('//')");
  EXPECT_EQ(channel.column(), 1u);
  const auto pattern = parse_error("foo[license='^(a$']");
  EXPECT_NE(pattern.reason().find("not a valid regular expression"), std::string::npos);
  EXPECT_NE(pattern.reason().find("in '^(a$'"), std::string::npos);
  EXPECT_EQ(pattern.column(), 14u);
}

// CEP 43: a condition's match specs carry no `when` of their own.
TEST(MatchSpecErrors, AConditionsFailureNamesTheCondition) {
  const auto error = parse_error("foo[when='bar 1..']");
  EXPECT_EQ(error.kind(), "match spec");
  EXPECT_EQ(error.input(), "foo[when='bar 1..']");
  EXPECT_EQ(error.reason(),
            "the condition 'bar 1..' is not a valid match spec: invalid version '1..': invalid version '1..': "
            "empty version component");
  EXPECT_EQ(error.column(), 11u);  // the condition's value
  EXPECT_NE(parse_error("foo[when='bar[when=\"baz\"]']").reason().find("cannot have its own 'when'"),
            std::string::npos);
  EXPECT_EQ(parse_error("foo[when=\"bar V1\"]").reason(),
            "the condition 'bar V1' is not a valid match spec: the version 'V1' must start with "
            "a digit or a lower-case letter");
}

TEST(MatchSpecModes, StrictRejectsWhatRattlerStrictRejects) {
  for (const char* text : {"foo=1.0=py27_0", "numpy>=2.*.*", "python=*", "python 3.9"}) {
    EXPECT_NO_THROW((void)MatchSpec::parse(text)) << text;
    EXPECT_THROW((void)MatchSpec::parse(text, ParseMode::strict), SpecError) << text;
  }
  for (const char* text : {"python=3.9", "python 3.8.* *_cpython", "foo==1.0 py27_0",
                           "conda-forge::foo[version=1.0.*]", "rust ~=1.2.3"}) {
    EXPECT_NO_THROW((void)MatchSpec::parse(text, ParseMode::strict)) << text;
  }
  // Strict mode checks; the meaning stays conda's.
  EXPECT_EQ(MatchSpec::parse("python=3.9", ParseMode::strict).str(), "python=3.9");
}

TEST(MatchSpecModes, Nameless) {
  const auto spec = MatchSpec::parse_nameless(">=1.2,<2 py*");
  EXPECT_TRUE(spec.name().is_any());
  EXPECT_EQ(spec.version_text(), ">=1.2,<2");
  EXPECT_EQ(spec.build().str(), "py*");
  EXPECT_TRUE(spec.matches(record("anything", "1.5", "py310_0")));
  EXPECT_EQ(dialects::rattler_version_str(MatchSpec::parse_nameless("3.9")), "==3.9");
}

TEST(MatchSpecChannels, ResolveWithTheContext) {
  ChannelContext context;
  context.channel_alias = "https://mirror.example.com";
  const auto spec = MatchSpec::parse("conda-forge/linux-64::numpy", context);
  ASSERT_NE(spec.channel(), nullptr);
  EXPECT_EQ(spec.channel()->str(), "conda-forge");
  EXPECT_EQ(spec.channel()->channel()->base_url(), "https://mirror.example.com/conda-forge");
  EXPECT_EQ(spec.subdirs(), std::vector<std::string>{"linux-64"});
  EXPECT_EQ(spec.str(), "conda-forge/linux-64::numpy");
}

TEST(MatchSpecChannels, MatchRecordsByWhereTheyComeFrom) {
  auto numpy = record("numpy", "1.26.4");
  numpy.channel = "https://conda.anaconda.org/conda-forge/linux-64";
  numpy.subdir = "linux-64";
  EXPECT_TRUE(MatchSpec::parse("conda-forge::numpy").matches(numpy));
  EXPECT_TRUE(MatchSpec::parse("conda-forge/linux-64::numpy").matches(numpy));
  EXPECT_FALSE(MatchSpec::parse("conda-forge/osx-64::numpy").matches(numpy));
  EXPECT_FALSE(MatchSpec::parse("bioconda::numpy").matches(numpy));
  EXPECT_TRUE(MatchSpec::parse("numpy[channel='conda-*']").matches(numpy));
  EXPECT_TRUE(MatchSpec::parse("*/linux-64::numpy").matches(numpy));
  EXPECT_TRUE(MatchSpec::parse("https://conda.anaconda.org/conda-forge::numpy").matches(numpy));

  auto pandas = record("pandas", "2.2.0");
  pandas.channel = "pkgs/main";
  EXPECT_TRUE(MatchSpec::parse("defaults::pandas").matches(pandas));
  EXPECT_TRUE(MatchSpec::parse("pkgs/main::pandas").matches(pandas));
  // conda reads pkgs/r as its canonical name, defaults, which holds pkgs/main.
  EXPECT_TRUE(MatchSpec::parse("pkgs/r::pandas").matches(pandas));
  EXPECT_FALSE(MatchSpec::parse("conda-forge::pandas").matches(pandas));
}

// A record's channel comes from a file (a conda-meta record, repodata): one
// that is not a channel URL matches no channel; matching never throws.
TEST(MatchSpecChannels, ARecordChannelThatIsNotAChannelMatchesNone) {
  auto damaged = record("numpy", "1.26.4");
  damaged.channel = "https://x.org/a//b";
  EXPECT_FALSE(MatchSpec::parse("conda-forge::numpy").matches(damaged));
  EXPECT_FALSE(MatchSpec::parse("https://x.org/a::numpy").matches(damaged));
  EXPECT_TRUE(MatchSpec::parse("numpy").matches(damaged));
}

TEST(MatchSpecPackages, UrlsAndPaths) {
  ChannelContext context;
  context.current_directory = "/work";
  const auto spec = MatchSpec::parse("./out/linux-64/foo-1.0-py27_0.conda", context);
  EXPECT_EQ(spec.url(), "file:///work/out/linux-64/foo-1.0-py27_0.conda");
  EXPECT_EQ(spec.fn(), "foo-1.0-py27_0.conda");
  EXPECT_EQ(spec.channel()->str(), "file:///work/out");
  EXPECT_EQ(spec.str(), "file:///work/out/linux-64::foo==1.0=py27_0");

  // Without a subdir conda keeps only url and fn; gpuenv still knows the name.
  const auto bare = MatchSpec::parse("https://example.com/pkg-2-bld.conda");
  EXPECT_EQ(bare.str(), "*[url=https://example.com/pkg-2-bld.conda]");
  EXPECT_EQ(bare.name().str(), "pkg");
  PackageRecord pkg = record("pkg", "2", "bld");
  pkg.url = "https://example.com/pkg-2-bld.conda";
  pkg.fn = "pkg-2-bld.conda";
  EXPECT_TRUE(bare.matches(pkg));
  pkg.url = "https://elsewhere.example.com/pkg-2-bld.conda";
  EXPECT_FALSE(bare.matches(pkg));

  EXPECT_THROW((void)MatchSpec::parse("https://example.com/notadist.conda"), SpecError);
}

TEST(MatchSpecFields, BracketsOverridePositionalValues) {
  const auto spec = MatchSpec::parse("numpy=1.8=py27_0[version='>=1.9', build=py3*]");
  EXPECT_EQ(spec.version_text(), ">=1.9");
  EXPECT_EQ(spec.build().str(), "py3*");
  EXPECT_EQ(spec.str(), "numpy[version='>=1.9',build=py3*]");
}

TEST(MatchSpecFields, ExtrasFlagsAndConditions) {
  const auto spec = MatchSpec::parse("pkg[extras=[b, 'a'], flags=[gpu, blas:*], when=\"__linux\"]");
  EXPECT_EQ(spec.extras(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(spec.flags(), (std::vector<std::string>{"blas:*", "gpu"}));
  EXPECT_EQ(spec.when(), "__linux");
  EXPECT_EQ(spec.str(), "pkg[extras=['a', 'b'],flags=['blas:*', 'gpu'],when=__linux]");
  auto pkg = record("pkg", "1");
  pkg.flags = {"blas:mkl", "gpu"};
  EXPECT_TRUE(spec.matches(pkg));
  pkg.flags = {"blas:mkl"};
  EXPECT_FALSE(spec.matches(pkg));
}

TEST(MatchSpecFields, CommentsFeaturesAndNamespaces) {
  EXPECT_EQ(MatchSpec::parse("numpy >=1.2  # pinned for abi").str(), "numpy[version='>=1.2']");
  EXPECT_EQ(MatchSpec::parse("pkg[fn='a#b.conda']").fn(), "a#b.conda");
  const auto feature = MatchSpec::parse("mkl@");
  ASSERT_NE(feature.track_features(), nullptr);
  EXPECT_EQ(*feature.track_features(), std::vector<std::string>{"mkl"});
  const auto ns = MatchSpec::parse("conda-forge:pypi:requests");
  EXPECT_EQ(ns.name_space(), "pypi");
  EXPECT_EQ(ns.str(), "conda-forge::requests");  // CEP 29: the namespace is not printed
  EXPECT_EQ(dialects::libmamba_str(ns), "conda-forge:pypi:requests");
}

TEST(MatchSpecFields, ExtractName) {
  EXPECT_EQ(MatchSpec::extract_name("  NumPy>=1.2 # c"), "numpy");
  EXPECT_EQ(MatchSpec::extract_name("conda-forge::python=3.12"), "python");
  EXPECT_EQ(MatchSpec::extract_name("https://h/c/linux-64/libgcc-ng-11.2.0-h1d223b6_13.conda"),
            "libgcc-ng");
  EXPECT_EQ(MatchSpec::extract_name(">=1.0"), std::nullopt);
  EXPECT_EQ(MatchSpec::extract_name(""), std::nullopt);
}

TEST(MatchSpecFields, EqualityAndCopies) {
  EXPECT_EQ(MatchSpec::parse("numpy 1.7*"), MatchSpec::parse("numpy=1.7"));
  EXPECT_EQ(MatchSpec::parse("numpy==1.7"), MatchSpec::parse("numpy[version='==1.7']"));
  EXPECT_NE(MatchSpec::parse("numpy 1.7"), MatchSpec::parse("numpy=1.7"));
  EXPECT_NE(MatchSpec::parse("numpy[md5=abc]"), MatchSpec::parse("numpy[md5=abd]"));
  const auto spec = MatchSpec::parse("conda-forge::numpy >=1.2 py*[md5=abc]");
  const MatchSpec copy = spec;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy, spec);
  EXPECT_EQ(copy.str(), spec.str());
  EXPECT_EQ(MatchSpec(), MatchSpec::parse("*"));
}

TEST(MatchSpecRobustness, HostileInputThrowsSpecErrorOnly) {
  const std::string deep_condition = [] {
    std::string text = "pkg";
    for (int i = 0; i < 12; ++i) text = "p[when=\"" + text + "\"]";
    return text;
  }();
  for (const std::string& text :
       {std::string(5000, '['), std::string(5000, ']'), std::string(5000, '('),
        "pkg" + std::string(5000, ' ') + "1.0", std::string(3000, ':') + "pkg",
        "pkg[" + std::string(2000, '\'') + "]", deep_condition, std::string("pkg\0x", 5),
        "pkg >=" + std::string(4000, '9'), "pkg[build=^" + std::string(300, '(') + "$]"}) {
    try {
      (void)MatchSpec::parse(text);
    } catch (const SpecError&) {
    }
  }
}

// Parses `text` if it is a spec; then its canonical form must read back as
// itself and no printer may throw.
void check_printers_of(const std::string& text, int& parsed) {
  std::optional<MatchSpec> spec;
  try {
    spec = MatchSpec::parse(text);
  } catch (const SpecError&) {
    return;
  }
  ++parsed;
  const auto printed = spec->str();
  try {
    EXPECT_EQ(MatchSpec::parse(printed).str(), printed) << "from '" << text << "'";
  } catch (const SpecError& error) {
    ADD_FAILURE() << "'" << printed << "' from '" << text
                  << "' does not read back: " << error.what();
  }
  EXPECT_NO_THROW((void)dialects::libmamba_str(*spec)) << text;
  EXPECT_NO_THROW((void)dialects::libmamba_conda_build_form(*spec)) << text;
  // conda's conda_build_form needs an exact name; it raises otherwise.
  if (spec->name().is_exact()) {
    EXPECT_NO_THROW((void)spec->conda_build_form()) << text;
  } else {
    EXPECT_THROW((void)spec->conda_build_form(), SpecError) << text;
  }
  EXPECT_NO_THROW((void)spec->conda_env_form()) << text;
  EXPECT_NO_THROW((void)dialects::rattler_version_str(*spec)) << text;
}

// Found by fuzz_match_spec: a '*' in a package URL made its channel a glob
// once str() was read back, so the spec changed meaning in a round trip.
TEST(MatchSpecRobustness, PackageUrlWithAStarIsRejected) {
  const auto error =
      parse_error("https://repo*anaconda.com/pkgs/main/linux-64/_license-1.1-py27_1.tar.bz2");
  EXPECT_NE(error.reason().find("cannot contain '*'"), std::string::npos) << error.what();
  EXPECT_EQ(error.column(), 13u) << error.what();
  int parsed = 0;
  check_printers_of("https://repo.anaconda.com/pkgs/main/linux-64/_license-1.1-py27_1.tar.bz2",
                    parsed);
  EXPECT_EQ(parsed, 1);
}

// Found by fuzz_match_spec: `foo-1.0-.tar.bz2` has an empty build, which
// printed as `foo==1.0=` and read back without it.
TEST(MatchSpecRobustness, PackageFileWithAnEmptyPartIsRejected) {
  for (const char* text : {"/tmp/linux-64/foo-1.0-.tar.bz2", "/tmp/linux-64/foo--0.conda",
                           "https://host/ch/linux-64/foo-1.0-.conda"}) {
    const auto error = parse_error(text);
    EXPECT_NE(error.reason().find("is not name-version-build"), std::string::npos)
        << error.what();
  }
  const auto bad_name =
      parse_error("https://repo.anaconda.com/pkgs/main/linux-64/_licen:e-1.1-py27_1.tar.bz2");
  EXPECT_NE(bad_name.reason().find("valid package name"), std::string::npos) << bad_name.what();
  const auto bad_build = parse_error(
      "https://conda.anaconda.org/conda-forge/linux-64/py-rattler-0.6.1-py39h81:_0.conda");
  EXPECT_NE(bad_build.reason().find("invalid characters"), std::string::npos) << bad_build.what();
  const auto error = parse_error(std::string("/tmp/a\0b/linux-64/foo-1.0-0.conda", 33));
  EXPECT_NE(error.reason().find("control characters"), std::string::npos) << error.what();
}

// Found by fuzz_match_spec: a subdir pattern printed after the channel read
// back as part of the channel's path.
TEST(MatchSpecRobustness, SubdirPatternStaysInBrackets) {
  int parsed = 0;
  check_printers_of("numpy[channel=https://repo.gf/seer/osx-65, subdir=l*inux-64]", parsed);
  EXPECT_EQ(parsed, 1);
  EXPECT_EQ(MatchSpec::parse("numpy[channel=conda-forge, subdir=linux-64]").str(),
            "conda-forge/linux-64::numpy");
}

// Found by fuzz_match_spec: a quote inside a list item ended it early when
// the printed list was read back.
TEST(MatchSpecRobustness, ListItemsCannotContainQuotes) {
  const auto error = parse_error("python[extras=[aa'b,c'd]]");
  EXPECT_NE(error.reason().find("cannot contain quotes"), std::string::npos) << error.what();
  EXPECT_EQ(MatchSpec::parse("python[extras=['a', \"b\"]]").str(),
            MatchSpec::parse("python[extras=[a,b]]").str());
}

// Found by fuzz_match_spec: `/t/2n/t/k/` lost its token `2n` and printed as
// `file:///t/k`, whose `/t/k` then read back as a token too.
TEST(MatchSpecRobustness, ChannelWithTwoTokenPartsIsRejected) {
  const auto error = parse_error("/t/2n/t/k/::nlibblas");
  EXPECT_NE(error.reason().find("more than one /t/<token>"), std::string::npos) << error.what();
  int parsed = 0;
  check_printers_of("https://conda.example.org/t/abc/conda-forge::numpy", parsed);
  EXPECT_EQ(parsed, 1);
}

// Found by fuzz_match_spec: a quoted bracket value holding '#' was printed
// without quotes, so reading it back cut the spec at the '#' as a comment.
TEST(MatchSpecRobustness, BracketValueWithAHashStaysQuoted) {
  int parsed = 0;
  check_printers_of("pkg[subdir=':linux#64']", parsed);
  check_printers_of("pkg[license='a\tb']", parsed);
  EXPECT_EQ(parsed, 2);
  EXPECT_EQ(MatchSpec::parse("pkg[subdir='linux#64']").str(), "pkg[subdir='linux#64']");
}

// Found by the differential test (issue 10): conda reads a bracket version
// `==1.0,<2` as `1.0,<2`, so printing a positional `==1.0,<2` with a build in
// brackets as written read back as other text (conda's own str() does that).
TEST(MatchSpecRobustness, ExactFirstClauseBeforeABuildReadsBack) {
  int parsed = 0;
  check_printers_of("bzip2 ==1.0.6,<2.0a0 3", parsed);
  check_printers_of("x ==1.2.*,<2 3", parsed);
  check_printers_of("x ==1.0|>2 py*", parsed);
  EXPECT_EQ(parsed, 3);
  EXPECT_EQ(MatchSpec::parse("bzip2 ==1.0.6,<2.0a0 3").str(), "bzip2[version='1.0.6,<2.0a0',build=3]");
  EXPECT_EQ(MatchSpec::parse("x ==1.2.*,<2 3"), MatchSpec::parse("x[version='1.2,<2',build=3]"));
}

// Found by fuzz_match_spec after issue 10's changes: a package URL under the
// channel alias with another scheme printed its URL, which read back as the
// alias channel's name; an exact glob first clause before a build lost its `==`.
TEST(MatchSpecRobustness, Issue10FuzzFindingsReadBack) {
  int parsed = 0;
  check_printers_of("htups://conda.anaconda.org/conda-forge/linux-64/ncurses-6.4-h5_2.conda#7d)a", parsed);
  check_printers_of("ensor==1Lption *,*1d .LL", parsed);
  EXPECT_EQ(parsed, 2);
}

// Found by fuzz_match_spec: a URL whose path held a second `://` named a
// channel (`conda-forh.ttAs://host`) that printed as a URL with another scheme.
TEST(MatchSpecRobustness, UrlWithTwoSchemesIsRejected) {
  const auto error = parse_error(
      "https://conda.anaconda.org/conda-forh.ttAs://conda.anaconda.orgge/linux-64/"
      "py-rattler-0.6.1-py39h8169da8_0.conda");
  EXPECT_NE(error.reason().find("'://' twice"), std::string::npos) << error.what();
  EXPECT_THROW(MatchSpec::parse("https://example.org/a://b::numpy"), SpecError);
}

// Found by fuzz_match_spec: brackets in a channel URL's path read back as
// libmamba's `channel[subdir]`; control characters do not print back.
TEST(MatchSpecRobustness, ChannelUrlWithBracketsOrControlCharactersIsRejected) {
  auto error = parse_error("https://repo.example.com/pkgs/m]]e[n][noarch]::ty");
  EXPECT_NE(error.reason().find("percent-encode"), std::string::npos) << error.what();
  error = parse_error(std::string("https://\x16repo.example.com/pkgs::ty"));
  EXPECT_NE(error.reason().find("control character"), std::string::npos) << error.what();
  error = parse_error("https://ex[ample.com/pkgs::ty");
  EXPECT_NE(error.reason().find("IPv6"), std::string::npos) << error.what();
  int parsed = 0;
  check_printers_of("http://[::1]:8000/channel::numpy", parsed);
  check_printers_of("http://[::1]/channel/linux-64::numpy", parsed);
  EXPECT_EQ(parsed, 2);
}

// Found by fuzz_match_spec: `https://conda.anaconda.org//x/...` named the
// channel `/x`, which printed as a local path.
TEST(MatchSpecRobustness, ChannelUrlWithAnEmptyPathPartIsRejected) {
  const auto error = parse_error(
      "https://conda.anaconda.org//conda.anaconda.org/lorg/linux-32/ncurses-6.4-h595ed_2.conda");
  EXPECT_NE(error.reason().find("empty part"), std::string::npos) << error.what();
  EXPECT_THROW(MatchSpec::parse("https://example.org/a//b::numpy"), SpecError);
  EXPECT_EQ(MatchSpec::parse("https://example.org/a/b/::numpy").str(), "https://example.org/a/b::numpy");
}

TEST(MatchSpecRobustness, ControlCharactersAreRejectedAnywhere) {
  for (const std::string& text : {std::string("numpy\x01"), std::string("numpy[license='a\x7f" "b']"),
                                 std::string("conda-forge::num\x1bpy 1.2")}) {
    const auto error = parse_error(text);
    EXPECT_NE(error.reason().find("control characters"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(MatchSpec::parse("numpy\t>=1.2"));  // a tab is white space
}

TEST(MatchSpecRobustness, RandomTextParsesOrThrowsAndPrintsStably) {
  // A cheap, deterministic cousin of tests/fuzz/fuzz_match_spec.cpp: random
  // characters, then random pieces of real specs.
  const std::string alphabet = "ab1.*=<>!~,| []()'\":/_-#@^$";
  const std::vector<std::string> pieces = {"numpy",
                                           "conda-forge",
                                           "::",
                                           "/linux-64",
                                           "[",
                                           "]",
                                           "version=",
                                           "build=",
                                           "'",
                                           ">=1.2",
                                           ",",
                                           "<2",
                                           "|",
                                           "1.7*",
                                           "=",
                                           "==",
                                           "py*",
                                           " ",
                                           "channel=",
                                           "subdir=",
                                           "md5=abc",
                                           "(optional)",
                                           "#x",
                                           "https://x.org/c",
                                           "/tmp/a-1-0.conda",
                                           "~=1.2",
                                           "!=1.3.*",
                                           "*",
                                           "^py.*$",
                                           "extras=[a,b]",
                                           "when=",
                                           "\"",
                                           "@",
                                           "track_features=mkl",
                                           "fn=",
                                           "url=",
                                           "a",
                                           "1",
                                           ".",
                                           "_",
                                           "-",
                                           "build_number=",
                                           ">3",
                                           "pypi:",
                                           ":",
                                           "C:\\x",
                                           "./y",
                                           "~/z",
                                           ".tar.bz2",
                                           "-1.0-0",
                                           " if "};
  std::mt19937 random(29);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (auto n = random() % 25; n > 0; --n) text += alphabet[random() % alphabet.size()];
    check_printers_of(text, parsed);
    text.clear();
    for (auto n = random() % 8; n > 0; --n) text += pieces[random() % pieces.size()];
    check_printers_of(text, parsed);
  }
  EXPECT_GT(parsed, 5000);
}

}  // namespace
}  // namespace gpuenv::specs
