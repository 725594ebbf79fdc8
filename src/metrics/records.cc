#include "metrics/records.h"

namespace weft {

const char* LocalityName(Locality l) {
  switch (l) {
    case Locality::kNone:
      return "none";
    case Locality::kNode:
      return "node";
    case Locality::kRack:
      return "rack";
    case Locality::kRemote:
      return "remote";
  }
  return "none";
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kKilled:
      return "killed";
  }
  return "ok";
}

}  // namespace weft
