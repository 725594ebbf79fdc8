// File: runtime/node/task_specs.h
//
// How the node turns what the scheduler sends into what its task runner
// starts (task_runner.h's TaskSpec): a launch without phases, one phase of
// a phased launch, a copy of bytes from another node, the container a task
// runs in and the limits of one that runs outside any. Pure functions of the messages; the daemon owns the
// runner and starts what they build.
//
// Threading: none of their own; plain functions.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/time.h"
#include "model/resources.h"
#include "runtime/node/task_runner.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// A built-in task shorter than this ends at once, without a process (a
// spawn would cost more than the task).
constexpr TimeUs kInstantBuiltinUs = 1000;

// TaskSpecOf: runner task `id` for launch `l` of a task without phases: its
// command with WEFT_JOB, WEFT_STAGE and WEFT_TASK in the environment, or
// the built-in task burning its duration.
TaskSpec TaskSpecOf(uint64_t id, const v1::Launch& l);

// PhaseSpec: one phase of a launched phased attempt as the runner runs it:
// the built-in work of its resource (or of its profile, for a profiled
// phase), or the task's command once per phase with WEFT_PHASE (its index),
// WEFT_PHASE_RESOURCE ("profiled" for a profiled phase) and WEFT_PHASE_NAME
// in the environment. A built-in phase that moves network bytes reads them
// from its start's pull (DataPull); an error when the pull is malformed.
absl::StatusOr<TaskSpec> PhaseSpec(uint64_t id, const v1::Launch& launch, const v1::PhaseStart& start);

// CopySpec: runner task `id` for a shuffle copy or an input read: the
// built-in net work reading the copy's bytes from its source's data port;
// an error when its pull is malformed.
absl::StatusOr<TaskSpec> CopySpec(uint64_t id, const v1::DataCopy& copy);

// PullOf: a start's data pull as the built-in child sends it; an error when
// its address is not a numeric HOST:PORT or its ticket not 16 bytes.
absl::StatusOr<DataPull> PullOf(const v1::DataPull& pull);

// SetContainer: a task launched in a container runs nested in the node's
// group for it, named per link (two scheduler daemons number their
// containers independently), of the container's size (cores; GB as 1e9
// bytes, the unit the node reports memory in).
void SetContainer(TaskSpec& spec, size_t link, const v1::Launch& launch);

// SetLimits: a task outside a container is limited to its reservation in
// cpu and memory, where the policy does not overbook them and the
// reservation says something (a zero demand reserves nothing to limit to).
void SetLimits(TaskSpec& spec, const Resources& reserve, ResourceMask overbooked);

}  // namespace weft::runtime
