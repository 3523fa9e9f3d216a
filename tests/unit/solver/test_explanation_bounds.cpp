// Explanations stay bounded in time and size however tangled the conflict:
// on a sudoku written as a channel (after mamba's sudoku test channel: one
// package per cell, one version per digit, each digit constraining the
// cell's row, column and box), an unsatisfiable 30-clue puzzle makes libsolv
// fail at once while the tree of reasons could grow without end (issue 10:
// past 6.6 GB and 600 s).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <fmt/format.h>

#include "gpuenv/solver/explanation.hpp"
#include "solver_fixture.hpp"

namespace gpuenv::solver {
namespace {

using testing::channel_subdir;
using testing::joined_lines;
using testing::package;

std::string cell(int row, int column) { return fmt::format("sudoku_{}_{}", row, column); }

// Every other cell of the row, column and 3x3 box.
std::vector<std::pair<int, int>> peers(int row, int column) {
  std::vector<std::pair<int, int>> result;
  for (int r = 1; r <= 9; ++r) {
    for (int c = 1; c <= 9; ++c) {
      if (r == row && c == column) continue;
      const bool same_box = (r - 1) / 3 == (row - 1) / 3 && (c - 1) / 3 == (column - 1) / 3;
      if (r == row || c == column || same_box) result.emplace_back(r, c);
    }
  }
  return result;
}

std::vector<specs::PackageRecord> sudoku_channel() {
  std::vector<specs::PackageRecord> records;
  for (int row = 1; row <= 9; ++row) {
    for (int column = 1; column <= 9; ++column) {
      for (int digit = 1; digit <= 9; ++digit) {
        std::vector<std::string> constrains;
        for (const auto& [r, c] : peers(row, column)) constrains.push_back(fmt::format("{} !={}", cell(r, c), digit));
        records.push_back(package(cell(row, column), std::to_string(digit), "0", 0, std::move(constrains)));
      }
    }
  }
  return records;
}

long max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(ExplanationBounds, AnUnsatisfiableSudokuIsExplainedQuicklyAndBriefly) {
  // 30 clues (row, column, digit); no clue repeats a digit of its row,
  // column or box and no cell is left without a digit outright, yet the
  // puzzle has no solution (checked by exhaustive search).
  const std::string clues =
      "111;133;144;166;236;282;352;385;434;491;526;572;594;618;629;675;686;697;715;724;746;757;781;792;827;"
      "862;884;919;921;932";
  std::map<std::pair<int, int>, int> given;
  for (std::size_t at = 0; at < clues.size(); at += 4) {
    given[{clues[at] - '0', clues[at + 1] - '0'}] = clues[at + 2] - '0';
  }
  // The puzzle is a package that needs every cell, the clues pinned.
  std::vector<std::string> cells;
  for (int row = 1; row <= 9; ++row) {
    for (int column = 1; column <= 9; ++column) {
      const auto it = given.find({row, column});
      cells.push_back(it == given.end() ? cell(row, column) : fmt::format("{} {}", cell(row, column), it->second));
    }
  }
  auto records = sudoku_channel();
  records.push_back(package("sudoku", "1.0", "0", 0, cells));
  PackageDatabase database;
  database.add_records(records, channel_subdir("https://repo.example/sudoku", "linux-64"));
  const auto request = testing::install({"sudoku"});
  const long rss_before = max_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  const auto solution = solve(database, request);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(solution);
  const auto lines = solution.error().lines();
  std::size_t characters = 0;
  for (const auto& line : lines) characters += line.size();
  std::cout << "sudoku: " << seconds << " s, " << lines.size() << " lines, " << characters << " characters, "
            << (max_rss_kib() - rss_before) / 1024 << " MiB more peak memory\n";
  EXPECT_LT(seconds, 20.0);
  EXPECT_LT(lines.size(), 2000u);
  EXPECT_LT(characters, 200'000u);
  EXPECT_LT(max_rss_kib() - rss_before, 512L * 1024);
  EXPECT_FALSE(solution.error().summary().empty());
}

// The shape behind the blow-up: every package needs many others, each with
// several candidates that need many others in turn. Written out in full the
// tree would have (20 x 8)^6 branches.
ProblemGraph layered_graph(std::size_t layers, std::size_t needs, std::size_t candidates) {
  ProblemGraph graph;
  std::vector<std::vector<std::size_t>> layer_packages(layers);
  for (std::size_t layer = 0; layer < layers; ++layer) {
    for (std::size_t i = 0; i < needs * candidates; ++i) {
      ProblemGraph::Package package;
      package.name = fmt::format("p{}_{}", layer, i / candidates);
      package.version = std::to_string(i % candidates);
      package.build = "0";
      graph.packages.push_back(package);
      layer_packages[layer].push_back(graph.packages.size() - 1);
    }
  }
  for (std::size_t layer = 0; layer + 1 < layers; ++layer) {
    for (const std::size_t p : layer_packages[layer]) {
      for (std::size_t need = 0; need < needs; ++need) {
        std::vector<std::size_t> providers(layer_packages[layer + 1].begin() + need * candidates,
                                           layer_packages[layer + 1].begin() + (need + 1) * candidates);
        graph.requirements.push_back({p, fmt::format("p{}_{}", layer + 1, need), providers, false, {}});
      }
    }
  }
  for (const std::size_t p : layer_packages.back()) {
    graph.exclusions.push_back({p, "cannot be installed on this platform"});
  }
  graph.jobs.push_back({ProblemGraph::JobKind::install, "p0_0",
                        std::vector<std::size_t>(layer_packages[0].begin(), layer_packages[0].begin() + candidates)});
  return graph;
}

TEST(ExplanationBounds, AHugeProblemGraphIsCutShortInTimeAndSize) {
  const auto graph = layered_graph(8, 20, 8);
  const long rss_before = max_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  const auto trees = explain_problem(graph, {});
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(trees.size(), 1u);
  const auto lines = render_tree(trees[0].root);
  std::size_t characters = 0;
  for (const auto& line : lines) characters += line.size();
  std::cout << "layered graph: " << seconds << " s, " << lines.size() << " lines, "
            << (max_rss_kib() - rss_before) / 1024 << " MiB more peak memory\n";
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(lines.size(), 200u);
  EXPECT_LT(characters, 20'000u);
  EXPECT_LT(max_rss_kib() - rss_before, 256L * 1024);
  // Says that it is cut short, and still names the request.
  EXPECT_EQ(lines.front(), "cannot install p0_0");
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  EXPECT_NE(text.find("too large to explain in full"), std::string::npos) << text.substr(0, 2000);
  EXPECT_FALSE(trees[0].key_reason.empty());
}

TEST(ExplanationBounds, ASmallGraphIsNotCut) {
  const auto trees = explain_problem(layered_graph(3, 2, 2), {});
  ASSERT_EQ(trees.size(), 1u);
  for (const auto& line : render_tree(trees[0].root)) EXPECT_EQ(line.find("too large"), std::string::npos) << line;
}

}  // namespace
}  // namespace gpuenv::solver
