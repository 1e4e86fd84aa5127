// rankmeter/trec.hpp — TREC qrels / run text to columns, in one pass.
//
// Lines are split on ASCII whitespace (space, tab, CR, VT, FF), as trec_eval
// does; blank lines are skipped. For each line the parser keeps field 0 (the
// query), field 2 (the docno) and the number in `value_field` (qrels: grade,
// field 3; run: score, field 4), and checks the field count. Numbers follow
// Python's float() for decimal text (optional sign, digits, point, exponent,
// inf/nan spelled out) and must be finite. The whole buffer must be UTF-8.
// Errors report the 1-based line number.
#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rankmeter::core {

enum class TrecError : int { ok = 0, fields = 1, not_number = 2, not_finite = 3, not_utf8 = 4 };

struct TrecRow {
  std::string_view query, doc;
  double value;
};

struct TrecParse {
  std::vector<TrecRow> rows;
  TrecError error = TrecError::ok;
  int64_t line = 0;      // 1-based line of the error
  int64_t n_fields = 0;  // fields on that line (fields error)
  int64_t byte = 0;      // offset of the first bad byte (not_utf8)
  std::string_view token;
};

namespace trec_detail {
inline bool space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Offset of the first byte that is not part of valid UTF-8, or -1.
inline int64_t utf8_invalid_at(const unsigned char* s, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (int j = 1; j < len; ++j) {
      if ((s[i + j] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + j] & 0x3F);
    }
    // overlong forms, surrogates and code points past U+10FFFF are not UTF-8
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += len;
  }
  return -1;
}

inline bool parse_number(std::string_view t, double& out) {
  const char* b = t.data();
  const char* e = b + t.size();
  if (b != e && *b == '+') {
    ++b;
    if (b != e && (*b == '-' || *b == '+')) return false;
  }
  if (b == e) return false;
  auto r = std::from_chars(b, e, out, std::chars_format::general);
  return r.ec == std::errc() && r.ptr == e;
}
}  // namespace trec_detail

inline TrecParse parse_trec(const char* data, int64_t n, int n_min, int n_max, int value_field) {
  using namespace trec_detail;
  TrecParse out;
  const int64_t bad = utf8_invalid_at(reinterpret_cast<const unsigned char*>(data), n);
  if (bad >= 0) {
    out.error = TrecError::not_utf8;
    out.byte = bad;
    return out;
  }
  int64_t line = 0, i = 0;
  std::string_view f[8];
  while (i < n) {
    ++line;
    int64_t nf = 0;
    // fields of this line
    while (i < n && data[i] != '\n') {
      while (i < n && space(static_cast<unsigned char>(data[i]))) ++i;
      if (i >= n || data[i] == '\n') break;
      const int64_t s = i;
      while (i < n && data[i] != '\n' && !space(static_cast<unsigned char>(data[i]))) ++i;
      if (nf < 8) f[nf] = std::string_view(data + s, static_cast<size_t>(i - s));
      ++nf;
    }
    if (i < n) ++i;  // the '\n'
    if (nf == 0) continue;
    if (nf < n_min || (n_max > 0 && nf > n_max)) {
      out.error = TrecError::fields;
      out.line = line;
      out.n_fields = nf;
      return out;
    }
    double v = 0.0;
    if (!parse_number(f[value_field], v)) {
      out.error = TrecError::not_number;
      out.line = line;
      out.token = f[value_field];
      return out;
    }
    if (!std::isfinite(v)) {
      out.error = TrecError::not_finite;
      out.line = line;
      out.token = f[value_field];
      return out;
    }
    out.rows.push_back(TrecRow{f[0], f[2], v});
  }
  return out;
}

}  // namespace rankmeter::core
