// rankmeter/ranking/scan.hpp — stage 1 of the fused pass: the per-thread set of a user's
// truth items and the scan of the part of the list that is read (docs/architecture.md,
// "The fused pass", "finds", "dense and hash lookups").
//
// Per user u the truth items go into a per-thread set: a direct-addressed marker array
// (DenseLookup) when every truth id is a small non-negative int, else a small open-addressing
// hash table (HashLookup); both are stamped per user and never cleared. The list is scanned
// once and only the truth items it finds are recorded (position, truth index): for dense ids
// with no duplicate this scan is branch-free (fast_scan, or fast_scan_avx2 four items at a
// time), and users with duplicates or ids outside the array are scanned again on the general
// path (probe), which applies the duplicates policy (DupPolicy: error, first, miss, count).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../policy.hpp"
#include "../status.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RANKMETER_X86_SIMD 1
#endif
#if defined(__GNUC__) || defined(__clang__)
#define RANKMETER_NOINLINE __attribute__((noinline))
#else
#define RANKMETER_NOINLINE
#endif
#if defined(__GNUC__) || defined(__clang__)
#define RANKMETER_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define RANKMETER_ALWAYS_INLINE inline
#endif

namespace rankmeter::core {

// The vector list scan (AVX2; the default build targets baseline x86-64 and
// compiles only that function for AVX2). It is opt-in: RANKMETER_SIMD=1 in the
// environment selects it where the CPU has AVX2; unset or RANKMETER_SIMD=0 runs
// the scalar scan, which measured faster on the development machine (AMD EPYC:
// the vector scan saves 8% of the instructions of the 20-column W1 pass but
// took about 8-10% longer). Both give bit-identical results: the vector scan
// finds the same truth items and duplicates, four list items at a time.
inline bool simd_supported() {
#ifdef RANKMETER_X86_SIMD
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
inline bool simd_enabled() {
  const char* env = std::getenv("RANKMETER_SIMD");
  return env && std::strcmp(env, "1") == 0 && simd_supported();
}

namespace detail {

struct Slot {
  int64_t key;
  uint32_t stamp;
  int32_t tag;  // >= 0: truth index (kSeen set once found in the list); -1: list-only item
};
constexpr int32_t kSeen = int32_t(1) << 30;
constexpr int64_t kMaxPerUser = int64_t(1) << 29;

// Fibonacci hashing: the HIGH bits of key * 2^64/phi index a table of 2^(64 - shift) slots.
inline uint64_t hash_key(int64_t key, int shift) {
  return (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift;
}

inline int64_t next_pow2(int64_t x) {
  int64_t c = 16;
  while (c < x) c <<= 1;
  return c;
}

// Level (0..15) of each double whose top 16 bits are these, for the integer
// grades 0..15 and -0.0; 16 (not a level) for every other pattern. Built once.
inline const uint8_t* grade_level_table() {
  static const std::vector<uint8_t> table = [] {
    std::vector<uint8_t> t(65536, uint8_t(16));
    for (int lv = 0; lv < 16; ++lv) {
      const double g = static_cast<double>(lv);
      uint64_t bits;
      std::memcpy(&bits, &g, sizeof(bits));
      t[bits >> 48] = static_cast<uint8_t>(lv);
    }
    t[0x8000] = 0;  // -0.0
    return t;
  }();
  return table.data();
}

enum class Probe { miss, find, dup };

// Per-user set of the truth items and the list items seen so far, as an
// open-addressing hash table (any int64 ids). Slots carry the stamp of the
// user that wrote them, so the table is never cleared between users.
class HashLookup {
 public:
  explicit HashLookup(int64_t cap_max) : tab_(static_cast<size_t>(cap_max), Slot{0, 0, 0}) {}

  // `entries`: truth size + list length of the user (an upper bound of inserts).
  void begin(int64_t /*m: truth size*/, int64_t entries) {
    const int64_t cap = next_pow2(4 * entries + 2);  // load <= 1/4: short probe chains
    mask_ = static_cast<uint64_t>(cap - 1);
    shift_ = 64 - __builtin_ctzll(static_cast<uint64_t>(cap));
    if (++stamp_ == 0) {  // wrapped after 2^32 users: clear once
      for (auto& sl : tab_) sl.stamp = 0;
      stamp_ = 1;
    }
  }
  bool add_truth(int64_t key, int32_t idx) {
    uint64_t h = hash_key(key, shift_);
    while (tab_[h].stamp == stamp_) {
      if (tab_[h].key == key) return false;
      h = (h + 1) & mask_;
    }
    tab_[h] = Slot{key, stamp_, idx};
    return true;
  }
  // `again`: a truth item is found at every occurrence (duplicates="count"), else only at its first.
  Probe probe(int64_t key, int32_t& idx, bool again) {
    uint64_t h = hash_key(key, shift_);
    for (;;) {
      Slot& sl = tab_[h];
      if (sl.stamp != stamp_) {
        sl = Slot{key, stamp_, -1};
        return Probe::miss;
      }
      if (sl.key == key) {
        if (sl.tag >= 0 && (again || !(sl.tag & kSeen))) {
          idx = sl.tag & ~kSeen;
          sl.tag |= kSeen;
          return Probe::find;
        }
        return Probe::dup;
      }
      h = (h + 1) & mask_;
    }
  }

 private:
  std::vector<Slot> tab_;
  uint32_t stamp_ = 0;
  uint64_t mask_ = 0;
  int shift_ = 60;
};

// The same set as a direct-addressed array over item ids 0..n-1 (used when
// every truth id is small and non-negative): one access to a 2-byte mark per
// list item, so the marks of a 100k-item catalog (200 KB) stay in L2. A user
// with m truth items owns the m + 1 mark values base..base+m: truth item i is
// marked base + i (so a find reads its truth index from the mark itself: no
// second array), and base + m marks the items seen in the list. The next user
// starts above them; when 2^16 values are used up the marks are cleared (about
// every 5,000 users of 11 truth items). Requires m + 2 <= 2^16 (the caller
// takes the hash table otherwise). List ids outside the array go to a small
// HashLookup, where they can only be misses or duplicates.
class DenseLookup {
 public:
  static constexpr int64_t kMaxTruth = 60000;  // largest truth size a dense lookup takes

  // The array covers ids 0..2^b - 1, the smallest power of two >= n_ids: the
  // branch-free scan reads the slot `id & mask` of every id, and one OR of the ids
  // read tells at the end whether all were inside. Ids between n_ids and 2^b are
  // never truth items, so they are plain misses (or duplicates) in their slots.
  DenseLookup(int64_t n_ids, int64_t cap_max)
      : mark_(static_cast<size_t>(next_pow2(std::max<int64_t>(n_ids, 1))), 0),
        n_(static_cast<int64_t>(mark_.size())),
        other_(cap_max) {}

  void begin(int64_t m, int64_t entries) {
    if (next_ + static_cast<uint32_t>(m) + 1 > 65535u) {  // values used up: clear once
      std::fill(mark_.begin(), mark_.end(), uint16_t(0));
      next_ = 1;
    }
    base_ = next_;
    m_ = static_cast<uint32_t>(m);
    seen_ = static_cast<uint16_t>(base_ + m_);
    next_ = base_ + m_ + 1;
    entries_ = entries;
    other_started_ = false;
  }
  // Truth item `idx` (0, 1, ... in order); false when the key was added before for this user.
  bool add_truth(int64_t key, int32_t idx) {
    uint16_t& mk = mark_[static_cast<size_t>(key)];
    if (static_cast<uint32_t>(mk) - base_ < static_cast<uint32_t>(idx)) return false;  // marked by this user
    mk = static_cast<uint16_t>(base_ + static_cast<uint32_t>(idx));
    return true;
  }
  // `again`: a truth item keeps its mark, so it is found at every occurrence (duplicates="count").
  Probe probe(int64_t key, int32_t& idx, bool again) {
    if (static_cast<uint64_t>(key) >= static_cast<uint64_t>(n_)) return probe_other(key);
    uint16_t& mk = mark_[static_cast<size_t>(key)];
    const uint16_t old = mk;
    const uint32_t t = static_cast<uint32_t>(old) - base_;
    if (t < m_) {
      if (!again) mk = seen_;
      idx = static_cast<int32_t>(t);
      return Probe::find;
    }
    mk = seen_;
    return old == seen_ ? Probe::dup : Probe::miss;
  }

  // Branch-free scan of [it, end) (the part of the list that is read) for the
  // common case: every id inside the array and no duplicate. Records the list
  // position (1-based) and the truth index of every truth item found; `n_out` = positions
  // read. Returns false (nothing usable) when the span has an id outside the
  // array or a duplicate: the caller then starts the user again with begin()
  // and the general scan. A padded row ends at the first `pad` (kPadded); only
  // padding may follow it up to `end` (pad_ok).
  // Not inlined: inside the large per-user loop the scan's state spills to the
  // stack (reloaded at every item); on its own it stays in registers.
  template <bool kPadded, typename Id>
  RANKMETER_NOINLINE bool fast_scan(const Id* it, const Id* end, int64_t pad, int64_t* fpos, int32_t* fti,
                                    int64_t& nf_out, int64_t& n_out, bool& pad_ok) {
    const uint32_t base = base_, m = m_;
    const uint16_t sn = seen_;
    uint16_t* mk = mark_.data();
    const uint64_t mask = static_cast<uint64_t>(n_) - 1;  // n_ is a power of two
    int64_t nf = 0, pos = 0;
    uint64_t any = 0;  // OR of the ids read: all are inside the array when it is <= mask
    int64_t n_le = 0;  // items with t <= m: the finds and the duplicates
    pad_ok = true;
#pragma GCC unroll 4
    for (; it != end; ++it) {
      const int64_t key = *it;
      if (kPadded && key == pad) {
        for (const Id* q = it + 1; q != end; ++q) pad_ok &= (*q == pad);
        break;
      }
      any |= static_cast<uint64_t>(key);
      const size_t kc = static_cast<size_t>(static_cast<uint64_t>(key) & mask);
      // the truth index when < m; m when seen before in this list (the mark is seen_ = base + m);
      // above m for a mark of an earlier user (below base: the difference wraps around)
      const uint32_t t = static_cast<uint32_t>(mk[kc]) - base;
      mk[kc] = sn;
      n_le += (t <= m);
      ++pos;
      // Branch-free: every item is written at the next find slot, which only a
      // truth item keeps (a branch on the rare finds mispredicted at each one;
      // measured 6-9% of the W1 pass). At most |truth| finds, so the buffers of
      // |truth| + 2 slots hold the one write past the last find.
      fpos[nf] = pos;
      fti[nf] = static_cast<int32_t>(t);
      nf += (t < m);
    }
    if ((any > mask) | (n_le != nf)) return false;
    nf_out = nf;
    n_out = pos;
    return true;
  }
#ifdef RANKMETER_X86_SIMD
  // fast_scan four list items at a time (AVX2): one vector load of the ids, one
  // bounds test, four independent loads of their marks, then their four mark stores.
  // Duplicates inside a group of four are found by comparing the ids with their
  // rotations (all four marks are read before any is written); across
  // groups by the marks, as in the scalar scan. A group holding the padding
  // value, and the last < 4 items, go to the scalar loop, which carries on with
  // the same state. Same results as fast_scan, bit for bit.
  template <bool kPadded, typename Id>
  __attribute__((target("avx2"))) bool fast_scan_avx2(const Id* it, const Id* end, int64_t pad, int64_t* fpos,
                                                      int32_t* fti, int64_t& nf_out, int64_t& n_out, bool& pad_ok) {
    const uint16_t sn = seen_;
    uint16_t* mk = mark_.data();
    int64_t nf = 0, pos = 0;
    const __m256i vlimit = _mm256_set1_epi64x(n_);  // ids are in the array when 0 <= id < n (n < 2^62)
    const __m256i vneg1 = _mm256_set1_epi64x(-1);
    const __m256i vpad = _mm256_set1_epi64x(pad);
    const __m128i vbase = _mm_set1_epi32(static_cast<int32_t>(base_));
    const __m128i vm = _mm_set1_epi32(static_cast<int32_t>(m_));
    const __m128i vneg1_32 = _mm_set1_epi32(-1);
    const __m128i vsn = _mm_set1_epi32(sn);
    alignas(32) int64_t idx[4];
    for (; end - it >= 4; it += 4) {
      __m256i key;  // four ids as int64 (int32 ids sign-extended)
      if constexpr (sizeof(Id) == 8)
        key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(it));
      else
        key = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(it)));
      if (kPadded && _mm256_movemask_epi8(_mm256_cmpeq_epi64(key, vpad))) break;  // the scalar loop ends the row
      const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(key, vneg1), _mm256_cmpgt_epi64(vlimit, key));
      const __m256i kc = _mm256_and_si256(key, in);  // ids outside the array read (and write) slot 0
      // four independent scalar loads of the marks (an AVX2 gather measured slower)
      _mm256_store_si256(reinterpret_cast<__m256i*>(idx), kc);
      const __m128i old = _mm_setr_epi32(mk[idx[0]], mk[idx[1]], mk[idx[2]], mk[idx[3]]);
      // a duplicate inside the group: an id equal to one of its rotations by 1 or 2 lanes
      const __m256i r1 = _mm256_permute4x64_epi64(key, 0x39);
      const __m256i r2 = _mm256_permute4x64_epi64(key, 0x4E);
      const __m256i dup_in = _mm256_or_si256(_mm256_cmpeq_epi64(key, r1), _mm256_cmpeq_epi64(key, r2));
      const __m256i bad_lane = _mm256_or_si256(dup_in, _mm256_xor_si256(in, vneg1));
      // Nothing of a group with a bad lane is usable (two lanes may read the same
      // truth mark before either is written): give up on the user at once, as
      // the scalar scan does at its end; the caller starts it again on the general path.
      if (_mm256_movemask_epi8(bad_lane) | _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(old, vsn)))) return false;
      mk[idx[0]] = sn;
      mk[idx[1]] = sn;
      mk[idx[2]] = sn;
      mk[idx[3]] = sn;
      // truth index = mark - base, a find when 0 <= it < m (marks and base are below 2^16)
      const __m128i ti = _mm_sub_epi32(old, vbase);
      int found =
          _mm_movemask_ps(_mm_castsi128_ps(_mm_and_si128(_mm_cmpgt_epi32(ti, vneg1_32), _mm_cmpgt_epi32(vm, ti))));
      if (found) {  // rare: a few truth items per list
        alignas(16) int32_t tis[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(tis), ti);
        do {
          const int lane = __builtin_ctz(static_cast<unsigned>(found));
          found &= found - 1;
          fpos[nf] = pos + lane + 1;
          fti[nf] = tis[lane];
          ++nf;
        } while (found);
      }
      pos += 4;
    }
    // The rest (fewer than 4 items, or from a group with padding): the scalar scan carries on.
    int64_t nf_tail = 0, n_tail = 0;
    if (!fast_scan<kPadded>(it, end, pad, fpos + nf, fti + nf, nf_tail, n_tail, pad_ok)) return false;
    for (int64_t f = nf; f < nf + nf_tail; ++f) fpos[f] += pos;
    nf_out = nf + nf_tail;
    n_out = pos + n_tail;
    return true;
  }
#endif

 private:
  Probe probe_other(int64_t key) {
    if (!other_started_) {
      other_.begin(0, entries_);
      other_started_ = true;
    }
    int32_t unused;
    return other_.probe(key, unused, false);  // never a truth item: a miss or a repeat
  }
  std::vector<uint16_t> mark_;
  int64_t n_;
  uint32_t next_ = 1, base_ = 1, m_ = 0;  // this user's marks: base_ + truth index, seen_ = base_ + m_
  uint16_t seen_ = 1;
  int64_t entries_ = 0;
  bool other_started_ = false;
  HashLookup other_;
};

// Scan the part of user u's list that is read, [r_items + b, r_items + e), recording the
// truth items it finds: fpos[0..nf) their positions (1-based), fti[0..nf) their truth indices;
// `pos` = list positions read. A repeated item (DupPolicy, docs/metrics.md section 6) is an error
// (Code::duplicate_recs), skipped (first: then `depth` distinct items are read), or kept at its
// position (miss: never a hit; count: a truth item is found again, so finds can outnumber the
// truth items); at most `depth` positions are read. A padded row ends at the first `pad`, after
// which only padding may follow in the positions that would have been read (Code::pad_inside).
// The dense lookup tries its branch-free scan first; an id outside the array, a duplicate or an
// item after the padding starts the user again on the general path (probe), which applies the
// policies and reports errors. Returns false on an error (recorded in st).
template <bool kPadded, typename Look, typename Id>
RANKMETER_ALWAYS_INLINE bool scan_list(Look& look, const Id* r_items, int64_t b, int64_t e, int64_t depth, int64_t pad,
                                       [[maybe_unused]] bool use_simd, DupPolicy dups, const Id* truth, int64_t m,
                                       int64_t* fpos, int32_t* fti, int64_t& nf, int64_t& pos, Status& st, int64_t u) {
  nf = 0;
  pos = 0;
  if constexpr (std::is_same_v<Look, DenseLookup>) {
    bool pad_ok = true;
    // Without a duplicate the first `depth` positions are the items read.
    const Id* span_end = r_items + b + std::min(e - b, depth);
#ifdef RANKMETER_X86_SIMD
    const bool ok = use_simd
                        ? look.template fast_scan_avx2<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok)
                        : look.template fast_scan<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok);
#else
    const bool ok = look.template fast_scan<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok);
#endif
    if (ok && pad_ok) return true;
    look.begin(m, m + (e - b));
    for (int64_t i = 0; i < m; ++i) look.add_truth(truth[i], static_cast<int32_t>(i));
  }
  // General scan: one probe per item, duplicates handled per policy,
  // until `depth` positions (distinct items with "first") are read or the list ends.
  nf = 0;
  pos = 0;
  const bool again = dups == DupPolicy::count;
  for (const Id *it = r_items + b, *it_end = r_items + e; it != it_end && pos < depth; ++it) {
    const int64_t key = *it;
    if (kPadded && key == pad) {
      // only padding in the positions that would have been read
      const Id* q_end = it + std::min<int64_t>(it_end - it, depth - pos);
      for (const Id* q = it + 1; q != q_end; ++q)
        if (*q != pad) {
          st.record(Code::pad_inside, u, q - (r_items + b));
          return false;
        }
      break;
    }
    int32_t ti = 0;
    const Probe pr = look.probe(key, ti, again);
    if (pr == Probe::dup) {  // a repeat that is not found again (count finds a truth item above)
      if (dups == DupPolicy::first) continue;
      if (dups == DupPolicy::error) {
        st.record(Code::duplicate_recs, u, key);
        return false;
      }
    }
    ++pos;  // miss and count: the repeat keeps its position
    if (pr == Probe::find) {
      fpos[nf] = pos;
      fti[nf] = ti;
      ++nf;
    }
  }
  return true;
}

}  // namespace detail

}  // namespace rankmeter::core
