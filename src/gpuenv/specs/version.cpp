#include "gpuenv/specs/version.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs {

// Why a text is not a version, and where (1-based column in the text as given).
struct Version::ParseFailure {
  std::string reason;
  std::size_t column = 0;
};

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
// conda's version_check_re: ^[\*\.\+!_0-9a-z]+$ (checked after lower-casing).
bool is_version_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || c == '*' || c == '.' || c == '+' || c == '!' ||
         c == '_';
}

// Text lengths and offsets are stored in 16 bits; real versions are < 64 chars.
constexpr std::size_t max_version_length = std::numeric_limits<std::uint16_t>::max();

std::size_t mix(std::size_t seed, std::size_t value) {
  // boost::hash_combine's mixing, widened to 64 bits.
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

}  // namespace

// Builds the atoms of a Version from its text, following conda's VersionOrder
// constructor step by step so the accepted language is exactly conda's.
class VersionParser {
 public:
  using Atom = Version::Atom;

  // std::expected would say this better, but clang (the fuzz build) cannot use
  // libstdc++ 12's <expected>; the failure goes to `failure` instead.
  static detail::Parsed<Version> parse_or_failure(std::string_view text) {
    Version::ParseFailure failure;
    auto parsed = parse(text, failure);
    if (!parsed) return SpecError("version", text, failure.reason, failure.column);
    return std::move(*parsed);
  }

  static std::optional<Version> parse(std::string_view text, Version::ParseFailure& failure) {
    std::size_t first = 0;
    std::size_t last = text.size();
    while (first < last && is_space(text[first])) ++first;
    while (last > first && is_space(text[last - 1])) --last;
    const std::string_view trimmed = text.substr(first, last - first);
    // Column in `text` of position i of the trimmed (and normalized) text.
    const auto column = [first](std::size_t i) { return first + i + 1; };
    const auto fail = [&failure](std::string reason, std::size_t at) -> std::optional<Version> {
      failure = Version::ParseFailure{std::move(reason), at};
      return std::nullopt;
    };

    if (trimmed.empty()) return fail("empty version", 0);
    if (trimmed.size() > max_version_length) return fail("version text too long", 0);

    Version version;
    version.atoms_.clear();
    std::string& norm = version.normalized_;
    norm.resize(trimmed.size());
    std::transform(trimmed.begin(), trimmed.end(), norm.begin(), to_lower);

    auto first_invalid = std::find_if_not(norm.begin(), norm.end(), is_version_char);
    // Dashes are read as underscores, but only when the text has no underscore:
    // mixing both is ambiguous (conda, rattler and libmamba all reject 1-1_1).
    if (first_invalid != norm.end() && norm.find('-') != std::string::npos &&
        norm.find('_') == std::string::npos) {
      std::replace(norm.begin(), norm.end(), '-', '_');
      first_invalid = std::find_if_not(norm.begin(), norm.end(), is_version_char);
    }
    if (first_invalid != norm.end()) {
      const auto i = static_cast<std::size_t>(first_invalid - norm.begin());
      return fail(std::string("invalid character '") + trimmed[i] + "'", column(i));
    }
    if (norm != trimmed) version.original_ = std::string(trimmed);

    // Epoch.
    std::size_t main_begin = 0;
    if (const auto bang = norm.find('!'); bang != std::string::npos) {
      if (const auto second = norm.find('!', bang + 1); second != std::string::npos) {
        return fail("duplicated epoch separator '!'", column(second));
      }
      if (bang == 0) return fail("missing epoch number before '!'", column(0));
      for (std::size_t i = 0; i < bang; ++i) {
        if (!is_digit(norm[i])) return fail("epoch must be an integer", column(i));
      }
      push_number(version, 0, bang);
      main_begin = bang + 1;
    } else {
      version.atoms_.push_back(Atom{.kind = Atom::Kind::number});
    }
    version.atoms_.back().starts_segment = true;

    // Local version.
    std::size_t main_end = norm.size();
    std::size_t local_begin = norm.size();
    if (const auto plus = norm.find('+', main_begin); plus != std::string::npos) {
      if (const auto second = norm.find('+', plus + 1); second != std::string::npos) {
        return fail("duplicated local version separator '+'", column(second));
      }
      main_end = plus;
      local_begin = plus + 1;
    }
    if (main_begin == main_end) {
      if (main_end < norm.size()) {
        return fail("missing version before local version separator '+'", column(main_end));
      }
      return fail("missing version after epoch separator '!'", column(main_begin - 1));
    }

    // A trailing '_' belongs to the last segment instead of separating an empty
    // one: conda's documented openssl workaround (1.0.1_ sorts before 1.0.1a).
    const bool trailing_underscore = norm[main_end - 1] == '_';
    if (auto segment_failure = push_segments(version, main_begin, main_end - trailing_underscore,
                                             trailing_underscore, column)) {
      failure = std::move(*segment_failure);
      return std::nullopt;
    }
    version.local_begin_ = static_cast<std::uint32_t>(version.atoms_.size());
    if (main_end < norm.size()) {  // there is a '+'
      if (auto segment_failure = push_segments(version, local_begin, norm.size(), false, column)) {
        failure = std::move(*segment_failure);
        return std::nullopt;
      }
    }
    return version;
  }

 private:


  // Splits norm[begin, end) at '.' and '_' into segments of atoms. With
  // `glue_underscore`, the last segment also gets the '_' at norm[end].
  template <typename Column>
  static std::optional<Version::ParseFailure> push_segments(Version& version, std::size_t begin,
                                                            std::size_t end, bool glue_underscore,
                                                            const Column& column) {
    const std::string& norm = version.normalized_;
    std::size_t segment_begin = begin;
    while (true) {
      std::size_t segment_end = segment_begin;
      while (segment_end < end && norm[segment_end] != '.' && norm[segment_end] != '_') {
        ++segment_end;
      }
      const bool last_segment = segment_end >= end;
      if (last_segment && glue_underscore) ++segment_end;  // take the '_' along
      if (segment_end == segment_begin) {
        return Version::ParseFailure{"empty version component", column(segment_begin)};
      }
      push_segment(version, segment_begin, segment_end);
      if (last_segment) return std::nullopt;
      segment_begin = segment_end + 1;
    }
  }

  // One segment: runs of digits, of '*', and of anything else (conda's
  // version_split_re), with a 0 in front when it does not start with a digit.
  static void push_segment(Version& version, std::size_t begin, std::size_t end) {
    const std::string& norm = version.normalized_;
    const std::size_t first_atom = version.atoms_.size();
    if (!is_digit(norm[begin])) version.atoms_.push_back(Atom{.kind = Atom::Kind::number});
    std::size_t i = begin;
    while (i < end) {
      std::size_t run_end = i + 1;
      if (is_digit(norm[i])) {
        while (run_end < end && is_digit(norm[run_end])) ++run_end;
        push_number(version, i, run_end);
      } else {
        const bool star = norm[i] == '*';
        while (run_end < end && !is_digit(norm[run_end]) && (norm[run_end] == '*') == star) {
          ++run_end;
        }
        const std::string_view run(norm.data() + i, run_end - i);
        Atom atom{.text_offset = static_cast<std::uint32_t>(i),
                  .text_length = static_cast<std::uint16_t>(run_end - i),
                  .kind = Atom::Kind::text};
        if (run == "dev") atom.kind = Atom::Kind::dev;
        if (run == "post") atom.kind = Atom::Kind::post;
        version.atoms_.push_back(atom);
      }
      i = run_end;
    }
    version.atoms_[first_atom].starts_segment = true;
  }

  // Digits norm[begin, end) as one number atom; leading zeros do not count.
  static void push_number(Version& version, std::size_t begin, std::size_t end) {
    const std::string& norm = version.normalized_;
    while (begin + 1 < end && norm[begin] == '0') ++begin;
    std::uint64_t value = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const auto digit = static_cast<std::uint64_t>(norm[i] - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        // conda's integers are unbounded: keep the digits and compare them as text.
        version.atoms_.push_back(Atom{.text_offset = static_cast<std::uint32_t>(begin),
                                      .text_length = static_cast<std::uint16_t>(end - begin),
                                      .kind = Atom::Kind::big_number});
        return;
      }
      value = value * 10 + digit;
    }
    version.atoms_.push_back(Atom{.number = value, .kind = Atom::Kind::number});
  }
};

// Comparison of atoms and segments, shared by ==, <=>, starts_with and hash.
class VersionAtoms {
 public:
  using Atom = Version::Atom;
  using Kind = Atom::Kind;

  // A run of atoms: the main part or the local part of one version.
  struct Part {
    const Version* version;
    std::size_t begin;
    std::size_t end;
  };

  // The min() keeps a moved-from Version (empty atoms_) safe to compare.
  static Part main_part(const Version& v) {
    return {&v, 0, std::min<std::size_t>(v.local_begin_, v.atoms_.size())};
  }
  static Part local_part(const Version& v) {
    return {&v, std::min<std::size_t>(v.local_begin_, v.atoms_.size()), v.atoms_.size()};
  }

  static std::size_t segment_end(const Part& part, std::size_t i) {
    ++i;
    while (i < part.end && !part.version->atoms_[i].starts_segment) ++i;
    return i;
  }

  static std::size_t segment_count(const Part& part) {
    std::size_t count = 0;
    for (std::size_t i = part.begin; i < part.end; ++i) count += part.version->atoms_[i].starts_segment;
    return count;
  }

  static bool is_string(const Atom& a) { return a.kind == Kind::text || a.kind == Kind::dev; }

  static std::string_view text(const Version& v, const Atom& a) {
    // conda upper-cases "dev" so that it sorts before every other (lower-case) string.
    if (a.kind == Kind::dev) return "DEV";
    return std::string_view(v.normalized_).substr(a.text_offset, a.text_length);
  }

  // conda's per-atom order: strings < integers < post; strings compare byte-wise.
  static std::weak_ordering compare(const Version& va, const Atom& a, const Version& vb,
                                    const Atom& b) {
    const bool a_string = is_string(a);
    const bool b_string = is_string(b);
    if (a_string != b_string) return a_string ? std::weak_ordering::less : std::weak_ordering::greater;
    if (a_string) return text(va, a).compare(text(vb, b)) <=> 0;
    const auto rank = [](Kind k) { return k == Kind::number ? 0 : k == Kind::big_number ? 1 : 2; };
    if (a.kind != b.kind) return rank(a.kind) <=> rank(b.kind);
    if (a.kind == Kind::number) return a.number <=> b.number;
    if (a.kind == Kind::post) return std::weak_ordering::equivalent;
    const std::string_view da = text(va, a);
    const std::string_view db = text(vb, b);
    if (da.size() != db.size()) return da.size() <=> db.size();
    return da.compare(db) <=> 0;
  }

  // Compares one segment of each side, atoms missing on either side being 0.
  static std::weak_ordering compare_segment(const Part& a, std::size_t a_begin, std::size_t a_end,
                                            const Part& b, std::size_t b_begin, std::size_t b_end) {
    static constexpr Atom zero{};
    const std::size_t na = a_end - a_begin;
    const std::size_t nb = b_end - b_begin;
    for (std::size_t k = 0; k < std::max(na, nb); ++k) {
      const Atom& x = k < na ? a.version->atoms_[a_begin + k] : zero;
      const Atom& y = k < nb ? b.version->atoms_[b_begin + k] : zero;
      if (const auto order = compare(*a.version, x, *b.version, y); order != 0) return order;
    }
    return std::weak_ordering::equivalent;
  }

  // Compares the first `max_segments` segments of two parts, missing segments
  // being empty (so all-zero).
  static std::weak_ordering compare_parts(const Part& a, const Part& b,
                                          std::size_t max_segments = SIZE_MAX) {
    std::size_t ai = a.begin;
    std::size_t bi = b.begin;
    for (std::size_t s = 0; s < max_segments && (ai < a.end || bi < b.end); ++s) {
      const std::size_t a_end = ai < a.end ? segment_end(a, ai) : ai;
      const std::size_t b_end = bi < b.end ? segment_end(b, bi) : bi;
      if (const auto order = compare_segment(a, ai, a_end, b, bi, b_end); order != 0) return order;
      ai = a_end;
      bi = b_end;
    }
    return std::weak_ordering::equivalent;
  }

  // conda's startswith over the first `prefix_segments` segments of `prefix`.
  static bool starts_with(const Part& self, const Part& prefix, std::size_t prefix_segments) {
    if (prefix_segments == 0) return true;
    const std::size_t leading = prefix_segments - 1;
    if (compare_parts(self, prefix, leading) != 0) return false;
    // Locate segment number `leading` on both sides.
    std::size_t si = self.begin;
    std::size_t pi = prefix.begin;
    for (std::size_t s = 0; s < leading; ++s) {
      if (si < self.end) si = segment_end(self, si);
      pi = segment_end(prefix, pi);
    }
    const std::size_t s_end = si < self.end ? segment_end(self, si) : si;
    const std::size_t p_end = segment_end(prefix, pi);
    // All atoms of the prefix's last segment but its last must be equal...
    if (compare_segment(self, si, std::min(s_end, si + (p_end - pi - 1)), prefix, pi, p_end - 1) != 0) {
      return false;
    }
    // ...and the last one equal, or for a string, a string prefix of ours.
    static constexpr Atom zero{};
    const std::size_t k = p_end - pi - 1;
    const Atom& ours = si + k < s_end ? self.version->atoms_[si + k] : zero;
    const Atom& theirs = prefix.version->atoms_[p_end - 1];
    if (is_string(theirs)) {
      return is_string(ours) &&
             text(*self.version, ours).starts_with(text(*prefix.version, theirs));
    }
    return compare(*self.version, ours, *prefix.version, theirs) == 0;
  }

  // conda's repr of a list of segments.
  static std::string repr(const Part& part) {
    std::string out = "[";
    for (std::size_t i = part.begin; i < part.end; ++i) {
      const auto& atom = part.version->atoms_[i];
      if (atom.starts_segment) out += i == part.begin ? "[" : "], [";
      else out += ", ";
      switch (atom.kind) {
        case Kind::number: out += std::to_string(atom.number); break;
        case Kind::big_number: out += text(*part.version, atom); break;
        case Kind::post: out += "\"inf\""; break;
        default: out.append("\"").append(text(*part.version, atom)).append("\""); break;
      }
    }
    if (part.end > part.begin) out += "]";
    return out + "]";
  }

  static std::size_t hash_atom(const Version& v, const Atom& a) {
    const std::hash<std::string_view> hash_text;
    switch (a.kind) {
      case Kind::number: return std::hash<std::uint64_t>{}(a.number);
      case Kind::big_number: return mix(1, hash_text(text(v, a)));
      case Kind::text: return mix(2, hash_text(text(v, a)));
      case Kind::dev: return 3;
      case Kind::post: return 4;
    }
    return 0;
  }

  // Hashes a part so that trailing zero atoms and trailing all-zero segments,
  // which equality ignores, do not count.
  static std::size_t hash_part(const Part& part, std::size_t seed) {
    std::size_t pending_empty_segments = 0;
    for (std::size_t i = part.begin; i < part.end;) {
      const std::size_t end = segment_end(part, i);
      std::size_t significant_end = end;
      while (significant_end > i && part.version->atoms_[significant_end - 1].kind == Kind::number &&
             part.version->atoms_[significant_end - 1].number == 0) {
        --significant_end;
      }
      if (significant_end == i) {
        ++pending_empty_segments;
      } else {
        for (; pending_empty_segments > 0; --pending_empty_segments) seed = mix(seed, 0x5e9);
        seed = mix(seed, 0x5e9);
        for (std::size_t k = i; k < significant_end; ++k) {
          seed = mix(seed, hash_atom(*part.version, part.version->atoms_[k]));
        }
      }
      i = end;
    }
    return seed;
  }
};

Version::Version() : normalized_("0") {
  atoms_.push_back(Atom{.kind = Atom::Kind::number, .starts_segment = true});
  atoms_.push_back(Atom{.kind = Atom::Kind::number, .starts_segment = true});
  local_begin_ = 2;
}

Version Version::parse(std::string_view text) {
  return detail::parse_version(text).value_or_throw();
}

detail::Parsed<Version> detail::parse_version(std::string_view text) {
  return VersionParser::parse_or_failure(text);
}

std::optional<Version> Version::try_parse(std::string_view text) noexcept {
  try {
    ParseFailure failure;
    return VersionParser::parse(text, failure);
  } catch (...) {  // only std::bad_alloc can get here
    return std::nullopt;
  }
}

std::size_t Version::main_segment_count() const noexcept {
  return VersionAtoms::segment_count(VersionAtoms::main_part(*this));
}

bool Version::starts_with(const Version& prefix) const noexcept {
  using VA = VersionAtoms;
  if (prefix.has_local()) {
    if (VA::compare_parts(VA::main_part(*this), VA::main_part(prefix)) != 0) return false;
    const auto theirs = VA::local_part(prefix);
    return VA::starts_with(VA::local_part(*this), theirs, VA::segment_count(theirs));
  }
  const auto theirs = VA::main_part(prefix);
  return VA::starts_with(VA::main_part(*this), theirs, VA::segment_count(theirs));
}

bool Version::compatible_with(const Version& older) const noexcept {
  using VA = VersionAtoms;
  if (*this < older) return false;
  const auto theirs = VA::main_part(older);
  const std::size_t segments = VA::segment_count(theirs);
  return VA::starts_with(VA::main_part(*this), theirs, segments > 0 ? segments - 1 : 0);
}

std::string Version::main_repr() const { return VersionAtoms::repr(VersionAtoms::main_part(*this)); }
std::string Version::local_repr() const { return VersionAtoms::repr(VersionAtoms::local_part(*this)); }

std::size_t Version::hash() const noexcept {
  using VA = VersionAtoms;
  const std::size_t main = VA::hash_part(VA::main_part(*this), 0x76e5);
  return VA::hash_part(VA::local_part(*this), mix(main, 0x10ca1));
}

bool operator==(const Version& a, const Version& b) noexcept { return (a <=> b) == 0; }

std::weak_ordering operator<=>(const Version& a, const Version& b) noexcept {
  using VA = VersionAtoms;
  if (const auto order = VA::compare_parts(VA::main_part(a), VA::main_part(b)); order != 0) {
    return order;
  }
  return VA::compare_parts(VA::local_part(a), VA::local_part(b));
}

}  // namespace gpuenv::specs
