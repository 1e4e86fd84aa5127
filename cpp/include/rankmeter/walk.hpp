// rankmeter/walk.hpp — the hash table of the walker of Python objects. Bound by cpp/src/bind_walk.cpp.
//
// Ids read from Python objects are coded through this table: open addressing with linear probing over
// (hash, key, code) slots, capacity a power of two, load at most 1/2. The hash is the caller's (for a
// str, Python's own cached hash), spread by a 64-bit mixer, since Python's hash of an int is the int
// itself. Codes are 0, 1, 2, ... in order of first insertion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace rankmeter::core {

// An allocator whose large blocks (4 MiB and more) are 2 MiB aligned and advised to use transparent huge pages.
// The walker writes every element of its item and value buffers once, where 4 KiB pages cost a page fault per
// 4 KiB of a fresh buffer (the accuracy pass's output matrix does the same); its hash table of a million ids is
// probed at random, where 4 KiB pages cost a TLB miss per probe.
template <class T>
struct HugeAlloc {
  using value_type = T;
  HugeAlloc() = default;
  template <class U>
  HugeAlloc(const HugeAlloc<U>&) {}
  static constexpr size_t kHuge = size_t(1) << 21;
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < 2 * kHuge) return std::allocator<T>().allocate(n);
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
#ifdef __linux__
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < 2 * kHuge)
      std::allocator<T>().deallocate(p, n);
    else
      std::free(p);
  }
  template <class U>
  bool operator==(const HugeAlloc<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const HugeAlloc<U>&) const {
    return false;
  }
};

// A hash spread over the 64 bits (Python's int hash is the value itself), for the first slot probed.
inline uint64_t spread_hash(int64_t h) {
  uint64_t x = static_cast<uint64_t>(h);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

// An open-addressing table's slots (each with `hash` and `code`, code < 0: empty) grown to `cap`, a power of two,
// every entry placed again by linear probing.
template <class Slot, class Alloc>
void regrow_slots(std::vector<Slot, Alloc>& slots, size_t cap, const Slot& empty, size_t& mask) {
  std::vector<Slot, Alloc> old;
  old.swap(slots);
  slots.assign(cap, empty);
  mask = cap - 1;
  for (const Slot& s : old) {
    if (s.code < 0) continue;
    size_t i = static_cast<size_t>(spread_hash(s.hash)) & mask;
    while (slots[i].code >= 0) i = (i + 1) & mask;
    slots[i] = s;
  }
}

// Open addressing with linear probing over (hash, key) slots; capacity a power of two, load <= 1/2.
template <class Key, class Eq>
class Table {
 public:
  struct Slot {
    int64_t hash;
    Key key;
    int64_t code;  // -1: empty
  };
  explicit Table(Eq eq = Eq()) : eq_(eq) { rehash(64); }
  // The code of `key` (inserting it with code `size()` when new); `inserted` tells which.
  int64_t find_or_add(int64_t h, Key key, bool& inserted) {
    if (2 * (used_ + 1) > slots_.size()) rehash(slots_.size() * 2);
    size_t i = static_cast<size_t>(mix(h)) & mask_;
    for (;;) {
      Slot& s = slots_[i];
      if (s.code < 0) {
        s = Slot{h, key, static_cast<int64_t>(used_++)};
        inserted = true;
        return s.code;
      }
      if (s.hash == h && eq_(s.key, key)) {
        inserted = false;
        return s.code;
      }
      i = (i + 1) & mask_;
    }
  }
  int64_t find(int64_t h, Key key) const {
    size_t i = static_cast<size_t>(mix(h)) & mask_;
    for (;;) {
      const Slot& s = slots_[i];
      if (s.code < 0) return -1;
      if (s.hash == h && eq_(s.key, key)) return s.code;
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return used_; }
  void prefetch(int64_t h) const { __builtin_prefetch(&slots_[static_cast<size_t>(mix(h)) & mask_]); }

 private:
  static uint64_t mix(int64_t h) { return spread_hash(h); }
  void rehash(size_t cap) { regrow_slots(slots_, cap, Slot{0, Key{}, -1}, mask_); }
  std::vector<Slot, HugeAlloc<Slot>> slots_;
  size_t mask_ = 0, used_ = 0;
  Eq eq_;
};

}  // namespace rankmeter::core
