// File: core/ring_queue.h
//
// RingQueue: a FIFO in one power-of-two ring buffer that doubles when full.
// Cheaper than std::deque for the simulator's hot queues (one allocation,
// no chunk map to chase, and an emptied queue keeps its buffer). T must be
// default-constructible and copyable. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace weft {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const T& front() const { return buf_[head_]; }
  T& front() { return buf_[head_]; }
  void push_back(const T& value) {
    if (size_ == buf_.size()) Grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = value;
    ++size_;
  }
  T pop_front() {
    T value = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
    return value;
  }
  // RemoveIf drops the entries for which `pred` holds, keeping the others'
  // order; returns how many it dropped.
  template <typename Pred>
  size_t RemoveIf(Pred pred) {
    size_t kept = 0;
    for (size_t i = 0; i < size_; ++i) {
      const T& value = buf_[(head_ + i) & (buf_.size() - 1)];
      if (!pred(value)) buf_[(head_ + kept++) & (buf_.size() - 1)] = value;
    }
    const size_t removed = size_ - kept;
    size_ = kept;
    return removed;
  }

 private:
  void Grow() {
    std::vector<T> bigger(std::max<size_t>(8, 2 * buf_.size()));
    for (size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    buf_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> buf_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace weft
