#include "gpuenv/ci/recipe_graph.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "gpuenv/builder/recipe_order.hpp"

namespace gpuenv::ci {

std::string dependency_name(const recipe::Dependency& dependency) { return build::requirement_name(dependency); }

std::expected<RecipeOrder, CiError> order_recipes(const std::vector<RecipeNode>& nodes) {
  std::map<std::string, std::size_t> builder;  // package name -> the first recipe building it
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    for (const auto& name : nodes[index].outputs) builder.emplace(name, index);
  }
  RecipeOrder result;
  result.needs.resize(nodes.size());
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    std::set<std::size_t> needed;
    for (const auto& name : nodes[index].requires_names) {
      const auto found = builder.find(name);
      // A recipe's own outputs (pin_subpackage between them) build in one job.
      if (found != builder.end() && found->second != index) needed.insert(found->second);
    }
    result.needs[index].assign(needed.begin(), needed.end());
  }
  // Depth-first, so that a cycle is found with its path.
  enum class Mark { unvisited, visiting, done };
  std::vector<Mark> marks(nodes.size(), Mark::unvisited);
  std::vector<std::size_t> path;
  std::optional<CiError> cycle;
  auto visit = [&](auto&& self, std::size_t index) -> void {
    if (cycle || marks[index] == Mark::done) return;
    if (marks[index] == Mark::visiting) {
      const auto start = std::find(path.begin(), path.end(), index);
      std::string text;
      for (auto it = start; it != path.end(); ++it) text += nodes[*it].file + " -> ";
      text += nodes[index].file;
      cycle = CiError{CiError::Kind::cycle, nodes[index].file,
                      fmt::format("the recipes need each other's packages to build, so none can be built first: "
                                  "{}; remove one of these build/host requirements",
                                  text)};
      return;
    }
    marks[index] = Mark::visiting;
    path.push_back(index);
    for (const auto needed : result.needs[index]) self(self, needed);
    path.pop_back();
    marks[index] = Mark::done;
    result.order.push_back(index);
  };
  for (std::size_t index = 0; index < nodes.size(); ++index) visit(visit, index);
  if (cycle) return std::unexpected(*cycle);
  return result;
}

}  // namespace gpuenv::ci
