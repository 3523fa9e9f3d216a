#include "gpuenv/repodata/shard_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <msgpack.hpp>
#include <stdexcept>
#include <unordered_set>

#include "gpuenv/repodata/zstd_stream.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/util/hex.hpp"
#include "gpuenv/util/json_writer.hpp"

namespace gpuenv::repodata {
namespace {

std::expected<std::string, std::string> decompress_bounded(std::string_view compressed, std::size_t max_bytes,
                                                           const ShardLimits& limits) {
  if (compressed.size() > limits.max_compressed_bytes) {
    return std::unexpected(fmt::format("it is {} bytes compressed, more than the {} allowed", compressed.size(),
                                       limits.max_compressed_bytes));
  }
  std::string out;
  // One allocation where the frame declares its size: growing by doubling
  // copies the bytes and faults in fresh pages at every step. The header
  // comes from the server, so the reservation never passes the limit nor
  // 32 times the input (repodata msgpack compresses far less than that;
  // beyond it the string grows as before).
  if (const auto declared = zstd_declared_size(compressed)) {
    out.reserve(std::min({*declared, max_bytes, compressed.size() * 32}));
  }
  bool too_large = false;
  ZstdDecompressor decompressor;
  auto fed = decompressor.feed(compressed, [&](std::string_view piece) {
    if (out.size() + piece.size() > max_bytes) {
      too_large = true;
      return false;
    }
    out.append(piece);
    return true;
  });
  if (too_large) return std::unexpected(fmt::format("it decompresses to more than {} bytes", max_bytes));
  if (!fed) return std::unexpected("it is not valid zstd data: " + fed.error());
  if (!decompressor.at_frame_end()) return std::unexpected(std::string("its zstd data is cut short"));
  return out;
}

// A first pass over the bytes before any object is built: msgpack-cxx
// allocates a container's elements when it reads the count, so a few bytes
// claiming four billion elements would cost gigabytes. Every element has
// its own type byte, so all the counts together can never exceed the size.
class BoundsCheck : public msgpack::null_visitor {
 public:
  BoundsCheck(std::size_t size, std::size_t max_depth) : size_(size), max_depth_(max_depth) {}
  bool start_array(uint32_t count) { return open(count); }
  bool end_array() { return close(); }
  bool start_map(uint32_t pairs) { return open(std::uint64_t{pairs} * 2); }
  bool end_map() { return close(); }
  bool visit_ext(const char*, uint32_t) {
    problem_ = "it holds a msgpack extension type, which repodata never uses";
    return false;
  }
  void parse_error(size_t, size_t offset) { problem_ = fmt::format("it is not valid msgpack (at byte {})", offset); }
  void insufficient_bytes(size_t, size_t) { problem_ = "its msgpack data is cut short"; }
  const std::string& problem() const { return problem_; }

 private:
  bool open(std::uint64_t elements) {
    if (++depth_ > max_depth_) {
      problem_ = fmt::format("its msgpack nests deeper than {} levels", max_depth_);
      return false;
    }
    declared_ += elements;
    if (declared_ > size_) {
      problem_ = "its msgpack claims more elements than it has bytes";
      return false;
    }
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  std::size_t size_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::uint64_t declared_ = 0;
  std::string problem_;
};

bool reference_buffer(msgpack::type::object_type, std::size_t, void*) { return true; }

// One msgpack document, checked first; `bytes` must outlive the handle
// (strings point into it).
std::expected<msgpack::object_handle, std::string> unpack_checked(const std::string& bytes, const ShardLimits& limits) {
  BoundsCheck check(bytes.size(), limits.max_depth);
  std::size_t offset = 0;
  const bool parsed = msgpack::parse(bytes.data(), bytes.size(), offset, check);
  if (!parsed || !check.problem().empty()) {
    return std::unexpected(check.problem().empty() ? std::string("it is not valid msgpack") : check.problem());
  }
  if (offset != bytes.size()) return std::unexpected(std::string("it has bytes after its msgpack document"));
  try {
    std::size_t unpack_offset = 0;
    return msgpack::unpack(bytes.data(), bytes.size(), unpack_offset, reference_buffer);
  } catch (const std::exception& error) {
    return std::unexpected(fmt::format("it is not valid msgpack ({})", error.what()));
  }
}

std::string_view text_of(const msgpack::object& object) { return {object.via.str.ptr, object.via.str.size}; }

const char* type_name(const msgpack::object& object) {
  switch (object.type) {
    case msgpack::type::NIL: return "nil";
    case msgpack::type::BOOLEAN: return "a boolean";
    case msgpack::type::POSITIVE_INTEGER:
    case msgpack::type::NEGATIVE_INTEGER: return "an integer";
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return "a float";
    case msgpack::type::STR: return "a string";
    case msgpack::type::BIN: return "binary data";
    case msgpack::type::ARRAY: return "an array";
    case msgpack::type::MAP: return "a map";
    default: return "an extension";
  }
}

// msgpack -> JSON; binary data (the sha256 and md5 CEP 16 stores as bytes)
// becomes the hex text repodata.json has. Nesting was bounded by the check.
void write_json(util::JsonWriter& out, const msgpack::object& object, std::string& scratch) {
  switch (object.type) {
    case msgpack::type::NIL: out.null(); break;
    case msgpack::type::BOOLEAN: out.boolean(object.via.boolean); break;
    case msgpack::type::POSITIVE_INTEGER: out.unsigned_integer(object.via.u64); break;
    case msgpack::type::NEGATIVE_INTEGER: out.integer(object.via.i64); break;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
      if (!std::isfinite(object.via.f64)) throw std::invalid_argument("a number that is not finite");
      out.raw(fmt::format("{}", object.via.f64));
      break;
    case msgpack::type::STR: out.string(text_of(object)); break;
    case msgpack::type::BIN:
      scratch.resize(std::size_t{object.via.bin.size} * 2);
      util::binary_to_hex(reinterpret_cast<const unsigned char*>(object.via.bin.ptr), object.via.bin.size,
                          scratch.data());
      out.string(scratch);
      break;
    case msgpack::type::ARRAY:
      out.begin_array();
      for (std::uint32_t i = 0; i < object.via.array.size; ++i) write_json(out, object.via.array.ptr[i], scratch);
      out.end_array();
      break;
    case msgpack::type::MAP:
      out.begin_object();
      for (std::uint32_t i = 0; i < object.via.map.size; ++i) {
        const auto& entry = object.via.map.ptr[i];
        if (entry.key.type != msgpack::type::STR) throw std::invalid_argument("a map key that is not a string");
        out.key(text_of(entry.key));
        write_json(out, entry.val, scratch);
      }
      out.end_object();
      break;
    default: throw std::invalid_argument("a msgpack extension");
  }
}

const msgpack::object* find_key(const msgpack::object& map, std::string_view key) {
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    const auto& entry = map.via.map.ptr[i];
    if (entry.key.type == msgpack::type::STR && text_of(entry.key) == key) return &entry.val;
  }
  return nullptr;
}

std::expected<std::string, std::string> optional_text(const msgpack::object& map, std::string_view key) {
  const auto* value = find_key(map, key);
  if (value == nullptr || value->type == msgpack::type::NIL) return std::string();
  if (value->type != msgpack::type::STR) {
    return std::unexpected(fmt::format("its info.{} is {}, not a string", key, type_name(*value)));
  }
  return std::string(text_of(*value));
}

std::expected<ShardHash, std::string> hash_of(const msgpack::object& value) {
  ShardHash hash{};
  if (value.type == msgpack::type::BIN && value.via.bin.size == hash.size()) {
    std::copy_n(reinterpret_cast<const unsigned char*>(value.via.bin.ptr), hash.size(), hash.begin());
    return hash;
  }
  // Hex text is not what CEP 16 says, but it is unambiguous: accepted.
  if (value.type == msgpack::type::STR && value.via.str.size == 2 * hash.size()) {
    const auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    for (std::size_t i = 0; i < hash.size(); ++i) {
      const int high = digit(value.via.str.ptr[2 * i]);
      const int low = digit(value.via.str.ptr[2 * i + 1]);
      if (high < 0 || low < 0) return std::unexpected(std::string("hex text with a character that is not hex"));
      hash[i] = static_cast<unsigned char>(high * 16 + low);
    }
    return hash;
  }
  return std::unexpected(fmt::format("{}, not a 32-byte sha256", type_name(value)));
}

bool is_safe_file_name(std::string_view name) {
  return is_safe_package_name(name) && name.size() <= 1024;
}

}  // namespace

std::string hex_of(const ShardHash& hash) { return util::hex_string(hash.data(), hash.size()); }

bool is_safe_package_name(std::string_view name) {
  if (name.empty() || name.size() > 256 || name == "." || name == "..") return false;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || byte < 0x20 || byte == 0x7f) return false;
  }
  return true;
}

const ShardHash* ShardNames::find(std::string_view name) const {
  std::size_t low = 0;
  std::size_t high = entries_.size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    const int order = name_at(middle).compare(name);
    if (order == 0) return &entries_[middle].hash;
    if (order < 0) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return nullptr;
}

void ShardNames::reserve(std::size_t names, std::size_t text_bytes) {
  entries_.reserve(names);
  text_.reserve(text_bytes);
}

void ShardNames::add(std::string_view name, const ShardHash& hash) {
  entries_.push_back({text_.size(), name.size(), hash});
  text_.append(name);
}

void ShardNames::finish() {
  const auto by_name = [this](const Entry& a, const Entry& b) {
    return std::string_view(text_.data() + a.offset, a.length) < std::string_view(text_.data() + b.offset, b.length);
  };
  // Indexes are written sorted (conda's and gpuenv's writers both are):
  // checked in one pass, sorted only when not.
  const auto not_before = [&](const Entry& a, const Entry& b) { return !by_name(a, b); };
  if (std::adjacent_find(entries_.begin(), entries_.end(), not_before) == entries_.end()) {
    return;  // strictly increasing: no name twice either
  }
  std::stable_sort(entries_.begin(), entries_.end(), by_name);
  const auto same_name = [this](const Entry& a, const Entry& b) {
    return std::string_view(text_.data() + a.offset, a.length) == std::string_view(text_.data() + b.offset, b.length);
  };
  entries_.erase(std::unique(entries_.begin(), entries_.end(), same_name), entries_.end());
}

std::expected<ShardIndex, std::string> parse_shard_index(std::string_view compressed, std::string_view label,
                                                         const ShardLimits& limits) {
  const auto fail = [&](const std::string& why) {
    return std::unexpected(fmt::format("{} cannot be used: {}", label, why));
  };
  auto bytes = decompress_bounded(compressed, limits.max_index_bytes, limits);
  if (!bytes) return fail(bytes.error());
  auto handle = unpack_checked(*bytes, limits);
  if (!handle) return fail(handle.error());
  const msgpack::object& root = handle->get();
  if (root.type != msgpack::type::MAP) return fail(fmt::format("it is {}, not a map", type_name(root)));

  ShardIndex index;
  if (const auto* version = find_key(root, "version");
      version && !(version->type == msgpack::type::POSITIVE_INTEGER && version->via.u64 == 1)) {
    return fail("its version is not 1, the only one CEP 16 defines; gpuenv may be too old for this channel");
  }
  if (const auto* info = find_key(root, "info"); info && info->type != msgpack::type::NIL) {
    if (info->type != msgpack::type::MAP) return fail(fmt::format("its info is {}, not a map", type_name(*info)));
    auto base_url = optional_text(*info, "base_url");
    if (!base_url) return fail(base_url.error());
    auto shards_base_url = optional_text(*info, "shards_base_url");
    if (!shards_base_url) return fail(shards_base_url.error());
    index.base_url = std::move(*base_url);
    index.shards_base_url = std::move(*shards_base_url);
  }
  const auto* shards = find_key(root, "shards");
  if (shards == nullptr || shards->type != msgpack::type::MAP) {
    return fail(shards ? fmt::format("its shards are {}, not a map", type_name(*shards))
                       : std::string("it has no shards map"));
  }
  if (shards->via.map.size > limits.max_names) {
    return fail(fmt::format("it lists {} names, more than the {} allowed", shards->via.map.size, limits.max_names));
  }
  std::size_t text_bytes = 0;
  for (std::uint32_t i = 0; i < shards->via.map.size; ++i) {
    const auto& key = shards->via.map.ptr[i].key;
    if (key.type == msgpack::type::STR) text_bytes += key.via.str.size;
  }
  index.shards.reserve(shards->via.map.size, text_bytes);
  for (std::uint32_t i = 0; i < shards->via.map.size; ++i) {
    const auto& entry = shards->via.map.ptr[i];
    if (entry.key.type != msgpack::type::STR) return fail("a package name in its shards map is not a string");
    const std::string_view name = text_of(entry.key);
    if (!is_safe_package_name(name)) {
      return fail(fmt::format("the package name '{}' is not a name a package can have (path or control "
                              "characters)",
                              specs::printable(name.substr(0, 80))));
    }
    auto hash = hash_of(entry.val);
    if (!hash) return fail(fmt::format("the shard hash of '{}' is {}", name, hash.error()));
    index.shards.add(name, *hash);
  }
  index.shards.finish();
  return index;
}

std::expected<ShardRecords, std::string> parse_shard(std::string_view compressed, std::string_view package_name,
                                                     std::string_view label, const ShardLimits& limits) {
  const auto fail = [&](const std::string& why) {
    return std::unexpected(fmt::format("{} cannot be used: {}", label, why));
  };
  auto bytes = decompress_bounded(compressed, limits.max_shard_bytes, limits);
  if (!bytes) return fail(bytes.error());
  auto handle = unpack_checked(*bytes, limits);
  if (!handle) return fail(handle.error());
  const msgpack::object& root = handle->get();
  if (root.type != msgpack::type::MAP) return fail(fmt::format("it is {}, not a map", type_name(root)));

  ShardRecords records;
  std::string scratch;
  // Builds of one name mostly share their dependencies: each is named once.
  std::unordered_set<std::string_view> seen_depends;
  for (const auto key : {std::string_view("packages"), std::string_view("packages.conda")}) {
    const auto* section = find_key(root, key);
    if (section == nullptr || section->type == msgpack::type::NIL) continue;
    if (section->type != msgpack::type::MAP) return fail(fmt::format("its {} is {}, not a map", key, type_name(*section)));
    if (section->via.map.size > limits.max_records) {
      return fail(fmt::format("its {} holds {} records, more than the {} allowed", key, section->via.map.size,
                              limits.max_records));
    }
    auto& out = key == "packages" ? records.packages : records.packages_conda;
    for (std::uint32_t i = 0; i < section->via.map.size; ++i) {
      const auto& entry = section->via.map.ptr[i];
      if (entry.key.type != msgpack::type::STR) return fail(fmt::format("a file name in its {} is not a string", key));
      const std::string_view filename = text_of(entry.key);
      if (!is_safe_file_name(filename)) {
        return fail(fmt::format("the file name '{}' has path characters", specs::printable(filename.substr(0, 120))));
      }
      if (entry.val.type != msgpack::type::MAP) {
        return fail(fmt::format("the record of {} is {}, not a map", filename, type_name(entry.val)));
      }
      if (const auto* name = find_key(entry.val, "name"); name) {
        if (name->type != msgpack::type::STR) return fail(fmt::format("the name of {} is not a string", filename));
        if (text_of(*name) != package_name) {
          return fail(fmt::format("it is the shard of '{}' but holds {}, a record of '{}'", package_name, filename,
                                  specs::printable(text_of(*name).substr(0, 80))));
        }
      }
      if (const auto* depends = find_key(entry.val, "depends"); depends && depends->type != msgpack::type::NIL) {
        if (depends->type != msgpack::type::ARRAY) {
          return fail(fmt::format("the depends of {} are {}, not an array", filename, type_name(*depends)));
        }
        for (std::uint32_t d = 0; d < depends->via.array.size; ++d) {
          const auto& dependency = depends->via.array.ptr[d];
          if (dependency.type != msgpack::type::STR) {
            return fail(fmt::format("a dependency of {} is {}, not a string", filename, type_name(dependency)));
          }
          if (seen_depends.insert(text_of(dependency)).second) records.depends.emplace_back(text_of(dependency));
        }
      }
      std::string json;
      util::JsonWriter writer(json, -1);
      try {
        write_json(writer, entry.val, scratch);
      } catch (const std::invalid_argument& error) {
        return fail(fmt::format("the record of {} holds {}, which repodata cannot carry", filename,
                                std::string_view(error.what()).find("UTF-8") != std::string_view::npos
                                    ? "text that is not UTF-8"
                                    : error.what()));
      }
      out.emplace_back(std::string(filename), std::move(json));
    }
  }
  return records;
}

}  // namespace gpuenv::repodata
