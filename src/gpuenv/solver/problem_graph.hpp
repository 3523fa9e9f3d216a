// Why a solve failed, as plain data: the packages libsolv's problem rules
// mention and how they relate (who needs what, who excludes whom, what the
// user asked for). libsolv-free, so explanations can be tested from
// hand-made graphs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpuenv::solver {

struct ProblemGraph {
  struct Package {
    std::string name;
    std::string version;
    std::string build;
    std::string channel;  // a name users know, for messages
    bool installed = false;
    bool is_virtual = false;
  };

  // `package` needs `dependency`; `providers` are the packages that would
  // satisfy it (empty: nothing does).
  struct Requirement {
    std::size_t package = 0;
    std::string dependency;
    std::vector<std::size_t> providers;
    // For a requirement on a missing or too old virtual package: whether
    // some other build of the same package does without it here (for the
    // "or ask for another build" advice).
    bool other_builds_fit = false;
    // When nothing provides it: versions of the package that do exist
    // (newest first, a few), so the explanation can say what there is.
    std::vector<std::string> available_versions;
  };

  enum class ConflictKind {
    constraint,  // `package`'s constrains entry `dependency` excludes `other`
    same_name,   // only one package of a name can be installed
    conflict,    // an explicit conflict
  };
  struct Conflict {
    ConflictKind kind = ConflictKind::same_name;
    std::size_t package = 0;
    std::size_t other = 0;
    std::string dependency;
  };

  enum class JobKind { install, update, remove, pin, lock };
  struct Job {
    JobKind kind = JobKind::install;
    std::string spec;  // as the user wrote it
    std::vector<std::size_t> candidates;
  };

  // A package ruled out for a reason of its own.
  struct Exclusion {
    std::size_t package = 0;
    std::string reason;
  };

  std::vector<Package> packages;
  std::vector<Requirement> requirements;
  std::vector<Conflict> conflicts;
  std::vector<Job> jobs;
  std::vector<Exclusion> exclusions;
};

}  // namespace gpuenv::solver
