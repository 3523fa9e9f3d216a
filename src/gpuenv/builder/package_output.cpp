#include "gpuenv/builder/package_output.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "gpuenv/builder/license_files.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;
using json = nlohmann::json;  // keys sorted, as conda-build's json.dump(sort_keys=True)

namespace {

// "linux-64" -> ("x86_64", "linux"), as conda-build fills arch and platform.
std::pair<std::string, std::string> arch_and_platform(const std::string& subdir) {
  const auto dash = subdir.find('-');
  const std::string os = subdir.substr(0, dash);
  std::string arch = dash == std::string::npos ? "" : subdir.substr(dash + 1);
  if (arch == "64") arch = "x86_64";
  if (arch == "32") arch = "x86";
  return {arch, os};
}

json about_json(const recipe::About& about) {
  json document = json::object();
  if (about.homepage) document["home"] = *about.homepage;
  if (about.repository) document["dev_url"] = *about.repository;
  if (about.documentation) document["doc_url"] = *about.documentation;
  if (about.license) document["license"] = *about.license;
  if (about.license_family) document["license_family"] = *about.license_family;
  if (!about.license_file.empty()) document["license_file"] = about.license_file;
  if (about.summary) document["summary"] = *about.summary;
  if (about.description) document["description"] = *about.description;
  return document;
}

const recipe::About& about_of(const recipe::RenderedVariant& variant) {
  const auto& recipe = variant.recipe;
  if (variant.output_index < recipe.outputs.size() && recipe.outputs[variant.output_index].about) {
    return *recipe.outputs[variant.output_index].about;
  }
  return recipe.about;
}

const recipe::Build& build_of(const recipe::RenderedVariant& variant) {
  const auto& recipe = variant.recipe;
  return variant.output_index < recipe.outputs.size() ? recipe.outputs[variant.output_index].build : recipe.build;
}

json run_exports_json(const ExportedSpecs& exports) {
  json document = json::object();
  const auto add = [&](const char* key, const std::vector<std::string>& list) {
    if (!list.empty()) document[key] = list;
  };
  add("noarch", exports.noarch);
  add("strong", exports.strong);
  add("strong_constrains", exports.strong_constrains);
  add("weak", exports.weak);
  add("weak_constrains", exports.weak_constrains);
  return document;
}

std::string variant_yaml(const recipe::Variant& variant) {
  std::string text;
  for (const auto& [key, value] : variant) text += key + ": " + json(value.display()).dump() + "\n";
  return text;
}

package::PackageMember text_member(std::string path, std::string content, std::int64_t mtime) {
  package::PackageMember member;
  member.path = std::move(path);
  member.content = std::move(content);
  member.mtime = mtime;
  return member;
}

}  // namespace

std::string package_file_name(const recipe::RenderedVariant& variant, package::ArchiveFormat format) {
  return variant.output_name + "-" + variant.output_version + "-" + variant.build_string +
         std::string(package::extension_of(format));
}

std::string index_json_text(const PackageOutput& output) {
  const auto& variant = *output.variant;
  const auto& requirements = output.requirements;
  const auto& build = build_of(variant);
  json index = {{"build", variant.build_string},
                {"build_number", build.number},
                {"depends", requirements.run},
                {"name", variant.output_name},
                {"subdir", output.subdir},
                {"timestamp", output.timestamp * 1000},
                {"version", variant.output_version}};
  // A noarch package has neither, as rattler-build writes it.
  if (output.subdir != "noarch") {
    const auto [arch, platform] = arch_and_platform(output.subdir);
    index["arch"] = arch;
    index["platform"] = platform;
  }
  if (!requirements.run_constraints.empty()) index["constrains"] = requirements.run_constraints;
  const auto& about = about_of(variant);
  if (about.license) index["license"] = *about.license;
  if (about.license_family) index["license_family"] = *about.license_family;
  if (build.noarch) index["noarch"] = *build.noarch;
  // build.variant.down_prioritize_variant: N track features make the solver
  // prefer the other variants (a CPU build below the CUDA ones); named as
  // rattler-build names them ("<name>-p-0 <name>-p-1"). Bounded: the solver
  // counts them, and a recipe's number is outside input.
  const auto down = std::clamp<std::int64_t>(build.variant.down_prioritize_variant, 0, 100);
  std::string track_features;
  for (std::int64_t i = 0; i < down; ++i) {
    track_features += (i > 0 ? " " : "") + variant.output_name + "-p-" + std::to_string(i);
  }
  if (!track_features.empty()) index["track_features"] = track_features;
  return index.dump(2);
}

std::expected<fs::path, BuildError> write_package_output(const PackageOutput& output,
                                                         const std::vector<NewPrefixFile>& files,
                                                         const fs::path& output_dir) {
  const auto& variant = *output.variant;
  const auto mtime = output.timestamp;
  std::vector<package::PackageMember> members;
  package::PathsJson paths;
  std::string file_list;
  for (const auto& file : files) {
    package::PackageMember member;
    member.path = file.entry.path;
    member.mtime = mtime;
    member.mode = file.mode;
    if (file.entry.path_type == package::PathType::softlink) {
      member.kind = package::PackageMember::Kind::symlink;
      member.link_target = file.link_target;
    } else {
      member.source = file.source;
    }
    members.push_back(std::move(member));
    paths.paths.push_back(file.entry);
    file_list += file.entry.path + "\n";
  }
  const auto& requirements = output.requirements;
  members.push_back(text_member("info/index.json", index_json_text(output), mtime));
  members.push_back(text_member("info/paths.json", package::paths_json_text(paths), mtime));
  members.push_back(text_member("info/files", file_list, mtime));
  auto about = about_json(about_of(variant));
  if (!output.source_override_json.empty()) {
    about["extra"]["gpuenv_source_override"] = json::parse(output.source_override_json);
  }
  members.push_back(text_member("info/about.json", about.dump(2), mtime));
  if (!requirements.run_exports.empty()) {
    members.push_back(text_member("info/run_exports.json", run_exports_json(requirements.run_exports).dump(2), mtime));
  }
  auto licenses = collect_license_files(about_of(variant).license_file, output.src_dir, output.recipe_dir);
  if (!licenses) return std::unexpected(licenses.error());
  for (const auto& license : *licenses) {
    package::PackageMember member;
    member.path = "info/licenses/" + license.relative;
    member.mtime = mtime;
    member.mode = 0644;
    member.source = license.source;
    members.push_back(std::move(member));
  }
  members.push_back(text_member("info/hash_input.json", variant.hash_input, mtime));
  members.push_back(text_member("info/recipe/recipe.yaml", output.recipe_text, mtime));
  members.push_back(text_member("info/recipe/variant_config.yaml", variant_yaml(variant.variant), mtime));
  members.insert(members.end(), output.extra_members.begin(), output.extra_members.end());
  // Sorted; in a .tar.bz2 info/ comes first, as rattler-build and
  // conda-package-handling write it, so a reader of the metadata stops early.
  const bool info_first = output.format.archive == package::ArchiveFormat::tar_bz2;
  using package::PackageMember;
  std::sort(members.begin(), members.end(), [info_first](const PackageMember& a, const PackageMember& b) {
    if (info_first) {
      const bool a_info = a.path.starts_with("info/");
      const bool b_info = b.path.starts_with("info/");
      if (a_info != b_info) return a_info;
    }
    return a.path < b.path;
  });

  const auto target = output_dir / output.subdir / package_file_name(variant, output.format.archive);
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) {
    return std::unexpected(BuildError{BuildErrorKind::packaging,
                                      "cannot create " + target.parent_path().string() + ": " + error.message()});
  }
  try {
    package::write_package_members(target, members, {.compression_level = output.format.compression_level});
  } catch (const package::PackageError& failure) {
    return std::unexpected(BuildError{BuildErrorKind::packaging, failure.what()});
  }
  return target;
}

}  // namespace gpuenv::build
