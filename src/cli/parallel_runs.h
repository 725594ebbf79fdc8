// File: cli/parallel_runs.h
//
// RunInParallel: runs `count` independent tasks on up to `jobs` threads, for
// `weft compare -j` and `weft sweep -j`. Each task writes only its own slot of
// a result vector the caller owns, and callers print in index order after
// every task is done, so the output is the same as running them one at a time.
// Threading: `task` is called concurrently from several threads with
// different indices; it must share nothing mutable between indices.
#pragma once

#include <cstddef>
#include <functional>

namespace weft::cli {

// DefaultJobs: the number of cores this process may use (at least 1).
unsigned DefaultJobs();

// RunInParallel calls task(i) for every i in [0, count), each on one of at
// most `jobs` threads (the calling thread alone when jobs <= 1), taking the
// indices in increasing order; returns when all have returned.
void RunInParallel(unsigned jobs, size_t count, const std::function<void(size_t)>& task);

}  // namespace weft::cli
