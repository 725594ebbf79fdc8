// File: tests/trace/trace_test_util.h
//
// Helpers for the native trace reader tests: TraceFixture gives each test a
// temporary folder, Write() (plain) and WriteGz() (gzip, as the traces are
// published) for files made to a format, and Read() to run a FORMAT:PATH
// spec through ReadTraceWorkload. SharedData() names a file of
// ../shared/data; SKIP_WITHOUT_DATA skips a test visibly when it is absent.
#pragma once

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/status.h"
#include "gtest/gtest.h"
#include "trace/trace_formats.h"

namespace weft::testutil {

inline std::string SharedData(const std::string& relative) { return std::string(WEFT_SHARED_DATA_DIR "/") + relative; }

#define SKIP_WITHOUT_DATA(relative)                                                                  \
  if (!std::filesystem::exists(::weft::testutil::SharedData(relative))) {                            \
    GTEST_SKIP() << "needs ../shared/data/" << (relative) << " beside the checkout (not found)";     \
  }

struct TraceRead {
  absl::StatusOr<Workload> workload;
  TraceReport report;
  // Error: the status message, "" when the read succeeded.
  std::string Error() const { return workload.ok() ? "" : std::string(StatusMessage(workload.status())); }
};

class TraceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "weft_trace_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string WriteGz(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    gzFile gz = gzopen(path.c_str(), "wb");
    EXPECT_NE(gz, nullptr);
    EXPECT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(gz);
    return path;
  }


 public:
  static TraceRead Read(const std::string& spec_text, const TraceOptions& options = {}) {
    TraceRead out{absl::UnknownError("not read"), {}};
    absl::StatusOr<TraceSpec> spec = ParseTraceSpec(spec_text);
    if (!spec.ok()) {
      out.workload = spec.status();
      return out;
    }
    out.workload = ReadTraceWorkload(*spec, options, out.report);
    return out;
  }


 protected:
  std::filesystem::path dir_;
};

// StageNamed finds a stage of `job` by name (nullptr when absent).
inline const Stage* StageNamed(const Job& job, const std::string& name) {
  for (const Stage& s : job.stages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace weft::testutil
