// File: runtime/replica_ids.h
//
// ReplicaIds: how several `weftd scheduler` daemons that are replicas of one
// decentralized scheduler (Sparrow) share the id spaces the nodes and the
// clients see (docs/runtime.md, "Several scheduler daemons").
//
// Each daemon numbers its own jobs 0, 1, 2, ... (its journal and its engine
// need them dense) and its own scheduler replicas 0..R-1. Outside a daemon
// (to clients and on the role-to-role channel) ids are global: daemon `index`
// of `count` owns global id g exactly when g % count == index, and its local
// id l is global id l * count + index. One rule serves job ids and replica
// numbers alike, so a node routes anything about job or replica g to daemon
// g % count without being told which daemon made it; with one daemon
// (count 1) global and local ids are the same.
// Plain value; thread-safe to copy.
#pragma once

#include <cstdint>
#include <optional>

#include "weft/v1/weft.pb.h"

namespace weft::runtime {

struct ReplicaIds {
  uint32_t index = 0;  // this daemon
  uint32_t count = 1;  // daemons sharing the nodes

  uint32_t Global(uint32_t local) const { return local * count + index; }
  // Local: this daemon's id for global id g, or nothing when another owns it.
  std::optional<uint32_t> Local(uint32_t global) const {
    if (global % count != index) return std::nullopt;
    return global / count;
  }
  static uint32_t Owner(uint32_t global, uint32_t count) { return global % count; }

  // The role-to-role channel as it leaves and enters a daemon: ToGlobal
  // rewrites the job ids and scheduler or job manager addresses of a mail the
  // daemon made (node addresses and payload integers are the policy's and
  // stay as they are); ToLocal does the reverse for an action from a node and
  // returns false when it is about another daemon's job or replica.
  void ToGlobal(v1::AgentMail& mail) const;
  bool ToLocal(v1::AgentAction& action) const;
};

}  // namespace weft::runtime
