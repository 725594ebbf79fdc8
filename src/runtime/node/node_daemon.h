// File: runtime/node/node_daemon.h
//
// NodeDaemon: `weftd node`. It serves the scheduler daemon(s) at the given
// addresses (runtime/node/scheduler_link.h: one link per address, each
// registering the node with the daemon there unless another address already
// reaches the same one), then runs what it is told: launches become
// processes through the TaskRunner, kills kill them, and their ends go back
// at once, with the cpu and memory they used, on the link that launched
// them; every heartbeat interval each link gets its tasks' measured usage.
// A policy's node agent, if it has one, runs here (agent_host.h), shared by
// every scheduler replica; its actions go to the daemon owning the job or
// replica they are about (replica_ids.h).
//
// Its tasks run under a lease (docs/runtime.md, "Node loss"): each link
// renews its scheduler's with numbered heartbeats, the daemon publishes the
// earliest end of the leases of the links that are up to its keeper
// (node_keeper.h), which freezes the tasks past it, and what a scheduler
// sends is served only while the lease has some of it left.
//
// If a link's stream breaks (its scheduler died or declared this node lost),
// the node kills the tasks that scheduler launched, since it has already
// given them up and will run them elsewhere, and the link registers again.
// It serves its data port (data_server.h): the bytes other nodes' phases
// read from it, each transfer with a ticket its scheduler sent.
//
// On SIGTERM or SIGINT it kills its tasks and exits. At start it kills
// whatever a previous incarnation left running in its work dir (after kill -9).
//
// Threading: RunNode's thread owns the TaskRunner (it must: the runner's
// children die with the thread that forked them) and the agent; each link
// has a thread that only connects and reads.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "model/resources.h"
#include "runtime/tls.h"

namespace weft::runtime {

struct NodeConfig {
  std::vector<std::string> schedulers;  // addresses: of one scheduler (failover), or of its replicas
  std::string name;
  Resources capacity;
  uint32_t rack = 0;  // --rack: the machine's rack in the policy's cluster
  std::filesystem::path work_dir;
  std::string token;
  TlsConfig tls;  // --tls-*: TLS to the scheduler (runtime/tls.h); empty: clear text
  bool no_cgroups = false;  // --no-cgroups: process groups only, as on a machine without writable cgroups
  // --data-listen: the numeric address the node's data port listens on;
  // empty: the one this machine reaches the first scheduler from.
  std::string data_host;
};

// RunNode serves until `stop` is set (and `wake_fd`, if >= 0, becomes
// readable, so the caller's signal handler can interrupt a wait). Returns
// the process exit code.
int RunNode(const NodeConfig& config, const std::atomic<bool>& stop, int wake_fd);

}  // namespace weft::runtime
