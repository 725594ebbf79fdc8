// File: runtime/journal_test_util.h
//
// Shared by the journal tests: a fixture owning a fresh state directory, and
// small builders for jobs and attempts.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "gtest/gtest.h"
#include "runtime/journal.h"

namespace weft::runtime::journal_test {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("weft_journal_") + info->name() + "_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  const std::filesystem::path& dir() const { return dir_; }

  // The helpers throw on failure: GoogleTest reports the exception as the
  // test's failure, and these return values a test cannot go on without.
  std::unique_ptr<Journal> OpenOrDie(JournalOptions options = {}) const {
    auto journal = Journal::Open(dir_, options);
    if (!journal.ok()) throw std::runtime_error(std::string(StatusMessage(journal.status())));
    return std::move(journal).value();
  }
  static Recovered LoadOrDie(Journal& journal) {
    auto r = journal.Load();
    if (!r.ok()) throw std::runtime_error(std::string(StatusMessage(r.status())));
    return std::move(r).value();
  }
  // OverwriteFile replaces bytes of journal.db in place (to corrupt it).
  void OverwriteFile(std::streamoff offset, const std::string& bytes) const {
    std::fstream f(dir_ / "journal.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(offset);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("cannot overwrite journal.db");
  }

 private:
  std::filesystem::path dir_;
};

inline JournalJob MakeJob(uint32_t id) {
  return {.id = JobId(id),
          .name = "job" + std::to_string(id),
          .spec_json = "{\"name\": \"job" + std::to_string(id) + "\"}",
          .submitted_us = 10 * id};
}

inline AttemptRecord MakeAttempt(uint32_t job, uint32_t stage, uint32_t index, Outcome outcome) {
  AttemptRecord a;
  a.task = {.job = JobId(job), .stage = stage, .index = index};
  a.machine = MachineId(index % 4);
  a.start_us = 100 * index;
  a.end_us = a.start_us + 50;
  a.outcome = outcome;
  a.demand.set_micro(kCpu, 1'000'000);
  return a;
}

// Rows makes attempts comparable field by field (AttemptRecord has no ==).
inline auto Rows(std::span<const AttemptRecord> attempts) {
  std::vector<std::tuple<TaskRef, uint32_t, MachineId, TimeUs, TimeUs, TimeUs, Outcome, Resources,
                         Resources, Locality, bool>>
      rows;
  for (const AttemptRecord& a : attempts) {
    rows.emplace_back(a.task, a.attempt, a.machine, a.ready_us, a.start_us, a.end_us, a.outcome,
                      a.demand, a.usage, a.locality, a.in_container);
  }
  return rows;
}

}  // namespace weft::runtime::journal_test
