// File: runtime/node/task_cgroups.cc
#include "runtime/node/task_cgroups.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "fmt/format.h"
#include "runtime/owned_files.h"

namespace weft::runtime {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ReadText(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// WriteText writes `text` to a cgroup control file in one write (the kernel
// takes one value per write).
bool WriteText(const fs::path& path, std::string_view text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// StatValue finds "KEY VALUE" in a flat-keyed file such as cpu.stat or memory.stat.
std::optional<int64_t> StatValue(const fs::path& path, std::string_view key) {
  const std::optional<std::string> text = ReadText(path);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  std::string k;
  int64_t v = 0;
  while (lines >> k >> v) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<int64_t> SingleValue(const fs::path& path) {
  const std::optional<std::string> text = ReadText(path);
  int64_t v = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), v).ec != std::errc()) return std::nullopt;
  return v;
}

// IsCgroupDir: whether `dir` lies on a cgroup file system, so a tampered or
// stale record can never make the node remove or signal anything else.
bool IsCgroupDir(const fs::path& dir) {
  struct statfs st{};
  if (statfs(dir.c_str(), &st) != 0) return false;
  return st.f_type == CGROUP_SUPER_MAGIC || st.f_type == CGROUP2_SUPER_MAGIC;
}

// Dirs: `dir` and every group nested in it, deepest first (the order rmdir needs).
std::vector<fs::path> Dirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return a.native().size() > b.native().size();
  });
  out.push_back(dir);
  return out;
}

std::vector<pid_t> Members(const fs::path& dir) {
  std::vector<pid_t> pids;
  for (const fs::path& d : Dirs(dir)) {
    std::ifstream in(d / "cgroup.procs");
    for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  }
  return pids;
}

// KillDir SIGKILLs every process in `dir` and below. cgroup.kill does it in
// the kernel, without a race against forks; otherwise the group is frozen
// (so nothing forks while its members are listed), every member is killed,
// and it is thawed so the killed processes can exit. Without a freezer the
// listing is repeated until a pass finds no one. Returns the processes signalled.
int KillDir(const fs::path& dir) {
  if (WriteText(dir / "cgroup.kill", "1")) return 1;
  const bool v2_frozen = WriteText(dir / "cgroup.freeze", "1");
  const bool v1_frozen = !v2_frozen && WriteText(dir / "freezer.state", "FROZEN");
  int signalled = 0;
  for (int pass = 0; pass < (v2_frozen || v1_frozen ? 1 : 10); ++pass) {
    const std::vector<pid_t> pids = Members(dir);
    if (pids.empty()) break;
    for (pid_t pid : pids) signalled += kill(pid, SIGKILL) == 0 ? 1 : 0;
  }
  if (v2_frozen) WriteText(dir / "cgroup.freeze", "0");
  if (v1_frozen) WriteText(dir / "freezer.state", "THAWED");
  return signalled;
}

// RemoveDir removes `dir` and its nested groups; false if one is still busy.
bool RemoveDir(const fs::path& dir) {
  bool all = true;
  for (const fs::path& d : Dirs(dir)) {
    if (rmdir(d.c_str()) != 0 && errno != ENOENT) all = false;
  }
  return all;
}

// The cgroup this process is in, per hierarchy, from /proc/self/cgroup:
// "0::/path" for cgroup2, "N:ctrl,ctrl:/path" for v1.
struct OwnGroup {
  std::string controllers;  // "" for cgroup2
  std::string path;
};

std::vector<OwnGroup> OwnGroups() {
  std::vector<OwnGroup> out;
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    out.push_back(OwnGroup{line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

// A cgroup mount from /proc/self/mountinfo: its mount point, its root inside
// the hierarchy, and its controllers ("" for cgroup2).
struct Mount {
  fs::path point;
  std::string root;
  bool v2 = false;
  std::vector<std::string> controllers;
};

std::vector<Mount> CgroupMounts() {
  std::vector<Mount> out;
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point, field;
    fields >> id >> parent >> dev >> root >> point;
    while (fields >> field && field != "-") {
    }
    std::string type, source, options;
    fields >> type >> source >> options;
    if (type != "cgroup" && type != "cgroup2") continue;
    Mount m{.point = point, .root = root, .v2 = type == "cgroup2", .controllers = {}};
    std::istringstream opts(options);
    for (std::string opt; std::getline(opts, opt, ',');) m.controllers.push_back(opt);
    out.push_back(std::move(m));
  }
  return out;
}

bool Has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

namespace {

// WorkDirHash: the hash of a work dir (absolute, links resolved) that ends
// its node group's name.
std::string WorkDirHash(const fs::path& work_dir) {
  std::error_code ec;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(work_dir, ec), ec);
  uint32_t hash = 2166136261u;  // FNV-1a: stable across builds, unlike std::hash
  for (unsigned char c : absolute.native()) hash = (hash ^ c) * 16777619u;
  return fmt::format("{:08x}", hash);
}

// IsNodeGroupOf: `dir` can only be the node group of `work_dir` that weft
// made (issue 34, finding 1): an absolute path without links or `..` on a
// cgroup file system, named weft-NAME-HASH with that work dir's hash. A
// record naming anything else (a planted `/sys/fs/cgroup/system.slice`) is
// never signalled or removed.
bool IsNodeGroupOf(const fs::path& dir, const fs::path& work_dir) {
  const std::string name = dir.filename().string();
  if (!dir.is_absolute() || dir.lexically_normal() != dir || !name.starts_with("weft-") ||
      !name.ends_with("-" + WorkDirHash(work_dir))) {
    return false;
  }
  std::error_code ec;
  return fs::canonical(dir, ec) == dir && !ec && IsCgroupDir(dir);
}

}  // namespace

std::string TaskCgroups::GroupName(std::string_view node_name, const fs::path& work_dir) {
  std::string name(node_name.substr(0, 64));
  for (char& c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!safe) c = '_';
  }
  return fmt::format("weft-{}-{}", name, WorkDirHash(work_dir));
}

TaskCgroups TaskCgroups::Open(std::string_view name, const fs::path& record_file) {
  TaskCgroups out;
  const std::vector<OwnGroup> own = OwnGroups();
  // own_path: this process's group in hierarchy `m` (of `controller`, "" for cgroup2).
  auto own_path = [&](const Mount& m, std::string_view controller) -> std::optional<std::string> {
    for (const OwnGroup& g : own) {
      std::vector<std::string> listed;
      std::istringstream names(g.controllers);
      for (std::string c; std::getline(names, c, ',');) listed.push_back(c);
      if (m.v2 ? !g.controllers.empty() : !Has(listed, controller)) continue;
      // The mount may show only part of the hierarchy (a container's view).
      std::string path = g.path;
      if (m.root != "/" && path.starts_with(m.root)) path = path.substr(m.root.size());
      return path;
    }
    return std::nullopt;
  };
  std::vector<fs::path> made;
  auto try_add = [&](Kind kind, const Mount& m, std::string_view controller) {
    const std::optional<std::string> path = own_path(m, controller);
    if (!path) return;
    const fs::path dir = m.point / fs::path(*path).relative_path() / std::string(name);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return;
    if (access((dir / "cgroup.procs").c_str(), W_OK) != 0) return;
    out.hierarchies_.push_back(Hierarchy{kind, dir});
    if (std::find(made.begin(), made.end(), dir) == made.end()) made.push_back(dir);
  };
  for (const Mount& m : CgroupMounts()) {
    if (m.v2) {
      if (out.Find(Kind::kV2) == nullptr) try_add(Kind::kV2, m, "");
      continue;
    }
    for (auto [controller, kind] : {std::pair{"memory", Kind::kMemory}, std::pair{"cpu", Kind::kCpu},
                                    std::pair{"cpuacct", Kind::kCpuacct}, std::pair{"freezer", Kind::kFreezer}}) {
      if (Has(m.controllers, controller) && out.Find(kind) == nullptr) try_add(kind, m, controller);
    }
  }
  if (out.hierarchies_.empty()) return out;
  if (const Hierarchy* v2 = out.Find(Kind::kV2)) out.has_kill_file_ = fs::exists(v2->node_dir / "cgroup.kill");
  // The record is written whole and renamed into place: a crash leaves the old one or the new one.
  out.record_file_ = record_file;
  // (Never through a link planted in its place.)
  std::string text;
  for (const fs::path& dir : made) text += dir.string() + '\n';
  (void)WriteNoFollow(record_file, text, 0644);
  return out;
}

const TaskCgroups::Hierarchy* TaskCgroups::Find(Kind kind) const {
  for (const Hierarchy& h : hierarchies_) {
    if (h.kind == kind) return &h;
  }
  return nullptr;
}

const TaskCgroups::Hierarchy* TaskCgroups::Membership() const {
  if (const Hierarchy* h = Find(Kind::kV2)) return h;
  if (const Hierarchy* h = Find(Kind::kFreezer)) return h;
  return hierarchies_.empty() ? nullptr : &hierarchies_.front();
}

std::string TaskCgroups::Describe() const {
  if (!enabled()) return "no writable cgroup hierarchy: tasks are tracked by process group only";
  std::string out = "a cgroup per task in";
  for (const Hierarchy& h : hierarchies_) out += " " + h.node_dir.string();
  out += has_kill_file_ ? " (killed with cgroup.kill)" : " (killed by freezing and signalling every member)";
  return out;
}

fs::path TaskCgroups::MembershipPath(std::string_view rel) const {
  const Hierarchy* h = Membership();
  return h == nullptr ? fs::path() : h->node_dir / std::string(rel);
}

std::vector<int> TaskCgroups::Create(std::string_view rel) {
  std::vector<int> fds;
  std::vector<fs::path> seen;
  for (const Hierarchy& h : hierarchies_) {
    const fs::path dir = h.node_dir / std::string(rel);
    if (std::find(seen.begin(), seen.end(), dir) != seen.end()) continue;  // cpu,cpuacct mounted together
    seen.push_back(dir);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) continue;
    const int fd = open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) fds.push_back(fd);
  }
  return fds;
}

void TaskCgroups::Kill(std::string_view rel) const {
  if (const Hierarchy* h = Membership()) KillDir(h->node_dir / std::string(rel));
}

bool TaskCgroups::Remove(std::string_view rel) const {
  bool all = true;
  for (const Hierarchy& h : hierarchies_) all = RemoveDir(h.node_dir / std::string(rel)) && all;
  return all;
}

TaskCgroups::Usage TaskCgroups::Read(std::string_view rel) const {
  Usage u;
  if (const Hierarchy* h = Find(Kind::kV2)) {
    const fs::path dir = h->node_dir / std::string(rel);
    if (auto usec = StatValue(dir / "cpu.stat", "usage_usec")) u.cpu_seconds = static_cast<double>(*usec) / 1e6;
    if (auto anon = StatValue(dir / "memory.stat", "anon")) u.rss_bytes = *anon;
    if (auto kills = StatValue(dir / "memory.events", "oom_kill")) u.oom_kills = *kills;
  }
  if (const Hierarchy* h = Find(Kind::kCpuacct); h != nullptr && !u.cpu_seconds) {
    if (auto ns = SingleValue(h->node_dir / std::string(rel) / "cpuacct.usage")) u.cpu_seconds = static_cast<double>(*ns) / 1e9;
  }
  if (const Hierarchy* h = Find(Kind::kMemory); h != nullptr && !u.rss_bytes) {
    if (auto rss = StatValue(h->node_dir / std::string(rel) / "memory.stat", "total_rss")) u.rss_bytes = *rss;
  }
  if (const Hierarchy* h = Find(Kind::kMemory); h != nullptr && !u.oom_kills) {
    // `oom_kill` in memory.oom_control (kernel 4.13 and later) counts the
    // group's own processes the OOM killer chose.
    if (auto kills = StatValue(h->node_dir / std::string(rel) / "memory.oom_control", "oom_kill")) u.oom_kills = *kills;
  }
  return u;
}

TaskCgroups::LimitsSet TaskCgroups::SetLimits(std::string_view rel, double cores, int64_t mem_bytes) const {
  LimitsSet set;
  constexpr int64_t kPeriodUs = 100000;
  const bool cpu = cores >= 0;
  const bool mem = mem_bytes >= 0;
  const int64_t quota_us = std::max<int64_t>(1000, std::llround(cores * kPeriodUs));
  if (const Hierarchy* h = Find(Kind::kV2)) {
    const fs::path dir = h->node_dir / std::string(rel);
    if (cpu) set.cpu = WriteText(dir / "cpu.max", fmt::format("{} {}", quota_us, kPeriodUs));
    if (mem) set.mem = WriteText(dir / "memory.max", std::to_string(mem_bytes));
  }
  if (const Hierarchy* h = Find(Kind::kCpu); h != nullptr && cpu && !set.cpu) {
    const fs::path dir = h->node_dir / std::string(rel);
    set.cpu = WriteText(dir / "cpu.cfs_period_us", std::to_string(kPeriodUs)) &&
              WriteText(dir / "cpu.cfs_quota_us", std::to_string(quota_us));
  }
  if (const Hierarchy* h = Find(Kind::kMemory); h != nullptr && mem && !set.mem) {
    set.mem = WriteText(h->node_dir / std::string(rel) / "memory.limit_in_bytes", std::to_string(mem_bytes));
  }
  return set;
}

TaskCgroups::FreezeControl TaskCgroups::NodeFreezeControl() const {
  if (const Hierarchy* h = Find(Kind::kV2); h != nullptr && fs::exists(h->node_dir / "cgroup.freeze")) {
    return FreezeControl{h->node_dir / "cgroup.freeze", "1", "0"};
  }
  if (const Hierarchy* h = Find(Kind::kFreezer)) return FreezeControl{h->node_dir / "freezer.state", "FROZEN", "THAWED"};
  return FreezeControl{};
}

void TaskCgroups::ThawNode() const {
  const FreezeControl control = NodeFreezeControl();
  if (!control.file.empty()) WriteText(control.file, control.thaw);
}

void TaskCgroups::Close() {
  for (const Hierarchy& h : hierarchies_) rmdir(h.node_dir.c_str());
  if (!record_file_.empty()) {
    std::error_code ec;
    fs::remove(record_file_, ec);
  }
  hierarchies_.clear();
}

int TaskCgroups::KillRecorded(const fs::path& record_file, int wait_ms) {
  // Only the user's own record (a regular file others cannot write), and in
  // it only this work dir's node groups.
  std::error_code ec;
  if (!IsOwned(record_file) || !fs::is_regular_file(fs::symlink_status(record_file, ec))) return 0;
  const std::optional<std::string> text = ReadText(record_file);
  if (!text) return 0;
  std::vector<fs::path> dirs;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && IsNodeGroupOf(line, record_file.parent_path())) dirs.emplace_back(line);
  }
  const int signalled = KillAndRemove(dirs, wait_ms);
  fs::remove(record_file, ec);
  return signalled;
}

std::vector<fs::path> TaskCgroups::NodeDirs() const {
  std::vector<fs::path> dirs;
  for (const Hierarchy& h : hierarchies_) dirs.push_back(h.node_dir);
  return dirs;
}

int TaskCgroups::KillAndRemove(const std::vector<fs::path>& all, int wait_ms) {
  std::vector<fs::path> dirs;
  for (const fs::path& dir : all) {
    if (IsCgroupDir(dir)) dirs.push_back(dir);
  }
  int signalled = 0;
  for (const fs::path& dir : dirs) signalled += KillDir(dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    bool all = true;
    for (const fs::path& dir : dirs) all = RemoveDir(dir) && all;
    if (all || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return signalled;
}

}  // namespace weft::runtime
