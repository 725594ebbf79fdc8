// File: policy/message.h
//
// Addresses and messages: the only way the roles of a policy talk to each
// other. A message is a small fixed-shape envelope (a policy-defined type, an
// optional task, three integers, one real number and an optional list)
// rather than an arbitrary C++ object, so that the real runtime can carry any
// policy's messages over gRPC without knowing the policy, and the simulator
// can move millions of them cheaply. Each policy names its message types in
// an enum of its own and documents what a, b, c, x and list mean for each.
// (No list of reals: a second vector made every message 24 bytes larger and
// Sparrow's simulation measurably slower; send one message per real, or
// scale reals into the list, until a policy needs many.)
// Plain values; thread-safe to copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ids.h"

namespace weft::policy {

// The three kinds of role a policy may have (ARCHITECTURE.md, "Policy API").
enum class RoleKind : uint8_t {
  kScheduler,   // cluster scheduler; index = replica number
  kJobManager,  // per-job task scheduler; index = job id
  kNode,        // node agent; index = machine id
};

struct Address {
  RoleKind kind = RoleKind::kScheduler;
  uint32_t index = 0;

  static Address Scheduler(uint32_t replica = 0) { return {RoleKind::kScheduler, replica}; }
  static Address JobManager(JobId job) { return {RoleKind::kJobManager, job.value()}; }
  static Address Node(MachineId machine) { return {RoleKind::kNode, machine.value()}; }

  friend bool operator==(const Address&, const Address&) = default;
  std::string ToString() const;
};

struct Message {
  uint32_t type = 0;  // policy-defined
  TaskRef task;       // the task the message is about, if any
  int64_t a = 0;      // policy-defined payload
  int64_t b = 0;
  int64_t c = 0;
  // A fractional payload (a utility, a rate, a resource desire): carried
  // exactly, in the simulator and over the wire, so policies need no
  // fixed-point convention of their own.
  double x = 0;
  std::vector<int64_t> list;  // larger payloads (e.g. a batch of task indices); usually empty
};

}  // namespace weft::policy
