#include "gpuenv/solver/explanation.hpp"

#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"
#include "gpuenv/specs/version_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

namespace gpuenv::solver {
namespace {

constexpr int max_depth = 6;
constexpr std::size_t max_groups = 4;
constexpr std::size_t missing_names_shown = 3;
// How deep a tree that ran out of budget is shown.
constexpr int trimmed_depth = 3;

bool is_virtual_name(std::string_view dependency) { return dependency.starts_with("__"); }

std::string dependency_name(std::string_view dependency) {
  const auto end = dependency.find_first_of(" =<>!~");
  return std::string(dependency.substr(0, end));
}

// Why one package cannot be installed, as a phrase about it ("needs X, ...")
// or, for virtual package failures, a whole sentence naming it.
struct Reason {
  Reason(std::string text_, bool whole_sentence_, std::vector<ProblemNode> children_ = {},
         std::string virtual_dependency_ = {}, bool other_builds_fit_ = false, bool constraint_ = false)
      : text(std::move(text_)),
        whole_sentence(whole_sentence_),
        children(std::move(children_)),
        virtual_dependency(std::move(virtual_dependency_)),
        other_builds_fit(other_builds_fit_),
        constraint(constraint_) {}

  std::string text;
  bool whole_sentence = false;
  std::vector<ProblemNode> children;
  // For a missing or too old virtual package: the requirement, to merge
  // the builds of one package that all fail on it.
  std::string virtual_dependency;
  bool other_builds_fit = false;
  bool constraint = false;  // the virtual requirement is a `constrains` entry
};

// The lowest version a requirement like `__cuda >=11.8` admits; nullopt for
// anything but a single lower bound.
std::optional<specs::Version> lower_bound_of(const std::string& dependency) {
  const auto space = dependency.find(' ');
  if (space == std::string::npos) return std::nullopt;
  try {
    const auto spec = specs::VersionSpec::parse(dependency.substr(space + 1));
    const auto op = spec.single_operator();
    if ((op == specs::VersionOperator::greater_equal || op == specs::VersionOperator::greater ||
         op == specs::VersionOperator::starts_with) &&
        spec.single_version() != nullptr) {
      return *spec.single_version();
    }
  } catch (const specs::SpecError&) {
  }
  return std::nullopt;
}

constexpr std::string_view cut_short_text =
    "... and more: the conflict is too large to explain in full (the first reasons are above)";

class TreeBuilder {
 public:
  TreeBuilder(const ProblemGraph& graph, const MachineFacts& machine, const ExplanationLimits& limits)
      : graph_(graph),
        machine_(machine),
        steps_left_(limits.steps),
        deadline_(std::chrono::steady_clock::now() + limits.time) {
    requirements_of_.resize(graph.packages.size());
    conflicts_of_.resize(graph.packages.size());
    exclusions_of_.resize(graph.packages.size());
    for (std::size_t i = 0; i < graph.requirements.size(); ++i) {
      requirements_of_[graph.requirements[i].package].push_back(i);
    }
    for (std::size_t i = 0; i < graph.conflicts.size(); ++i) {
      conflicts_of_[graph.conflicts[i].package].push_back(i);
      if (graph.conflicts[i].other != graph.conflicts[i].package) {
        conflicts_of_[graph.conflicts[i].other].push_back(i);
      }
    }
    for (std::size_t i = 0; i < graph.exclusions.size(); ++i) {
      exclusions_of_[graph.exclusions[i].package].push_back(i);
    }
  }

  ProblemTree job_tree(const ProblemGraph::Job& job) {
    ProblemTree tree;
    const char* verb = job.kind == ProblemGraph::JobKind::update   ? "update"
                       : job.kind == ProblemGraph::JobKind::remove ? "remove"
                                                                   : "install";
    tree.root.text = fmt::format("cannot {} {}", verb, job.spec);
    std::vector<std::size_t> path;
    tree.root.children = package_groups(job.candidates, path, 1);
    if (tree.root.children.empty()) {
      tree.root.text += job.candidates.empty()
                            ? ": no package matches it"
                            : ": it cannot be installed together with the rest of the request";
    }
    tree.key_reason = first_leaf(tree.root);
    if (cut_short_said_) {
      // The shorter message: the first levels, and a note saying so.
      drop_cut_short_notes(tree.root);
      trim(tree.root, trimmed_depth);
      tree.root.children.push_back({std::string(cut_short_text), {}});
    }
    return tree;
  }

 private:
  std::string label(std::size_t index) const {
    const auto& package = graph_.packages[index];
    std::string text = package.name + " " + package.version;
    if (!package.build.empty() && !package.is_virtual) text += " " + package.build;
    if (package.installed && !package.is_virtual) text += " (installed)";
    return text;
  }

  // Each package's reasons are worked out on every path that reaches it,
  // so a tangled graph (a sudoku: every cell needs twenty others) grows a
  // tree exponential in the depth. A budget of steps and time bounds it.
  bool spend_step() {
    if (cut_short_) return false;
    if (steps_left_ == 0 || ((steps_left_ % 256) == 0 && std::chrono::steady_clock::now() > deadline_)) {
      cut_short_ = true;
      return false;
    }
    --steps_left_;
    return true;
  }

  std::vector<Reason> reasons(std::size_t package, std::vector<std::size_t>& path, int depth) {
    std::vector<Reason> result;
    const std::string name = label(package);
    // Packages no channel has at all are listed together: a package built
    // for another channel often needs dozens of them.
    std::vector<std::string> missing;
    for (const std::size_t index : requirements_of_[package]) {
      const auto& requirement = graph_.requirements[index];
      if (requirement.providers.empty()) {
        if (is_virtual_name(requirement.dependency)) {
          result.push_back({virtual_requirement_text(
                                machine_, {name, requirement.dependency, false, requirement.other_builds_fit}),
                            true, {}, requirement.dependency, requirement.other_builds_fit});
        } else if (requirement.available_versions.empty()) {
          missing.push_back(dependency_name(requirement.dependency));
        } else {
          result.push_back({fmt::format("needs {}, but no version of {} matches (there is {})",
                                        requirement.dependency, dependency_name(requirement.dependency),
                                        fmt::join(requirement.available_versions, ", ")),
                            false, {}});
        }
        continue;
      }
      auto children = package_groups(requirement.providers, path, depth + 1);
      if (children.empty()) {
        result.push_back({fmt::format("needs {}, but no candidate for it fits with the rest of the request",
                                      requirement.dependency),
                          false, {}});
      } else {
        result.push_back({fmt::format("needs {}", requirement.dependency), false, std::move(children)});
      }
    }
    if (!missing.empty()) {
      std::sort(missing.begin(), missing.end());
      missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
      std::string text;
      if (missing.size() == 1) {
        text = fmt::format("needs {}, but no package named {} is in the channels", missing.front(), missing.front());
      } else if (missing.size() <= missing_names_shown) {
        text = fmt::format("needs {}, none of which is in the channels", fmt::join(missing, ", "));
      } else {
        missing.resize(missing_names_shown);
        text = fmt::format("needs {} and more packages that are in none of the channels", fmt::join(missing, ", "));
      }
      result.insert(result.begin(), Reason(text, false));
    }
    for (const std::size_t index : conflicts_of_[package]) {
      const auto& conflict = graph_.conflicts[index];
      const bool own = conflict.package == package;
      const std::size_t other = own ? conflict.other : conflict.package;
      switch (conflict.kind) {
        case ProblemGraph::ConflictKind::constraint:
          if (graph_.packages[other].is_virtual) {
            // A constraint on the machine (cuda-version's `__cuda >=12`)
            // reads like a requirement on it.
            if (own) {
              result.push_back(Reason(virtual_requirement_text(machine_, {name, conflict.dependency, true, false}),
                                      true, {}, conflict.dependency, false, true));
            }
            break;
          }
          result.push_back({own ? fmt::format("constrains {}, which rules out {}", conflict.dependency, label(other))
                                : fmt::format("is ruled out by {}, which constrains {}", label(other),
                                              conflict.dependency),
                            false, {}});
          break;
        case ProblemGraph::ConflictKind::same_name:
          result.push_back({fmt::format("cannot be installed together with {} (one {} at a time)", label(other),
                                        graph_.packages[package].name),
                            false, {}});
          break;
        case ProblemGraph::ConflictKind::conflict:
          result.push_back({fmt::format("conflicts with {}", label(other)), false, {}});
          break;
      }
    }
    for (const std::size_t index : exclusions_of_[package]) {
      result.push_back({graph_.exclusions[index].reason, false, {}});
    }
    return result;
  }

  ProblemNode package_node(std::vector<Reason> why, const std::string& subject) {
    ProblemNode node;
    if (why.size() == 1) {
      node.text = why.front().whole_sentence ? why.front().text : subject + " " + why.front().text;
      node.children = std::move(why.front().children);
      return node;
    }
    node.text = subject;
    node.children_are_reasons = true;
    for (auto& reason : why) {
      // Under the package's own line its sentences need not name it again.
      if (reason.whole_sentence && reason.text.starts_with(subject + " ")) {
        reason.text.erase(0, subject.size() + 1);
      }
      node.children.push_back({std::move(reason.text), std::move(reason.children)});
    }
    return node;
  }

  struct Group {
    std::string name;
    std::vector<std::string> versions;
    std::size_t count = 0;
    std::vector<Reason> why;
    std::size_t first = 0;
    bool merged = false;  // `why` holds the one finished sentence
  };

  // Builds of one package that each fail only on the same virtual package
  // (a CUDA 11.8, a 12.x and a 13.x build on too old a driver) become one
  // line about the least demanding of them: that is the driver to get.
  void merge_virtual_failures(std::vector<Group>& groups) {
    const auto virtual_only = [](const Group& group) {
      // Only lower bounds (`__cuda >=11.8`) have a least demanding member;
      // an upper bound (`__cuda <12`) is not folded into another's.
      return group.why.size() == 1 && !group.why.front().virtual_dependency.empty() &&
             lower_bound_of(group.why.front().virtual_dependency).has_value();
    };
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (!virtual_only(groups[i])) continue;
      const std::string name = groups[i].name;
      const std::string virtual_name = dependency_name(groups[i].why.front().virtual_dependency);
      std::vector<std::size_t> members;
      bool all = true;
      for (std::size_t j = 0; j < groups.size(); ++j) {
        if (groups[j].name != name) continue;
        if (!virtual_only(groups[j]) ||
            dependency_name(groups[j].why.front().virtual_dependency) != virtual_name) {
          all = false;
        }
        members.push_back(j);
      }
      if (!all || members.size() < 2) continue;
      std::size_t least = members.front();
      std::size_t builds = 0;
      bool other_builds_fit = false;
      std::vector<std::string> versions;
      for (const std::size_t j : members) {
        builds += groups[j].count;
        other_builds_fit = other_builds_fit || groups[j].why.front().other_builds_fit;
        for (const auto& version : groups[j].versions) {
          if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.push_back(version);
        }
        const auto bound = lower_bound_of(groups[j].why.front().virtual_dependency);
        const auto least_bound = lower_bound_of(groups[least].why.front().virtual_dependency);
        if (bound && (!least_bound || *bound < *least_bound)) least = j;
      }
      const std::string subject =
          fmt::format("{} {} (the least demanding of {} builds)", name, fmt::join(versions, " | "), builds);
      Group merged;
      merged.name = name;
      merged.count = builds;
      merged.merged = true;
      merged.first = groups[least].first;
      const Reason& least_demanding = groups[least].why.front();
      merged.why.push_back({virtual_requirement_text(machine_, {subject, least_demanding.virtual_dependency,
                                                               least_demanding.constraint, other_builds_fit}),
                            true, {}, least_demanding.virtual_dependency, other_builds_fit,
                            least_demanding.constraint});
      std::vector<Group> rest;
      for (std::size_t j = 0; j < groups.size(); ++j) {
        if (j == members.front()) rest.push_back(std::move(merged));
        else if (std::find(members.begin(), members.end(), j) == members.end()) rest.push_back(std::move(groups[j]));
      }
      groups = std::move(rest);
    }
  }

  // Packages that could satisfy something, grouped: builds of one name that
  // fail for the same reasons become one line.
  std::vector<ProblemNode> package_groups(std::vector<std::size_t> packages, std::vector<std::size_t>& path,
                                          int depth) {
    std::vector<ProblemNode> nodes;
    if (depth > max_depth) return nodes;
    // Newest first: the builds a user most likely wanted lead.
    std::stable_sort(packages.begin(), packages.end(), [&](std::size_t a, std::size_t b) {
      const auto& pa = graph_.packages[a];
      const auto& pb = graph_.packages[b];
      if (pa.name != pb.name) return pa.name < pb.name;
      const auto va = specs::Version::try_parse(pa.version);
      const auto vb = specs::Version::try_parse(pb.version);
      if (va && vb && *va != *vb) return *va > *vb;
      return false;
    });
    std::vector<Group> groups;
    std::map<std::string, std::size_t> group_of;  // name + rendered reasons -> group
    bool cut_here = false;
    for (const std::size_t package : packages) {
      if (std::find(path.begin(), path.end(), package) != path.end()) continue;  // a cycle
      if (!spend_step()) {
        cut_here = true;
        break;
      }
      path.push_back(package);
      auto why = reasons(package, path, depth);
      path.pop_back();
      if (why.empty()) continue;
      // Virtual package sentences name the package; key them without it.
      std::string key = graph_.packages[package].name + "\n";
      for (const auto& reason : why) {
        key += reason.whole_sentence ? reason.text.substr(label(package).size()) : reason.text;
        for (const auto& child : reason.children) key += "\n" + render_key(child);
        key += "\n";
      }
      const auto [it, inserted] = group_of.emplace(key, groups.size());
      if (inserted) groups.push_back({graph_.packages[package].name, {}, 0, std::move(why), package, false});
      Group& group = groups[it->second];
      ++group.count;
      const auto& version = graph_.packages[package].version;
      if (std::find(group.versions.begin(), group.versions.end(), version) == group.versions.end()) {
        group.versions.push_back(version);
      }
    }
    merge_virtual_failures(groups);
    for (std::size_t i = 0; i < groups.size() && i < max_groups; ++i) {
      Group& group = groups[i];
      if (group.merged) {
        nodes.push_back(package_node(std::move(group.why), ""));
        continue;
      }
      if (group.count == 1) {
        nodes.push_back(package_node(std::move(group.why), label(group.first)));
        continue;
      }
      const std::string subject =
          fmt::format("{} {} ({} builds)", group.name, fmt::join(group.versions, " | "), group.count);
      // Whole sentences name one build; re-word them for the group.
      for (auto& reason : group.why) {
        if (reason.whole_sentence) {
          const std::string single = label(group.first);
          if (reason.text.starts_with(single)) reason.text = subject + reason.text.substr(single.size());
        }
      }
      nodes.push_back(package_node(std::move(group.why), subject));
    }
    if (groups.size() > max_groups) {
      nodes.push_back({fmt::format("... and {} more candidates that fail for other reasons",
                                   groups.size() - max_groups),
                       {}});
    }
    // Said once, where the budget ran out; deeper levels stop silently.
    if (cut_here && !cut_short_said_) {
      cut_short_said_ = true;
      nodes.push_back({std::string(cut_short_text), {}});
    }
    return nodes;
  }

  static void trim(ProblemNode& node, int depth) {
    if (depth == 0) {
      node.children.clear();
      return;
    }
    for (auto& child : node.children) trim(child, depth - 1);
  }

  static void drop_cut_short_notes(ProblemNode& node) {
    std::erase_if(node.children, [](const ProblemNode& child) { return child.text == cut_short_text; });
    for (auto& child : node.children) drop_cut_short_notes(child);
  }

  static std::string render_key(const ProblemNode& node) {
    std::string key = node.text;
    for (const auto& child : node.children) key += "\n " + render_key(child);
    return key;
  }

  static std::string first_leaf(const ProblemNode& node) {
    if (node.children.empty()) return node.text;
    const auto& first = node.children.front();
    if (node.children_are_reasons && first.children.empty()) return node.text + " " + first.text;
    return first_leaf(first);
  }

  const ProblemGraph& graph_;
  const MachineFacts& machine_;
  std::size_t steps_left_;
  std::chrono::steady_clock::time_point deadline_;
  bool cut_short_ = false;
  bool cut_short_said_ = false;
  std::vector<std::vector<std::size_t>> requirements_of_;
  std::vector<std::vector<std::size_t>> conflicts_of_;
  std::vector<std::vector<std::size_t>> exclusions_of_;
};

void render_into(const ProblemNode& node, const std::string& prefix, std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const bool last = i + 1 == node.children.size();
    lines.push_back(prefix + (last ? "└─ " : "├─ ") + node.children[i].text);
    render_into(node.children[i], prefix + (last ? "   " : "│  "), lines);
  }
}

}  // namespace

std::vector<ProblemTree> explain_problem(const ProblemGraph& graph, const MachineFacts& machine,
                                         const ExplanationLimits& limits) {
  TreeBuilder builder(graph, machine, limits);
  std::vector<ProblemTree> trees;
  for (const auto& job : graph.jobs) {
    if (job.kind == ProblemGraph::JobKind::install || job.kind == ProblemGraph::JobKind::update ||
        job.kind == ProblemGraph::JobKind::remove) {
      trees.push_back(builder.job_tree(job));
    }
  }
  return trees;
}

std::vector<std::string> render_tree(const ProblemNode& root) {
  std::vector<std::string> lines{root.text};
  render_into(root, "", lines);
  return lines;
}

}  // namespace gpuenv::solver
