#include "gpuenv/generator/generate_pypi.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <set>

#include "gpuenv/builder/sources.hpp"
#include "gpuenv/generator/pep508.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::generate {
namespace {

namespace fs = std::filesystem;

// sdists of pure-Python packages are small; the biggest of the Python stack's are tens of MB.
constexpr std::uint64_t max_sdist_bytes = 512ull << 20;
constexpr std::uint64_t max_unpacked_bytes = 2ull << 30;
constexpr std::size_t max_recursive_recipes = 500;

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 200 || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

struct Scratch {
  fs::path path;
  ~Scratch() {
    std::error_code error;
    if (!path.empty()) fs::remove_all(path, error);
  }
};

std::expected<GeneratedRecipe, std::string> generate_one(const GenerateRequest& request, const PackageRequest& package) {
  const auto log = [&request](const std::string& line) {
    if (request.log) request.log(line);
  };
  log("generate-recipe: " + package.name + (package.version ? "==" + *package.version : "") + ": PyPI's project JSON");
  auto json = fetch_project_json(request.index_url, package.name, request.client);
  if (!json) return std::unexpected(json.error());
  auto version = package.version;
  if (!version && !package.constraint.empty()) {
    version = newest_version_matching(*json, package.constraint);
    if (!version) {
      return std::unexpected(fmt::format("{}: no release with an sdist on PyPI meets {} (what a recipe here needs)",
                                         package.name, package.constraint));
    }
  }
  auto release = select_release(*json, package.name, version, project_json_url(request.index_url, package.name));
  if (!release) return std::unexpected(release.error());
  if (normalize_python_name(release->name) != normalize_python_name(package.name)) {
    return std::unexpected(fmt::format("{}: the index answered for another project, {}", package.name, release->name));
  }
  if (!release->sdist.url.starts_with("https://") && !request.index_url.starts_with("file://")) {
    return std::unexpected(fmt::format("{} {}: its sdist's url {} is not https", release->name, release->version,
                                       release->sdist.url));
  }
  if (release->sdist.size > max_sdist_bytes) {
    return std::unexpected(fmt::format("{} {}: its sdist is {} bytes, more than the 512 MiB gpuenv reads",
                                       release->name, release->version, release->sdist.size));
  }
  Scratch scratch;
  std::error_code error;
  scratch.path = fs::temp_directory_path(error) / fmt::format("gpuenv-generate-{}-{}", ::getpid(), package.name);
  fs::remove_all(scratch.path, error);
  fs::create_directories(scratch.path, error);
  build::SourceSettings settings;
  settings.cache_dir = request.cache_dir;
  settings.client = request.client;
  settings.max_download_bytes = max_sdist_bytes;
  settings.max_unpacked_bytes = max_unpacked_bytes;
  settings.recipe_dir = scratch.path;
  settings.log = [&log](std::string_view line) { log(std::string(line)); };
  recipe::Source source;
  source.kind = recipe::Source::Kind::url;
  source.urls = {release->sdist.url};
  source.sha256 = release->sdist.sha256;
  const auto src_dir = scratch.path / "src";
  if (auto fetched = build::fetch_sources({source}, src_dir, settings); !fetched) {
    return std::unexpected(fmt::format("{} {}: its sdist: {}", release->name, release->version, fetched.error().message));
  }
  auto facts = inspect_sdist(src_dir);
  if (!facts) return std::unexpected(fmt::format("{} {}: {}", release->name, release->version, facts.error()));
  RecipeSources sources{&*release, &*facts, request.names, request.newest_python_minor};
  return write_pypi_recipe(sources);
}

}  // namespace

std::expected<PackageRequest, std::string> parse_package_request(std::string_view text) {
  PackageRequest request;
  const auto equals = text.find("==");
  request.name = std::string(text.substr(0, equals));
  if (equals != std::string_view::npos) request.version = std::string(text.substr(equals + 2));
  if (!valid_name(request.name) || (request.version && (request.version->empty() ||
                                                        request.version->find_first_of("<>=!~;, /") != std::string::npos))) {
    return std::unexpected("'" + std::string(text) + "' is not NAME or NAME==VERSION (a PyPI project name, one "
                           "exact version)");
  }
  return request;
}

std::expected<GenerateResult, std::string> generate_pypi_recipes(const GenerateRequest& request) {
  GenerateResult result;
  std::deque<PackageRequest> queue(request.packages.begin(), request.packages.end());
  std::set<std::string> seen;
  std::vector<GeneratedFile> made;
  while (!queue.empty()) {
    const auto package = queue.front();
    queue.pop_front();
    const auto name = conda_name(*request.names, package.name);
    const auto spec = package.constraint.empty() ? name : name + " " + package.constraint;
    if (!seen.insert(spec).second) continue;
    if (made.size() >= max_recursive_recipes) {
      return std::unexpected(fmt::format("more than {} recipes to write: stopped at {}", max_recursive_recipes, package.name));
    }
    const auto file = request.output_dir / name / "recipe.yaml";
    std::error_code error;
    const bool given = package.needed_by.empty();
    const auto made_here = std::find_if(made.begin(), made.end(), [&](const GeneratedFile& each) { return each.recipe.name == name; });
    if (!given && made_here != made.end()) {
      // Written in this run already (asked for, or for another recipe's
      // constraint): one recipe per name; a constraint it may not meet is said.
      if (!package.constraint.empty()) {
        result.not_needed.push_back(fmt::format("{} (needed by {}; {} {} is written: check they fit)", spec,
                                                package.needed_by, name, made_here->recipe.version));
      }
      continue;
    }
    if (!given && fs::exists(file, error)) {
      result.not_needed.push_back(spec + " (a recipe in " + request.output_dir.string() + ")");
      continue;
    }

    if (!given && request.in_channels && request.in_channels(spec)) {
      result.not_needed.push_back(spec + " (in the channels)");
      continue;
    }
    if (given && fs::exists(file, error) && !request.overwrite) {
      return std::unexpected(fmt::format("{} exists: pass --overwrite to replace it", file.string()));
    }
    auto recipe = generate_one(request, package);
    if (!recipe) return std::unexpected(recipe.error());
    if (request.recursive) {
      // The requirement's PyPI name is its conda name where no mapping
      // differs; a mapped one is looked up by its PyPI name below.
      for (const auto& needed : recipe->needed) {
        queue.push_back(PackageRequest{needed.pypi, std::nullopt, needed.version, recipe->name});
      }
    }
    made.push_back(GeneratedFile{file, std::move(*recipe)});
  }
  for (auto& each : made) {
    std::error_code error;
    fs::create_directories(each.recipe_file.parent_path(), error);
    if (error) return std::unexpected(fmt::format("cannot create {}: {}", each.recipe_file.parent_path().string(), error.message()));
    if (auto written = util::write_file_atomically(each.recipe_file, each.recipe.text)) {
      return std::unexpected(fmt::format("cannot write {}: {}", each.recipe_file.string(), *written));
    }
    result.written.push_back(std::move(each));
  }
  return result;
}

}  // namespace gpuenv::generate
