// File: runtime/node/node_daemon.h
//
// NodeDaemon: `weftd node`. It connects to a scheduler (trying each given
// address in turn), registers with its name and capacity, then runs what it
// is told: launches become processes through the TaskRunner, kills kill
// them, and their ends go back at once with the cpu and memory they used;
// every heartbeat interval it reports the running tasks' measured usage.
//
// If the stream breaks (the scheduler died or declared this node lost), the
// node kills every task it runs, since the scheduler has already given them
// up and will run them elsewhere, then reconnects and registers again. On
// SIGTERM or SIGINT it kills its tasks and exits. At start it kills whatever
// a previous incarnation left running in its work dir (after kill -9).
//
// Threading: Run() runs on the calling thread, which owns the TaskRunner
// (it must: the runner's children die with the thread that forked them); a
// second thread only reads the stream.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "model/resources.h"

namespace weft::runtime {

struct NodeConfig {
  std::vector<std::string> schedulers;  // addresses, tried in turn
  std::string name;
  Resources capacity;
  std::filesystem::path work_dir;
  std::string token;
};

// RunNode serves until `stop` is set (and `wake_fd`, if >= 0, becomes
// readable, so the caller's signal handler can interrupt a wait). Returns
// the process exit code.
int RunNode(const NodeConfig& config, const std::atomic<bool>& stop, int wake_fd);

}  // namespace weft::runtime
