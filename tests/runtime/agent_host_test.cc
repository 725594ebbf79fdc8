// AgentHost: Sparrow's node agent hosted on its node, driven by agent mail as
// the scheduler sends it, answering with actions.
#include "runtime/node/agent_host.h"

#include "gtest/gtest.h"
#include "policy/sparrow/sparrow.h"
#include "runtime/scheduler/job_intake.h"
#include "runtime/wire.h"

namespace weft::runtime {
namespace {

using policy::sparrow::kEnqueue;
using policy::sparrow::kProbe;
using policy::sparrow::kProbeReply;

constexpr char kJob[] = R"({"name": "j", "stages": [{"name": "s", "tasks": 3, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]})";

v1::AgentSetup AgentSetupFor(const std::string& policy = "sparrow-random") {
  Cluster cluster;
  cluster.AddMachine("a", RackId(0), *Resources::FromUnits({2, 4, 0, 0}));
  cluster.AddMachine("b", RackId(0), *Resources::FromUnits({2, 4, 0, 0}));
  v1::AgentSetup s;
  s.set_policy(policy);
  s.set_machine(1);
  s.set_cluster_json(ClusterJson(cluster).dump());
  s.set_seed(7);
  return s;
}

v1::AgentMail Start() {
  v1::AgentMail m;
  m.set_kind(v1::AgentMail::START);
  *m.mutable_setup() = AgentSetupFor();
  return m;
}

v1::AgentMail Message(uint32_t type, uint32_t task, bool describe, uint32_t job = 4, uint32_t replica = 0) {
  v1::AgentMail m;
  m.set_kind(v1::AgentMail::MESSAGE);
  *m.mutable_from() = ToProto(policy::Address::Scheduler(replica));
  *m.mutable_message() = ToProto(policy::Message{.type = type, .task = TaskRef{JobId(job), 0, task}, .a = 11});
  if (describe) {
    v1::JobSpec* spec = m.add_jobs();
    spec->set_id(job);
    spec->set_spec_json(kJob);
  }
  return m;
}

TEST(AgentHostTest, RefusesPoliciesWithoutNodeAgentsAndBadSetups) {
  EXPECT_FALSE(AgentHost::Create(AgentSetupFor("fifo")).ok());
  EXPECT_FALSE(AgentHost::Create(AgentSetupFor("no-such-policy")).ok());
  v1::AgentSetup bad = AgentSetupFor();
  bad.set_machine(9);
  EXPECT_FALSE(AgentHost::Create(bad).ok());
  bad = AgentSetupFor();
  bad.set_cluster_json("not json");
  EXPECT_FALSE(AgentHost::Create(bad).ok());
}

TEST(AgentHostTest, AnswersProbesAndLaunchesQueuedTasksUpToItsSlots) {
  auto host = AgentHost::Create(AgentSetupFor());
  ASSERT_TRUE(host.ok()) << host.status();
  AgentHost& agent = **host;
  ASSERT_TRUE(agent.Deliver(Start()).ok());
  ASSERT_TRUE(agent.Deliver(Message(kProbe, 0, true)).ok());
  v1::AgentActions actions = agent.TakeActions();
  ASSERT_EQ(actions.actions_size(), 1);
  EXPECT_FALSE(actions.actions(0).launch());
  EXPECT_EQ(actions.actions(0).message().type(), kProbeReply);
  EXPECT_EQ(actions.actions(0).message().a(), 11);
  EXPECT_EQ(actions.actions(0).message().b(), 0);  // idle: load 0
  // Three tasks queued on a 2-core node: two launch, the third waits.
  for (uint32_t t = 0; t < 3; ++t) ASSERT_TRUE(agent.Deliver(Message(kEnqueue, t, false)).ok());
  actions = agent.TakeActions();
  ASSERT_EQ(actions.actions_size(), 2);
  EXPECT_TRUE(actions.actions(0).launch());
  EXPECT_EQ(actions.actions(0).message().task(), 0u);
  EXPECT_EQ(actions.actions(1).message().task(), 1u);
  // The scheduler refuses the first launch: its slot frees and the third task goes.
  v1::AgentMail refused;
  refused.set_kind(v1::AgentMail::LAUNCH_REFUSED);
  *refused.mutable_end() = ToProto(policy::TaskEnd{.task = TaskRef{JobId(4), 0, 0}});
  ASSERT_TRUE(agent.Deliver(refused).ok());
  actions = agent.TakeActions();
  ASSERT_EQ(actions.actions_size(), 1);
  EXPECT_EQ(actions.actions(0).message().task(), 2u);
  // A refusal for a task it did not launch changes nothing.
  ASSERT_TRUE(agent.Deliver(refused).ok());
  EXPECT_EQ(agent.TakeActions().actions_size(), 0);
}

TEST(AgentHostTest, AMessageAboutAnUndescribedJobIsAnErrorNotACrash) {
  auto host = AgentHost::Create(AgentSetupFor());
  ASSERT_TRUE(host.ok());
  ASSERT_TRUE((*host)->Deliver(Start()).ok());
  EXPECT_FALSE((*host)->Deliver(Message(kEnqueue, 0, false)).ok());
}

// Two scheduler daemons share the node (replica_ids.h): job 4 and replica 0
// belong to daemon 0, job 5 and replica 1 to daemon 1. When daemon 0's
// stream ends, only its launch and its queued reservations go.
TEST(AgentHostTest, ASchedulerDaemonLostTakesOnlyItsOwnLaunchesAndQueueEntries) {
  v1::AgentSetup setup = AgentSetupFor();
  setup.set_replicas(2);
  v1::AgentMail start = Start();
  *start.mutable_setup() = setup;
  auto host = AgentHost::Create(setup);
  ASSERT_TRUE(host.ok()) << host.status();
  AgentHost& agent = **host;
  ASSERT_TRUE(agent.Deliver(start).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 0, true, 4, 0)).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 0, true, 5, 1)).ok());
  ASSERT_EQ(agent.TakeActions().actions_size(), 2);  // both launched: the node's 2 cores are taken
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 1, false, 4, 0)).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 1, false, 5, 1)).ok());
  ASSERT_EQ(agent.TakeActions().actions_size(), 0);  // queued

  agent.SchedulerLost(0, 2);
  const v1::AgentActions actions = agent.TakeActions();
  ASSERT_EQ(actions.actions_size(), 1);
  EXPECT_TRUE(actions.actions(0).launch());
  EXPECT_EQ(actions.actions(0).message().job(), 5u);
  EXPECT_EQ(actions.actions(0).message().task(), 1u);
}

TEST(AgentHostTest, AnotherDaemonsSetupIsCompatibleOnlyWithTheSamePolicyParametersAndReplicas) {
  v1::AgentSetup setup = AgentSetupFor();
  setup.set_replicas(2);
  auto host = AgentHost::Create(setup);
  ASSERT_TRUE(host.ok());
  v1::AgentSetup other = setup;
  other.set_machine(0);  // each daemon numbers the nodes its own way
  EXPECT_TRUE((*host)->Compatible(other));
  other.add_params("probe_ratio=3");
  EXPECT_FALSE((*host)->Compatible(other));
  other = setup;
  other.set_replicas(3);
  EXPECT_FALSE((*host)->Compatible(other));
  other = setup;
  other.set_policy("sparrow");
  EXPECT_FALSE((*host)->Compatible(other));
}

TEST(AgentHostTest, LearnsWhenAJobEndsAndSendsItsKillsToTheScheduler) {
  auto host = AgentHost::Create(AgentSetupFor());
  ASSERT_TRUE(host.ok());
  AgentHost& agent = **host;
  ASSERT_TRUE(agent.Deliver(Start()).ok());
  ASSERT_TRUE(agent.Deliver(Message(kProbe, 0, true)).ok());
  agent.TakeActions();
  // Per-task Sparrow skips queued tasks of a job that has ended: after
  // JOB_ENDED, a queued entry of job 4 launches nothing.
  v1::AgentMail ended;
  ended.set_kind(v1::AgentMail::JOB_ENDED);
  ended.mutable_end()->set_job(4);
  ASSERT_TRUE(agent.Deliver(ended).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 0, false)).ok());
  EXPECT_EQ(agent.TakeActions().actions_size(), 0);
}

// Retention on the node (issue 20): an ended job's description goes once
// the agent's launches of it have ended, so a node that runs jobs for days
// holds only those in flight; a late message about it finds it ended.
TEST(AgentHostTest, DropsAnEndedJobsDescriptionAfterItsLastLaunchHere) {
  auto host = AgentHost::Create(AgentSetupFor());
  ASSERT_TRUE(host.ok());
  AgentHost& agent = **host;
  ASSERT_TRUE(agent.Deliver(Start()).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 0, true, 4)).ok());  // launched here
  ASSERT_TRUE(agent.Deliver(Message(kProbe, 0, true, 6)).ok());    // described, nothing launched
  agent.TakeActions();
  EXPECT_EQ(agent.held_jobs(), 2u);
  auto ended = [](uint32_t job) {
    v1::AgentMail m;
    m.set_kind(v1::AgentMail::JOB_ENDED);
    m.mutable_end()->set_job(job);
    return m;
  };
  ASSERT_TRUE(agent.Deliver(ended(6)).ok());
  EXPECT_EQ(agent.held_jobs(), 1u);  // job 6: nothing of it runs here
  ASSERT_TRUE(agent.Deliver(ended(4)).ok());
  EXPECT_EQ(agent.held_jobs(), 1u);  // job 4: its task's end is still to come
  v1::AgentMail task_ended;
  task_ended.set_kind(v1::AgentMail::TASK_ENDED);
  *task_ended.mutable_end() = ToProto(policy::TaskEnd{.task = TaskRef{JobId(4), 0, 0}, .outcome = Outcome::kKilled});
  ASSERT_TRUE(agent.Deliver(task_ended).ok());
  EXPECT_EQ(agent.held_jobs(), 0u);
  // A late message about a dropped job: it has ended, nothing launches, and
  // its description sent again is not kept.
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 1, true, 4)).ok());
  EXPECT_EQ(agent.TakeActions().actions_size(), 0);
  EXPECT_EQ(agent.held_jobs(), 0u);
}

// Sparrow's node queue keeps a reservation (late binding) of a job after
// its end; once the job's description is dropped, the reservation still
// comes up (a task request the scheduler answers with a no-op) rather than
// reading past the dropped job's stages.
TEST(AgentHostTest, AReservationOfADroppedJobIsStillServed) {
  v1::AgentSetup setup = AgentSetupFor("sparrow");
  auto host = AgentHost::Create(setup);
  ASSERT_TRUE(host.ok()) << host.status();
  AgentHost& agent = **host;
  v1::AgentMail start = Start();
  *start.mutable_setup() = setup;
  ASSERT_TRUE(agent.Deliver(start).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 0, true, 5)).ok());
  ASSERT_TRUE(agent.Deliver(Message(kEnqueue, 1, false, 5)).ok());
  EXPECT_EQ(agent.TakeActions().actions_size(), 2);  // both cores taken by job 5
  ASSERT_TRUE(agent.Deliver(Message(policy::sparrow::kReserve, 0, true, 4)).ok());  // queued
  v1::AgentMail ended;
  ended.set_kind(v1::AgentMail::JOB_ENDED);
  ended.mutable_end()->set_job(4);
  ASSERT_TRUE(agent.Deliver(ended).ok());
  EXPECT_EQ(agent.held_jobs(), 1u);  // job 4 dropped, job 5 held
  v1::AgentMail task_ended;
  task_ended.set_kind(v1::AgentMail::TASK_ENDED);
  *task_ended.mutable_end() = ToProto(policy::TaskEnd{.task = TaskRef{JobId(5), 0, 0}, .outcome = Outcome::kOk});
  ASSERT_TRUE(agent.Deliver(task_ended).ok());
  const v1::AgentActions actions = agent.TakeActions();
  ASSERT_EQ(actions.actions_size(), 1);
  EXPECT_FALSE(actions.actions(0).launch());
  EXPECT_EQ(actions.actions(0).message().type(), policy::sparrow::kGetTask);
  EXPECT_EQ(actions.actions(0).message().job(), 4u);
}

}  // namespace
}  // namespace weft::runtime
