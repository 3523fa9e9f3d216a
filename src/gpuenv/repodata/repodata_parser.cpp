#include "gpuenv/repodata/repodata_parser.hpp"

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <unordered_set>

#include "gpuenv/repodata/json_reading.hpp"
#include "gpuenv/repodata/padded_file.hpp"
#include "gpuenv/repodata/record_reader.hpp"
#include "gpuenv/repodata/repodata_revisions.hpp"
#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::repodata {

ArchiveKind archive_kind_of(std::string_view filename) noexcept {
  return filename.ends_with(".conda") ? ArchiveKind::conda : ArchiveKind::tar_bz2;
}

namespace {

namespace ondemand = simdjson::ondemand;

using specs::is_package_file_name;
using specs::strip_package_extension;

// Where the first invalid UTF-8 sequence starts (simdjson only says that
// there is one).
std::size_t first_invalid_utf8(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
    }
    i += length;
  }
  return text.size();
}

class DocumentParser {
 public:
  DocumentParser(std::string_view text, std::size_t capacity, RecordSink& sink,
                 const ParseOptions& options)
      : text_(text), capacity_(capacity), sink_(sink), options_(options) {
    summary_.bytes = text.size();
  }

  std::expected<ParseSummary, RepodataError> run() {
    ondemand::document document;
    const auto input = simdjson::padded_string_view(text_.data(), text_.size(), capacity_);
    if (auto error = parser_.iterate(input).get(document)) return fail(error, nullptr);
    if (auto error = scan_header(document)) return fail(error, &document);
    sink_.on_header(summary_.header);
    document.rewind();
    if (auto error = emit_records(document)) return fail(error, &document);
    return std::move(summary_);
  }

 private:
  // Pass 1: everything but the records, plus the names of the .conda files,
  // so the header is known before the first record and a .tar.bz2 can be
  // dropped in favour of its .conda whichever section comes first.
  simdjson::error_code scan_header(ondemand::document& document) {
    ondemand::object top;
    if (auto error = document.get_object().get(top)) return error;
    bool has_sections = false;
    bool has_package_keys = false;
    for (auto field_result : top) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      const std::string_view key = json::raw_key(field);
      ondemand::value value = field.value();
      if (key == "info") {
        if (auto error = read_repodata_info(value, summary_.header); error && !json::is_value_error(error)) return error;
      } else if (key == "repodata_version") {
        std::uint64_t version = 1;
        if (auto error = json::read_unsigned(value, version); error && !json::is_value_error(error)) {
          return error;
        }
        summary_.header.repodata_version = static_cast<int>(std::min<std::uint64_t>(version, 1000));
      } else if (key == "removed") {
        std::vector<std::string_view> removed;
        if (auto error = json::read_string_array(value, removed); error && !json::is_value_error(error)) {
          return error;
        }
        for (const auto name : removed) summary_.header.removed.emplace_back(name);
      } else if (key == "packages") {
        has_sections = true;  // skipped whole: only .conda names matter here
      } else if (key == "packages.conda") {
        has_sections = true;
        if (options_.only_tar_bz2) continue;
        if (auto error = collect_conda_names(value)) return error;
      } else if (is_known_revision_key(key)) {
        has_sections = true;
        if (auto error = for_each_revision_section(value, [&](std::string_view extension, ondemand::value& section) {
              if (extension != "conda" || options_.only_tar_bz2) return simdjson::SUCCESS;
              return collect_conda_names(section, ".conda");
            })) {
          return error;
        }
      } else if (is_package_file_name(key)) {
        has_package_keys = true;
        if (key.ends_with(".conda")) conda_stems_.insert(strip_package_extension(key));
      }
    }
    summary_.header.flat_index = !has_sections && has_package_keys;
    return simdjson::SUCCESS;
  }

  // CEP 48's `"v3": {"conda": {stem: record}, "tar.bz2": {...}}`: `visit`
  // gets each extension's object. Extensions other than conda's two are
  // left alone (a future format this gpuenv cannot install).
  template <typename Visit>
  simdjson::error_code for_each_revision_section(ondemand::value& value, Visit&& visit) {
    ondemand::object extensions;
    if (auto error = value.get_object().get(extensions)) {
      return json::is_value_error(error) ? simdjson::SUCCESS : error;
    }
    for (auto field_result : extensions) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      const std::string_view extension = json::raw_key(field);
      if (extension != "conda" && extension != "tar.bz2") continue;
      ondemand::value section = field.value();
      if (auto error = visit(extension, section)) return error;
    }
    return simdjson::SUCCESS;
  }

  // `suffix` ".conda": the keys are v3 stems, without the extension.
  simdjson::error_code collect_conda_names(ondemand::value& value, std::string_view suffix = {}) {
    ondemand::object section;
    if (auto error = value.get_object().get(section)) {
      return json::is_value_error(error) ? simdjson::SUCCESS : error;
    }
    for (auto field_result : section) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      const std::string_view key = json::raw_key(field);
      // Views into the document: a v3 key is the stem itself.
      if (!suffix.empty()) {
        conda_stems_.insert(key);
      } else if (key.ends_with(".conda")) {
        conda_stems_.insert(strip_package_extension(key));
      }
    }
    return simdjson::SUCCESS;
  }

  // Pass 2: the records, in document order.
  simdjson::error_code emit_records(ondemand::document& document) {
    ondemand::object top;
    if (auto error = document.get_object().get(top)) return error;
    for (auto field_result : top) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      const std::string_view key = json::raw_key(field);
      ondemand::value value = field.value();
      if (summary_.header.flat_index) {
        if (!is_package_file_name(key)) continue;
        if (auto error = emit_record(key, value)) return error;
      } else if (key == "packages" || (key == "packages.conda" && !options_.only_tar_bz2)) {
        if (auto error = emit_section(value)) return error;
      } else if (is_known_revision_key(key)) {
        if (auto error = for_each_revision_section(value, [&](std::string_view extension, ondemand::value& section) {
              if (extension == "conda" && options_.only_tar_bz2) return simdjson::SUCCESS;
              return emit_section(section, "." + std::string(extension));
            })) {
          return error;
        }
      }
    }
    return simdjson::SUCCESS;
  }

  // `suffix`: the extension v3 keys leave out (".conda").
  simdjson::error_code emit_section(ondemand::value& value, const std::string& suffix = {}) {
    ondemand::object section;
    if (auto error = value.get_object().get(section)) {
      return json::is_value_error(error) ? simdjson::SUCCESS : error;
    }
    for (auto field_result : section) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      std::string_view filename = json::raw_key(field);
      if (filename.empty()) {
        if (auto error = field.unescaped_key().get(filename)) return error;
      }
      ondemand::value record_value = field.value();
      if (!suffix.empty()) {
        suffixed_.assign(filename).append(suffix);
        filename = suffixed_;
      }
      if (auto error = emit_record(filename, record_value)) return error;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code emit_record(std::string_view filename, ondemand::value& value) {
    const ArchiveKind kind = archive_kind_of(filename);
    if (kind == ArchiveKind::tar_bz2 && conda_stems_.contains(strip_package_extension(filename))) {
      ++summary_.superseded_tar_bz2;
      return simdjson::SUCCESS;
    }
    ondemand::object object;
    if (auto error = value.get_object().get(object)) {
      if (!json::is_value_error(error)) return error;
      skip(filename, "the record is not a JSON object");
      return simdjson::SUCCESS;
    }
    std::string_view problem;
    if (auto error = reader_.read(object, filename, record_, problem)) return error;
    if (!problem.empty()) {
      skip(filename, problem);
      return simdjson::SUCCESS;
    }
    sink_.on_record(record_);
    ++summary_.records;
    if (kind == ArchiveKind::conda) ++summary_.conda_records;
    return simdjson::SUCCESS;
  }

  void skip(std::string_view filename, std::string_view reason) {
    ++summary_.skipped;
    if (summary_.first_skipped.size() < options_.skipped_examples) {
      summary_.first_skipped.push_back({std::string(filename), std::string(reason)});
    }
  }

  std::unexpected<RepodataError> fail(simdjson::error_code error, ondemand::document* document) {
    RepodataError result;
    result.source = options_.source_label;
    std::string reason = simdjson::error_message(error);
    if (error == simdjson::EMPTY) {
      result.message = result.source + " is empty, not repodata JSON";
    } else {
      if (!reason.empty() && reason.back() == '.') reason.pop_back();
      if (error == simdjson::UTF8_ERROR) {
        result.byte_offset = first_invalid_utf8(text_);
      } else if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
        // Found by counting brackets over the whole file: the end is where
        // the missing part would have been.
        result.byte_offset = text_.size();
        reason = "the document ends before all its objects and arrays are closed (it looks truncated)";
      } else if (error == simdjson::UNCLOSED_STRING) {
        reason = "a string is not closed (the file looks truncated)";
      } else if (document != nullptr) {
        const char* location = nullptr;
        if (!document->current_location().get(location) && location >= text_.data() &&
            location <= text_.data() + text_.size()) {
          result.byte_offset = static_cast<std::size_t>(location - text_.data());
        } else {
          // Past the last token: the document ended too early.
          result.byte_offset = text_.size();
          reason += " (the file ends too early: it looks truncated)";
        }
      }
      if (error == simdjson::INCORRECT_TYPE && result.byte_offset == 0) {
        reason = "the document is not a JSON object";
      }
      result.message = result.source + ": invalid repodata JSON";
      if (result.byte_offset) {
        const std::size_t offset = *result.byte_offset;
        const auto before = text_.substr(0, std::min(offset, text_.size()));
        const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
        const auto line_start = before.find_last_of('\n');
        const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
        result.message += " at byte " + std::to_string(offset) + " (line " + std::to_string(line) +
                          ", column " + std::to_string(column) + ")";
      }
      result.message += ": " + reason;
    }
    result.message +=
        "; the file is damaged or is not a channel's repodata.json: fetch it again, or fix the "
        "channel that serves it";
    return std::unexpected(std::move(result));
  }

  std::string_view text_;
  std::size_t capacity_;
  RecordSink& sink_;
  const ParseOptions& options_;
  ondemand::parser parser_;
  RecordReader reader_;
  RawRecord record_;
  // Views into the input document, which outlives both passes.
  std::unordered_set<std::string_view> conda_stems_;
  std::string suffixed_;  // a v3 key with its extension, for the record being read
  ParseSummary summary_;
};

}  // namespace

std::expected<ParseSummary, RepodataError> parse_repodata_file(const std::filesystem::path& path,
                                                               RecordSink& sink,
                                                               const ParseOptions& options) {
  ParseOptions labelled = options;
  if (labelled.source_label.empty()) labelled.source_label = path.string();
  auto file = PaddedFile::open(path, simdjson::SIMDJSON_PADDING);
  if (!file) {
    return std::unexpected(RepodataError{labelled.source_label, std::nullopt,
                                         file.error() + "; check that the channel was fetched"});
  }
  return DocumentParser(file->text(), file->capacity(), sink, labelled).run();
}

std::expected<ParseSummary, RepodataError> parse_repodata_text(std::string_view json,
                                                               RecordSink& sink,
                                                               const ParseOptions& options) {
  ParseOptions labelled = options;
  if (labelled.source_label.empty()) labelled.source_label = "repodata";
  const simdjson::padded_string padded(json);
  return DocumentParser(std::string_view(padded.data(), padded.size()),
                        padded.size() + simdjson::SIMDJSON_PADDING, sink, labelled)
      .run();
}

}  // namespace gpuenv::repodata
