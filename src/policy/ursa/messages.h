// File: policy/ursa/messages.h
//
// The messages between Ursa's roles (policy/message.h's envelope), shared by
// `ursa` and `ursa-yarn`. Values in Message::list are thousandths of a unit.
#pragma once

#include <cstdint>

#include "policy/common/container_protocol.h"

namespace weft::policy::ursa {

// Numbered from common/container_protocol.h's kFirstPolicyContainerMessage so
// that ursa-yarn's job managers can also speak the container protocol.
enum MessageType : uint32_t {
  // job manager -> scheduler: x = the memory estimate (GB) of the job's
  // ready tasks (admission.h).
  kEstimate = kFirstPolicyContainerMessage,
  // job manager -> scheduler: tasks [task.index, a) of task.stage are ready.
  kReady,
  // job manager -> scheduler: list = the job's remaining work R for cpu,
  // disk, net (thousandths of core-seconds and MB).
  kRemaining,
  // node agent -> scheduler and job manager: monotask a of `task` ended;
  // b = its resource; x = the worker's measured processing rate of b (work
  // per second).
  kMonotaskDone,
  // node agent -> scheduler: the attempt of `task` on this machine ended.
  kTaskGone,
  // scheduler -> node agent: x = the rank of job task.job in the node's
  // queues (smaller first).
  kRank,
  // ursa-yarn job manager -> node agent: `task` is about to be launched in
  // container a on the agent's machine.
  kInContainer,
};

// Thousandths, for Message::list.
inline constexpr double kListScale = 1000.0;

}  // namespace weft::policy::ursa
