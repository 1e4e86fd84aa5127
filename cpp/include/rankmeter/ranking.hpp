// rankmeter/ranking.hpp — the fused accuracy pass.
//
// One read of the data computes every requested accuracy column (hits,
// precision, recall, F-beta, AP, AR, CG, DCG, NDCG, hit rate, RR, ARHR,
// R-precision, |R|, bpref, RBP, ERR, judged share) at every requested cutoff.
//
// Inputs (all contiguous, owned by the caller, never written):
//   truth  CSR: t_indptr[n_users+1], t_items[nnz], t_grades[nnz] float64 or t_grades32[nnz]
//          float32 (both null: grade 1)
//   recs   CSR: r_indptr[rows+1], r_items[nnz]           (r_padded == false)
//          or a row-major 2-D array rows x r_stride padded with r_pad at the end
//   r_rowmap[n_users] (nullable): the recs row of each truth user, -1 for none.
// Outputs: values[n_cols * n_users] (column-major; nullable: means only, no
// per-user values written), one ExactSum and one count per column (NaN
// values, i.e. skipped users, are not summed), n_skipped.
//
// Per user u: the truth items go into a per-thread set (a direct-addressed
// marker array when every truth id is a small non-negative int, else a small
// open-addressing hash table; both stamped per user, never cleared). The list
// is scanned once and only the truth items it finds are recorded (position,
// truth index): for dense ids with no duplicate this scan is branch-free, and
// users with duplicates or ids outside the array are scanned again on the
// general path, which applies the duplicates policy. Every
// accuracy metric at every cutoff is a function of the finds, the list length
// and |R|, so one walk over the (few) finds takes a snapshot of the running
// sums at each cutoff. Columns are then computed block-wise over 64 users,
// and each mean is summed exactly (ExactSum).
//
// What is read of a list (SPEC §2.1): max_items first truncates the list as
// given; then only its first D distinct items are read, D being the largest
// cutoff, or the whole list when a column has no cutoff (num_rel reads no list
// item) or whole_lists is set (the trec_eval preset). Duplicates are looked for
// only there: duplicates="error" rejects one within the first D positions;
// "first" drops it and reads on until D distinct items (the list closes up) or
// the truncated list ends. A padding value ends a padded row; only padding may
// follow it in the positions that would have been read.
//
// NDCG's ideal: with a cutoff k, "cut" uses the best min(k, m) truth gains; without
// a cutoff nothing is cut ("cut" = "all": every truth gain), so a short list never
// scores higher for being short. "k_slots" without a cutoff takes k = n (the
// list length after truncation and duplicate removal), as every metric does.
//
// Relevance: grade > 0, or grade >= min_relevance when given. Gains use the
// grade itself (negative grades give 0): linear g, exponential 2^g - 1, binary
// 1 for relevant items. Users with no relevant item follow EmptyPolicy.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "exact_sum.hpp"
#include "parallel.hpp"
#include "status.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RANKMETER_X86_SIMD 1
#endif
#if defined(__GNUC__) || defined(__clang__)
#define RANKMETER_NOINLINE __attribute__((noinline))
#else
#define RANKMETER_NOINLINE
#endif

namespace rankmeter::core {

enum class Kind : int32_t {
  hits = 0,
  precision = 1,
  recall = 2,
  fbeta = 3,
  ap = 4,
  ar = 5,
  cg = 6,
  dcg = 7,
  ndcg = 8,
  hit_rate = 9,
  rr = 10,
  arhr = 11,
  r_precision = 12,
  num_rel = 13,
  bpref = 14,
  rbp = 15,
  err = 16,
  judged = 17,
};
enum class Denominator : int32_t { relevant = 0, min_relevant_k = 1, hits = 2, k = 3 };
enum class GainKind : int32_t { linear = 0, exponential = 1, binary = 2 };
enum class Ideal : int32_t { cut = 0, all = 1, k_slots = 2 };
enum class EmptyPolicy : int32_t { skip = 0, zero = 1, one = 2, error = 3 };

constexpr int kMaxVariants = 16;  // distinct (gain, log_base) pairs in one call

struct Column {
  Kind kind = Kind::hits;
  int64_t cutoff = 0;  // 0: the whole list
  Denominator denom = Denominator::relevant;
  GainKind gain = GainKind::linear;
  Ideal ideal = Ideal::cut;
  double log_base = 2.0;
  double param = 1.0;       // fbeta: beta; rbp: persistence p; err: the maximum grade
  bool below_zero = false;  // items that are not relevant (below min_relevance) give gain 0
  // precision/ap/ar on a list of n < k items, as Evidently's code does: ranks n+1..k repeat
  // rank n (P@j = P@n, R@j = R@n, rel_j = rel_n), so precision@k = hits / n and AP/AR keep
  // adding P@n (R@n) when the last item read is relevant (short_lists="evidently").
  bool short_repeat = false;
};

// Item ids are int64 or int32 (`Id`), the same type on both sides, read in place.
template <typename Id>
struct RankingDataT {
  int64_t n_users = 0;
  const int64_t* t_indptr = nullptr;
  const Id* t_items = nullptr;
  const double* t_grades = nullptr;
  const float* t_grades32 = nullptr;  // float32 grades read in place (each widened exactly); t_grades null
  int64_t t_nnz = 0;
  const int64_t* r_indptr = nullptr;
  const Id* r_items = nullptr;
  int64_t r_nnz = 0;
  int64_t r_rows = 0;
  bool r_padded = false;
  int64_t r_stride = 0;
  int64_t r_pad = -1;
  const int64_t* r_rowmap = nullptr;
};
using RankingData = RankingDataT<int64_t>;

struct RankingOptions {
  bool has_min_relevance = false;
  double min_relevance = 0.0;
  EmptyPolicy empty = EmptyPolicy::skip;
  bool dup_first = false;
  bool whole_lists = false;  // look for duplicates in whole lists whatever the cutoffs (trec_eval)
  int64_t max_items = 0;     // 0: no truncation
  int threads = 0;           // 0: all cores
  bool simd = true;          // the vector list scan where the CPU has it (see simd_enabled)
};

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

// Running sums over the list prefix scanned so far.
struct Snap {
  int64_t hits = 0;                               // relevant items found
  int64_t first = 0;                              // position of the first hit (0: none)
  double ap = 0.0;                                // sum of P@j over hit positions j
  double ar = 0.0;                                // sum of hits@j over hit positions j (integer valued)
  double arhr = 0.0;                              // sum of 1/j over hit positions j
  double cg[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};  // gain kind + 3 * below_zero
  double dcg[kMaxVariants] = {};
};

// Fibonacci hashing: the HIGH bits of key * 2^64/phi index a table of 2^(64 - shift) slots.
inline uint64_t hash_key(int64_t key, int shift) {
  return (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift;
}

inline double gain_of(GainKind g, double grade, bool relevant) {
  switch (g) {
    case GainKind::linear:
      return grade > 0.0 ? grade : 0.0;
    case GainKind::exponential:
      return grade > 0.0 ? std::exp2(grade) - 1.0 : 0.0;
    case GainKind::binary:
      return relevant ? 1.0 : 0.0;
  }
  return 0.0;
}

// The gain of a column: with below_zero, an item that is not relevant gains 0
// (ranx drops grades below rel_lvl from the qrels before computing gains).
inline double gain_of(GainKind g, bool below_zero, double grade, bool relevant) {
  return below_zero && !relevant ? 0.0 : gain_of(g, grade, relevant);
}

// 1 / log_b(p + 1), written as trec_eval and the references do for base 2.
inline double discount(double base, int64_t p) {
  if (base == 2.0) return 1.0 / std::log2(static_cast<double>(p) + 1.0);
  return 1.0 / (std::log(static_cast<double>(p) + 1.0) / std::log(base));
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
  Probe probe(int64_t key, int32_t& idx) {
    uint64_t h = hash_key(key, shift_);
    for (;;) {
      Slot& sl = tab_[h];
      if (sl.stamp != stamp_) {
        sl = Slot{key, stamp_, -1};
        return Probe::miss;
      }
      if (sl.key == key) {
        if (sl.tag >= 0 && !(sl.tag & kSeen)) {
          idx = sl.tag;
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
  Probe probe(int64_t key, int32_t& idx) {
    if (static_cast<uint64_t>(key) >= static_cast<uint64_t>(n_)) return probe_other(key);
    uint16_t& mk = mark_[static_cast<size_t>(key)];
    const uint16_t old = mk;
    mk = seen_;
    const uint32_t t = static_cast<uint32_t>(old) - base_;
    if (t < m_) {
      idx = static_cast<int32_t>(t);
      return Probe::find;
    }
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
    return other_.probe(key, unused);
  }
  std::vector<uint16_t> mark_;
  int64_t n_;
  uint32_t next_ = 1, base_ = 1, m_ = 0;  // this user's marks: base_ + truth index, seen_ = base_ + m_
  uint16_t seen_ = 1;
  int64_t entries_ = 0;
  bool other_started_ = false;
  HashLookup other_;
};

}  // namespace detail

// Compute every column for every user. Returns the first problem (lowest user);
// on a problem the outputs are unspecified.
template <typename Id>
Status evaluate_ranking(const RankingDataT<Id>& d, const std::vector<Column>& cols, const RankingOptions& opt,
                        double* values, ExactSum* sums, int64_t* counts, int64_t* n_skipped_out) {
  using namespace detail;
  Status status;
  const int64_t n_users = d.n_users;
  const int n_cols = static_cast<int>(cols.size());

  // ---- Pre-pass: bounds of every row (memory safety) and scratch sizes.
  int64_t max_m = 0, max_n = 0, max_sum = 0;
  for (int64_t u = 0; u < n_users; ++u) {
    const int64_t t0 = d.t_indptr[u], t1 = d.t_indptr[u + 1];
    if (t0 < 0 || t1 < t0 || t1 > d.t_nnz) {
      status.record(Code::bad_indptr, u, 0);
      return status;
    }
    int64_t n = 0;
    const int64_t row = d.r_rowmap ? d.r_rowmap[u] : u;
    if (row >= 0) {
      if (row >= d.r_rows) {
        status.record(Code::bad_rowmap, u, row);
        return status;
      }
      if (d.r_padded) {
        n = d.r_stride;
      } else {
        const int64_t b = d.r_indptr[row], e = d.r_indptr[row + 1];
        if (b < 0 || e < b || e > d.r_nnz) {
          status.record(Code::bad_indptr, u, 1);
          return status;
        }
        n = e - b;
      }
    }
    const int64_t m = t1 - t0;
    max_m = std::max(max_m, m);
    max_n = std::max(max_n, n);
    max_sum = std::max(max_sum, m + n);
  }
  if (max_sum >= kMaxPerUser) {
    status.record(Code::too_large, 0, max_sum);
    return status;
  }

  // ---- Plan: cutoffs, gain variants, discount tables.
  std::vector<int64_t> cutoffs;
  for (const auto& c : cols)
    if (c.cutoff > 0) cutoffs.push_back(c.cutoff);
  std::sort(cutoffs.begin(), cutoffs.end());
  cutoffs.erase(std::unique(cutoffs.begin(), cutoffs.end()), cutoffs.end());
  const int nc = static_cast<int>(cutoffs.size());

  std::vector<int> snap_of(n_cols), variant_of(n_cols, -1);
  std::vector<GainKind> var_gain;
  std::vector<double> var_base;
  std::vector<char> var_below;
  bool need_cg[6] = {false, false, false, false, false, false};
  bool need_ideal = false;
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    snap_of[i] = c.cutoff > 0
                     ? static_cast<int>(std::lower_bound(cutoffs.begin(), cutoffs.end(), c.cutoff) - cutoffs.begin())
                     : nc;
    if (c.kind == Kind::cg) need_cg[static_cast<int>(c.gain) + 3 * c.below_zero] = true;
    if (c.kind == Kind::dcg || c.kind == Kind::ndcg) {
      const double base = c.kind == Kind::ndcg ? 2.0 : c.log_base;  // log_base never changes NDCG
      int v = -1;
      for (size_t j = 0; j < var_gain.size(); ++j)
        if (var_gain[j] == c.gain && var_base[j] == base && var_below[j] == c.below_zero) v = static_cast<int>(j);
      if (v < 0) {
        if (var_gain.size() >= static_cast<size_t>(kMaxVariants)) {
          status.record(Code::too_many_variants, 0, kMaxVariants);
          return status;
        }
        v = static_cast<int>(var_gain.size());
        var_gain.push_back(c.gain);
        var_base.push_back(base);
        var_below.push_back(c.below_zero);
      }
      variant_of[i] = v;
      if (c.kind == Kind::ndcg) need_ideal = true;
    }
  }
  const int nv = static_cast<int>(var_gain.size());
  const int64_t table_len = std::max(max_m, max_n) + 2;
  std::vector<std::vector<double>> disc(nv), disc_prefix(nv);
  for (int v = 0; v < nv; ++v) {
    disc[v].resize(table_len);
    disc_prefix[v].resize(table_len);
    disc[v][0] = 0.0;
    disc_prefix[v][0] = 0.0;
    for (int64_t p = 1; p < table_len; ++p) {
      disc[v][p] = discount(var_base[v], p);
      disc_prefix[v][p] = disc_prefix[v][p - 1] + disc[v][p];
    }
  }
  // k_slots ideal for a finite cutoff: sum of the first `cutoff` discounts (user independent).
  std::vector<double> slot_sum(n_cols, 0.0);
  for (int i = 0; i < n_cols; ++i) {
    const Column& c = cols[i];
    if (c.kind == Kind::ndcg && c.ideal == Ideal::k_slots && c.cutoff > 0) {
      const int v = variant_of[i];
      if (c.cutoff < table_len) {
        slot_sum[i] = disc_prefix[v][c.cutoff];
      } else {
        double s = disc_prefix[v][table_len - 1];
        for (int64_t p = table_len; p <= c.cutoff; ++p) s += discount(var_base[v], p);
        slot_sum[i] = s;
      }
    }
  }

  // ---- Parallel pass over users.
  const int T = effective_threads(opt.threads, n_users);
  const int64_t cap_max = next_pow2(4 * max_sum + 2);
  // Direct addressing when every truth id is small and non-negative and the
  // per-thread array stays small next to the input (8 bytes per id).
  const int64_t dense_limit = std::max<int64_t>(int64_t(1) << 21, (d.t_nnz + d.r_nnz) / (2 * static_cast<int64_t>(T)));
  int64_t tmin = 0, tmax = -1;
  // First the bitwise OR of every truth id (a vectorised pass): when it is
  // non-negative and below the limit it bounds every id, and the array covers
  // 0..OR (any bound gives the same results). Otherwise the exact min and max.
  uint64_t t_or = 0;
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(| : t_or) schedule(static)
#endif
  for (int64_t i = 0; i < d.t_nnz; ++i) t_or |= static_cast<uint64_t>(static_cast<int64_t>(d.t_items[i]));
  if (d.t_nnz > 0 && t_or < static_cast<uint64_t>(dense_limit)) {
    tmax = static_cast<int64_t>(t_or);
  } else if (d.t_nnz > 0) {
    tmin = std::numeric_limits<int64_t>::max();
    tmax = std::numeric_limits<int64_t>::min();
#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel for num_threads(T) reduction(min : tmin) reduction(max : tmax) schedule(static)
#endif
    for (int64_t i = 0; i < d.t_nnz; ++i) {
      tmin = std::min<int64_t>(tmin, d.t_items[i]);
      tmax = std::max<int64_t>(tmax, d.t_items[i]);
    }
  }
  const bool dense = tmin >= 0 && tmax < dense_limit && max_m <= DenseLookup::kMaxTruth;
  std::vector<DenseLookup> dense_look;
  std::vector<HashLookup> hash_look;
  for (int t = 0; t < T; ++t) {
    if (dense)
      dense_look.emplace_back(tmax + 1, cap_max);
    else
      hash_look.emplace_back(cap_max);
  }
  std::vector<std::vector<double>> grade_buf(T, std::vector<double>(max_m + 1));
  // Finds of one user: at most min(|truth|, list length) + 1 slots (the fast scan writes one past the last find).
  std::vector<std::vector<int64_t>> find_pos(T, std::vector<int64_t>(max_m + 2));
  std::vector<std::vector<int32_t>> find_ti(T, std::vector<int32_t>(max_m + 2));
  std::vector<std::vector<double>> ideal_prefix(
      T, std::vector<double>(static_cast<size_t>(std::max(nv, 1) * (max_m + 1))));
  std::vector<char> ideal_variant(std::max(nv, 1), 0);
  for (int i = 0; i < n_cols; ++i)
    if (cols[i].kind == Kind::ndcg) ideal_variant[variant_of[i]] = 1;
  // Ideal positions read: the largest cutoff of a "cut" NDCG column, every truth
  // item for "all" or no cutoff; "k_slots" reads only the largest grade.
  int64_t ideal_depth = 0;
  for (const auto& c : cols) {
    if (c.kind != Kind::ndcg || c.ideal == Ideal::k_slots) continue;
    if (c.ideal == Ideal::cut && c.cutoff > 0 && ideal_depth != std::numeric_limits<int64_t>::max())
      ideal_depth = std::max(ideal_depth, c.cutoff);
    else
      ideal_depth = std::numeric_limits<int64_t>::max();
  }
  std::vector<std::vector<ExactSum>> tsums(T, std::vector<ExactSum>(n_cols));
  std::vector<std::vector<int64_t>> tcounts(T, std::vector<int64_t>(n_cols, 0));
  std::vector<int64_t> tskipped(T, 0);
  std::vector<Status> tstatus(T);
  std::atomic<bool> failed{false};

  const bool has_min = opt.has_min_relevance;
  const double min_rel = opt.min_relevance;
  constexpr int64_t kAll = std::numeric_limits<int64_t>::max();
  const int64_t trunc = opt.max_items > 0 ? opt.max_items : kAll;  // raw positions kept (max_items)
  // Distinct items read per list: the largest cutoff, or all of them when a
  // column has no cutoff (num_rel reads no list item) or whole lists are asked for.
  int64_t depth = 0;
  for (const auto& c : cols)
    if (c.kind != Kind::num_rel) depth = c.cutoff > 0 && depth != kAll ? std::max(depth, c.cutoff) : kAll;
  if (opt.whole_lists) depth = kAll;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  [[maybe_unused]] const bool use_simd = opt.simd && simd_supported();
  const double* grades = d.t_grades;
  const Id* r_items = d.r_items;
  const bool padded = d.r_padded;
  const int64_t pad = d.r_pad;
  auto relevant = [has_min, min_rel](double g) { return has_min ? g >= min_rel : g > 0.0; };
  const float* grades32 = d.t_grades32;
  auto grade_at = [grades, grades32](int64_t i) {
    return grades ? grades[i] : grades32 ? static_cast<double>(grades32[i]) : 1.0;
  };
  // The gain of each integer grade 0..15 per variant, for the counting-sort ideal:
  // the same value gain_of gives that grade, so the ideal sums are unchanged.
  std::vector<double> level_gain(static_cast<size_t>(std::max(nv, 1) * 16), 0.0);
  for (int v = 0; v < nv; ++v)
    for (int lv = 0; lv < 16; ++lv) {
      const double g = static_cast<double>(lv);
      level_gain[static_cast<size_t>(v * 16 + lv)] = gain_of(var_gain[v], var_below[v], g, relevant(g));
    }
  // The same for every user whose truth grades are all integers 0..15 (the usual
  // scales): each truth item's level is found once, and the walk over the finds
  // reads relevance and gains from these tables (equal to relevant() and
  // gain_of() of that grade, so the sums are unchanged).
  bool level_rel[16], level_adds[16];
  double level_cg[6][16];
  bool any_cg = false, any_short = false;  // a cg column; a short_lists="evidently" column
  for (const auto& c : cols) any_short |= c.short_repeat;
  for (int gk = 0; gk < 6; ++gk) any_cg |= need_cg[gk];
  for (int lv = 0; lv < 16; ++lv) {
    const double g = static_cast<double>(lv);
    level_rel[lv] = relevant(g);
    level_adds[lv] = g > 0.0 || level_rel[lv];
    for (int gk = 0; gk < 6; ++gk) level_cg[gk][lv] = gain_of(static_cast<GainKind>(gk % 3), gk >= 3, g, level_rel[lv]);
  }
  std::vector<std::vector<uint8_t>> level_buf(T, std::vector<uint8_t>(max_m + 1));

  // Per-column ideal DCG slots (one per NDCG column) kept per user of a block.
  std::vector<int> ndcg_slot(n_cols, -1);
  int n_ndcg = 0;
  for (int i = 0; i < n_cols; ++i)
    if (cols[i].kind == Kind::ndcg) ndcg_slot[i] = n_ndcg++;
  // Columns computed per user from the finds directly (one value each, kept per
  // user of a block): bpref, RBP, ERR, judged. Their parameters are per column.
  std::vector<int> walk_slot(n_cols, -1);
  int n_walk = 0;
  for (int i = 0; i < n_cols; ++i) {
    const Kind k = cols[i].kind;
    if (k == Kind::bpref || k == Kind::rbp || k == Kind::err || k == Kind::judged) walk_slot[i] = n_walk++;
  }

  struct UserRec {
    int64_t nrel;
    int64_t n_eff;
    int64_t hits_at_R;
    bool last_rel;  // the last item read (position n_eff) is relevant (short_lists="evidently")
  };
  constexpr int64_t kBlock = 64;  // users scanned before their columns are written
  constexpr int64_t kAhead = 16;  // users ahead whose read prefix is prefetched
  std::vector<std::vector<Snap>> block_snaps(T, std::vector<Snap>(static_cast<size_t>(kBlock * (nc + 1))));
  std::vector<std::vector<UserRec>> block_users(T, std::vector<UserRec>(kBlock));
  std::vector<std::vector<double>> block_idcg(T,
                                              std::vector<double>(static_cast<size_t>(kBlock * std::max(n_ndcg, 1))));
  std::vector<std::vector<double>> block_walk(T,
                                              std::vector<double>(static_cast<size_t>(kBlock * std::max(n_walk, 1))));
  const int64_t n_blocks = (n_users + kBlock - 1) / kBlock;

  auto body = [&](auto& look, int tid, auto padded_tag) {
    constexpr bool kPadded = decltype(padded_tag)::value;
    double* gbuf = grade_buf[tid].data();
    uint8_t* lvl = level_buf[tid].data();
    double* ipre = ideal_prefix[tid].data();
    int64_t* fpos = find_pos[tid].data();
    int32_t* fti = find_ti[tid].data();
    Snap* bsnap = block_snaps[tid].data();
    double vbuf[kBlock];  // one column's values over a block
    UserRec* brec = block_users[tid].data();
    double* bidcg = block_idcg[tid].data();
    double* bwalk = block_walk[tid].data();
    ExactSum* my_sums = tsums[tid].data();
    int64_t* my_counts = tcounts[tid].data();
    Status& st = tstatus[tid];
    int64_t skipped = 0;

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
    for (int64_t blk = 0; blk < n_blocks; ++blk) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const int64_t u0 = blk * kBlock;
      const int64_t u1 = std::min(n_users, u0 + kBlock);
      bool bad = false;

      // Phase 1: scan every user of the block once.
      for (int64_t u = u0; u < u1 && !bad; ++u) {
        const int64_t j = u - u0;
        if (depth < kAll && u + kAhead < n_users) {
          // Only a prefix of each row is read, so rows are visited with a stride
          // the hardware prefetcher does not follow: request a user's prefix ahead.
          const int64_t ua = u + kAhead;
          const int64_t ra = d.r_rowmap ? d.r_rowmap[ua] : ua;
          if (ra >= 0) {
            const int64_t pb = padded ? ra * d.r_stride : d.r_indptr[ra];
            const int64_t pn = padded ? d.r_stride : d.r_indptr[ra + 1] - pb;
            prefetch_span(r_items + pb, std::min(pn, std::min(depth, int64_t{32})));
          }
        }
        Snap* snap = bsnap + j * (nc + 1);
        const int64_t t0 = d.t_indptr[u], t1 = d.t_indptr[u + 1];
        const int64_t m = t1 - t0;
        int64_t b = 0, e = 0;
        const int64_t row = d.r_rowmap ? d.r_rowmap[u] : u;
        if (row >= 0) {
          if (padded) {
            b = row * d.r_stride;
            e = b + d.r_stride;
          } else {
            b = d.r_indptr[row];
            e = d.r_indptr[row + 1];
          }
        }
        e = b + std::min(e - b, trunc);  // max_items truncates the list as given
        look.begin(m, m + (e - b));

        // Truth into the set, with each grade's level when all are integers 0..15.
        int64_t nrel = 0;
        int32_t count[16] = {0};
        uint32_t present = 0;  // bit lv: some truth item has level lv
        for (int64_t i = 0; i < m; ++i) {
          const int64_t key = d.t_items[t0 + i];
          if (!look.add_truth(key, static_cast<int32_t>(i))) {
            st.record(Code::duplicate_truth, u, key);
            bad = true;
            break;
          }
        }
        if (bad) break;
        // A loop of its own, per grade dtype, on local copies: inside the loop
        // above (and through the captured references) the compiler kept
        // reloading the pointers and spilling the flags.
        bool small = true;
        {
          uint32_t pres = 0;
          int64_t nr = 0;
          uint64_t off = 0;  // nonzero once a grade is not a level
          const bool* lrel = level_rel;
          // The level of a grade from the top 16 bits of its double (sign,
          // exponent, 4 mantissa bits) in a table, when its other 48 bits are
          // zero: exactly the integers 0..15 and -0.0 (level 0). Anything else
          // sets bit 4 of the table value or a bit of `off` above bit 15.
          const uint8_t* lt = grade_level_table();
          auto levels = [&](auto grade) {
            for (int64_t i = 0; i < m; ++i) {
              const double g = grade(i);
              uint64_t bits;
              std::memcpy(&bits, &g, sizeof(bits));
              const uint32_t tv = lt[bits >> 48];
              off |= (bits << 16) | tv;
              const uint32_t lv = tv & 15u;
              lvl[i] = static_cast<uint8_t>(lv);
              count[lv] += 1;
              pres |= 1u << lv;
              nr += lrel[lv];
            }
          };
          if (grades) {
            const double* gp = grades + t0;
            levels([gp](int64_t i) { return gp[i]; });
          } else if (grades32) {
            const float* gp = grades32 + t0;
            levels([gp](int64_t i) { return static_cast<double>(gp[i]); });
          } else {
            levels([](int64_t) { return 1.0; });
          }
          present = pres;
          nrel = nr;
          small = (off >> 4) == 0;
        }
        if (!small) {  // the levels are not the grades: relevance from the grades themselves
          nrel = 0;
          for (int64_t i = 0; i < m; ++i) {
            const double g = grade_at(t0 + i);
            // Every grade is checked here (a level is finite), so the caller needs no
            // separate pass over the grades: a NaN or an infinity is an error.
            if (!std::isfinite(g)) {
              st.record(Code::bad_grade, u, i);
              bad = true;
              break;
            }
            nrel += relevant(g);
          }
          if (bad) break;
        }
        if (nrel == 0 && opt.empty == EmptyPolicy::error) {
          st.record(Code::empty_truth, u, 0);
          bad = true;
          break;
        }

        // Scan the part of the list that is read, recording the truth items it
        // finds: every accuracy metric at every cutoff is a function of their
        // positions and grades, the list length and |R|.
        int64_t nf = 0, pos = 0;
        bool scanned = false;
        if constexpr (std::is_same_v<std::decay_t<decltype(look)>, DenseLookup>) {
          bool pad_ok = true;
          // Without a duplicate the first `depth` positions are the items read.
          const Id* span_end = r_items + b + std::min(e - b, depth);
#ifdef RANKMETER_X86_SIMD
          const bool ok =
              use_simd ? look.template fast_scan_avx2<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok)
                       : look.template fast_scan<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok);
#else
          const bool ok = look.template fast_scan<kPadded>(r_items + b, span_end, pad, fpos, fti, nf, pos, pad_ok);
#endif
          if (ok && pad_ok) {
            scanned = true;
          } else {
            // An id outside the array, a duplicate or an item after the
            // padding: start the user again on the general path, which
            // applies the policies and reports errors.
            look.begin(m, m + (e - b));
            for (int64_t i = 0; i < m; ++i) look.add_truth(d.t_items[t0 + i], static_cast<int32_t>(i));
          }
        }
        if (!scanned) {
          // General scan: one probe per item, duplicates handled per policy,
          // until `depth` distinct items are read or the list ends.
          nf = 0;
          pos = 0;
          for (const Id *it = r_items + b, *it_end = r_items + e; it != it_end && pos < depth; ++it) {
            const int64_t key = *it;
            if (kPadded && key == pad) {
              // only padding in the positions that would have been read
              const Id* q_end = it + std::min<int64_t>(it_end - it, depth - pos);
              for (const Id* q = it + 1; q != q_end; ++q)
                if (*q != pad) {
                  st.record(Code::pad_inside, u, q - (r_items + b));
                  bad = true;
                  break;
                }
              break;
            }
            int32_t ti = 0;
            const Probe pr = look.probe(key, ti);
            if (pr == Probe::dup) {
              if (opt.dup_first) continue;
              st.record(Code::duplicate_recs, u, key);
              bad = true;
              break;
            }
            ++pos;
            if (pr == Probe::find) {
              fpos[nf] = pos;
              fti[nf] = ti;
              ++nf;
            }
          }
          if (bad) break;
        }

        // Walk the finds; a snapshot of the running sums at every cutoff.
        int64_t hits = 0, first = 0;
        double ap = 0.0, ar = 0.0, arhr = 0.0;
        double dcg[kMaxVariants];
        double cgs[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        dcg[0] = 0.0;
        for (int v = 1; v < nv; ++v) dcg[v] = 0.0;
        auto take = [&](Snap& sn) {
          sn.hits = hits;
          sn.first = first;
          sn.ap = ap;
          sn.ar = ar;
          sn.arhr = arhr;
          if (any_cg)
            for (int gk = 0; gk < 6; ++gk) sn.cg[gk] = cgs[gk];
          if (nv == 1)  // the usual case, without a call to memcpy
            sn.dcg[0] = dcg[0];
          else
            for (int v = 0; v < nv; ++v) sn.dcg[v] = dcg[v];
        };
        int ci = 0;
        int64_t hits_at_R = -1;
        for (int64_t f = 0; f < nf; ++f) {
          const int64_t p = fpos[f];
          while (ci < nc && cutoffs[ci] < p) take(snap[ci++]);
          if (hits_at_R < 0 && p > nrel) hits_at_R = hits;
          bool rel;
          if (small) {
            const int lv = lvl[fti[f]];
            rel = level_rel[lv];
            if (level_adds[lv]) {
              for (int v = 0; v < nv; ++v) dcg[v] += level_gain[static_cast<size_t>(v * 16 + lv)] * disc[v][p];
              for (int gk = 0; gk < 6 && any_cg; ++gk)
                if (need_cg[gk]) cgs[gk] += level_cg[gk][lv];
            }
          } else {
            const double g = grade_at(t0 + fti[f]);
            rel = relevant(g);
            if (g > 0.0 || rel) {
              for (int v = 0; v < nv; ++v) dcg[v] += gain_of(var_gain[v], var_below[v], g, rel) * disc[v][p];
              for (int gk = 0; gk < 6; ++gk)
                if (need_cg[gk]) cgs[gk] += gain_of(static_cast<GainKind>(gk % 3), gk >= 3, g, rel);
            }
          }
          if (rel) {
            ++hits;
            ap += static_cast<double>(hits) / static_cast<double>(p);
            ar += static_cast<double>(hits);
            arhr += 1.0 / static_cast<double>(p);
            if (first == 0) first = p;
          }
        }
        while (ci < nc) take(snap[ci++]);
        take(snap[nc]);
        const bool last_rel = any_short && nf > 0 && fpos[nf - 1] == pos && relevant(grade_at(t0 + fti[nf - 1]));
        brec[j] = UserRec{nrel, pos, hits_at_R < 0 ? hits : hits_at_R, last_rel};

        // bpref, RBP, ERR and judged@k: one more walk over the finds (in list order) per column.
        for (int i = 0; i < (n_walk > 0 ? n_cols : 0); ++i) {
          const int q = walk_slot[i];
          if (q < 0) continue;
          const Column& c = cols[i];
          const int64_t lim = c.cutoff > 0 ? c.cutoff : kAll;
          double val = 0.0;
          switch (c.kind) {
            case Kind::bpref: {
              // trec_eval m_bpref.c: every judged (truth) item that is not relevant counts as
              // judged non-relevant; each relevant item found adds 1 - min(nonrel above, R) / min(N, R).
              const int64_t n_non = m - nrel;
              const double den = static_cast<double>(std::min(n_non, nrel));
              int64_t nonrel = 0;
              double acc = 0.0;
              for (int64_t f = 0; f < nf && fpos[f] <= lim; ++f) {
                if (relevant(grade_at(t0 + fti[f])))
                  acc += nonrel > 0 ? 1.0 - static_cast<double>(std::min(nonrel, nrel)) / den : 1.0;
                else
                  ++nonrel;
              }
              val = nrel > 0 ? acc / static_cast<double>(nrel) : 0.0;
              break;
            }
            case Kind::rbp: {
              // (1 - p) sum_j g_j p^(j-1)
              double acc = 0.0;
              for (int64_t f = 0; f < nf && fpos[f] <= lim; ++f) {
                const double g = grade_at(t0 + fti[f]);
                const double gain = gain_of(c.gain, c.below_zero, g, relevant(g));
                if (gain != 0.0) acc += gain * std::pow(c.param, static_cast<double>(fpos[f] - 1));
              }
              val = (1.0 - c.param) * acc;
              break;
            }
            case Kind::err: {
              // Chapelle et al.: R_j = (2^g_j - 1) / 2^gmax, ERR = sum_j R_j / j prod_{i<j} (1 - R_i).
              const double scale = std::exp2(-c.param);
              double acc = 0.0, decay = 1.0;
              for (int64_t f = 0; f < nf && fpos[f] <= lim; ++f) {
                const double g = grade_at(t0 + fti[f]);
                const double r = gain_of(GainKind::exponential, c.below_zero, g, relevant(g)) * scale;
                acc += r * decay / static_cast<double>(fpos[f]);
                decay *= 1.0 - r;
              }
              val = acc;
              break;
            }
            case Kind::judged: {
              // truth rows (any grade) among the first min(k, n) items read
              int64_t judged = 0;
              for (int64_t f = 0; f < nf && fpos[f] <= lim; ++f) ++judged;
              const int64_t den = std::min(lim, pos);
              val = den > 0 ? static_cast<double>(judged) / static_cast<double>(den) : 0.0;
              break;
            }
            default:
              break;
          }
          bwalk[q * kBlock + j] = val;
        }

        // Ideal DCG of every NDCG column: the truth grades sorted descending,
        // one prefix sum of gain * discount per gain variant, read at each cut.
        if (need_ideal) {
          // Fast path: grades that are integers 0..15 (the usual 0-3 or 1-5
          // scales) are ordered by a counting sort; comparison sorts
          // mispredict constantly on such random small values. Grade 0 gives
          // gain 0 and is never relevant unless min_relevance <= 0, which
          // takes the general path.
          // (The levels were counted with the truth above.)
          const bool by_count = small && !(has_min && min_rel <= 0.0);
          // Only the first `upto_u` ideal positions are read by any column.
          const int64_t upto_u = std::min(m, ideal_depth);
          if (by_count) {
            // The prefix sums straight from the counts, level by level (largest
            // grade first): the same additions in the same order as over the sorted
            // grades, without writing them out. gbuf[0] = the largest grade (k_slots).
            const uint32_t above0 = present & ~1u;
            const int top = above0 ? 31 - __builtin_clz(above0) : 0;
            gbuf[0] = static_cast<double>(top);
            for (int v = 0; v < nv; ++v) {
              if (!ideal_variant[v]) continue;
              double* pre = ipre + static_cast<int64_t>(v) * (max_m + 1);
              const double* dv = disc[v].data();
              const double* lg = level_gain.data() + v * 16;
              double acc = 0.0;
              pre[0] = acc;
              int64_t q = 0;
              // the levels present, largest first (an absent level adds nothing)
              for (uint32_t left = present; left != 0 && q < upto_u;) {
                const int lv = 31 - __builtin_clz(left);
                left &= ~(1u << lv);
                const double g = lg[lv];
                const int64_t q_end = std::min<int64_t>(upto_u, q + count[lv]);
                for (; q < q_end; ++q) {
                  acc = acc + g * dv[q + 1];
                  pre[q + 1] = acc;
                }
              }
            }
          } else {
            for (int64_t i = 0; i < m; ++i) gbuf[i] = grade_at(t0 + i);
            std::sort(gbuf, gbuf + m, std::greater<double>());
            for (int v = 0; v < nv; ++v) {
              if (!ideal_variant[v]) continue;
              double* pre = ipre + static_cast<int64_t>(v) * (max_m + 1);
              pre[0] = 0.0;
              for (int64_t q = 0; q < upto_u; ++q)
                pre[q + 1] = pre[q] + gain_of(var_gain[v], var_below[v], gbuf[q], relevant(gbuf[q])) * disc[v][q + 1];
            }
          }
          for (int i = 0; i < n_cols; ++i) {
            const int q = ndcg_slot[i];
            if (q < 0) continue;
            const Column& c = cols[i];
            const int v = variant_of[i];
            double idcg;
            if (c.ideal == Ideal::k_slots) {
              // k slots of the largest gain; no cutoff: k = n, the list length
              const double gmax = m > 0 ? gain_of(c.gain, c.below_zero, gbuf[0], relevant(gbuf[0])) : 0.0;
              idcg = gmax * (c.cutoff > 0 ? slot_sum[i] : disc_prefix[v][pos]);
            } else {
              // "cut" stops at the cutoff; without one nothing is cut (every truth gain, as "all")
              const int64_t upto = c.ideal == Ideal::cut && c.cutoff > 0 ? std::min(c.cutoff, m) : m;
              idcg = ipre[static_cast<int64_t>(v) * (max_m + 1) + upto];
            }
            bidcg[q * kBlock + j] = idcg;
          }
        }
      }
      if (bad) {
        failed.store(true, std::memory_order_relaxed);
        continue;
      }

      // short_lists="evidently": ranks n+1..k of a list of n < k items each add P@n = H / n
      // (AP) or the integer-valued hits@n = H (AR) when the item at rank n is relevant.
      auto short_extra = [](const Column& c, const UserRec& r, double H, bool per_rank) {
        if (!(c.short_repeat && r.last_rel && c.cutoff > r.n_eff)) return 0.0;
        const double n = static_cast<double>(r.n_eff);  // >= 1: the last item read is relevant
        return static_cast<double>(c.cutoff - r.n_eff) * (per_rank ? H / n : H);
      };
      // Phase 2: every column over the block. The kind is switched on once per
      // column; each case fills the block's values in its own loop, and the
      // values are then written out and summed as one span.
      const int64_t nb = u1 - u0;
      int64_t n_empty = 0;
      for (int64_t j = 0; j < nb; ++j) n_empty += brec[j].nrel == 0;
      if (opt.empty == EmptyPolicy::skip) skipped += n_empty;
      const int64_t stride = nc + 1;
      for (int i = 0; i < n_cols; ++i) {
        const Column& c = cols[i];
        const Snap* sc = bsnap + snap_of[i];
        double* vb = vbuf;
        // vb[j] = f(snapshot, user record, j) for the users of the block
        auto fill = [&](auto f) {
          for (int64_t j = 0; j < nb; ++j) vb[j] = f(sc[j * stride], brec[j], j);
        };
        auto k_of = [&c](const UserRec& r) { return c.cutoff > 0 ? c.cutoff : r.n_eff; };
        switch (c.kind) {
          case Kind::hits:
            fill([](const Snap& s, const UserRec&, int64_t) { return static_cast<double>(s.hits); });
            break;
          case Kind::precision:
            fill([&](const Snap& s, const UserRec& r, int64_t) {
              const int64_t kk = k_of(r);
              const int64_t den = c.short_repeat ? std::min(kk, r.n_eff) : kk;
              return den > 0 ? static_cast<double>(s.hits) / static_cast<double>(den) : 0.0;
            });
            break;
          case Kind::recall:
            fill([&](const Snap& s, const UserRec& r, int64_t) {
              const double den = c.denom == Denominator::min_relevant_k ? static_cast<double>(std::min(r.nrel, k_of(r)))
                                                                        : static_cast<double>(r.nrel);
              return den > 0 ? static_cast<double>(s.hits) / den : 0.0;
            });
            break;
          case Kind::fbeta:
            fill([&](const Snap& s, const UserRec& r, int64_t) {
              const int64_t kk = k_of(r);
              const double H = static_cast<double>(s.hits);
              const double P = kk > 0 ? H / static_cast<double>(kk) : 0.0;
              const double R = r.nrel > 0 ? H / static_cast<double>(r.nrel) : 0.0;
              const double b2 = c.param * c.param;
              const double den = b2 * P + R;
              return den > 0 ? (1.0 + b2) * P * R / den : 0.0;
            });
            break;
          case Kind::ap:
            fill([&](const Snap& s, const UserRec& r, int64_t) {
              const int64_t kk = k_of(r);
              const double H = static_cast<double>(s.hits);
              double den = static_cast<double>(r.nrel);
              if (c.denom == Denominator::min_relevant_k) den = static_cast<double>(std::min(r.nrel, kk));
              if (c.denom == Denominator::hits) den = H;
              if (c.denom == Denominator::k) den = static_cast<double>(kk);
              return den > 0 ? (s.ap + short_extra(c, r, H, true)) / den : 0.0;
            });
            break;
          case Kind::ar:
            fill([&](const Snap& s, const UserRec& r, int64_t) {
              const double H = static_cast<double>(s.hits);
              const double dn_rel = static_cast<double>(r.nrel);
              const double den = c.denom == Denominator::hits ? dn_rel * H : dn_rel * dn_rel;
              return den > 0 ? (s.ar + short_extra(c, r, H, false)) / den : 0.0;
            });
            break;
          case Kind::cg: {
            const int g = static_cast<int>(c.gain) + 3 * c.below_zero;
            fill([g](const Snap& s, const UserRec&, int64_t) { return s.cg[g]; });
            break;
          }
          case Kind::dcg: {
            const int v = variant_of[i];
            fill([v](const Snap& s, const UserRec&, int64_t) { return s.dcg[v]; });
            break;
          }
          case Kind::ndcg: {
            const int v = variant_of[i];
            const double* idcg = bidcg + ndcg_slot[i] * kBlock;
            fill(
                [v, idcg](const Snap& s, const UserRec&, int64_t j) { return idcg[j] > 0 ? s.dcg[v] / idcg[j] : 0.0; });
            break;
          }
          case Kind::hit_rate:
            fill([](const Snap& s, const UserRec&, int64_t) { return s.hits > 0 ? 1.0 : 0.0; });
            break;
          case Kind::rr:
            fill([](const Snap& s, const UserRec&, int64_t) {
              return s.first > 0 ? 1.0 / static_cast<double>(s.first) : 0.0;
            });
            break;
          case Kind::arhr:
            fill([](const Snap& s, const UserRec&, int64_t) { return s.arhr; });
            break;
          case Kind::r_precision:
            fill([](const Snap&, const UserRec& r, int64_t) {
              return r.nrel > 0 ? static_cast<double>(r.hits_at_R) / static_cast<double>(r.nrel) : 0.0;
            });
            break;
          case Kind::num_rel:
            fill([](const Snap&, const UserRec& r, int64_t) { return static_cast<double>(r.nrel); });
            break;
          case Kind::bpref:
          case Kind::rbp:
          case Kind::err:
          case Kind::judged: {
            const double* w = bwalk + walk_slot[i] * kBlock;
            fill([w](const Snap&, const UserRec&, int64_t j) { return w[j]; });
            break;
          }
        }
        double* out = values ? values + static_cast<int64_t>(i) * n_users + u0 : nullptr;
        if (n_empty == 0) {  // the usual block
          if (out) std::copy(vb, vb + nb, out);
          my_sums[i].add_span(vb, nb);
          my_counts[i] += nb;
          continue;
        }
        // Users without a relevant item: left out (NaN), 1, or the value as computed.
        const bool count_like =
            c.kind == Kind::hits || c.kind == Kind::cg || c.kind == Kind::dcg || c.kind == Kind::num_rel ||
            c.kind == Kind::judged;  // judged@k is defined by the truth rows, whatever their relevance
        for (int64_t j = 0; j < nb; ++j) {
          double val = vb[j];
          if (brec[j].nrel == 0) {
            if (opt.empty == EmptyPolicy::skip) {
              if (out) out[j] = nan;
              continue;
            }
            if (opt.empty == EmptyPolicy::one && !count_like) val = 1.0;
          }
          if (out) out[j] = val;
          my_sums[i].add(val);
          ++my_counts[i];
        }
      }
    }
    tskipped[tid] = skipped;
  };

#ifdef RANKMETER_HAVE_OPENMP
#pragma omp parallel num_threads(T)
#endif
  {
    const int tid = thread_id();
    using Yes = std::true_type;
    using No = std::false_type;
    if (dense) {
      if (padded)
        body(dense_look[tid], tid, Yes{});
      else
        body(dense_look[tid], tid, No{});
    } else {
      if (padded)
        body(hash_look[tid], tid, Yes{});
      else
        body(hash_look[tid], tid, No{});
    }
  }

  for (int t = 0; t < T; ++t) status.merge(tstatus[t]);
  if (!status.ok()) return status;
  int64_t n_skipped = 0;
  for (int i = 0; i < n_cols; ++i) {
    sums[i].clear();
    counts[i] = 0;
  }
  for (int t = 0; t < T; ++t) {
    n_skipped += tskipped[t];
    for (int i = 0; i < n_cols; ++i) {
      sums[i].merge(tsums[t][i]);
      counts[i] += tcounts[t][i];
    }
  }
  *n_skipped_out = n_skipped;
  return status;
}

}  // namespace rankmeter::core
