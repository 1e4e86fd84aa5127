// rankmeter/exact_sum.hpp — an exact (error-free) accumulator for doubles.
//
// Every finite double is an integer multiple of 2^-1074. The accumulator keeps
// the sum of such integers as a fixed-point number in 32-bit digits stored in
// signed 64-bit limbs (limb i weighs 2^(32 i - 1074)); nothing is ever rounded.
//
// Hot path: add() only adds the value's 53-bit signed mantissa to a bin of its
// biased exponent (one integer add). At most 1023 mantissas (< 2^53 each) fit
// in an int64 bin, so every 1023 additions the touched bins are flushed into
// the limbs. Sums of disjoint sets of values merge by adding limbs, so the
// total is the same for any thread count, any order of values and any split
// into batches. The caller turns the limbs into a correctly rounded double
// (Python does it with its exact integers).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace rankmeter::core {

struct ExactSum {
  static constexpr int kLimbs = 68;  // (2046 exponent bits + 96 bit span) / 32, rounded up
  static constexpr int kBins = 2048;
  int64_t limb[kLimbs];
  int64_t bin[kBins];
  uint64_t touched = 0;  // bit g: some bin of the group 32 g .. 32 g + 31 was added to
  int32_t binned = 0;    // additions since the last flush
  int64_t pending = 0;   // limb updates since the last normalisation

  ExactSum() { clear(); }
  void clear() {
    std::memset(limb, 0, sizeof(limb));
    std::memset(bin, 0, sizeof(bin));
    touched = 0;
    binned = 0;
    pending = 0;
  }

  // Add a finite double exactly. NaN and infinities must be filtered by the caller.
  inline void add(double x) {
    add_bits(x, touched);
    if (++binned == kPerFlush) flush();
  }

  // add(x[0]), ..., add(x[n - 1]), in runs between flushes with the state in
  // registers (add() reloads and stores the members at every value).
  void add_span(const double* x, int64_t n) {
    while (n > 0) {
      const int64_t run = std::min<int64_t>(n, kPerFlush - binned);
      uint64_t t = touched;
      for (int64_t i = 0; i < run; ++i) add_bits(x[i], t);
      touched = t;
      binned += static_cast<int32_t>(run);
      if (binned == kPerFlush) flush();
      x += run;
      n -= run;
    }
  }

  // Move the bins into the limbs.
  void flush() {
    for (uint64_t t = touched; t != 0; t &= t - 1) {
      const int g = __builtin_ctzll(t);
      for (int e = 32 * g; e < 32 * g + 32; ++e) {
        if (bin[e] != 0) {
          add_scaled(bin[e], e);
          bin[e] = 0;
        }
      }
    }
    touched = 0;
    binned = 0;
  }

  // Carry so that limbs 0..kLimbs-2 hold digits in [0, 2^32); the top limb keeps the sign.
  void normalize() {
    flush();
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const int64_t carry = limb[i] >> 32;  // arithmetic shift: floor division
      limb[i] -= carry * (int64_t(1) << 32);
      limb[i + 1] += carry;
    }
    pending = 0;
  }

  // The sum as a double (after normalize()): the limbs added from the most
  // significant down in long double. A function of the limbs only, so equal
  // exact sums give equal doubles whatever the order of the additions.
  double to_double() const {
    long double r = 0.0L;
    for (int i = kLimbs - 1; i >= 0; --i)
      if (limb[i]) r += std::ldexp(static_cast<long double>(limb[i]), 32 * i - 1074);
    return static_cast<double>(r);
  }

  void merge(ExactSum& o) {
    o.normalize();
    normalize();
    for (int i = 0; i < kLimbs; ++i) limb[i] += o.limb[i];
    normalize();
  }

 private:
  static constexpr int32_t kPerFlush = 1023;  // mantissas (< 2^53) an int64 bin holds

  // The value's signed 53-bit mantissa into the bin of its biased exponent.
  // Branch-free (zeros are frequent and random): a zero adds 0 to bin 0;
  // a subnormal (exponent field 0) has no implicit bit, like the zero.
  // `t`: the touched-group mask to update (a local copy in add_span's runs).
  inline void add_bits(double x, uint64_t& t) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    const uint64_t be = (bits >> 52) & 0x7FF;
    // the implicit bit 2^52 when be >= 1: be + 0x7FF reaches bit 11 exactly then
    const uint64_t m = (bits & ((uint64_t(1) << 52) - 1)) | (((be + 0x7FF) & 0x800) << 41);
    const int64_t neg = -static_cast<int64_t>(bits >> 63);  // 0 or -1
    bin[be] += (static_cast<int64_t>(m) ^ neg) - neg;
    t |= uint64_t(1) << (be >> 5);
  }
  // Add v * 2^(p - 1074), p = max(be, 1) - 1, with |v| < 2^63.
  void add_scaled(int64_t v, int be) {
    const int p = (be > 0 ? be : 1) - 1;
    const int i = p >> 5;
    const int s = p & 31;
    const bool neg = v < 0;
    const uint64_t a = neg ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const unsigned __int128 w = static_cast<unsigned __int128>(a) << s;  // < 2^95
    const int64_t d0 = static_cast<int64_t>(static_cast<uint64_t>(w) & 0xFFFFFFFFu);
    const int64_t d1 = static_cast<int64_t>(static_cast<uint64_t>(w >> 32) & 0xFFFFFFFFu);
    const int64_t d2 = static_cast<int64_t>(static_cast<uint64_t>(w >> 64));
    if (neg) {
      limb[i] -= d0;
      limb[i + 1] -= d1;
      limb[i + 2] -= d2;
    } else {
      limb[i] += d0;
      limb[i + 1] += d1;
      limb[i + 2] += d2;
    }
    // Each limb moves by < 2^32 per update; normalising every 2^29 updates
    // keeps every limb far below 2^63.
    if (++pending == (int64_t(1) << 29)) {
      for (int k = 0; k + 1 < kLimbs; ++k) {
        const int64_t carry = limb[k] >> 32;
        limb[k] -= carry * (int64_t(1) << 32);
        limb[k + 1] += carry;
      }
      pending = 0;
    }
  }
};

}  // namespace rankmeter::core
