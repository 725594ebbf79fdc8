// libFuzzer target: the scheduler's side of a node's stream (Connect): each
// input is one NodeMessage as a node would send it (protobuf bytes), handed
// to a SchedulerCore as the service does: a Register (re)registers the
// node, anything else goes to OnNodeMessage of the current session. The core
// is real (fifo, journal in this process's own directory, one node whose
// link drops what the scheduler sends) and lives across inputs, with three
// jobs submitted at start so that attempts are running: a node's message
// about attempts, phases, usage and agent actions meets live state, as it
// would from a buggy or hostile node holding the token.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "fuzz_files.h"
#include "runtime/scheduler/scheduler_core.h"
#include "spdlog/spdlog.h"

namespace {

using weft::runtime::SchedulerCore;

class DropLink : public weft::runtime::NodeLink {
 public:
  void Send(weft::v1::SchedulerMessage) override {}
  void Close() override {}
};

constexpr char kJobs[] = R"({"weft": 1, "jobs": [
  {"name": "a", "arrival": 0, "stages": [{"name": "m", "tasks": 8, "duration": 100, "demand": {"cpu": 1, "mem": 1}},
    {"name": "r", "tasks": 2, "duration": 100, "demand": {"cpu": 1, "mem": 1}, "after": ["m"]}]},
  {"name": "b", "arrival": 0, "stages": [{"name": "s", "tasks": 4, "duration": 50, "demand": {"cpu": 2, "mem": 1}}]},
  {"name": "c", "arrival": 0, "stages": [{"name": "s", "tasks": 1, "duration": 10, "demand": {"cpu": 1, "mem": 1}}]}]})";

struct Scheduler {
  DropLink link;
  std::unique_ptr<SchedulerCore> core;
  SchedulerCore::Session session;
};

weft::v1::Register Node() {
  weft::v1::Register r;
  r.set_name("node-0");
  r.mutable_capacity()->set_cpu(4);
  r.mutable_capacity()->set_mem(8);
  return r;
}

Scheduler& Live() {
  static Scheduler* s = [] {
    spdlog::set_level(spdlog::level::off);
    auto* live = new Scheduler;
    weft::runtime::SchedulerConfig config;
    config.state_dir = weft::fuzz::FuzzDir() + "/state";
    auto core = SchedulerCore::Open(config);
    if (!core.ok()) std::abort();
    live->core = std::move(*core);
    auto session = live->core->RegisterNode(Node(), &live->link);
    if (!session.ok() || !live->core->Submit(kJobs).ok()) std::abort();
    live->session = *session;
    return live;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Scheduler& s = Live();
  weft::v1::NodeMessage message;
  if (!message.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (message.has_register_()) {
    auto session = s.core->RegisterNode(message.register_(), &s.link);
    if (session.ok()) s.session = *session;
    return 0;
  }
  s.core->OnNodeMessage(s.session, message);
  return 0;
}
