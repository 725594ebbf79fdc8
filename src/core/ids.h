// File: core/ids.h
//
// Typed identifiers. Each is a small integer index into a vector owned by the
// model or the engine, wrapped so that a job id cannot be passed where a
// machine id is expected. Plain values; thread-safe to copy.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace weft {

template <typename Tag>
class Id {
 public:
  using Value = uint32_t;
  static constexpr Value kInvalidValue = std::numeric_limits<Value>::max();

  constexpr Id() = default;
  constexpr explicit Id(Value v) : value_(v) {}

  constexpr Value value() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalidValue; }

  friend constexpr auto operator<=>(Id, Id) = default;

 private:
  Value value_ = kInvalidValue;
};

struct JobTag {};
struct MachineTag {};
struct UserTag {};
struct RackTag {};
struct ContainerTag {};

using JobId = Id<JobTag>;
using MachineId = Id<MachineTag>;
using UserId = Id<UserTag>;
using RackId = Id<RackTag>;
using ContainerId = Id<ContainerTag>;

// TaskRef names one task: the task `index` of stage `stage` of job `job`.
// Stage and index are positions in the job's vectors.
struct TaskRef {
  JobId job;
  uint32_t stage = 0;
  uint32_t index = 0;

  friend constexpr auto operator<=>(const TaskRef&, const TaskRef&) = default;
};

}  // namespace weft

template <typename Tag>
struct std::hash<weft::Id<Tag>> {
  size_t operator()(weft::Id<Tag> id) const noexcept { return std::hash<uint32_t>{}(id.value()); }
};
