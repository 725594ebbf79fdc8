// File: tests/trace/workload_test_util.h
//
// Helpers shared by the workload reader tests: a small valid workload to
// mutate one field at a time, the FORMATS.md section 1 example, and ErrorOf,
// which parses and returns the error message.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "core/status.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "trace/workload_reader.h"

namespace weft::testutil {

using Json = nlohmann::json;

// SmallWorkload: machines m0..m3 (cpu 4, mem 8) in racks of two, and job "j"
// with stage "a" (2 tasks) followed by stage "b" (2 tasks).
inline Json SmallWorkload() {
  return Json::parse(R"({
    "weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 4, "rack_size": 2,
                              "capacity": {"cpu": 4, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "a", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1, "mem": 2}},
      {"name": "b", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1}, "after": ["a"]}
    ]}]
  })");
}

// Job and stage of SmallWorkload (or any workload) by position.
inline Json& JobAt(Json& doc, size_t i = 0) { return doc["jobs"][i]; }
inline Json& StageAt(Json& doc, size_t i, size_t job = 0) { return doc["jobs"][job]["stages"][i]; }

// FormatsExampleText: FORMATS.md section 1's example, verbatim.
inline std::string FormatsExampleText() {
  std::ifstream in(WEFT_TESTDATA_DIR "/formats_example.json");
  EXPECT_TRUE(in) << "cannot open " WEFT_TESTDATA_DIR "/formats_example.json";
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// FormatsExample: the example made valid. Its "durations" lists 2 entries for
// a 200-task stage, which the format's own rule (length = tasks) rejects, so
// here it alternates 2.4 and 2.6 over all 200 tasks.
inline Json FormatsExample() {
  Json doc = Json::parse(FormatsExampleText());
  Json& durations = doc["jobs"][0]["stages"][0]["durations"];
  durations = Json::array();
  for (int i = 0; i < 200; ++i) durations.push_back(i % 2 == 0 ? 2.4 : 2.6);
  return doc;
}

// ErrorOfText parses `text` and returns its error message, or "<ok>" when it
// parsed. Every rejection must be InvalidArgument. ErrorOf does the same for a
// JSON document (named apart because Json converts from strings implicitly).
inline std::string ErrorOfText(std::string_view text) {
  auto w = ParseWorkload(text);
  if (w.ok()) return "<ok>";
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(StatusMessage(w.status()));
}
inline std::string ErrorOf(const Json& doc) { return ErrorOfText(doc.dump()); }

// Parse parses a document that must be valid (a failure fails the test and
// gives an empty workload).
inline Workload Parse(const Json& doc) {
  auto w = ParseWorkload(doc.dump());
  EXPECT_TRUE(w.ok()) << w.status();
  return w.ok() ? *std::move(w) : Workload();
}

// ErrorWithStage: the error after setting `key` of stage `stage` of
// SmallWorkload's job "j" to the JSON `value`.
inline std::string ErrorWithStage(size_t stage, const char* key, const char* value) {
  Json doc = SmallWorkload();
  StageAt(doc, stage)[key] = Json::parse(value);
  return ErrorOf(doc);
}

}  // namespace weft::testutil
