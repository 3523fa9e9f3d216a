#include "gpuenv/prefix/prefix_linker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "gpuenv/prefix/file_placement.hpp"
#include "gpuenv/prefix/prefix_error.hpp"

namespace gpuenv::prefix {

namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

// Outside the anonymous namespace: InFlight holds one.
class DirectoryHandle {
 public:
  explicit DirectoryHandle(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) {
      throw PrefixError("cannot open " + path.string() + ": " + std::strerror(errno));
    }
  }
  ~DirectoryHandle() { ::close(fd_); }
  DirectoryHandle(const DirectoryHandle&) = delete;
  DirectoryHandle& operator=(const DirectoryHandle&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

namespace {

bool is_reserved(const std::string& path) {
  // CEP 32: conda-meta/ is the tool's, never a package's.
  return path == "conda-meta" || path.starts_with("conda-meta/");
}

// conda's record takes the channel's (possibly patched) repodata record;
// index.json only fills what that record does not say (CEP 32).
specs::PackageRecord merged_record(specs::PackageRecord record, const specs::PackageRecord& index) {
  if (record.subdir.empty()) record.subdir = index.subdir;
  if (record.license.empty()) record.license = index.license;
  if (record.license_family.empty()) record.license_family = index.license_family;
  if (record.timestamp == 0) record.timestamp = index.timestamp;
  if (record.noarch == specs::NoarchType::none) record.noarch = index.noarch;
  if (record.arch.empty()) record.arch = index.arch;
  if (record.platform.empty()) record.platform = index.platform;
  if (record.python_site_packages_path.empty()) {
    record.python_site_packages_path = index.python_site_packages_path;
  }
  if (record.depends.empty() && record.constrains.empty()) {
    record.depends = index.depends;
    record.constrains = index.constrains;
  }
  if (record.track_features.empty()) record.track_features = index.track_features;
  if (record.features.empty()) record.features = index.features;
  if (record.build_number == 0) record.build_number = index.build_number;
  return record;
}

std::string describe_owner(const std::string& owner) {
  return owner.empty() ? "a file no package owns" : owner;
}

}  // namespace

struct PrefixLinker::Planned {
  const package::PathEntry* entry = nullptr;  // null for an entry point
  const package::EntryPoint* entry_point = nullptr;
  std::string target;
  bool replaces_linked = false;  // an earlier package of this transaction put a file there
};

// Everything start_link decides before it touches the prefix.
struct PrefixLinker::LinkPlan {
  specs::PackageRecord record_package;  // the repodata record, completed from index.json
  std::string dist;
  bool noarch_python = false;
  std::vector<Planned> planned;  // files and entry points, in paths.json order
  std::vector<std::string> new_dirs;
  std::vector<std::string> keep_dirs;  // directories paths.json lists itself
  std::vector<const package::PathEntry*> directories;
  std::vector<std::pair<std::string, std::string>> in_the_way;  // path, previous owner
  std::vector<PrunedDirectory> emptied_in_the_way;  // deepest first
  std::unordered_set<std::string> targets;
  std::string record_path;  // conda-meta/<dist>.json
};

// How the plain files of one package were placed: conda records a package
// as copied only when none of its files could be hard-linked.
struct PrefixLinker::LinkTally {
  bool any_hardlink = false;
  bool any_plain_copy = false;
};

// One started package: its plan, and its files as the threads place them.
struct PrefixLinker::InFlight {
  InFlight(const CachedPackage& linked, const std::optional<PythonLayout>& layout, std::string spec)
      : package(linked), python(layout), requested_spec(std::move(spec)), source(linked.extracted_dir),
        source_dir(linked.extracted_dir.string()) {}

  const CachedPackage& package;
  const std::optional<PythonLayout> python;
  const std::string requested_spec;
  LinkPlan plan;
  // Files the package's paths.json misdescribes are recorded as they are.
  std::unordered_map<std::string_view, const package::FileFacts*> actual;
  const DirectoryHandle source;
  const std::string source_dir;
  std::vector<PrefixPathEntry> paths;  // one per planned item

  std::atomic<std::size_t> next_run = 0;
  std::atomic<bool> failed = false;
  std::mutex mutex;  // guards failure, helpers_done
  std::condition_variable helpers_changed;
  std::exception_ptr failure;
  std::size_t helpers = 0;
  std::size_t helpers_done = 0;
  std::vector<LinkTally> helper_tallies;
  LinkTally tally;  // this thread's, then everyone's
  bool placed = false;
};

PrefixLinker::PrefixLinker(std::filesystem::path prefix, TransactionJournal& journal,
                           LinkOptions options, const std::vector<PrefixRecord>& kept)
    : prefix_(std::move(prefix)), prefix_text_(prefix_.string()), journal_(journal),
      options_(std::move(options)) {
  prefix_fd_ = ::open(prefix_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (prefix_fd_ < 0) {
    throw PrefixError("cannot open the prefix " + prefix_text_ + ": " + std::strerror(errno));
  }
  directories_.emplace(prefix_fd_, options_.walk);
  creation_modes_.emplace(prefix_fd_);
  for (const auto& record : kept) {
    const std::string* dist = &owner_dists_.emplace_back(record.package.dist_str());
    for (auto& path : record.owned_paths()) kept_owners_.emplace(std::move(path), dist);
  }
  known_dirs_.insert("");
  known_dirs_.insert("conda-meta");
}

PrefixLinker::~PrefixLinker() {
  // A failed transaction: the packages still in flight stop after the file
  // each thread is placing, and nothing may touch the prefix once the
  // caller rolls it back.
  for (const auto& link : in_flight_) link->failed = true;
  for (const auto& link : in_flight_) {
    std::unique_lock lock(link->mutex);
    link->helpers_changed.wait(lock, [&] { return link->helpers_done == link->helpers; });
  }
  directories_.reset();
  if (prefix_fd_ >= 0) ::close(prefix_fd_);
}

void PrefixLinker::count_linked_file() {
  const std::size_t linked = ++linked_files_;
  if (options_.crash_after_linked_files && linked == *options_.crash_after_linked_files) {
    ::kill(::getpid(), SIGKILL);  // the test hook: die as `kill -9` would kill us
  }
}

bool PrefixLinker::may_exist(const std::string& path) const {
  return !created_dirs_.contains(parent_of(path));
}

void PrefixLinker::ensure_directory(const std::string& dir, std::vector<std::string>& to_create) {
  if (dir.empty() || known_dirs_.contains(dir)) return;
  const auto parent = parent_of(dir);
  // The parent first: in a directory this transaction creates, `dir` cannot
  // exist yet, and nothing needs to look.
  ensure_directory(parent, to_create);
  if (!created_dirs_.contains(parent)) {
    // Following links that stay inside: a package may put files under a
    // linked directory (lib64 -> lib), as conda lets it -- also one that a
    // package in flight is placing.
    complete_placements();
    const int fd = open_directory_beneath(prefix_fd_, dir, options_.walk);
    if (fd >= 0) {
      ::close(fd);
      known_dirs_.insert(dir);
      return;
    }
    if (fd == -ENOTDIR) {
      const auto owner = kept_owners_.find(dir);
      throw PrefixError("cannot link into " + prefix_text_ + ": " + dir + " is a file (" +
                        (owner == kept_owners_.end() ? std::string("or lies under one")
                                                     : "of " + *owner->second) +
                        "), where a package needs a directory; remove it or the package that owns it");
    }
    if (fd != -ENOENT) {
      throw PrefixError("cannot link into " + describe_unreachable(prefix_text_, dir, -fd));
    }
  }
  to_create.push_back(dir);
  known_dirs_.insert(dir);
  created_dirs_.insert(dir);
}

void PrefixLinker::unlink_package(const PrefixRecord& record) {
  complete_placements();
  const auto dist = record.package.dist_str();
  auto candidates = record.owned_paths();

  // Python writes __pycache__/<stem>.<tag>.pyc next to the .py files it
  // imports; those belong to the package too.
  std::map<std::string, std::set<std::string>> py_stems;  // directory -> stems
  for (const auto& path : candidates) {
    if (!path.ends_with(".py")) continue;
    const auto dir = parent_of(path);
    const auto name = path.substr(dir.empty() ? 0 : dir.size() + 1);
    py_stems[dir].insert(name.substr(0, name.size() - 3));
  }
  std::vector<std::string> cleanup_dirs;
  for (const auto& [dir, stems] : py_stems) {
    const auto cache = dir.empty() ? std::string("__pycache__") : dir + "/__pycache__";
    for (const auto& name : list_directory_beneath(prefix_fd_, cache, options_.walk)) {
      const auto dot = name.find('.');
      if (name.ends_with(".pyc") && dot != std::string::npos && stems.contains(name.substr(0, dot))) {
        candidates.push_back(cache + "/" + name);
      }
    }
    cleanup_dirs.push_back(cache);
  }
  candidates.push_back("conda-meta/" + prefix_record_filename(record.package));

  std::vector<std::string> present;
  std::set<std::string> parents;
  for (const auto& path : candidates) {
    // A record names paths inside the prefix; anything else (a damaged or
    // hand-edited record) is not ours to move.
    if (!package::is_safe_relative_path(path)) continue;
    parents.insert(parent_of(path));
    // A path a kept package owns too stays where it is: that package still
    // needs it (conda restores it from that package, which ends the same).
    if (kept_owners_.contains(path)) continue;
    // A path beyond a link that leads out of the prefix is not in it.
    const auto parent = directories_->parent_of(path);
    struct stat info {};
    if (parent.fd < 0 ||
        ::fstatat(parent.fd, parent.name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;
    }
    if (S_ISDIR(info.st_mode)) {
      cleanup_dirs.push_back(path);  // removed at commit if nothing else is in it
      continue;
    }
    present.push_back(path);
  }
  parents.erase("");
  parents.erase("conda-meta");
  cleanup_dirs.insert(cleanup_dirs.end(), parents.begin(), parents.end());
  for (const auto& dir : cleanup_dirs) {
    for (auto path = dir; !path.empty() && emptied_dirs_.insert(path).second;) path = parent_of(path);
  }

  SaveBlock block;
  block.reason = SaveBlock::Reason::unlink;
  block.package = dist;
  block.cleanup_dirs = std::move(cleanup_dirs);
  const auto first_id = journal_.reserve_save_ids(present.size());
  for (std::size_t i = 0; i < present.size(); ++i) block.paths.push_back({first_id + i, present[i]});
  journal_.record(block);
  for (const auto& saved : block.paths) {
    const auto destination = journal_.saved_file(saved.id);
    const auto parent = directories_->parent_of(saved.path);
    if (parent.fd < 0) continue;  // it was reachable a moment ago; gone now
    if (::renameat(parent.fd, parent.name.c_str(), AT_FDCWD, destination.c_str()) != 0 &&
        errno != ENOENT) {
      throw PrefixError("cannot remove " + prefix_text_ + "/" + saved.path + " (unlinking " +
                        dist + "): " + std::strerror(errno));
    }
  }
}

// A directory the unlinked packages left empty, with the empty directories
// beneath it (children first): false when anything else is in it.
bool PrefixLinker::collect_emptied_tree(const std::string& dir, std::vector<PrunedDirectory>& tree) {
  if (!emptied_dirs_.contains(dir) || kept_owners_.contains(dir)) return false;
  const auto parent = directories_->parent_of(dir);
  struct stat info {};
  if (parent.fd < 0 || ::fstatat(parent.fd, parent.name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISDIR(info.st_mode)) {
    return false;
  }
  const auto mode = static_cast<unsigned>(info.st_mode & 07777);
  for (const auto& name : list_directory_beneath(prefix_fd_, dir, options_.walk)) {
    if (!collect_emptied_tree(dir + "/" + name, tree)) return false;
  }
  tree.push_back({dir, mode});
  return true;
}

// For a directory where a package has a file: what keeps it there.
std::string PrefixLinker::describe_directory_contents(const std::string& dir) {
  const auto inside = dir + "/";
  std::set<std::string> owned;  // "path (owner)", sorted for a stable message
  for (const auto* owners : {&kept_owners_, &linked_owners_}) {
    for (const auto& [path, owner] : *owners) {
      if (path.starts_with(inside)) owned.insert(path + " (" + *owner + ")");
    }
  }
  if (!owned.empty()) {
    std::string list;
    std::size_t shown = 0;
    for (const auto& item : owned) {
      if (shown++ == 3) break;
      list += (list.empty() ? "" : ", ") + item;
    }
    if (owned.size() > 3) list += " and " + std::to_string(owned.size() - 3) + " more";
    return "that still holds other packages' files: " + list +
           "; remove those packages first, or keep the version that has a directory there";
  }
  const auto names = list_directory_beneath(prefix_fd_, dir, options_.walk);
  if (names.empty()) {
    return "that the removed packages did not leave behind; remove it (it is empty), then run the command again";
  }
  return "that still holds " + inside + names.front() +
         (names.size() > 1 ? " (and " + std::to_string(names.size() - 1) + " more)" : std::string()) +
         ", which no package owns; move it out of the prefix, then run the command again";
}

void PrefixLinker::start_link(const CachedPackage& package, const std::optional<PythonLayout>& python,
                              const std::string& requested_spec) {
  auto link = std::make_unique<InFlight>(package, python, requested_spec);
  link->plan = plan_link(package, link->python);
  const LinkPlan& plan = link->plan;
  check_conflicts(plan);
  // An earlier package's file this one replaces must be there to replace.
  if (std::ranges::any_of(plan.planned, &Planned::replaces_linked)) complete_placements();
  prune(plan);
  move_aside(plan);
  create_directories(plan);

  // The later packages' plans see these paths as this transaction's.
  const std::string* dist = &owner_dists_.emplace_back(plan.dist);
  // Grown geometrically: reserving exactly the next package's size rehashed
  // the whole table once per package (4% of a 100-package warm install).
  const auto needed = linked_owners_.size() + plan.planned.size();
  if (needed > linked_owners_.bucket_count() * linked_owners_.max_load_factor()) {
    linked_owners_.reserve(std::max(needed, 2 * linked_owners_.size()));
  }
  for (const auto& item : plan.planned) linked_owners_[item.target] = dist;

  for (const auto& mismatch : package.mismatches) link->actual.emplace(mismatch.path, &mismatch.actual);
  link->paths.resize(plan.planned.size());
  // In flight before its threads start: the destructor waits for them.
  in_flight_.push_back(std::move(link));
  start_placement(*in_flight_.back());
}

PrefixRecord PrefixLinker::finish_link() {
  InFlight& link = *in_flight_.front();
  complete_placement(link);
  const LinkPlan& plan = link.plan;
  const CachedPackage& package = link.package;

  PrefixRecord record;
  record.package = plan.record_package;
  record.has_paths_data = true;
  record.paths = std::move(link.paths);
  record.paths.reserve(record.paths.size() + plan.directories.size());
  for (const auto* entry : plan.directories) {
    PrefixPathEntry path;
    path.path = plan.noarch_python ? noarch_python_target(entry->path, *link.python) : entry->path;
    path.path_type = PrefixPathType::directory;
    record.paths.push_back(std::move(path));
  }

  record.files.reserve(record.paths.size());
  for (const auto& path : record.paths) record.files.push_back(path.path);
  record.extracted_package_dir = package.extracted_dir.string();
  record.package_tarball_full_path = package.tarball.string();
  record.link_source = package.extracted_dir.string();
  // conda's link type: hard links unless the plain files had to be copied.
  record.link_type = options_.mode == LinkMode::copy || (link.tally.any_plain_copy && !link.tally.any_hardlink)
                         ? LinkType::copy
                         : LinkType::hardlink;
  record.requested_spec = link.requested_spec;
  if (!link.requested_spec.empty()) record.requested_specs = {link.requested_spec};
  // Writes only: no cache entry to read from.
  FilePlacement placement(*directories_, -1, prefix_text_, link.source_dir, *creation_modes_);
  placement.write(plan.record_path, prefix_record_json(record), 0644);
  in_flight_.pop_front();
  return record;
}

// Plans every path before anything is touched: which directories to create,
// which existing files are in the way.
PrefixLinker::LinkPlan PrefixLinker::plan_link(const CachedPackage& package,
                                               const std::optional<PythonLayout>& python) {
  const auto& metadata = package.metadata;
  LinkPlan plan;
  plan.record_package = merged_record(package.record, metadata.index);
  plan.dist = plan.record_package.dist_str();
  const std::string& dist = plan.dist;
  plan.noarch_python = plan.record_package.noarch == specs::NoarchType::python ||
                       metadata.link.noarch == specs::NoarchType::python;
  if (plan.noarch_python && !python) {
    throw PrefixError(dist + " is a noarch: python package, but the prefix will have no python "
                             "package; add python to the environment");
  }
  if (plan.noarch_python && !package::is_safe_relative_path(python->site_packages)) {
    throw PrefixError("the python package's site-packages path '" + python->site_packages +
                      "' is not a path inside the prefix; its repodata record is damaged");
  }
  plan.planned.reserve(metadata.paths.paths.size() + metadata.link.entry_points.size());
  for (const auto& entry : metadata.paths.paths) {
    const auto target = plan.noarch_python ? noarch_python_target(entry.path, *python) : entry.path;
    if (entry.path_type == package::PathType::directory) {
      if (is_reserved(target)) {
        throw PrefixError(dist + " would create the directory '" + target +
                          "', which packages may not write; the package is malformed");
      }
      ensure_directory(target, plan.new_dirs);
      plan.keep_dirs.push_back(target);
      plan.directories.push_back(&entry);
      continue;
    }
    plan_path(plan, {&entry, nullptr, target, false});
  }
  if (plan.noarch_python) {
    for (const auto& entry_point : metadata.link.entry_points) {
      plan_path(plan, {nullptr, &entry_point, "bin/" + entry_point.command, false});
    }
  }
  plan.record_path = "conda-meta/" + prefix_record_filename(plan.record_package);
  return plan;
}

// One file or entry point of the plan: its directory, and what is there now.
void PrefixLinker::plan_path(LinkPlan& plan, Planned item) {
  const std::string& dist = plan.dist;
  if (is_reserved(item.target) || !package::is_safe_relative_path(item.target)) {
    throw PrefixError(dist + " would install '" + item.target +
                      "', which packages may not write; the package is malformed");
  }
  if (!plan.targets.insert(item.target).second) return;  // listed twice: once is enough
  ensure_directory(parent_of(item.target), plan.new_dirs);
  if (const auto owner = linked_owners_.find(item.target); owner != linked_owners_.end()) {
    clobbers_.push_back({item.target, dist, *owner->second});
    item.replaces_linked = true;
  } else if (may_exist(item.target)) {
    complete_placements();  // what is there must not be changing
    const auto parent = directories_->parent_of(item.target);
    if (parent.fd < 0 && parent.error != ENOENT) {
      throw PrefixError("cannot link " + dist + ": " +
                        describe_unreachable(prefix_text_, item.target, parent.error));
    }
    struct stat info {};
    if (parent.fd >= 0 &&
        ::fstatat(parent.fd, parent.name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(info.st_mode)) {
        // A directory the old version had (xbin/ in 0.1.0, a file xbin in
        // 0.2.0) goes, when nothing else is in it.
        if (std::vector<PrunedDirectory> tree; collect_emptied_tree(item.target, tree)) {
          plan.emptied_in_the_way.insert(plan.emptied_in_the_way.end(), tree.begin(), tree.end());
          plan.planned.push_back(std::move(item));
          return;
        }
        throw PrefixError("cannot link " + dist + ": it has a file " + item.target + ", but " +
                          prefix_text_ + "/" + item.target + " is a directory " +
                          describe_directory_contents(item.target));
      }
      const auto owner = kept_owners_.find(item.target);
      plan.in_the_way.emplace_back(item.target, owner == kept_owners_.end() ? "" : *owner->second);
    }
  }
  plan.planned.push_back(std::move(item));
}

// Under PathConflictPolicy::prevent, refuses the package when it would
// overwrite anything; otherwise records the clobbers.
void PrefixLinker::check_conflicts(const LinkPlan& plan) {
  if (options_.conflicts == PathConflictPolicy::prevent) {
    std::vector<std::string> conflicts;
    for (const auto& [path, owner] : plan.in_the_way) conflicts.push_back(path + " (" + describe_owner(owner) + ")");
    for (const auto& clobber : clobbers_) {
      if (clobber.winner == plan.dist) conflicts.push_back(clobber.path + " (" + clobber.previous_owner + ")");
    }
    if (!conflicts.empty()) {
      std::string list;
      for (std::size_t i = 0; i < conflicts.size() && i < 10; ++i) list += "\n  " + conflicts[i];
      if (conflicts.size() > 10) list += "\n  ... and " + std::to_string(conflicts.size() - 10) + " more";
      throw PrefixError(plan.dist + " would overwrite paths that other files already occupy:" + list +
                        "\nremove the conflicting package first, or allow clobbering");
    }
  }
  for (const auto& [path, owner] : plan.in_the_way) clobbers_.push_back({path, plan.dist, owner});
}

// The emptied directories in the new files' way go, journaled before the first removal; a rollback creates them again.
void PrefixLinker::prune(const LinkPlan& plan) {
  if (plan.emptied_in_the_way.empty()) return;
  journal_.record(PruneBlock{plan.emptied_in_the_way});
  for (const auto& dir : plan.emptied_in_the_way) {
    const auto parent = directories_->parent_of(dir.path);
    if (parent.fd < 0 || ::unlinkat(parent.fd, parent.name.c_str(), AT_REMOVEDIR) != 0) {
      throw PrefixError("cannot link " + plan.dist + ": cannot remove the directory " + prefix_text_ + "/" +
                        dir.path + ", which the new version has as a file: " +
                        std::strerror(parent.fd < 0 ? parent.error : errno));
    }
    directories_->forget();
  }
  if (options_.crash_after_prune) ::kill(::getpid(), SIGKILL);  // the test hook
}

// Files in the way move to the saved area (a rollback puts them back).
void PrefixLinker::move_aside(const LinkPlan& plan) {
  if (plan.in_the_way.empty()) return;
  SaveBlock block;
  block.reason = SaveBlock::Reason::clobber;
  block.package = plan.dist;
  const auto first_id = journal_.reserve_save_ids(plan.in_the_way.size());
  for (std::size_t i = 0; i < plan.in_the_way.size(); ++i) {
    block.paths.push_back({first_id + i, plan.in_the_way[i].first});
  }
  journal_.record(block);
  for (const auto& saved : block.paths) {
    const auto parent = directories_->parent_of(saved.path);
    if (parent.fd < 0) {
      throw PrefixError("cannot link " + plan.dist + ": " +
                        describe_unreachable(prefix_text_, saved.path, parent.error));
    }
    if (::renameat(parent.fd, parent.name.c_str(), AT_FDCWD,
                   journal_.saved_file(saved.id).c_str()) != 0) {
      throw PrefixError("cannot move " + prefix_text_ + "/" + saved.path + " aside: " +
                        std::strerror(errno));
    }
  }
}

// Journals what the package will create (a rollback removes it), then
// creates the missing directories.
void PrefixLinker::create_directories(const LinkPlan& plan) {
  CreateBlock create;
  create.package = plan.dist;
  create.dirs = plan.new_dirs;
  create.keep_dirs = plan.keep_dirs;
  create.paths.reserve(plan.planned.size() + 1);
  for (const auto& item : plan.planned) create.paths.push_back(item.target);
  create.paths.push_back(plan.record_path);
  journal_.record(create);

  directories_->forget();  // what planning found missing may be created below
  for (const auto& dir : plan.new_dirs) {
    const auto parent = directories_->parent_of(dir);
    if (parent.fd < 0) {
      throw PrefixError("cannot link " + plan.dist + ": " +
                        describe_unreachable(prefix_text_, dir, parent.error));
    }
    if (::mkdirat(parent.fd, parent.name.c_str(), 0755) != 0 && errno != EEXIST) {
      throw PrefixError("cannot create " + prefix_text_ + "/" + dir + ": " + std::strerror(errno));
    }
  }
  directories_->forget();  // directories it found missing exist now
}

// Every path is in the journal's CreateBlock already (create_directories),
// so the order in which files appear does not matter to a rollback. Each
// thread takes the next run of files (runs keep a directory's files
// together: its directory cache and the kernel's directory lock favour
// that) with a directory walker and tally of its own.
void PrefixLinker::place_runs(InFlight& link, PrefixDirectories& directories, LinkTally& tally) {
  constexpr std::size_t kRun = 32;
  const auto& planned = link.plan.planned;
  try {
    FilePlacement placement(directories, link.source.fd(), prefix_text_, link.source_dir, *creation_modes_);
    while (!link.failed) {
      const std::size_t begin = link.next_run.fetch_add(kRun);
      if (begin >= planned.size()) break;
      const std::size_t end = std::min(begin + kRun, planned.size());
      for (std::size_t i = begin; i < end && !link.failed; ++i) {
        const auto& item = planned[i];
        if (item.replaces_linked) {
          const auto parent = directories.parent_of(item.target);
          if (parent.fd >= 0) ::unlinkat(parent.fd, parent.name.c_str(), 0);
        }
        link.paths[i] = item.entry_point != nullptr
                            ? place_entry_point(item, *link.python, placement)
                            : place_file(item, link.package, link.actual, placement, tally);
        count_linked_file();
      }
    }
  } catch (...) {
    std::lock_guard lock(link.mutex);
    if (!link.failure) link.failure = std::current_exception();
    link.failed = true;
  }
}

void PrefixLinker::start_placement(InFlight& link) {
  // Beyond four threads the kernel's per-directory locks and the disk are
  // the limit, not the CPU; the thread that calls start_link is one of
  // them (it plans the next package, then completes this one).
  constexpr std::size_t kMostThreads = 4;
  // Read once: glibc reads /sys/devices/system/cpu/online on every call.
  static const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 2, kMostThreads);
  if (!placement_pool_) placement_pool_ = std::make_unique<util::ThreadPool>(threads - 1);
  // One helper per 128 files at most (fewer files cost a thread more than
  // it saves), and at least one: this thread plans the next package meanwhile.
  constexpr std::size_t kFilesPerHelper = 128;
  const std::size_t helpers = std::clamp<std::size_t>(link.plan.planned.size() / kFilesPerHelper, 1, threads - 1);
  link.helper_tallies.resize(helpers);
  // Counted as each is queued: the waits (on this thread) wait only for
  // helpers that exist, should queueing one throw.
  for (std::size_t h = 0; h < helpers; ++h, ++link.helpers) {
    placement_pool_->submit([this, &link, h] {
      PrefixDirectories directories(prefix_fd_, options_.walk);
      place_runs(link, directories, link.helper_tallies[h]);
      std::lock_guard lock(link.mutex);
      ++link.helpers_done;
      link.helpers_changed.notify_all();
    });
  }
}

void PrefixLinker::complete_placement(InFlight& link) {
  if (link.placed) return;
  place_runs(link, *directories_, link.tally);
  {
    std::unique_lock lock(link.mutex);
    link.helpers_changed.wait(lock, [&] { return link.helpers_done == link.helpers; });
  }
  link.placed = true;
  for (const auto& own : link.helper_tallies) {
    link.tally.any_plain_copy = link.tally.any_plain_copy || own.any_plain_copy;
    link.tally.any_hardlink = link.tally.any_hardlink || own.any_hardlink;
  }
  if (link.failure) std::rethrow_exception(link.failure);
}

void PrefixLinker::complete_placements() {
  for (const auto& link : in_flight_) complete_placement(*link);
}

// A noarch: python entry point: a script written for the prefix's python.
PrefixPathEntry PrefixLinker::place_entry_point(const Planned& item, const PythonLayout& python,
                                                FilePlacement& placement) {
  PrefixPathEntry path;
  path.path = item.target;
  const auto script = entry_point_script(*item.entry_point, prefix_text_ + "/" + python.executable);
  const auto placed = placement.write(item.target, script, 0755);
  path.path_type = PrefixPathType::unix_python_entry_point;
  path.sha256_in_prefix = placed.sha256_in_prefix;
  path.size_in_bytes = placed.size;
  return path;
}

// One file of the package: a symbolic link, a copy with the prefix
// replaced, or a hard link (a copy across filesystems).
PrefixPathEntry PrefixLinker::place_file(
    const Planned& item, const CachedPackage& package,
    const std::unordered_map<std::string_view, const package::FileFacts*>& actual,
    FilePlacement& placement, LinkTally& tally) {
  const auto& entry = *item.entry;
  PrefixPathEntry path;
  path.path = item.target;
  path.sha256 = entry.sha256;
  path.size_in_bytes = entry.size_in_bytes;
  path.no_link = entry.no_link;
  const bool symlink = entry.path_type == package::PathType::softlink ||
                       (package.metadata.paths.from_legacy_files && placement.source_is_symlink(entry.path));
  if (symlink) {
    placement.symlink(entry.path, item.target);
    path.path_type = PrefixPathType::softlink;
    path.sha256_in_prefix = entry.sha256;
  } else if (entry.has_prefix()) {
    const auto placed = placement.replace_prefix(entry.path, item.target, entry,
                                                 package.kept ? package.kept->find(entry.path) : nullptr);
    path.prefix_placeholder = entry.prefix_placeholder;
    path.file_mode = entry.file_mode;
    path.sha256_in_prefix = placed.sha256_in_prefix;
    path.size_in_bytes = placed.size;
  } else {
    bool cross_device = false;
    const auto placed = placement.link_or_copy(
        entry.path, item.target, entry, options_.mode == LinkMode::hardlink && hardlinks_work_,
        cross_device);
    if (cross_device) hardlinks_work_ = false;
    (placed.copied ? tally.any_plain_copy : tally.any_hardlink) = true;
    path.sha256_in_prefix = placed.sha256_in_prefix;
    if (!path.size_in_bytes) path.size_in_bytes = placed.size;
    if (const auto real = actual.find(entry.path); real != actual.end()) {
      path.sha256_in_prefix = real->second->sha256;
      path.size_in_bytes = real->second->size;
    }
  }
  return path;
}

}  // namespace gpuenv::prefix
