// CPython's float and int arithmetic, reproduced operation by operation (Objects/floatobject.c,
// Objects/longobject.c, Modules/mathmodule.c of CPython 3.11/3.12) so the VM returns what the
// interpreter returns. Each function writes its result and returns the lane flags: 0, kError
// (CPython raises) or kFallback (the result is not a bool/int64/float, e.g. a complex number or
// an int of more than 64 bits). pow() returns kComplexResult where CPython makes a complex number.
#pragma once

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "wilt/vm.hpp"

namespace cogsim::wilt::py {

constexpr uint8_t kComplexResult = 4;
constexpr double kTwo63 = 9223372036854775808.0;
constexpr int64_t kTwo53 = int64_t{1} << 53;

inline bool is_odd_integer(double x) { return std::fmod(std::fabs(x), 2.0) == 1.0; }

// float % float (float_rem): the remainder takes the sign of the divisor.
inline uint8_t mod(double vx, double wx, double& out) {
  if (wx == 0.0) return kError;
  constexpr double kExactInt = 9007199254740992.0;  // 2^53
  if (vx == std::trunc(vx) && wx == std::trunc(wx) && std::fabs(vx) < kExactInt && std::fabs(wx) < kExactInt) {
    // Integral operands: the remainder is an exact integer, as fmod's would be; integer division is faster.
    const auto a = static_cast<int64_t>(vx), b = static_cast<int64_t>(wx);
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    out = r != 0 ? static_cast<double>(r) : std::copysign(0.0, wx);
    return 0;
  }
  if (wx == 1.0 && std::fabs(vx) < kExactInt) {
    // x % 1: x - floor(x) rounds the same exact value, (x - trunc(x)) + 1 or x - trunc(x), once.
    out = vx - std::floor(vx);
    return 0;
  }
  double m = std::fmod(vx, wx);
  if (m != 0.0) {
    if ((wx < 0) != (m < 0)) m += wx;
  } else {
    m = std::copysign(0.0, wx);
  }
  out = m;
  return 0;
}

// float // float (_float_div_mod): the quotient snapped to the nearest integral value.
inline uint8_t floordiv(double vx, double wx, double& out) {
  if (wx == 0.0) return kError;
  double m = std::fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m != 0.0) {
    if ((wx < 0) != (m < 0)) div -= 1.0;
  }
  if (div != 0.0) {
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    out = floordiv;
  } else {
    out = std::copysign(0.0, vx / wx);
  }
  return 0;
}

inline uint8_t truediv(double a, double b, double& out) {
  if (b == 0.0) return kError;
  out = a / b;
  return 0;
}

// float ** float (float_pow), including CPython's own special cases and its errno checks.
inline uint8_t pow(double iv, double iw, double& out) {
  if (iw == 0.0) return out = 1.0, 0;
  if (std::isnan(iv)) return out = iv, 0;
  if (std::isnan(iw)) return out = (iv == 1.0 ? 1.0 : iw), 0;
  if (std::isinf(iw)) {
    iv = std::fabs(iv);
    if (iv == 1.0) return out = 1.0, 0;
    if ((iw > 0.0) == (iv > 1.0)) return out = std::fabs(iw), 0;
    return out = 0.0, 0;
  }
  if (std::isinf(iv)) {
    const bool odd = is_odd_integer(iw);
    if (iw > 0.0) return out = (odd ? iv : std::fabs(iv)), 0;
    return out = (odd ? std::copysign(0.0, iv) : 0.0), 0;
  }
  if (iv == 0.0) {
    if (iw < 0.0) return kError;  // ZeroDivisionError
    return out = (is_odd_integer(iw) ? iv : 0.0), 0;
  }
  bool negate = false;
  if (iv < 0.0) {
    if (iw != std::floor(iw)) return kComplexResult;
    iv = -iv;
    negate = is_odd_integer(iw);
  }
  if (iv == 1.0) return out = (negate ? -1.0 : 1.0), 0;
  if (iw == 2.0 && (std::bit_cast<uint64_t>(iv) & ((uint64_t{1} << 27) - 1)) == 0 && iv < 1e150 && iv > 1e-150) {
    // A square of a value with at most 26 significant bits is exact, and libm's pow (error < 1 ulp)
    // must then return that exact value too: x * x is the same answer without the call.
    return out = iv * iv, 0;
  }
  errno = 0;
  double ix = std::pow(iv, iw);
  if (errno == 0) {
    if (ix == HUGE_VAL || ix == -HUGE_VAL) errno = ERANGE;
  } else if (errno == ERANGE && ix == 0.0) {
    errno = 0;
  }
  if (negate) ix = -ix;
  if (errno != 0) return kError;  // OverflowError
  out = ix;
  return 0;
}

// Python int from a float that is already integral (PyLong_FromDouble).
inline uint8_t int_from_integral(double v, int64_t& out) {
  if (std::isnan(v) || std::isinf(v)) return kError;
  if (v >= kTwo63 || v < -kTwo63) return kFallback;
  out = static_cast<int64_t>(v);
  return 0;
}

inline uint8_t trunc_to_int(double v, int64_t& out) { return int_from_integral(std::trunc(v), out); }

// round(float) with no digits: half to even, then an int.
inline uint8_t round_to_int(double x, int64_t& out) {
  double rounded = std::round(x);
  if (std::fabs(x - rounded) == 0.5) rounded = 2.0 * std::round(x / 2.0);
  return int_from_integral(rounded, out);
}

// round(float, ndigits) for ndigits >= 0: CPython rounds through a correctly rounded decimal
// string (dtoa mode 3) and reads it back; glibc's printf/strtod are correctly rounded as well.
inline uint8_t round_digits(double x, int64_t ndigits, double& out) {
  constexpr int64_t kMaxDigits = 323, kMinDigits = -308;
  if (!std::isfinite(x)) return out = x, 0;
  if (ndigits > kMaxDigits) return out = x, 0;
  if (ndigits < kMinDigits) return out = 0.0 * x, 0;
  if (ndigits < 0) return kFallback;
  char buffer[720];
  std::snprintf(buffer, sizeof buffer, "%.*f", static_cast<int>(ndigits), x);
  out = std::strtod(buffer, nullptr);
  return 0;
}

// Exact comparison of an int with a float (CPython compares them without rounding).
// Returns -1, 0, 1, or 2 when unordered (NaN).
inline int compare_int_float(int64_t i, double d) {
  if (std::isnan(d)) return 2;
  if (d >= kTwo63) return -1;
  if (d < -kTwo63) return 1;
  const double whole = std::trunc(d);
  const auto w = static_cast<int64_t>(whole);
  if (i < w) return -1;
  if (i > w) return 1;
  const double frac = d - whole;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

inline uint8_t int_floordiv(int64_t a, int64_t b, int64_t& out) {
  if (b == 0) return kError;
  if (a == INT64_MIN && b == -1) return kFallback;
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  out = q;
  return 0;
}

inline uint8_t int_mod(int64_t a, int64_t b, int64_t& out) {
  if (b == 0) return kError;
  if (b == -1) return out = 0, 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  out = r;
  return 0;
}

// int / int is correctly rounded; it equals the float quotient when both fit in 53 bits.
inline uint8_t int_truediv(int64_t a, int64_t b, double& out) {
  if (b == 0) return kError;
  if (a > kTwo53 || a < -kTwo53 || b > kTwo53 || b < -kTwo53) return kFallback;
  out = static_cast<double>(a) / static_cast<double>(b);
  return 0;
}

// int ** int with a non-negative exponent; beyond 64 bits the Python interpreter takes over.
inline uint8_t int_pow(int64_t base, int64_t exponent, int64_t& out) {
  int64_t result = 1;
  while (exponent > 0) {
    if ((exponent & 1) && __builtin_mul_overflow(result, base, &result)) return kFallback;
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) return kFallback;
  }
  out = result;
  return 0;
}

inline uint8_t isclose(double a, double b, double rel_tol, double abs_tol, bool& out) {
  if (rel_tol < 0.0 || abs_tol < 0.0) return kError;
  if (a == b) return out = true, 0;
  if (std::isinf(a) || std::isinf(b)) return out = false, 0;
  const double diff = std::fabs(b - a);
  out = (diff <= std::fabs(rel_tol * b)) || (diff <= std::fabs(rel_tol * a)) || (diff <= abs_tol);
  return 0;
}

}  // namespace cogsim::wilt::py
