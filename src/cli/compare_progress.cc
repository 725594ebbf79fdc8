#include "cli/compare_progress.h"

#include "fmt/format.h"

namespace weft::cli {
namespace {
// Back to the line's start and erase it: the status line is redrawn in place.
constexpr const char* kClearLine = "\r\033[K";
}  // namespace

CompareProgress::CompareProgress(std::ostream& out, std::vector<std::string> names, bool parallel)
    : out_(out), names_(std::move(names)), parallel_(parallel), running_(names_.size(), false) {}

CompareProgress::~CompareProgress() {
  std::lock_guard lock(mu_);
  if (status_drawn_) out_ << kClearLine << std::flush;
}

void CompareProgress::Started(size_t run) {
  std::lock_guard lock(mu_);
  running_[run] = true;
  if (parallel_) {
    DrawStatus();
    return;
  }
  out_ << fmt::format("compare: {} running ({} of {})\n", names_[run], run + 1, names_.size()) << std::flush;
}

void CompareProgress::Finished(size_t run, double wall_seconds, bool ok) {
  std::lock_guard lock(mu_);
  running_[run] = false;
  ++done_;
  if (status_drawn_) out_ << kClearLine;
  status_drawn_ = false;
  out_ << fmt::format("compare: {} {} in {:.2f} s ({} of {} done)\n", names_[run], ok ? "done" : "failed",
                      wall_seconds, done_, names_.size());
  if (parallel_ && done_ < names_.size()) DrawStatus();
  out_ << std::flush;
}

void CompareProgress::DrawStatus() {
  std::string running;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (running_[i]) running += (running.empty() ? "" : ", ") + names_[i];
  }
  out_ << kClearLine << fmt::format("compare: running {} ({} of {} done)", running.empty() ? "-" : running, done_,
                                    names_.size())
       << std::flush;
  status_drawn_ = true;
}

}  // namespace weft::cli
