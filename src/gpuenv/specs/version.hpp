// conda's version literals and their order (CEP 33, conda.models.version.VersionOrder).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::specs {

// A parsed conda version, ordered exactly like conda's VersionOrder:
//   [epoch!]main[+local], main and local split into segments at '.' and '_'
//   ('-' is read as '_' when the text has no '_'), each segment split into runs
//   of digits and non-digits; a segment starting with a letter gets a leading 0;
//   a trailing '_' stays part of the last segment (openssl: 1.0.1_ < 1.0.1a).
// Atoms compare as: strings < integers < 'post', strings byte-wise after lower
// casing with 'dev' sorting as "DEV" ('*' < 'dev' < '_' < 'a'...); missing atoms
// and segments count as 0, so 1.0 == 1.0.0 (and they hash alike). Local versions
// only break ties between equal main versions.
//
// Parsing happens once; comparisons walk a flat array of 16-byte atoms and never
// allocate, because the solver compares versions millions of times.
class Version {
 public:
  // The version "0".
  Version();

  // Throws SpecError naming the text and the column of the problem.
  static Version parse(std::string_view text);
  // Same rules; nullopt instead of an exception (for bulk loading of repodata).
  static std::optional<Version> try_parse(std::string_view text) noexcept;

  // conda's str(VersionOrder): the text trimmed, lower-cased, '-' -> '_'.
  const std::string& str() const noexcept { return normalized_; }
  // The text as written (trimmed of surrounding whitespace).
  std::string_view original() const noexcept {
    return original_.empty() ? std::string_view(normalized_) : std::string_view(original_);
  }

  bool has_local() const noexcept { return local_begin_ < atoms_.size(); }
  // Number of segments of the main version, the epoch included ("1.2" -> 3).
  std::size_t main_segment_count() const noexcept;

  // conda's VersionOrder.startswith, used for `1.2.*`, `1.2*` and `=1.2`: every
  // segment of `prefix` but the last equals ours, and its last segment is a
  // prefix of ours, where a final string atom may be a string prefix
  // (2013a* matches 2013ab) and a final number must be equal (1.2* does not
  // match 1.20). A prefix with a local part compares our local part.
  bool starts_with(const Version& prefix) const noexcept;

  // `~=older`: *this >= older, and *this starts with older's main segments but
  // the last (~=1.4.2 is >=1.4.2,1.4.*). With a single segment (~=1) only the
  // epoch must match.
  bool compatible_with(const Version& older) const noexcept;

  // conda's repr of VersionOrder.version / .local, for tests and diagnostics:
  // [[0], [1], [2, "a"]] with "DEV" for dev and "inf" for post.
  std::string main_repr() const;
  std::string local_repr() const;

  // Consistent with ==: equal versions (1.0, 1.0.0, 1.0+0) hash alike.
  std::size_t hash() const noexcept;

  friend bool operator==(const Version& a, const Version& b) noexcept;
  friend std::weak_ordering operator<=>(const Version& a, const Version& b) noexcept;

 private:
  struct Atom {
    enum class Kind : std::uint8_t {
      number,      // fits in 64 bits
      big_number,  // more digits than 64 bits hold: compared by its digits
      text,        // lower-case letters / '_' / '*' runs
      dev,         // "dev": sorts as the string "DEV"
      post,        // "post": greater than any number
    };
    std::uint64_t number = 0;       // for number
    std::uint32_t text_offset = 0;  // into normalized_, for text / big_number
    std::uint16_t text_length = 0;
    Kind kind = Kind::number;
    bool starts_segment = false;
  };
  struct ParseFailure;
  friend class VersionParser;
  friend class VersionAtoms;

  std::string original_;       // empty when equal to normalized_
  std::string normalized_;     // conda's str()
  std::vector<Atom> atoms_;    // epoch and main segments, then local segments
  std::uint32_t local_begin_ = 0;  // index in atoms_ of the first local atom
};

}  // namespace gpuenv::specs

template <>
struct std::hash<gpuenv::specs::Version> {
  std::size_t operator()(const gpuenv::specs::Version& version) const noexcept {
    return version.hash();
  }
};
