#include "gpuenv/system/probe_transcript.hpp"

#include <charconv>
#include <cstdint>

#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::system {
namespace {

// Driver strings never contain tabs or newlines, but a broken driver could
// return anything: keep the line format intact whatever comes.
void append_sanitized(std::string& out, std::string_view text) {
  for (char c : text) out += (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto tab = line.find('\t');
    fields.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  return fields;
}

template <typename Number>
std::optional<Number> parse_number(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

void apply_device_field(ProbedDevice& probed, std::string_view field, std::string_view value) {
  auto& device = probed.device;
  if (field == "name") {
    device.name = std::string(value);
    probed.has_name = true;
  } else if (field == "cc") {
    if (auto capability = ComputeCapability::parse(value)) {
      device.compute_capability = *capability;
      probed.has_compute_capability = true;
    }
  } else if (field == "memory") {
    if (auto bytes = parse_number<std::uint64_t>(value)) {
      device.memory_bytes = *bytes;
      probed.has_memory = true;
    }
  } else if (field == "uuid") {
    device.uuid = std::string(value);
  } else if (field == "pci") {
    device.pci_bus_id = std::string(value);
  }
}

}  // namespace

void ProbeWriter::line(std::string_view key, std::initializer_list<std::string_view> fields) {
  std::string text(key);
  for (const auto field : fields) {
    text += '\t';
    append_sanitized(text, field);
  }
  text += '\n';
  util::write_all(fd_, text);
}

void ProbeWriter::error(std::string_view function, int code) {
  line("error", {function, std::to_string(code)});
}

const DriverCallError* ProbeTranscript::error_of(std::string_view function) const {
  for (const auto& error : errors) {
    if (error.function == function) return &error;
  }
  return nullptr;
}

ProbeTranscript parse_probe_transcript(std::string_view output) {
  ProbeTranscript transcript;
  while (!output.empty()) {
    const auto newline = output.find('\n');
    // A line without its newline was cut off by a crash: not trustworthy.
    if (newline == std::string_view::npos) break;
    const auto fields = split_tabs(output.substr(0, newline));
    output.remove_prefix(newline + 1);
    const auto key = fields[0];
    const auto field = [&fields](std::size_t i) {
      return i < fields.size() ? fields[i] : std::string_view();
    };
    if (key == "searched") {
      transcript.searched.emplace_back(field(1));
    } else if (key == "load_error") {
      // A bare name ("?") is missing when the loader says it could not find
      // it; its message is the only hint there is.
      const bool missing = field(3) == "0" ||
                           (field(3) != "1" && field(2).find("No such file or directory") != std::string_view::npos);
      transcript.load_errors.push_back({std::string(field(1)), std::string(field(2)), missing});
    } else if (key == "loaded") {
      transcript.loaded_index = parse_number<std::size_t>(field(1));
      transcript.loaded_path = std::string(field(2));
    } else if (key == "missing") {
      transcript.missing_symbols.emplace_back(field(1));
    } else if (key == "call") {
      transcript.last_call = std::string(field(1));
    } else if (key == "error") {
      transcript.errors.push_back({std::string(field(1)), parse_number<int>(field(2)).value_or(-1)});
    } else if (key == "driver_version") {
      transcript.driver_version = parse_number<int>(field(1));
    } else if (key == "device_count") {
      transcript.device_count = parse_number<int>(field(1));
    } else if (key == "device") {
      if (auto index = parse_number<int>(field(1))) {
        auto& probed = transcript.devices[*index];
        probed.device.index = *index;
        apply_device_field(probed, field(2), field(3));
      }
    } else if (key == "release") {
      transcript.driver_release = std::string(field(1));
    } else if (key == "done") {
      transcript.finished = true;
    }
  }
  return transcript;
}

}  // namespace gpuenv::system
