// The channel names the solving commands print: the loaded channel's name
// for its records, a conda-meta record's URL without its subdir otherwise.
#include <gtest/gtest.h>

#include "gpuenv/environment/channel_names.hpp"

namespace gpuenv::environment {
namespace {

solver::ChannelLoadResult loaded_from(std::vector<std::pair<std::string, std::string>> url_and_name) {
  solver::ChannelLoadResult loaded;
  for (const auto& subdir : {"linux-64", "noarch"}) {
    for (const auto& [url, name] : url_and_name) {
      solver::LoadedSubdir each;
      each.source.channel_url = url;
      each.source.channel_name = name;
      each.source.subdir = subdir;
      loaded.subdirs.push_back(each);
    }
  }
  return loaded;
}

specs::PackageRecord from_channel(std::string channel, std::string subdir = "linux-64") {
  specs::PackageRecord record;
  record.name = "zlib";
  record.channel = std::move(channel);
  record.subdir = std::move(subdir);
  return record;
}

TEST(ChannelNames, ARecordOfALoadedChannelGetsThatChannelsName) {
  const auto loaded = loaded_from({{"https://conda.anaconda.org/conda-forge", "conda-forge"},
                                   {"file:///srv/channel", "/srv/channel"}});
  EXPECT_EQ(channel_name_of(from_channel("https://conda.anaconda.org/conda-forge"), loaded), "conda-forge");
  EXPECT_EQ(channel_name_of(from_channel("file:///srv/channel"), loaded), "/srv/channel");
}

TEST(ChannelNames, AnInstalledRecordOfNoLoadedChannelShowsItsUrlWithoutTheSubdir) {
  const auto loaded = loaded_from({});
  EXPECT_EQ(channel_name_of(from_channel("https://repo.example/main/linux-64"), loaded), "https://repo.example/main");
  EXPECT_EQ(channel_name_of(from_channel("https://repo.example/main/noarch", "linux-64"), loaded),
            "https://repo.example/main/noarch");
  EXPECT_EQ(channel_name_of(from_channel("https://repo.example/main", ""), loaded), "https://repo.example/main");
}

TEST(ChannelNames, EachLoadedChannelIsNamedOnceInLoadOrder) {
  const auto loaded = loaded_from({{"https://b.example/b", "b"}, {"https://a.example/a", "a"}});
  EXPECT_EQ(loaded_channel_names(loaded), (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(loaded_channel_names(loaded_from({})).empty());
}

}  // namespace
}  // namespace gpuenv::environment
