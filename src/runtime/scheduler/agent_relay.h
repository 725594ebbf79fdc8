// File: runtime/scheduler/agent_relay.h
//
// AgentRelay: the scheduler core's traffic with the policy's node agents,
// which run on the nodes (runtime/node/agent_host.h). Outbound, the
// engine's mail for a node's agent becomes wire mail, and the first mail
// about a job carries the job's description and progress so far (each
// session of a node is told each job once); agents that know a job hear the
// tasks each commit finished (PROGRESS) and when it ends. Inbound, an
// agent's actions (launch, kill, start a phase, send a message) become
// engine calls; a refused launch is answered, so the agent frees the room it
// held.
//
// Everything it queues goes through the NodeOutbox, so it leaves with the
// core's next Flush, after the commit it depends on. Not thread-safe: the
// core calls it under its lock.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/node_outbox.h"
#include "sim/live_engine.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class AgentRelay {
 public:
  AgentRelay(NodeOutbox& outbox, const JobTable& jobs, const ReplicaIds& replica)
      : outbox_(outbox), jobs_(jobs), replica_(replica) {}

  // Start: the engine runs; `setup` is what each agent's START mail
  // carries (everything but its machine).
  void Start(sim::LiveEngine& engine, v1::AgentSetup setup);
  void Resize(size_t nodes);
  // NewSession: the node in `slot` starts a session: it knows no job.
  void NewSession(uint32_t slot) { jobs_sent_[slot].clear(); }
  // Forget: a compacted job is never described again.
  void Forget(uint32_t job);

  // Deliver queues the engine's mail for node `machine`'s agent.
  void Deliver(MachineId machine, const sim::NodeMail& mail, TimeUs now);
  // TellProgress: the agents that know a job hear which of its tasks the
  // journaled batch `ended` finished, and its stages' counters.
  void TellProgress(std::span<const AttemptRecord> ended, TimeUs now);
  // TellJobEnded: the agents that know the job hear that it ended.
  void TellJobEnded(JobId job, TimeUs now);
  // OnActions carries out the actions of the agent on node `slot` (named
  // `node`, for the log).
  void OnActions(uint32_t slot, std::string_view node, const v1::AgentActions& actions, TimeUs now);

 private:
  // DescribeJob adds job's description and progress to `mail` the first
  // time the node in `slot` needs it in this session.
  void DescribeJob(uint32_t slot, v1::AgentMail& mail, JobId job);
  static void NoteProgress(const policy::JobProgress& progress, std::span<const uint64_t> done,
                           v1::JobProgressNote& note);

  NodeOutbox& outbox_;
  const JobTable& jobs_;
  const ReplicaIds& replica_;
  sim::LiveEngine* engine_ = nullptr;  // null until the cluster is complete
  v1::AgentSetup setup_;
  std::vector<absl::flat_hash_set<uint32_t>> jobs_sent_;  // per slot: jobs described to it in this session
};

}  // namespace weft::runtime
