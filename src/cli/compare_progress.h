// File: cli/compare_progress.h
//
// CompareProgress: what `weft compare` shows on a terminal (stderr) while its
// policies run, so a long compare is never silent and always names the
// policy at work. One at a time (-j 1): a line naming each policy as it
// starts (the simulator's own progress bar then draws below it) and one as it
// ends. Several at once: a line per policy as it ends, under a status line
// redrawn in place that names the policies running and counts those done.
// Nothing is written when the caller does not make one (not a terminal, or
// --no-progress). Thread-safe: Started and Finished may be called from the
// runs' threads.
#pragma once

#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace weft::cli {

class CompareProgress {
 public:
  // `names`: the policies in run order; `parallel`: several run at once.
  CompareProgress(std::ostream& out, std::vector<std::string> names, bool parallel);
  // Clears the status line, if one is drawn.
  ~CompareProgress();
  CompareProgress(const CompareProgress&) = delete;
  CompareProgress& operator=(const CompareProgress&) = delete;

  void Started(size_t run);
  void Finished(size_t run, double wall_seconds, bool ok);

 private:
  void DrawStatus();  // with mu_ held

  std::ostream& out_;
  const std::vector<std::string> names_;
  const bool parallel_;
  std::mutex mu_;
  std::vector<bool> running_;
  size_t done_ = 0;
  bool status_drawn_ = false;
};

}  // namespace weft::cli
