// A spec the user asks to install, update or remove, on the command line or
// in a file (environment.yml, a spec list).
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::environment {

// `text` parsed; refused when it is empty or blank, or when its name is `*`
// (every package). The error quotes the text and says what to write.
std::expected<specs::MatchSpec, std::string> parse_requested_spec(std::string_view text,
                                                                  const specs::ChannelContext& context);

}  // namespace gpuenv::environment
