// File: tests/runtime/survivors.h
//
// Survivors: the processes a test left behind (issue 34, finding 8): every
// process but this one whose command line mentions `dir` or whose working
// directory is inside it, as "PID COMMAND". The runtime's tests start their
// daemons, keepers and tasks on a directory of their own, so after a test
// none may be left. Reads /proc; single-threaded use.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace weft {

inline std::vector<std::string> Survivors(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const std::string needle = dir.string();
  std::vector<std::string> found;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    if (std::stol(name) == getpid()) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.empty()) continue;  // a zombie (reaped by its parent) or a kernel thread
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    std::error_code cwd_error;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", cwd_error).string();
    const bool inside = !cwd_error && (cwd == needle || cwd.starts_with(needle + "/"));
    if (inside || cmd.find(needle) != std::string::npos) found.push_back(name + " " + cmd);
  }
  return found;
}

// SurvivorsAfterWaiting: Survivors(dir) once none is left, or after about
// `wait` if some are: killed processes take a moment to go.
inline std::vector<std::string> SurvivorsAfterWaiting(const std::filesystem::path& dir,
                                                      std::chrono::milliseconds wait = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<std::string> left = Survivors(dir);
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = Survivors(dir);
  }
  return left;
}

// KillSurvivors SIGKILLs what SurvivorsAfterWaiting found, so that one
// failing test does not leave them to the next.
inline void KillSurvivors(const std::vector<std::string>& left) {
  for (const std::string& line : left) kill(static_cast<pid_t>(std::stol(line.substr(0, line.find(' ')))), SIGKILL);
}

}  // namespace weft
