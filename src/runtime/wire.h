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
#include "policy/message.h"
#include "policy/roles.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

v1::ResourceVector ToProto(const Resources& r);
// FromProto fails on negative, non-finite or absurd amounts (Resources::FromUnits).
absl::StatusOr<Resources> FromProto(const v1::ResourceVector& v);

// Role messages and addresses (the role-to-role channel). FromProto of an
// address fails on an unknown role kind.
v1::RoleMessage ToProto(const policy::Message& m);
policy::Message FromProto(const v1::RoleMessage& m);
v1::RoleAddress ToProto(const policy::Address& a);
absl::StatusOr<policy::Address> FromProto(const v1::RoleAddress& a);
v1::TaskEndNote ToProto(const policy::TaskEnd& end);
policy::TaskEnd FromProto(const v1::TaskEndNote& note, MachineId machine);

// SplitAddresses splits "a,b,c", dropping empty items.
std::vector<std::string> SplitAddresses(const std::string& list);

}  // namespace weft::runtime
