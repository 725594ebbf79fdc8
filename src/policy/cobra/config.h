// File: policy/cobra/config.h
//
// The configuration shared by COBRA's roles and the two baselines that reuse
// them (cobra.h has the design), and the two messages COBRA adds to the
// shared container protocol (policy/common/container_protocol.h).
#pragma once

#include <cstdint>

#include "core/time.h"
#include "model/resources.h"
#include "policy/cobra/af.h"
#include "policy/common/container_protocol.h"

namespace weft::policy::cobra {

enum CobraMessage : uint32_t {
  // job manager -> scheduler: the job wants `a` containers in all (its
  // desire, held ones included), each of at least EncodeResources in `list`.
  kSetDesire = kFirstPolicyContainerMessage,
  // scheduler -> job manager: the job's allocation is now `a` containers;
  // a job holding more gives the excess back as it empties (no preemption).
  kAllocation,
};

// How a job manager sets its desire.
enum class DesireMode : uint8_t {
  kAf,            // COBRA: Algorithm 1 once per period
  kPerTask,       // Default: one container per waiting or running task
  kSparkDynamic,  // Spark's dynamic allocation: grows while tasks wait, drops idle executors
};

// Which waiting task a container gets.
enum class PlacementMode : uint8_t {
  kPdelay,  // Algorithm 2: node-local, rack-local after τ·p, any after 2τ·p when ≥ 1-δ free
  kDelay,   // plain delay scheduling: fixed node and rack waits, per task
};

struct CobraConfig {
  DesireMode desire_mode = DesireMode::kAf;
  PlacementMode placement = PlacementMode::kPdelay;
  bool reuse = true;  // several tasks per container, kept across tasks; false: one task, then released
  Resources container;  // the fixed container size (cores and memory; bandwidth by ContainerSizeOn)
  TimeUs response_time_us = kUsPerSecond;
  // Af and Pdelay.
  AfParams af;
  TimeUs period_us = 5 * kUsPerSecond;
  double initial_desire = 1;
  double tau = 0.5;
  // Plain delay (kDelay).
  TimeUs node_wait_us = 3 * kUsPerSecond;
  TimeUs rack_wait_us = 3 * kUsPerSecond;
  // Spark's dynamic allocation (kSparkDynamic).
  TimeUs backlog_timeout_us = kUsPerSecond;
  TimeUs sustained_backlog_timeout_us = kUsPerSecond;
  TimeUs idle_timeout_us = 60 * kUsPerSecond;
  // The granter's cpu over-subscription (container_protocol.h; spark-dynamic's
  // parameter, Ursa's Table 5): the division counts k times the cores too.
  double cpu_oversubscription = 1;
  // Test-only: apply ρ on inefficient periods too (Af deliberately broken,
  // so the Theorem 5 property test can show it catches a wrong Af).
  bool broken_af = false;
};

}  // namespace weft::policy::cobra
