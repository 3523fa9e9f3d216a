// Streaming zstd decoding and the body checks that keep bad downloads out.
#include <gtest/gtest.h>

#include "fetch_fixture.hpp"
#include "gpuenv/repodata/body_writer.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"

namespace gpuenv::testing {
namespace {

using repodata::JsonObjectShape;
using repodata::ZstdDecompressor;

std::string decode_in_pieces(const std::string& compressed, std::size_t piece, ZstdDecompressor& decoder) {
  std::string out;
  for (std::size_t at = 0; at < compressed.size(); at += piece) {
    auto fed = decoder.feed(std::string_view(compressed).substr(at, piece), [&](std::string_view bytes) {
      out.append(bytes);
      return true;
    });
    EXPECT_TRUE(fed) << fed.error();
  }
  return out;
}

TEST(RepodataZstd, DecodesAnyChunkingExactly) {
  const std::string json = sample_repodata("linux-64", 3000);
  const std::string compressed = repodata::zstd_compress(json, 3);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, compressed.size()}) {
    ZstdDecompressor decoder;
    EXPECT_EQ(decode_in_pieces(compressed, piece, decoder), json) << "piece " << piece;
    EXPECT_TRUE(decoder.at_frame_end());
  }
}

TEST(RepodataZstd, ConcatenatedFramesAreOneStream) {
  const std::string compressed = repodata::zstd_compress("{\"a\": ", 3) + repodata::zstd_compress("1}", 3);
  ZstdDecompressor decoder;
  EXPECT_EQ(decode_in_pieces(compressed, 5, decoder), "{\"a\": 1}");
  EXPECT_TRUE(decoder.at_frame_end());
}

TEST(RepodataZstd, TruncatedStreamIsNotAtAFrameEnd) {
  const std::string compressed = repodata::zstd_compress(sample_repodata("noarch", 500), 3);
  ZstdDecompressor decoder;
  decode_in_pieces(compressed.substr(0, compressed.size() - 10), 1000, decoder);
  EXPECT_FALSE(decoder.at_frame_end());
  ZstdDecompressor nothing;
  EXPECT_FALSE(nothing.at_frame_end());
}

TEST(RepodataZstd, CorruptInputIsAnError) {
  ZstdDecompressor decoder;
  const auto fed = decoder.feed("definitely not zstd", [](std::string_view) { return true; });
  ASSERT_FALSE(fed);
  EXPECT_NE(fed.error().find("corrupt zstd data"), std::string::npos);
}

TEST(RepodataZstd, ARefusingSinkStopsDecoding) {
  const std::string compressed = repodata::zstd_compress(sample_repodata("noarch", 500), 3);
  ZstdDecompressor decoder;
  const auto fed = decoder.feed(compressed, [](std::string_view) { return false; });
  ASSERT_FALSE(fed);
  EXPECT_TRUE(fed.error().empty());
}

std::optional<std::string> shape_problem(std::initializer_list<std::string_view> pieces) {
  JsonObjectShape shape;
  for (auto piece : pieces) shape.feed(piece);
  return shape.problem();
}

TEST(RepodataBodyCheck, JsonObjectShape) {
  EXPECT_EQ(shape_problem({"{}"}), std::nullopt);
  EXPECT_EQ(shape_problem({" \n{\"a\"", ": 1}", "\r\n\t "}), std::nullopt);
  EXPECT_EQ(shape_problem({}), "the body is empty");
  EXPECT_EQ(shape_problem({"  \n"}), "the body is empty");
  EXPECT_NE(shape_problem({"<html>{}</html>"})->find("does not start like a JSON object: \"<html>"),
            std::string::npos);
  EXPECT_NE(shape_problem({"[1, 2]"})->find("does not start like a JSON object"), std::string::npos);
  // Only the ends are looked at; a document broken inside is the parser's
  // to reject.
  EXPECT_EQ(shape_problem({"{\"a\": {", "}"}), std::nullopt);
  EXPECT_NE(shape_problem({"{\"a\": 1"})->find("cut off"), std::string::npos);
  // A piece of only spaces keeps the end seen before it.
  EXPECT_NE(shape_problem({"{\"a\": 1", "\n  ", " "})->find("cut off"), std::string::npos);
  EXPECT_EQ(shape_problem({"  ", "{\"a\": 1}", "\n  ", " "}), std::nullopt);
}

// A server may send endless JSON, or a small zstd frame that decodes to
// gigabytes: the decoded body is bounded (conda-forge's largest subdir is
// ~0.3 GB), and what passes the bound never reaches the cache or a parser
// reading the file as it grows.
TEST(RepodataBodyCheck, TheDecodedBodyIsBounded) {
  ScratchDir scratch;
  for (const bool compressed : {false, true}) {
    auto file = repodata::PartialFile::create_beside(scratch.path() / "bounded.json");
    ASSERT_TRUE(file);
    repodata::RepodataBodyWriter writer(std::move(*file), compressed, /*max_json_bytes=*/1000);
    const std::string json = "{\"packages\": {}" + std::string(5000, ' ') + "}";
    const std::string body = compressed ? repodata::zstd_compress(json, 3) : json;
    if (compressed) EXPECT_LT(body.size(), 1000u);  // small on the wire, big decoded
    EXPECT_FALSE(writer.write(body));
    ASSERT_TRUE(writer.problem());
    EXPECT_FALSE(writer.problem()->retryable);
    EXPECT_NE(writer.problem()->message.find("more than 1000 bytes"), std::string::npos)
        << writer.problem()->message;
    EXPECT_LE(writer.json_bytes(), 1000u);
  }
}

TEST(RepodataBodyCheck, ContentLengthMismatchIsRetryable) {
  ScratchDir scratch;
  auto file = repodata::PartialFile::create_beside(scratch.path() / "x.json");
  ASSERT_TRUE(file);
  repodata::RepodataBodyWriter writer(std::move(*file), false);
  ASSERT_TRUE(writer.write("{}"));
  const auto checked = writer.finish(2, 10);
  ASSERT_FALSE(checked);
  EXPECT_TRUE(checked.error().retryable);
  EXPECT_NE(checked.error().message.find("announced 10"), std::string::npos);
}

}  // namespace
}  // namespace gpuenv::testing
