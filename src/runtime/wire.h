// File: runtime/wire.h
//
// Small conversions shared by both ends of the wire protocol: resource
// vectors to and from proto/weft/v1, and address lists (`a,b`) as the flags
// give them. Thread-safe: plain functions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/resources.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

v1::ResourceVector ToProto(const Resources& r);
// FromProto fails on negative, non-finite or absurd amounts (Resources::FromUnits).
absl::StatusOr<Resources> FromProto(const v1::ResourceVector& v);

// SplitAddresses splits "a,b,c", dropping empty items.
std::vector<std::string> SplitAddresses(const std::string& list);

}  // namespace weft::runtime
