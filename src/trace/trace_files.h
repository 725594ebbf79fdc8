// File: trace/trace_files.h
//
// TraceFiles: the files a FORMAT:PATH[,PATH...] argument names, sorted by
// table. A PATH may be a file or a folder (searched recursively); a file's
// table is found from its path (the published traces keep each table in a
// folder or file of that name, e.g. task_events/part-00000-of-00500.csv.gz).
// Thread-safe: plain data.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace weft {

// TablesOf lists the files under `paths` by table: each file goes to the
// first of `tables` its path contains, in path order within a table. A file
// matching none is an error naming it and the tables expected, unless
// `ignore_others` (then folders may hold other files, e.g. SOURCES.md).
absl::StatusOr<std::map<std::string, std::vector<std::string>>> TablesOf(const std::vector<std::string>& paths,
                                                                         const std::vector<std::string>& tables,
                                                                         std::string_view format);

}  // namespace weft
