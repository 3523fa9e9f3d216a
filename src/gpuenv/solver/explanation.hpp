// An unsatisfiable request explained as a short tree in the user's terms:
// from what was asked for, through the packages that could have satisfied
// it, down to the reasons they cannot (nothing provides X, X excludes Y,
// this driver is too old...). Virtual package failures name the machine's
// facts and the way out.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/solver/problem_graph.hpp"

namespace gpuenv::solver {

struct ProblemNode {
  std::string text;
  std::vector<ProblemNode> children;
  // The children are sentences about `text` (a package) that leave it out:
  // a one-line summary of one of them puts it back.
  bool children_are_reasons = false;
};

struct ProblemTree {
  ProblemNode root;
  // The most telling leaf, for one-line summaries.
  std::string key_reason;
};

// How much work one explanation may take. A package's reasons are worked
// out on every path that reaches it, and tangled conflicts (mamba's sudoku
// channel) would grow the tree past gigabytes; past either limit the tree
// stops growing and says it was cut short. Both are far above what real
// conflicts need (a few hundred steps, milliseconds).
struct ExplanationLimits {
  std::size_t steps = 2'000;  // packages whose reasons are worked out
  std::chrono::milliseconds time{2'000};
};

// One tree per job the problem involves (usually one).
std::vector<ProblemTree> explain_problem(const ProblemGraph& graph, const MachineFacts& machine,
                                         const ExplanationLimits& limits = {});

// A tree as lines: the root, then children drawn with ├─ └─ │.
std::vector<std::string> render_tree(const ProblemNode& root);

// What to say about a requirement on a virtual package (`__cuda >=12`) that
// this machine lacks or has at a version it does not accept: the machine's
// own words (MachineFacts::explain_virtual_requirement) when given, plain
// words otherwise.
std::string virtual_requirement_text(const MachineFacts& machine, const VirtualRequirementFailure& failure);

}  // namespace gpuenv::solver
