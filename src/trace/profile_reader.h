// File: trace/profile_reader.h
//
// ReadMachineProfile: a machine profile file (docs/model.md, "The machine
// profile"):
//   {"weft_profile": 1, "name": "...", "launch_s": 0.5,
//    "scheduler": {"decision_s": 0.0002},
//    "cpu": {"oversubscription_loss": 0.05}, "disk": {"stream_loss": 0.3}}
// Every field but "weft_profile" is optional (0: no cost); unknown fields and
// negative or non-numeric values are refused with a one-line message naming
// the field (InvalidArgument); summary.json records the profile in the same
// shape (sim/simulation.cc).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "model/machine_profile.h"

namespace weft {

absl::StatusOr<MachineProfile> ReadMachineProfile(const std::string& path);
absl::StatusOr<MachineProfile> ParseMachineProfile(const std::string& text, const std::string& where);

}  // namespace weft
