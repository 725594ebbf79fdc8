#include "runtime/node/node_book.h"

#include <vector>

#include "fmt/format.h"

namespace weft::runtime {

absl::Status NodeBook::Fits(const Resources& more, const char* what) const {
  const Resources after = reserved_ + more;
  for (int k = 0; k < kNumResources; ++k) {
    const auto r = static_cast<Resource>(k);
    if (InMask(overbooked_, r) || after.micro(r) <= capacity_.micro(r)) continue;
    return absl::ResourceExhaustedError(
        fmt::format("refused by the node: {} {} {} + {} reserved > its capacity {} (the policy does not overbook {})",
                    what, kResourceNames[k], more.units(r), reserved_.units(r), capacity_.units(r), kResourceNames[k]));
  }
  return absl::OkStatus();
}

absl::Status NodeBook::Admit(size_t link, uint64_t attempt, const Resources& reserve, uint64_t container,
                             const Resources& container_size) {
  if (attempts_.contains({link, attempt})) {
    return absl::FailedPreconditionError(fmt::format("refused by the node: attempt {} is already running", attempt));
  }
  if (container == 0) {
    if (absl::Status s = Fits(reserve, "the task's"); !s.ok()) return s;
    reserved_ += reserve;
    attempts_[{link, attempt}] = Booked{reserve, 0};
    return absl::OkStatus();
  }
  auto it = containers_.find({link, container});
  if (it == containers_.end()) {
    if (absl::Status s = Fits(container_size, "its container's"); !s.ok()) return s;
    reserved_ += container_size;
    it = containers_.emplace(Key{link, container}, Container{container_size, 0}).first;
  }
  ++it->second.tasks;
  attempts_[{link, attempt}] = Booked{Resources(), container};
  return absl::OkStatus();
}

bool NodeBook::Move(size_t link, uint64_t attempt, const Resources& reserve) {
  auto it = attempts_.find({link, attempt});
  if (it == attempts_.end() || it->second.container != 0) return true;
  reserved_ -= it->second.reserve;
  it->second.reserve = reserve;
  reserved_ += reserve;
  return reserved_.FitsInExcept(capacity_, overbooked_);
}

void NodeBook::Release(size_t link, uint64_t attempt) {
  auto it = attempts_.find({link, attempt});
  if (it == attempts_.end()) return;
  reserved_ -= it->second.reserve;
  if (it->second.container != 0) {
    auto c = containers_.find({link, it->second.container});
    if (c != containers_.end() && --c->second.tasks <= 0) {
      reserved_ -= c->second.size;
      containers_.erase(c);
    }
  }
  attempts_.erase(it);
}

void NodeBook::ReleaseLink(size_t link) {
  std::vector<uint64_t> gone;
  for (const auto& [key, booked] : attempts_) {
    if (key.first == link) gone.push_back(key.second);
  }
  for (uint64_t attempt : gone) Release(link, attempt);
}

}  // namespace weft::runtime
