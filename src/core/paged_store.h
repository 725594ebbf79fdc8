// File: core/paged_store.h
//
// PagedStore<T>: a vector-like store indexed by a dense id (a job id) whose
// memory follows the ids still held, not every id ever added. Elements live
// in fixed pages of 2^kPageBits; Free(i) says id i is no longer needed, and
// once every id of a full page is freed the page goes back to the allocator.
// A freed id still reads, as the store's `freed value` (given at
// construction; T{} by default), from one page of such stubs the store
// shares between its freed pages; ids are never reused (push_back always
// appends a new one).
//
// Why: a long-lived scheduler (issue 20) adds jobs forever and its retention
// drops all but the newest; a std::vector indexed by job id would keep a
// stub per job ever accepted. Lookups stay O(1): a page table load, then the
// element (no branch on freed: a freed page's entry points at the stubs).
// Elements never move once added (pages are not reallocated), so a reader
// on another thread only has to be told when the page table grows:
// capacity() is reached exactly when the next push_back reallocates it.
// The page table itself grows by one pointer per page (8 bytes per 256 ids).
//
// T may be move-only (a std::unique_ptr): its freed value is then T{}, and
// the store cannot be copied.
//
// Not thread-safe, as std::vector. Writing through a freed id is a bug (it
// would change the shared stubs): the non-const accessors assert.
#pragma once

#include <algorithm>
#include <bitset>
#include <cassert>
#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

template <typename T, unsigned kPageBits = 8>
class PagedStore {
 public:
  static constexpr size_t kPageSize = size_t{1} << kPageBits;

  PagedStore() = default;
  explicit PagedStore(T freed_value) : freed_value_(std::move(freed_value)) {}
  // A moved-from store is empty (and usable), as a moved-from std::vector.
  PagedStore(PagedStore&& other) noexcept { Swap(other); }
  PagedStore& operator=(PagedStore&& other) noexcept {
    PagedStore(std::move(other)).Swap(*this);
    return *this;
  }
  PagedStore(const PagedStore& other) : freed_value_(other.freed_value_) {
    reserve(other.size_);
    for (size_t i = 0; i < other.size_; ++i) push_back(other[i]);
    for (size_t i = 0; i < other.size_; ++i) {
      if (other.freed(i)) Free(i);
    }
  }
  PagedStore& operator=(const PagedStore& other) {
    if (this != &other) *this = PagedStore(other);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  const T& operator[](size_t i) const { return pages_[i >> kPageBits][i & kMask]; }
  T& operator[](size_t i) {
    assert(!freed(i));
    return pages_[i >> kPageBits][i & kMask];
  }
  const T& front() const { return (*this)[0]; }
  T& front() { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }
  T& back() { return (*this)[size_ - 1]; }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if ((size_ & kMask) == 0 && (size_ >> kPageBits) == pages_.size()) AddPage();
    Page& page = *owned_[size_ >> kPageBits];
    T& item = page.items.emplace_back(std::forward<Args>(args)...);
    ++size_;
    return item;
  }
  void push_back(const T& item) { emplace_back(item); }
  void push_back(T&& item) { emplace_back(std::move(item)); }

  // reserve: room for n ids, pages included, so that adding up to n cannot
  // allocate (and a reader elsewhere is not disturbed: see capacity).
  void reserve(size_t n) {
    const size_t pages = (n + kPageSize - 1) >> kPageBits;
    if (pages > pages_.capacity()) {
      const size_t room = std::max(pages, 2 * pages_.capacity());  // geometric: a submit reserves a few more
      pages_.reserve(room);
      owned_.reserve(room);
      freed_in_page_.reserve(room);
    }
    while (pages_.size() < pages) AddPage();
  }
  size_t capacity() const { return pages_.capacity() * kPageSize; }

  // resize: grows with default-constructed elements, or drops the last ones.
  void resize(size_t n) {
    while (size_ < n) emplace_back();
    while (size_ > n) pop_back();
  }
  void pop_back() {
    --size_;
    Page* page = owned_[size_ >> kPageBits].get();
    if (page != nullptr) {  // a freed page is a full one, whose ids are all freed
      if (page->freed[size_ & kMask]) {
        page->freed[size_ & kMask] = false;
        --freed_in_page_[size_ >> kPageBits];
        --freed_;
      }
      page->items.pop_back();
    } else {
      // The last page was freed: bring it back as stubs less its last id.
      const size_t p = size_ >> kPageBits;
      owned_[p] = std::make_unique<Page>();
      owned_[p]->items.reserve(kPageSize);
      for (size_t k = 0; k + 1 < kPageSize; ++k) owned_[p]->items.push_back(FreedValue());
      owned_[p]->freed.set();
      owned_[p]->freed[kPageSize - 1] = false;
      pages_[p] = owned_[p]->items.data();
      freed_in_page_[p] = kPageSize - 1;
      --freed_;
      ++held_pages_;
      if (first_held_page_ > p) first_held_page_ = p;
    }
  }
  void clear() { *this = PagedStore(std::move(freed_value_)); }

  // Free: id i is no longer needed; it reads as the freed value from now on,
  // and its page goes once all its ids are freed. Freeing twice is a no-op.
  void Free(size_t i) {
    assert(i < size_);
    const size_t p = i >> kPageBits;
    Page* page = owned_[p].get();
    if (page == nullptr || page->freed[i & kMask]) return;
    page->freed[i & kMask] = true;
    page->items[i & kMask] = FreedValue();
    ++freed_;
    if (++freed_in_page_[p] < kPageSize) return;
    pages_[p] = Stubs();
    owned_[p].reset();
    --held_pages_;
    while (first_held_page_ < owned_.size() && owned_[first_held_page_] == nullptr) ++first_held_page_;
  }
  bool freed(size_t i) const {
    const Page* page = owned_[i >> kPageBits].get();
    return page == nullptr || page->freed[i & kMask];
  }

  // What is held: pages allocated (each kPageSize elements), ids freed, and
  // the first id of the first page still held (ids below it are all freed).
  size_t held_pages() const { return held_pages_; }
  size_t freed_count() const { return freed_; }
  size_t first_held() const { return std::min(size_, first_held_page_ << kPageBits); }

  template <bool kConst>
  class Iter {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using Store = std::conditional_t<kConst, const PagedStore, PagedStore>;

    Iter() = default;
    Iter(Store* s, size_t i) : s_(s), i_(static_cast<difference_type>(i)) {}
    operator Iter<true>() const  // NOLINT: implicit, as std::vector's
      requires(!kConst)
    {
      return Iter<true>(s_, static_cast<size_t>(i_));
    }

    reference operator*() const { return (*s_)[static_cast<size_t>(i_)]; }
    pointer operator->() const { return &**this; }
    reference operator[](difference_type n) const { return (*s_)[static_cast<size_t>(i_ + n)]; }
    Iter& operator++() { ++i_; return *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { --i_; return *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type n) { i_ += n; return *this; }
    Iter& operator-=(difference_type n) { i_ -= n; return *this; }
    friend Iter operator+(Iter a, difference_type n) { return a += n; }
    friend Iter operator+(difference_type n, Iter a) { return a += n; }
    friend Iter operator-(Iter a, difference_type n) { return a -= n; }
    friend difference_type operator-(const Iter& a, const Iter& b) { return a.i_ - b.i_; }
    friend bool operator==(const Iter& a, const Iter& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iter& a, const Iter& b) { return a.i_ <=> b.i_; }

   private:
    Store* s_ = nullptr;
    difference_type i_ = 0;
  };
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

 private:
  static constexpr size_t kMask = kPageSize - 1;
  struct Page {
    std::vector<T> items;  // reserved to kPageSize: never moves
    std::bitset<kPageSize> freed;
  };

  void Swap(PagedStore& o) noexcept {
    std::swap(freed_value_, o.freed_value_);
    pages_.swap(o.pages_);
    owned_.swap(o.owned_);
    freed_in_page_.swap(o.freed_in_page_);
    stubs_.swap(o.stubs_);
    std::swap(size_, o.size_);
    std::swap(freed_, o.freed_);
    std::swap(held_pages_, o.held_pages_);
    std::swap(first_held_page_, o.first_held_page_);
  }
  void AddPage() {
    auto page = std::make_unique<Page>();
    page->items.reserve(kPageSize);
    pages_.push_back(page->items.data());
    owned_.push_back(std::move(page));
    freed_in_page_.push_back(0);
    ++held_pages_;
  }
  // Stubs: the page every freed page's entry points at (made on the first free).
  T* Stubs() {
    if (stubs_ == nullptr) {
      stubs_ = std::make_unique<std::vector<T>>();
      stubs_->reserve(kPageSize);
      for (size_t k = 0; k < kPageSize; ++k) stubs_->push_back(FreedValue());
    }
    return stubs_->data();
  }
  // FreedValue: a fresh copy of the freed value (T{} for a move-only T).
  T FreedValue() const {
    if constexpr (std::is_copy_constructible_v<T>) {
      return freed_value_;
    } else {
      return T{};
    }
  }

  T freed_value_{};
  std::vector<T*> pages_;                    // elements of page p: its own, or the stubs once freed
  std::vector<std::unique_ptr<Page>> owned_;  // nullptr once freed
  std::vector<uint32_t> freed_in_page_;
  std::unique_ptr<std::vector<T>> stubs_;
  size_t size_ = 0;
  size_t freed_ = 0;
  size_t held_pages_ = 0;
  size_t first_held_page_ = 0;
};

// ReserveMore (core/reserve_more.h) for a PagedStore: its pages never move,
// so reserving exactly what is needed costs no copy.
template <typename T, unsigned kPageBits>
void ReserveMore(PagedStore<T, kPageBits>& v, size_t more) {
  v.reserve(v.size() + more);
}

}  // namespace weft
