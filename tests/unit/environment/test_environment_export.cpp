// `gpuenv env export`'s two document forms of one exported environment.
#include <gtest/gtest.h>

#include "gpuenv/environment/environment_export.hpp"

namespace gpuenv::environment {
namespace {

const ExportedEnvironment kExported{"demo", {"conda-forge"}, {"python=3.12.1=h1_0", "zlib=1.3=0"}, "/envs/demo"};

TEST(EnvironmentExport, TheJsonFormHasTheFourKeysSortedAndEndsInANewline) {
  EXPECT_EQ(environment_json(kExported), R"({
  "channels": [
    "conda-forge"
  ],
  "dependencies": [
    "python=3.12.1=h1_0",
    "zlib=1.3=0"
  ],
  "name": "demo",
  "prefix": "/envs/demo"
}
)");
  EXPECT_EQ(environment_json({"x", {}, {}, "/p"}),
            "{\n  \"channels\": [],\n  \"dependencies\": [],\n  \"name\": \"x\",\n  \"prefix\": \"/p\"\n}\n");
}

TEST(EnvironmentExport, TheYamlFormListsTheSameFacts) {
  EXPECT_EQ(environment_yaml(kExported),
            "name: demo\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.12.1=h1_0\n  - zlib=1.3=0\n"
            "prefix: /envs/demo\n");
}

}  // namespace
}  // namespace gpuenv::environment
