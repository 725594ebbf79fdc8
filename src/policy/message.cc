#include "policy/message.h"

#include "fmt/format.h"

namespace weft::policy {

std::string Address::ToString() const {
  switch (kind) {
    case RoleKind::kScheduler:
      return fmt::format("scheduler#{}", index);
    case RoleKind::kJobManager:
      return fmt::format("job-manager#{}", index);
    case RoleKind::kNode:
      return fmt::format("node#{}", index);
  }
  return "unknown";
}

}  // namespace weft::policy
