// rankmeter/status.hpp — how kernels report bad input without throwing.
//
// Kernels never throw inside a parallel region. Each thread records the first
// (lowest user index) problem it meets; after the join the lowest one wins, so
// the reported user does not depend on the thread count.
#pragma once
#include <cstdint>
#include <limits>

namespace rankmeter::core {

enum class Code : int32_t {
  ok = 0,
  bad_indptr = 1,           // indptr not non-decreasing or out of the items' bounds
  duplicate_truth = 2,      // the same item twice in one user's truth
  duplicate_recs = 3,       // the same item twice in one user's list (duplicates="error")
  empty_truth = 4,          // a user without relevant items and empty="error"
  pad_inside = 5,           // a 2-D padded row with an item after the padding
  bad_rowmap = 6,           // a row index outside the recommendations
  too_large = 7,            // one user's truth + list longer than the scratch allows (2^29)
  too_many_variants = 8,    // more distinct (gain, log_base) pairs than one pass keeps
  missing_feature = 9,      // a top-k item without a row in item_features
  missing_similarity = 10,  // a top-k item without a row in item_similarity
  bad_score = 11,           // a non-finite score in a score matrix
  bad_grade = 12,           // a NaN or infinite truth grade (item: its position in the user's truth)
};

struct Status {
  Code code = Code::ok;
  int64_t user = std::numeric_limits<int64_t>::max();
  int64_t item = 0;

  bool ok() const { return code == Code::ok; }
  // Keep the problem of the lowest user (then the lowest code) so that the
  // result is the same whatever the thread schedule.
  void record(Code c, int64_t u, int64_t it = 0) {
    if (u < user || (u == user && static_cast<int32_t>(c) < static_cast<int32_t>(code))) {
      code = c;
      user = u;
      item = it;
    }
  }
  void merge(const Status& o) {
    if (!o.ok()) record(o.code, o.user, o.item);
  }
};

}  // namespace rankmeter::core
