// File: runtime/wire.h
//
// Conversions between proto/weft/v1 and the model: resource vectors both
// ways, role messages, the nodes' measurements (task ends, phase ends,
// heartbeats) as the scheduler reads them, the scheduler's reply to a
// registration, and address lists (`a,b`) as the flags give them.
// Thread-safe: plain functions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/resources.h"
#include "policy/message.h"
#include "policy/roles.h"
#include "runtime/replica_ids.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

v1::ResourceVector ToProto(const Resources& r);
// FromProto fails on negative, non-finite or absurd amounts (Resources::FromUnits).
absl::StatusOr<Resources> FromProto(const v1::ResourceVector& v);

// Role messages and addresses (the role-to-role channel). FromProto of an
// address fails on an unknown role kind.
v1::RoleMessage ToProto(const policy::Message& m);
policy::Message FromProto(const v1::RoleMessage& m);
v1::RoleAddress ToProto(const policy::Address& a);
absl::StatusOr<policy::Address> FromProto(const v1::RoleAddress& a);
v1::TaskEndNote ToProto(const policy::TaskEnd& end);
policy::TaskEnd FromProto(const v1::TaskEndNote& note, MachineId machine);

// A node's measurements, in model units. A malformed amount (negative, not
// finite) counts as nothing measured: the scheduler never refuses a report.
Resources MeasuredResources(const v1::ResourceVector& v);
// MeasuredUsage of a whole attempt. Older nodes send only cpu-seconds and
// peak RSS: then the average cores come from the run's length, and the
// peak is the average.
policy::TaskUsage MeasuredUsage(const v1::TaskEnd& end);
policy::TaskUsage MeasuredUsage(const v1::PhaseEnd& end);
// MeasuredResources of one heartbeat's sample of a running attempt.
Resources MeasuredResources(const v1::TaskUsage& sample);

// RegisteredMessage: the scheduler's answer to a node's registration.
v1::SchedulerMessage RegisteredMessage(uint32_t slot, int64_t heartbeat_us, int64_t node_timeout_us,
                                       const ReplicaIds& replica, uint32_t overbooked);

// SplitAddresses splits "a,b,c", dropping empty items.
std::vector<std::string> SplitAddresses(const std::string& list);

}  // namespace weft::runtime
