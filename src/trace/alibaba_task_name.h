// File: trace/alibaba_task_name.h
//
// ParseAlibabaTaskName: where a task of an Alibaba cluster-trace-v2018 batch
// job sits in its DAG, read from the task's name. The trace's documentation
// (alibaba/clusterdata, trace_2018.md section 2.3) defines the encoding:
//   "M1"     task 1, no parents        "R4_2"   task 4 after task 2
//   "J5_3_4" task 5 after tasks 3 and 4 (the leading letters carry no meaning)
// Tasks that are not part of a DAG are named with random characters after
// "task_" (e.g. "task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw=="); they are independent.
// Anything else (e.g. "R4_2_Stg9", "J30_4_5_", found in the published data)
// is malformed. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace weft {

struct AlibabaTaskName {
  bool independent = false;       // a "task_..." name: no number, no parents
  uint32_t id = 0;                // the task's number within its job (DAG tasks only)
  std::vector<uint32_t> parents;  // in the order written; may repeat or name the task itself
};

// ParseAlibabaTaskName returns the parsed name, or nullopt when the name is
// neither a DAG name (letters, a number, then "_<number>" per parent) nor an
// independent "task_" name. Numbers must fit in 32 bits.
std::optional<AlibabaTaskName> ParseAlibabaTaskName(std::string_view name);

}  // namespace weft
