// rankmeter/group.hpp — long tables to CSR without sorting.
//
// A long table holds one row per (user, item); rankmeter wants the rows of each
// user together, users in order of first appearance. Three O(rows) passes, no
// comparison sort:
//
//   factorize_ids: int64 user ids -> dense codes 0..n-1 in order of first
//     appearance (open addressing hash table, grown as needed; a row equal to
//     the previous row's id reuses its code, so grouped tables cost one probe
//     per user, not per row).
//   group_stable: a counting sort of the rows by code (rows of one user keep
//     their table order) -> indptr and the row order.
//   group_by_rank: each row goes straight to slot indptr[code] + rank - 1; a
//     rank outside 1..count(user) or a slot already taken is an error naming
//     the first such row (ranks of a user that are 1..n without gaps or
//     repeats are exactly a permutation, so this check is complete).
#pragma once
#include <cstdint>
#include <vector>

namespace rankmeter::core {

// codes[i] for every row; first_row[c] = the first row holding code c. Returns the number of codes.
inline int64_t factorize_ids(const int64_t* ids, int64_t n, int64_t* codes, std::vector<int64_t>& first_row) {
  first_row.clear();
  if (n == 0) return 0;
  uint64_t cap = 1024;
  std::vector<int64_t> keys(cap), vals(cap, -1);
  uint64_t mask = cap - 1;
  auto slot_of = [&](int64_t key) {
    uint64_t h = (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 20;
    for (;; h = (h + 1) & mask) {
      const uint64_t i = h & mask;
      if (vals[i] < 0 || keys[i] == key) return i;
    }
  };
  int64_t prev_key = 0, prev_code = -1;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t key = ids[r];
    if (prev_code >= 0 && key == prev_key) {
      codes[r] = prev_code;
      continue;
    }
    uint64_t i = slot_of(key);
    if (vals[i] < 0) {
      if (static_cast<uint64_t>(first_row.size() + 1) * 2 > cap) {  // keep the load under 1/2
        std::vector<int64_t> ok = std::move(keys), ov = std::move(vals);
        cap <<= 1;
        mask = cap - 1;
        keys.assign(cap, 0);
        vals.assign(cap, -1);
        for (size_t j = 0; j < ok.size(); ++j)
          if (ov[j] >= 0) {
            const uint64_t t = slot_of(ok[j]);
            keys[t] = ok[j];
            vals[t] = ov[j];
          }
        i = slot_of(key);
      }
      keys[i] = key;
      vals[i] = static_cast<int64_t>(first_row.size());
      first_row.push_back(r);
    }
    prev_key = key;
    prev_code = vals[i];
    codes[r] = prev_code;
  }
  return static_cast<int64_t>(first_row.size());
}

// indptr[n_codes + 1] and order[n]: the rows of code 0 in table order, then code 1, ...
inline void group_stable(const int64_t* codes, int64_t n, int64_t n_codes, int64_t* indptr, int64_t* order) {
  std::vector<int64_t> cursor(static_cast<size_t>(n_codes) + 1, 0);
  for (int64_t r = 0; r < n; ++r) ++cursor[static_cast<size_t>(codes[r]) + 1];
  for (int64_t c = 0; c < n_codes; ++c) cursor[c + 1] += cursor[c];
  for (int64_t c = 0; c <= n_codes; ++c) indptr[c] = cursor[c];
  for (int64_t r = 0; r < n; ++r) order[cursor[codes[r]]++] = r;
}

// As group_stable, but each user's rows are placed by their rank (1-based).
// Returns -1, or the first row whose rank is out of 1..count or repeats a rank.
inline int64_t group_by_rank(const int64_t* codes, const int64_t* rank, int64_t n, int64_t n_codes, int64_t* indptr,
                             int64_t* order) {
  for (int64_t c = 0; c <= n_codes; ++c) indptr[c] = 0;
  for (int64_t r = 0; r < n; ++r) ++indptr[codes[r] + 1];
  for (int64_t c = 0; c < n_codes; ++c) indptr[c + 1] += indptr[c];
  for (int64_t r = 0; r < n; ++r) order[r] = -1;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t c = codes[r];
    const int64_t count = indptr[c + 1] - indptr[c];
    const int64_t k = rank[r];
    if (k < 1 || k > count) return r;
    int64_t& slot = order[indptr[c] + k - 1];
    if (slot >= 0) return r;
    slot = r;
  }
  return -1;
}

}  // namespace rankmeter::core
