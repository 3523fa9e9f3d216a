// How libmamba (mamba 2.x, libmamba/src/specs/match_spec.cpp) reads and prints
// a spec, so the conformance tests can check gpuenv's reading against
// libmamba's rows of ../shared/testdata/vectors. Test-only: gpuenv itself
// prints conda's dialect. libmamba differs
// from conda in three ways that change the printed text:
//   - positional values win over bracket values (`numpy=1.8[version=2]` is =1.8),
//   - `name=1.0=build` keeps `=1.0` (starts with) where conda reads `==1.0`,
//   - version expressions group with `|` binding tighter than `,`, and every
//     nested group is printed in parentheses: `>=1.8,<2|1.9` -> `>=1.8,(<2|==1.9)`.
// The spec text was already accepted by conda's parser, so this reading only
// reconstructs; it does not validate.
#include "libmamba_printer.hpp"

#include <algorithm>
#include <memory>

#include "gpuenv/specs/build_number_spec.hpp"
#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/spec_error.hpp"
// The library's own lexer and parsers (internal headers), so both readings
// split text alike and a failure is a value.
#include "gpuenv/specs/match_spec_syntax.hpp"
#include "gpuenv/specs/spec_parsing.hpp"

namespace gpuenv::specs::dialects {

using spec_syntax::lowered;
using spec_syntax::trim;

namespace {

bool is_known_subdir(std::string_view text) {
  const auto subdirs = known_subdirs();
  return std::find(subdirs.begin(), subdirs.end(), text) != subdirs.end();
}

bool is_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// One libmamba version predicate, printed both ways.
struct Predicate {
  std::string text;              // VersionSpec::str()
  std::string conda_build_text;  // the `{:b}` form: prefixes as `1.2.*`
  bool free = false;
};

Predicate read_predicate(std::string_view clause) {
  const std::string s = lowered(trim(clause));
  const auto starts_with = [](std::string_view version) {
    const std::string v(trim(version));
    return Predicate{"=" + v, v + ".*", false};
  };
  if (s.empty() || s == "*" || s == "=*" || s == "==*") return Predicate{"=*", "*", true};
  for (const std::string_view op : {">=", "<=", "~="}) {
    if (s.starts_with(op)) {
      const std::string text = std::string(op) + std::string(trim(std::string_view(s).substr(2)));
      return Predicate{text, text, false};
    }
  }
  if (s.starts_with('>') || s.starts_with('<')) {
    const std::string text = s.substr(0, 1) + std::string(trim(std::string_view(s).substr(1)));
    return Predicate{text, text, false};
  }
  const bool glob_suffix = s.ends_with(".*");
  if (s.starts_with("==")) {
    const std::string_view v = std::string_view(s).substr(2);
    if (glob_suffix) return starts_with(v.substr(0, v.size() - 2));
    const std::string text = "==" + std::string(trim(v));
    return Predicate{text, text, false};
  }
  if (s.starts_with("!=")) {
    const std::string text = "!=" + std::string(trim(std::string_view(s).substr(2)));
    return Predicate{text, text, false};
  }
  if (s.starts_with('=')) {
    // libmamba only drops a `.*` here, so `=0.15*` keeps its star: `=0.15*`.
    const std::string_view v = std::string_view(s).substr(1);
    return starts_with(glob_suffix ? v.substr(0, v.size() - 2) : v);
  }
  const bool glob = s.starts_with('*') || s.find(".*") < std::max<std::size_t>(s.size(), 2) - 2;
  if (glob) return Predicate{s, s, false};
  if (s.ends_with('*'))
    return starts_with(std::string_view(s).substr(0, s.size() - (glob_suffix ? 2 : 1)));
  return Predicate{"==" + s, "==" + s, false};
}

// libmamba's flat boolean tree, rebuilt: `|` binds tighter than `,`, and
// operators of equal precedence group to the right.
struct VersionNode {
  char op = 0;  // 0 for a predicate, else ',' or '|'
  Predicate predicate;
  std::unique_ptr<VersionNode> left;
  std::unique_ptr<VersionNode> right;

  std::size_t size() const { return op == 0 ? 1 : 1 + left->size() + right->size(); }

  std::string print(bool conda_build) const {
    if (op == 0) return conda_build ? predicate.conda_build_text : predicate.text;
    const auto side = [conda_build](const VersionNode& child) {
      return child.op == 0 ? child.print(conda_build) : "(" + child.print(conda_build) + ")";
    };
    return side(*left) + op + side(*right);
  }
};

int precedence(char op) { return op == '|' ? 2 : 1; }

std::unique_ptr<VersionNode> build_version_tree(std::string_view text) {
  std::vector<std::unique_ptr<VersionNode>> operands;
  std::vector<char> operators;
  const auto reduce = [&] {
    const char op = operators.back();
    operators.pop_back();
    if (operands.size() < 2) return;  // already rejected by conda's parser
    auto node = std::make_unique<VersionNode>();
    node->op = op;
    node->right = std::move(operands.back());
    operands.pop_back();
    node->left = std::move(operands.back());
    operands.pop_back();
    operands.push_back(std::move(node));
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ') {
      ++i;
    } else if (c == ',' || c == '|') {
      while (!operators.empty() && operators.back() != '(' &&
             precedence(operators.back()) > precedence(c)) {
        reduce();
      }
      operators.push_back(c);
      ++i;
    } else if (c == '(') {
      operators.push_back(c);
      ++i;
    } else if (c == ')') {
      while (!operators.empty() && operators.back() != '(') reduce();
      if (!operators.empty()) operators.pop_back();
      ++i;
    } else {
      const auto end = text.find_first_of(",|()", i);
      auto leaf = std::make_unique<VersionNode>();
      leaf->predicate =
          read_predicate(text.substr(i, end == std::string_view::npos ? end : end - i));
      operands.push_back(std::move(leaf));
      i = end == std::string_view::npos ? text.size() : end;
    }
  }
  while (!operators.empty()) {
    if (operators.back() == '(') {
      operators.pop_back();
    } else {
      reduce();
    }
  }
  if (operands.empty()) return nullptr;
  return std::move(operands.back());
}

// A value needs quotes in libmamba's brackets when it holds ` =` or `"`.
std::string quoted_if_needed(std::string_view value) {
  const auto pos = value.find_first_of(" =\"");
  if (pos == std::string_view::npos) return std::string(value);
  const char quote = value.substr(pos).find('"') != std::string_view::npos ? '\'' : '"';
  return quote + std::string(value) + quote;
}

}  // namespace

// The fields of libmamba's MatchSpec for one spec text.
class LibmambaSpecView {
 public:
  LibmambaSpecView() = default;
  explicit LibmambaSpecView(const MatchSpec& spec) {
    // The lexer reports by throwing (it serves MatchSpec::parse). Text conda's
    // reading accepts but this one does not: conda's canonical form always
    // reads here, so print that instead of failing.
    try {
      read(spec.original());
    } catch (const SpecError&) {
      *this = LibmambaSpecView();
      read(spec.str());
    }
  }

  std::string str() const {
    if (is_package_) return channel_ + (md5_.empty() ? "" : "#" + md5_);
    std::string out;
    if (!channel_.empty()) {
      out += channel_str() + ":" + name_space_ + ":";
    } else if (!name_space_.empty()) {
      out += name_space_ + ":";
    }
    out += name_;
    const bool complex_version = version_ && version_->size() > 1;
    const bool complex_build =
        !build_.empty() && (build_.find('*') != std::string::npos ||
                            (build_.starts_with('^') && build_.ends_with('$')));
    if (!complex_version && !complex_build) {
      if (!build_.empty()) {
        out += version_str() + "=" + build_;
      } else if (version_) {
        out += version_str();
      }
    }
    std::vector<std::string> brackets;
    if (complex_version || complex_build) {
      if (version_) brackets.push_back("version=\"" + version_str() + "\"");
      if (!build_.empty()) brackets.push_back("build=\"" + build_ + "\"");
    }
    if (!build_number_.empty()) brackets.push_back("build_number=\"" + build_number_ + "\"");
    if (!track_features_.empty()) {
      std::string joined;
      for (const auto& feature : track_features_) joined += (joined.empty() ? "" : " ") + feature;
      brackets.push_back("track_features=\"" + joined + "\"");
    }
    if (!features_.empty()) brackets.push_back("features=" + quoted_if_needed(features_));
    if (!filename_.empty()) brackets.push_back("fn=" + quoted_if_needed(filename_));
    if (!md5_.empty()) brackets.push_back("md5=" + md5_);
    if (!sha256_.empty()) brackets.push_back("sha256=" + sha256_);
    if (!license_.empty()) brackets.push_back("license=" + license_);
    if (!license_family_.empty()) brackets.push_back("license_family=" + license_family_);
    if (optional_) brackets.emplace_back("optional");
    if (!brackets.empty()) {
      out += "[";
      for (std::size_t i = 0; i < brackets.size(); ++i) out += (i > 0 ? "," : "") + brackets[i];
      out += "]";
    }
    return out;
  }

  std::string conda_build_form() const {
    if (version_) {
      return name_ + " " + version_->print(true) + (build_.empty() ? "" : " " + build_);
    }
    return build_.empty() ? name_ : name_ + " * " + build_;
  }

  std::string version_str() const { return version_ ? version_->print(false) : "=*"; }
  std::size_t version_size() const { return version_ ? version_->size() : 1; }
  const std::string& build_number_str() const { return build_number_; }

  std::string channel_str() const {
    if (channel_.empty() || is_package_ || platforms_.empty()) return channel_;
    std::string out = channel_ + "[";
    for (std::size_t i = 0; i < platforms_.size(); ++i) out += (i > 0 ? "," : "") + platforms_[i];
    return out + "]";
  }

 private:
  void read(std::string_view text) {
    std::string_view body = trim(text);
    if (const auto hash = body.rfind('#'); hash != std::string_view::npos) {
      const auto before = trim(body.substr(0, hash));
      if (spec_syntax::names_package_file(before) && is_hex(trim(body.substr(hash + 1)))) {
        md5_ = std::string(trim(body.substr(hash + 1)));
        read_package(before);
        return;
      }
    }
    body = spec_syntax::strip_comment(body);
    if (const auto condition = body.find(" if ");
        condition != std::string_view::npos &&
        body.find(']', condition) == std::string_view::npos) {
      body = trim(body.substr(0, condition));
    }
    if (body.empty()) {
      name_ = "*";
      return;
    }
    if (spec_syntax::names_package_file(body)) {
      read_package(body);
      return;
    }
    const spec_syntax::Reporter reporter(body);
    const auto sections = spec_syntax::split_sections(body, reporter);
    if (!trim(sections.channel).empty()) set_channel(trim(sections.channel));
    if (sections.name_space) name_space_ = std::string(trim(*sections.name_space));
    if (sections.brackets) {
      for (const auto& item : spec_syntax::parse_key_values(*sections.brackets, reporter)) {
        set_attribute(item.key, trim(item.value), item.has_value);
      }
    }
    if (sections.parens) {
      for (const auto& item : spec_syntax::parse_key_values(*sections.parens, reporter)) {
        if (item.key == "optional") optional_ = true;
      }
    }
    // Positional values come last and win, unlike conda.
    const auto positional = spec_syntax::split_positional(sections.positional, true, reporter);
    name_ = lowered(positional.name);
    if (name_.empty()) name_ = "*";
    if (!positional.version.text.empty()) version_ = build_version_tree(positional.version.text);
    if (!positional.build.text.empty()) build_ = positional.build.text;
    if (version_ && version_->op == 0 && version_->predicate.free) version_.reset();
  }

  void read_package(std::string_view location) {
    is_package_ = true;
    channel_ = std::string(location);
    std::string_view filename = location.substr(location.find_last_of("/\\") + 1);
    filename_ = std::string(filename);
    const auto dist = strip_package_extension(filename);
    const auto build_dash = dist.rfind('-');
    const auto version_dash = build_dash == std::string_view::npos || build_dash == 0
                                  ? std::string_view::npos
                                  : dist.rfind('-', build_dash - 1);
    if (version_dash == std::string_view::npos) return;
    name_ = lowered(dist.substr(0, version_dash));
    version_ = build_version_tree(
        "==" + std::string(dist.substr(version_dash + 1, build_dash - version_dash - 1)));
    build_ = std::string(dist.substr(build_dash + 1));
  }

  // libmamba's UnresolvedChannel: `chan[plat,...]`, `chan/plat`, a package file.
  void set_channel(std::string_view text) {
    platforms_.clear();
    is_package_ = false;
    if (is_package_file_name(text)) {
      is_package_ = true;
      channel_ = std::string(text);
      return;
    }
    if (text.ends_with(']')) {
      if (const auto open = text.rfind('['); open != std::string_view::npos) {
        for (const auto& platform : split_list(text.substr(open + 1, text.size() - open - 2))) {
          platforms_.push_back(platform);
        }
        text = text.substr(0, open);
      }
    }
    if (const auto slash = text.rfind('/');
        slash != std::string_view::npos && is_known_subdir(text.substr(slash + 1))) {
      platforms_.emplace_back(text.substr(slash + 1));
      text = text.substr(0, slash);
    }
    channel_ = std::string(text);
  }

  // libmamba's printed build number; the text as written when it is not one.
  static std::string build_number_text(std::string_view value) {
    const auto number = detail::parse_build_number_spec(value);
    if (!number) return std::string(value);
    if (number.value().is_explicitly_free()) return std::string();
    return number.value().is_exact() ? "=" + number.value().str() : number.value().str();
  }

  static std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto end = text.find_first_of(", ", start);
      const auto item = trim(text.substr(start, end == std::string_view::npos ? end : end - start));
      if (!item.empty()) items.emplace_back(item);
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
    return items;
  }

  void set_attribute(const std::string& key, std::string_view value, bool has_value) {
    if (key == "version") {
      version_ = build_version_tree(value);
    } else if (key == "build" || key == "build_string") {
      build_ = std::string(value);
    } else if (key == "build_number") {
      build_number_ = build_number_text(value);
    } else if (key == "channel" || key == "url") {
      set_channel(value);
    } else if (key == "subdir") {
      if (channel_.empty() || platforms_.empty()) platforms_ = split_list(value);
    } else if (key == "fn" || key == "filename") {
      filename_ = std::string(value);
    } else if (key == "md5") {
      md5_ = std::string(value);
    } else if (key == "sha256") {
      sha256_ = std::string(value);
    } else if (key == "license") {
      license_ = std::string(value);
    } else if (key == "license_family") {
      license_family_ = std::string(value);
    } else if (key == "features") {
      features_ = std::string(value);
    } else if (key == "track_features") {
      track_features_ = split_features(value);
    } else if (key == "optional") {
      optional_ = !has_value || (!value.empty() && std::string_view("yYtT1").find(value.front()) !=
                                                       std::string_view::npos);
    }
  }

  std::string channel_;
  std::vector<std::string> platforms_;
  bool is_package_ = false;
  std::string name_space_;
  std::string name_;
  std::unique_ptr<VersionNode> version_;  // null when free
  std::string build_;
  std::string build_number_;
  std::string md5_;
  std::string sha256_;
  std::string license_;
  std::string license_family_;
  std::string features_;
  std::string filename_;
  std::vector<std::string> track_features_;
  bool optional_ = false;
};

std::string libmamba_str(const MatchSpec& spec) { return LibmambaSpecView(spec).str(); }
std::string libmamba_conda_build_form(const MatchSpec& spec) {
  return LibmambaSpecView(spec).conda_build_form();
}
std::string libmamba_version_str(const MatchSpec& spec) {
  return LibmambaSpecView(spec).version_str();
}
std::string libmamba_build_number_str(const MatchSpec& spec) {
  const auto text = LibmambaSpecView(spec).build_number_str();
  return text.empty() ? "=*" : text;
}
std::string libmamba_channel_str(const MatchSpec& spec) {
  return LibmambaSpecView(spec).channel_str();
}
std::size_t libmamba_version_expression_size(const MatchSpec& spec) {
  return LibmambaSpecView(spec).version_size();
}

}  // namespace gpuenv::specs::dialects
