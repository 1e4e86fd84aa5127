// rankmeter/policy.hpp — policies shared by the fused pass and the beyond-accuracy kernels.
#pragma once
#include <cstdint>

namespace rankmeter::core {

// Users without a relevant item: left out (NaN), 0, 1, or an error (docs/metrics.md, section 4).
enum class EmptyPolicy : int32_t { skip = 0, zero = 1, one = 2, error = 3 };

// An item repeated within the part of a list that is read (docs/metrics.md, section 6): an error;
// dropped, the list closing up (first); kept at its position but never a hit (miss); or a hit
// again at its position when it is a truth item (count).
enum class DupPolicy : int32_t { error = 0, first = 1, miss = 2, count = 3 };

}  // namespace rankmeter::core
