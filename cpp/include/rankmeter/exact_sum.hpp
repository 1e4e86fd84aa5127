// rankmeter/exact_sum.hpp — an exact (error-free) accumulator for doubles.
//
// Every finite double is an integer multiple of 2^-1074. The accumulator keeps
// the sum of such integers as a fixed-point number in 32-bit digits stored in
// signed 64-bit limbs (limb i weighs 2^(32 i - 1074)); an addition touches three
// limbs and never rounds. Sums of disjoint sets of values can be merged by
// adding limbs, so the total is the same for any thread count, any order of
// values and any split into batches. The caller turns the limbs into a
// correctly rounded double (Python does it with its exact integers).
#pragma once
#include <cstdint>
#include <cstring>

namespace rankmeter::core {

struct ExactSum {
  static constexpr int kLimbs = 68;  // (2046 exponent bits + 85 bit span) / 32, rounded up
  int64_t limb[kLimbs];
  int64_t pending = 0;  // additions since the last normalisation

  ExactSum() { clear(); }
  void clear() {
    std::memset(limb, 0, sizeof(limb));
    pending = 0;
  }

  // Add a finite double exactly. NaN and infinities must be filtered by the caller.
  inline void add(double x) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    const bool neg = bits >> 63;
    int be = static_cast<int>((bits >> 52) & 0x7FF);
    uint64_t m = bits & ((uint64_t(1) << 52) - 1);
    if (be == 0) {
      if (m == 0) return;  // +-0
      be = 1;              // subnormal: m * 2^-1074
    } else {
      m |= uint64_t(1) << 52;
    }
    const int p = be - 1;  // value = m * 2^(p - 1074)
    const int i = p >> 5;
    const int s = p & 31;
    const unsigned __int128 v = static_cast<unsigned __int128>(m) << s;
    const int64_t d0 = static_cast<int64_t>(static_cast<uint64_t>(v) & 0xFFFFFFFFu);
    const int64_t d1 = static_cast<int64_t>(static_cast<uint64_t>(v >> 32) & 0xFFFFFFFFu);
    const int64_t d2 = static_cast<int64_t>(static_cast<uint64_t>(v >> 64));
    if (neg) {
      limb[i] -= d0;
      limb[i + 1] -= d1;
      limb[i + 2] -= d2;
    } else {
      limb[i] += d0;
      limb[i + 1] += d1;
      limb[i + 2] += d2;
    }
    // Each limb moves by < 2^32 per addition; normalising every 2^29 additions
    // keeps every limb far below 2^63.
    if (++pending == (int64_t(1) << 29)) normalize();
  }

  // Carry so that limbs 0..kLimbs-2 hold digits in [0, 2^32); the top limb keeps the sign.
  void normalize() {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const int64_t carry = limb[i] >> 32;  // arithmetic shift: floor division
      limb[i] -= carry * (int64_t(1) << 32);
      limb[i + 1] += carry;
    }
    pending = 0;
  }

  void merge(const ExactSum& o) {
    normalize();
    for (int i = 0; i < kLimbs; ++i) limb[i] += o.limb[i];
    normalize();
  }
};

}  // namespace rankmeter::core
