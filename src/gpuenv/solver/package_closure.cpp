#include "gpuenv/solver/package_closure.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::solver {
namespace {

std::string lower_cased(std::string_view text) {
  std::string result(text);
  for (char& c : result) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return result;
}

// libsolv's pool_conda_matchspec: the name follows the last ':' and ends at
// a space or a version operator.
std::optional<std::string> libsolv_name(std::string_view text) {
  if (const auto colon = text.rfind(':'); colon != std::string_view::npos) text.remove_prefix(colon + 1);
  const auto end = text.find_first_of(" =<>!~");
  const std::string name = lower_cased(text.substr(0, end));
  if (name.find('*') != std::string::npos || name.starts_with('^')) return std::nullopt;
  return name;
}

}  // namespace

std::optional<std::string> dependency_package_name(std::string_view dependency) {
  // The same routing as DependencyInterner: conda's grammar first for what
  // libsolv's parser cannot read.
  if (dependency.find('[') == std::string_view::npos && dependency.find("::") == std::string_view::npos) {
    return libsolv_name(dependency);
  }
  try {
    const auto spec = specs::MatchSpec::parse(dependency);
    return libsolv_name(spec.conda_build_form());
  } catch (const specs::SpecError&) {
    return std::string();  // the solver drops it too
  }
}

ReachableRecords all_records(std::span<const repodata::RepodataIndex* const> indexes) {
  ReachableRecords result;
  for (const auto* index : indexes) {
    auto& offsets = result.offsets.emplace_back();
    for (std::size_t i = 0; i < index->name_count(); ++i) {
      const auto named = index->records_of(i);
      offsets.insert(offsets.end(), named.begin(), named.end());
    }
    std::sort(offsets.begin(), offsets.end());
    result.names += index->name_count();
  }
  return result;
}

ReachableRecords reachable_records(std::span<const repodata::RepodataIndex* const> indexes,
                                   std::span<const specs::MatchSpec> roots, bool follow_dependencies,
                                   std::span<const std::string> root_names) {
  ReachableRecords result;
  result.offsets.resize(indexes.size());
  std::unordered_set<std::string> seen;
  std::vector<std::string> queue;
  const auto visit = [&](std::string name) {
    if (!name.empty() && seen.insert(name).second) queue.push_back(std::move(name));
  };
  for (const auto& name : root_names) visit(name);
  for (const auto& spec : roots) {
    if (const auto exact = spec.name().exact_value()) {
      visit(std::string(*exact));
      continue;
    }
    // A name pattern (search 'cuda-*', or '*'): every name it matches.
    for (const auto* index : indexes) {
      for (std::size_t i = 0; i < index->name_count(); ++i) {
        if (spec.name().matches(index->name(i))) visit(std::string(index->name(i)));
      }
    }
  }

  // Dependency texts repeat across builds: each is read once.
  std::unordered_map<std::string_view, std::optional<std::string>> names_of;
  repodata::RepodataIndex::Decoder decoder;
  repodata::RawRecord record;
  for (std::size_t next = 0; next < queue.size(); ++next) {
    const std::string name = queue[next];
    for (std::size_t k = 0; k < indexes.size(); ++k) {
      const auto offsets = indexes[k]->records_named(name);
      result.offsets[k].insert(result.offsets[k].end(), offsets.begin(), offsets.end());
      if (!follow_dependencies) continue;
      for (const auto offset : offsets) {
        if (!decoder.decode(*indexes[k], offset, record)) {
          result.damaged = true;
          return result;
        }
        for (const auto dependency : record.depends) {
          // Views into the mapping: they outlive the walk.
          auto it = names_of.find(dependency);
          if (it == names_of.end()) it = names_of.emplace(dependency, dependency_package_name(dependency)).first;
          if (!it->second) {
            result.needs_everything = true;
            return result;
          }
          visit(*it->second);
        }
      }
    }
  }
  result.names = queue.size();
  for (auto& offsets : result.offsets) std::sort(offsets.begin(), offsets.end());
  return result;
}

}  // namespace gpuenv::solver
