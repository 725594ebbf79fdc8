// File: core/reserve_more.h
//
// ReserveMore: room for `more` elements past the vector's size, growing its
// capacity geometrically. Reserving exactly size + more on each of many small
// additions (one job per submit, say) reallocates and moves the whole vector
// every time: quadratic over a long-lived daemon.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace weft {

template <typename T>
void ReserveMore(std::vector<T>& v, size_t more) {
  const size_t need = v.size() + more;
  if (need > v.capacity()) v.reserve(std::max(need, 2 * v.capacity()));
}

}  // namespace weft
