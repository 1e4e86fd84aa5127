// rankmeter/policy.hpp — policies shared by the fused pass and the beyond-accuracy kernels.
#pragma once
#include <cstdint>

namespace rankmeter::core {

// Users without a relevant item: left out (NaN), 0, 1, or an error (docs/metrics.md, section 4).
enum class EmptyPolicy : int32_t { skip = 0, zero = 1, one = 2, error = 3 };

}  // namespace rankmeter::core
