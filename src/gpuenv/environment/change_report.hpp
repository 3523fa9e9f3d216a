// What `create`, `install`, `update` and `remove --json` print, in conda's
// shapes (docs/json-output.md): the plan's LINK and UNLINK actions, the
// conditional dependencies (CEP 43) and channel messages (CEP 48), and after
// the change what the transaction did. Channel tokens and passwords masked.
#pragma once

#include <string>

#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/plan.hpp"

namespace gpuenv::environment {

// {"success": true, "message": plan.nothing_to_do, "prefix": ...}: a plan
// that changes nothing.
std::string nothing_to_do_json(const Plan& plan);

// {"success": true, "dry_run": true, "prefix": ..., "actions": {"LINK": [...],
// "UNLINK": [...], "PREFIX": ...}}, then "conditions" and "channel_messages"
// when there are any. Each action has name, version, build, build_number,
// channel, subdir, fn, url, sha256 and conda's base_url, build_string,
// dist_name, platform.
std::string dry_run_json(const Plan& plan);

// The same without "dry_run", followed by what `applied` did: "clobbers",
// "warnings", "messages", "downloaded_bytes", "seconds".
std::string applied_change_json(const Plan& plan, const ApplyResult& applied);

}  // namespace gpuenv::environment
