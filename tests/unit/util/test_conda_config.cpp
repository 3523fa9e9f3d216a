// conda's configuration merge rules (conda.common.configuration), on files
// written into a scratch directory and environments given as values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuenv/util/conda_config.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::util {
namespace {

using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using Strings = std::vector<std::string>;

// Files written in the order given: the first is the lowest precedence.
class CondaConfigFiles : public ::testing::Test {
 protected:
  std::filesystem::path file(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    write_text_file(path, text);
    paths_.push_back(path);
    return path;
  }
  std::expected<CondaConfig, std::string> load(std::map<std::string, std::string, std::less<>> env = {}) {
    return load_conda_config(paths_, fixed_environment(std::move(env)));
  }
  CondaConfig loaded(std::map<std::string, std::string, std::less<>> env = {}) {
    auto config = load(std::move(env));
    EXPECT_TRUE(config) << config.error();
    return config ? *config : CondaConfig{};
  }
  std::string error(std::map<std::string, std::string, std::less<>> env = {}) {
    auto config = load(std::move(env));
    EXPECT_FALSE(config) << "loaded without an error";
    return config ? std::string() : config.error();
  }

  TempDirectory dir_;
  std::vector<std::filesystem::path> paths_;
};

TEST_F(CondaConfigFiles, NothingConfiguredGivesCondasDefaults) {
  file("empty.yml", "");
  file("null-values.yml", "channels:\nchannel_alias:\n");
  const auto config = loaded();
  EXPECT_TRUE(config.channels.empty());
  EXPECT_FALSE(config.default_channels);
  EXPECT_FALSE(config.channel_alias);
  EXPECT_EQ(config.channel_priority, ChannelPrioritySetting::flexible);
  EXPECT_TRUE(config.pinned_packages.empty());
  EXPECT_FALSE(config.offline);
  EXPECT_TRUE(config.ssl_verify);
  EXPECT_EQ(config.files.size(), 2u);
  EXPECT_EQ(config.origin_of("channels"), "");
}

TEST_F(CondaConfigFiles, ListsPutHigherPrecedenceEntriesFirstEachOnce) {
  file("system.yml", "channels:\n  - a\n  - b\n");
  const auto user = file("user.yml", "channels: [c, a]\n");
  const auto config = loaded();
  EXPECT_EQ(config.channels, (Strings{"c", "a", "b"}));
  EXPECT_EQ(config.origin_of("channels", "a"), user.string() + ":1");
  EXPECT_EQ(config.origin_of("channels", "b"), (dir_ / "system.yml").string() + ":3");
}

TEST_F(CondaConfigFiles, ASingleValueTakesTheHighestPrecedence) {
  file("system.yml", "channel_priority: strict\nchannel_alias: https://mirror.example/conda\n");
  const auto user = file("user.yml", "# the user's choice\nchannel_priority: disabled\n");
  const auto config = loaded();
  EXPECT_EQ(config.channel_priority, ChannelPrioritySetting::disabled);
  EXPECT_EQ(config.origin_of("channel_priority"), user.string() + ":2");
  EXPECT_EQ(config.channel_alias, "https://mirror.example/conda");
}

TEST_F(CondaConfigFiles, FinalInALowerFileLocksTheSetting) {
  file("system.yml",
       "channel_priority: strict  #!final\n"
       "channels: #!final\n"
       "  - approved\n"
       "pinned_packages:\n"
       "  - cuda-version 12.*\n");
  file("user.yml",
       "channel_priority: disabled\n"
       "channels: [anything]\n"
       "pinned_packages: [numpy 1.26.*]\n");
  const auto config = loaded({{"CONDA_CHANNELS", "from-env"}});
  EXPECT_EQ(config.channel_priority, ChannelPrioritySetting::strict);
  EXPECT_EQ(config.channels, Strings{"approved"});
  // Not marked final: merged as usual.
  EXPECT_EQ(config.pinned_packages, (Strings{"numpy 1.26.*", "cuda-version 12.*"}));
}

TEST_F(CondaConfigFiles, AnOrdinaryCommentIsNotAMarker) {
  file("system.yml", "channel_priority: strict  # the site's choice\n");
  file("user.yml", "channel_priority: flexible\n");
  EXPECT_EQ(loaded().channel_priority, ChannelPrioritySetting::flexible);
}

TEST_F(CondaConfigFiles, AMarkerInsideQuotesIsText) {
  file("system.yml", "channel_alias: \"https://mirror.example/a #!final\"\n");
  file("user.yml", "channel_alias: https://other.example\n");
  EXPECT_EQ(loaded().channel_alias, "https://other.example");
}

TEST_F(CondaConfigFiles, TopAndBottomMarkersMoveListEntries) {
  file("system.yml", "channels:\n  - a  #!top\n  - b\n");
  file("user.yml", "channels:\n  - c  #!bottom\n  - d\n");
  // Without markers: c d a b. conda's rule puts a first and c last.
  EXPECT_EQ(loaded().channels, (Strings{"a", "d", "b", "c"}));
}

TEST_F(CondaConfigFiles, MapsMergeByKeyAndAFinalKeyKeepsItsValue) {
  file("system.yml",
       "custom_channels:\n"
       "  internal: https://repo.corp/conda  #!final\n"
       "  shared: https://old.example\n");
  file("user.yml",
       "custom_channels:\n"
       "  internal: https://elsewhere.example\n"
       "  shared: https://new.example/\n"
       "  mine: file:///srv/mine\n"
       "custom_multichannels:\n"
       "  gpu: [nvidia, conda-forge]\n");
  const auto config = loaded();
  EXPECT_EQ(config.custom_channels, (std::map<std::string, std::string>{{"internal", "https://repo.corp/conda"},
                                                                        {"mine", "file:///srv/mine"},
                                                                        {"shared", "https://new.example"}}));
  EXPECT_EQ(config.custom_multichannels.at("gpu"), (Strings{"nvidia", "conda-forge"}));
}

TEST_F(CondaConfigFiles, EnvironmentVariablesComeAfterTheFiles) {
  file("user.yml",
       "channels: [a]\n"
       "channel_priority: disabled\n"
       "pinned_packages: [python 3.12.*]\n"
       "offline: false\n"
       "subdir: linux-64\n");
  const auto config = loaded({{"CONDA_CHANNELS", "x, y,,"},
                              {"CONDA_CHANNEL_PRIORITY", "strict"},
                              {"CONDA_PINNED_PACKAGES", "numpy >=1.26,<2&cuda-version 12.*"},
                              {"CONDA_OFFLINE", "yes"},
                              {"CONDA_SUBDIR", "linux-aarch64"}});
  EXPECT_EQ(config.channels, (Strings{"x", "y", "a"}));
  EXPECT_EQ(config.origin_of("channels", "x"), "$CONDA_CHANNELS");
  EXPECT_EQ(config.channel_priority, ChannelPrioritySetting::strict);
  EXPECT_EQ(config.origin_of("channel_priority"), "$CONDA_CHANNEL_PRIORITY");
  // `&` separates pins; commas belong to the specs.
  EXPECT_EQ(config.pinned_packages, (Strings{"numpy >=1.26,<2", "cuda-version 12.*", "python 3.12.*"}));
  EXPECT_TRUE(config.offline);
  EXPECT_EQ(config.subdir, "linux-aarch64");
}

TEST_F(CondaConfigFiles, ImportantOnAVariableIsNotPartOfTheValue) {
  EXPECT_EQ(loaded({{"CONDA_CHANNEL_PRIORITY", "strict!important"}}).channel_priority,
            ChannelPrioritySetting::strict);
}

TEST_F(CondaConfigFiles, OldBooleanChannelPriorityStillReads) {
  file("a.yml", "channel_priority: false\n");
  EXPECT_EQ(loaded().channel_priority, ChannelPrioritySetting::disabled);
  EXPECT_EQ(loaded({{"CONDA_CHANNEL_PRIORITY", "True"}}).channel_priority, ChannelPrioritySetting::flexible);
}

TEST_F(CondaConfigFiles, VariablesAndHomeAreExpandedWhereCondaExpandsThem) {
  file("user.yml",
       "channel_alias: ${MIRROR}/conda\n"
       "default_channels: [$MIRROR/main, $UNSET_VARIABLE/r]\n"
       "envs_dirs: [~/envs]\n"
       "pinned_packages: [foo $MIRROR]\n");
  const auto config = loaded({{"MIRROR", "https://mirror.example"}, {"HOME", "/home/u"},
                              {"CONDA_PKGS_DIRS", "/cache/a,/cache/b"}, {"CONDA_ENVS_DIRS", "/e1:/e2"}});
  EXPECT_EQ(config.channel_alias, "https://mirror.example/conda");
  EXPECT_EQ(config.default_channels, (Strings{"https://mirror.example/main", "$UNSET_VARIABLE/r"}));
  EXPECT_EQ(config.envs_dirs, (Strings{"/e1", "/e2", "/home/u/envs"}));
  EXPECT_EQ(config.pkgs_dirs, (Strings{"/cache/a", "/cache/b"}));
  // conda does not expand variables in pins.
  EXPECT_EQ(config.pinned_packages, Strings{"foo $MIRROR"});
}

TEST_F(CondaConfigFiles, SslVerifyTakesABooleanOrACertificatePath) {
  const auto bundle = file("ca.pem", "not parsed here\n");
  paths_.pop_back();
  file("a.yml", "ssl_verify: " + bundle.string() + "\n");
  auto config = loaded();
  EXPECT_TRUE(config.ssl_verify);
  EXPECT_EQ(config.ssl_ca_path, bundle.string());
  config = loaded({{"CONDA_SSL_VERIFY", "false"}});
  EXPECT_FALSE(config.ssl_verify);
}

TEST_F(CondaConfigFiles, KeysGpuenvDoesNotUseAreIgnored) {
  file("a.yml", "auto_activate_base: true\nchannels: [a]\n");
  EXPECT_EQ(loaded().channels, Strings{"a"});
}

TEST_F(CondaConfigFiles, AlwaysYesIsReadAsCondaReadsIt) {
  EXPECT_FALSE(loaded().always_yes);
  file("a.yml", "always_yes: true\n");
  EXPECT_TRUE(loaded().always_yes);
  EXPECT_FALSE(loaded({{"CONDA_ALWAYS_YES", "false"}}).always_yes);  // the variable wins over the file
  EXPECT_TRUE(loaded({{"CONDA_ALWAYS_YES", "y"}}).always_yes);
  EXPECT_NE(error({{"CONDA_ALWAYS_YES", "sure"}}).find("$CONDA_ALWAYS_YES: always_yes 'sure' must be true or false"),
            std::string::npos);
}

TEST_F(CondaConfigFiles, ClientCertificatesAndProxyServersAreRead) {
  file("a.yml", "client_cert: ~/client.pem\nproxy_servers:\n  http: http://proxy:8080\n  https://repo.example.com: "
                "http://${PROXY_USER}@proxy:3128\n");
  file("b.yml", "client_ssl_cert_key: /keys/client.key\nproxy_servers: {http: http://other:8080}\n");
  const auto config = loaded({{"HOME", "/home/me"}, {"PROXY_USER", "me"}});
  EXPECT_EQ(config.client_ssl_cert, "/home/me/client.pem");
  EXPECT_EQ(config.client_ssl_cert_key, "/keys/client.key");
  EXPECT_EQ(config.proxy_servers, (std::map<std::string, std::string>{
                                      {"http", "http://other:8080"},
                                      {"https://repo.example.com", "http://me@proxy:3128"}}));
}

// conda: "'client_ssl_cert' is required when 'client_ssl_cert_key' is defined".
TEST_F(CondaConfigFiles, AClientKeyWithoutItsCertificateIsAnError) {
  file("a.yml", "client_ssl_cert_key: /keys/client.key\n");
  EXPECT_NE(error().find("client_ssl_cert_key is set but client_ssl_cert is not"), std::string::npos);
}

TEST_F(CondaConfigFiles, InvalidYamlNamesTheFileAndLine) {
  const auto bad = file("broken.yml", "channels:\n  - a\n  - [b\nchannel_priority: strict\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":"), std::string::npos) << message;
  EXPECT_NE(message.find("not valid YAML"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, AWrongChannelPriorityNamesTheLineAndTheChoices) {
  const auto bad = file("user.yml", "channels: [a]\nchannel_priority: strictest\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":2"), std::string::npos) << message;
  EXPECT_NE(message.find("channel_priority 'strictest'"), std::string::npos) << message;
  EXPECT_NE(message.find("strict, flexible, disabled"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, AValueOfTheWrongShapeNamesTheKey) {
  const auto bad = file("user.yml", "\nchannels: conda-forge\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":2: `channels` must be a list"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, ANestedListEntryNamesItsLine) {
  const auto bad = file("user.yml", "pinned_packages:\n  - numpy\n  - [a, b]\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":3: each entry of `pinned_packages`"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, AFileMustBeAMapOfSettings) {
  const auto bad = file("user.yml", "- conda-forge\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":1: a configuration file must be a map"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, ASettingGivenTwiceInOneFileIsAnError) {
  const auto bad = file("user.yml", "channels: [a]\nchannel_priority: strict\nchannels: [b]\n");
  auto message = error();
  EXPECT_NE(message.find(bad.string() + ":3: `channels` is set twice (first on line 1)"), std::string::npos)
      << message;

  paths_.clear();
  const auto aliased = file("aliased.yml", "channel: [a]\nchannels: [b]\n");
  message = error();
  EXPECT_NE(message.find(aliased.string() + ":2: `channels` and `channel`"), std::string::npos) << message;
}

TEST_F(CondaConfigFiles, AChannelAliasNeedsAScheme) {
  const auto bad = file("user.yml", "channel_alias: mirror.example/conda\n");
  const auto message = error();
  EXPECT_NE(message.find(bad.string() + ":1: channel_alias 'mirror.example/conda' must be a URL with a scheme"),
            std::string::npos)
      << message;
}

TEST_F(CondaConfigFiles, AnOfflineValueMustBeABoolean) {
  EXPECT_NE(error({{"CONDA_OFFLINE", "sometimes"}}).find("$CONDA_OFFLINE: offline 'sometimes' must be true or false"),
            std::string::npos);
}

TEST_F(CondaConfigFiles, TheDeviceCodeCheckAfterInstallsIsOnUnlessTurnedOff) {
  EXPECT_TRUE(loaded().gpuenv_check_device_code);
  file("user.yml", "gpuenv_check_device_code: false\n");
  EXPECT_FALSE(loaded().gpuenv_check_device_code);
  EXPECT_TRUE(loaded({{"CONDA_GPUENV_CHECK_DEVICE_CODE", "true"}}).gpuenv_check_device_code);
  EXPECT_NE(error({{"CONDA_GPUENV_CHECK_DEVICE_CODE", "maybe"}})
                .find("$CONDA_GPUENV_CHECK_DEVICE_CODE: gpuenv_check_device_code 'maybe' must be true or false"),
            std::string::npos);
}

TEST_F(CondaConfigFiles, TheSolveMemoIsOnUnlessTurnedOff) {
  EXPECT_TRUE(loaded().gpuenv_solve_memo);
  file("user.yml", "gpuenv_solve_memo: false\n");
  EXPECT_FALSE(loaded().gpuenv_solve_memo);
  EXPECT_TRUE(loaded({{"CONDA_GPUENV_SOLVE_MEMO", "true"}}).gpuenv_solve_memo);
  EXPECT_NE(error({{"CONDA_GPUENV_SOLVE_MEMO", "sometimes"}})
                .find("$CONDA_GPUENV_SOLVE_MEMO: gpuenv_solve_memo 'sometimes' must be true or false"),
            std::string::npos);
}

// conda's search path as resolve_user_directories lays it out: the files
// of the home directory, then $CONDA_PREFIX's, then $CONDARC's.
TEST(CondaConfigSearchPath, LaterPlacesTakePrecedence) {
  TempDirectory dir;
  write_text_file(dir / "home/.condarc", "channels: [home]\n");
  write_text_file(dir / "home/.conda/condarc.d/10-site.yml", "channels: [conda-dir]\n");
  write_text_file(dir / "xdg/conda/condarc", "channels: [xdg]\n");
  write_text_file(dir / "prefix/.condarc", "channels: [prefix]\n");
  write_text_file(dir / "custom.yaml", "channels: [condarc]\n");
  write_text_file(dir / "xdg/gpuenv/config.yaml", "channel_priority: strict\n");
  const auto config = load_conda_config(fixed_environment({{"HOME", (dir / "home").string()},
                                                           {"XDG_CONFIG_HOME", (dir / "xdg").string()},
                                                           {"GPUENV_ROOT_PREFIX", (dir / "root").string()},
                                                           {"CONDA_PREFIX", (dir / "prefix").string()},
                                                           {"CONDARC", (dir / "custom.yaml").string()}}));
  ASSERT_TRUE(config) << config.error();
  // A system-wide /etc/conda file, if this machine has one, adds entries at the end.
  ASSERT_GE(config->channels.size(), 5u);
  EXPECT_EQ(Strings(config->channels.begin(), config->channels.begin() + 5),
            (Strings{"condarc", "prefix", "home", "conda-dir", "xdg"}));
  EXPECT_EQ(config->channel_priority, ChannelPrioritySetting::strict);
  EXPECT_EQ(config->files.back(), dir / "xdg/gpuenv/config.yaml");
}

}  // namespace
}  // namespace gpuenv::util
