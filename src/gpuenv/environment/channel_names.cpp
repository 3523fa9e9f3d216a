#include "gpuenv/environment/channel_names.hpp"

#include <algorithm>

namespace gpuenv::environment {

std::string channel_name_of(const specs::PackageRecord& record, const solver::ChannelLoadResult& loaded) {
  for (const auto& subdir : loaded.subdirs) {
    if (subdir.source.channel_url == record.channel) return subdir.source.channel_name;
  }
  // conda-meta records name the channel with its subdir ("<url>/linux-64"):
  // shown like the channels above, without it.
  if (!record.subdir.empty() && record.channel.ends_with("/" + record.subdir)) {
    return record.channel.substr(0, record.channel.size() - record.subdir.size() - 1);
  }
  return record.channel;
}

std::vector<std::string> loaded_channel_names(const solver::ChannelLoadResult& loaded) {
  std::vector<std::string> names;
  for (const auto& subdir : loaded.subdirs) {
    if (std::find(names.begin(), names.end(), subdir.source.channel_name) == names.end()) {
      names.push_back(subdir.source.channel_name);
    }
  }
  return names;
}

}  // namespace gpuenv::environment
