// The general VM's scalar semantics: what CPython returns for one operation on dynamically typed
// values (bool, int, float; a complex number is a tag without a payload), one lane at a time. Each
// operation writes its result and returns the lane's flags: 0, kError (CPython raises) or
// kFallback (the Python interpreter must decide), dispatching to pyfloat.hpp's float and int
// arithmetic. Inline, because the general evaluator (evaluator.cpp) runs them inside its per-lane
// loops. Internal to the core.
#pragma once

#include <cmath>
#include <cstdint>
#include <numeric>

#include "wilt/pyfloat.hpp"
#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

// Static type sets (Program::static_tags) hold one bit per Tag.
constexpr uint8_t kBoolBit = 1 << kBool, kIntBit = 1 << kInt, kFloatBit = 1 << kFloat;
constexpr uint8_t kComplexBit = 1 << kComplex;

struct Val {
  uint8_t tag;
  double f;
  int64_t i;
};

inline Val boolean(bool b) { return {kBool, 0.0, b ? 1 : 0}; }
inline Val integer(int64_t i) { return {kInt, 0.0, i}; }
inline Val real(double f) { return {kFloat, f, 0}; }
inline bool truthy(const Val& v) { return v.tag == kFloat ? v.f != 0.0 : v.i != 0; }
inline double as_double(const Val& v) { return v.tag == kFloat ? v.f : static_cast<double>(v.i); }

// -1, 0, 1, or 2 when unordered.
inline int compare(const Val& a, const Val& b) {
  if (a.tag != kFloat && b.tag != kFloat) return (a.i > b.i) - (a.i < b.i);
  if (a.tag == kFloat && b.tag == kFloat) {
    if (a.f < b.f) return -1;
    if (a.f > b.f) return 1;
    return a.f == b.f ? 0 : 2;
  }
  if (a.tag != kFloat) return py::compare_int_float(a.i, b.f);
  const int c = py::compare_int_float(b.i, a.f);
  return c == 2 ? 2 : -c;
}

inline bool comparison_holds(Op op, int c) {
  switch (op) {
    case Op::Eq:
      return c == 0;
    case Op::Ne:
      return c != 0;
    case Op::Lt:
      return c == -1;
    case Op::Le:
      return c == -1 || c == 0;
    case Op::Gt:
      return c == 1;
    default:
      return c == 1 || c == 0;  // Ge
  }
}

inline uint8_t float_arith(Op op, double a, double b, double& r) {
  switch (op) {
    case Op::Add:
      r = a + b;
      return 0;
    case Op::Sub:
      r = a - b;
      return 0;
    case Op::Mul:
      r = a * b;
      return 0;
    case Op::TrueDiv:
      return py::truediv(a, b, r);
    case Op::FloorDiv:
      return py::floordiv(a, b, r);
    case Op::Mod:
      return py::mod(a, b, r);
    default:
      return py::pow(a, b, r);  // Pow
  }
}

inline uint8_t int_arith(Op op, int64_t a, int64_t b, Val& r) {
  r.tag = kInt;
  switch (op) {
    case Op::Add:
      return __builtin_add_overflow(a, b, &r.i) ? kFallback : 0;
    case Op::Sub:
      return __builtin_sub_overflow(a, b, &r.i) ? kFallback : 0;
    case Op::Mul:
      return __builtin_mul_overflow(a, b, &r.i) ? kFallback : 0;
    case Op::TrueDiv:
      r.tag = kFloat;
      return py::int_truediv(a, b, r.f);
    case Op::FloorDiv:
      return py::int_floordiv(a, b, r.i);
    case Op::Mod:
      return py::int_mod(a, b, r.i);
    default:  // Pow: a negative exponent means float power
      if (b < 0) {
        r.tag = kFloat;
        return py::pow(static_cast<double>(a), static_cast<double>(b), r.f);
      }
      return py::int_pow(a, b, r.i);
  }
}

inline uint8_t bitwise(Op op, const Val& a, const Val& b, Val& r) {
  if (a.tag == kFloat || b.tag == kFloat) return kError;  // TypeError
  const bool both_bool = a.tag == kBool && b.tag == kBool;
  r.tag = kInt;
  switch (op) {
    case Op::BitAnd:
      r.i = a.i & b.i;
      break;
    case Op::BitOr:
      r.i = a.i | b.i;
      break;
    case Op::BitXor:
      r.i = a.i ^ b.i;
      break;
    case Op::LShift:
      if (b.i < 0) return kError;  // ValueError: negative shift count
      if (a.i == 0) return r.i = 0, 0;
      if (b.i >= 63) return kFallback;
      r.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) << b.i);
      return (r.i >> b.i) == a.i ? 0 : kFallback;
    default:  // RShift
      if (b.i < 0) return kError;
      r.i = b.i >= 63 ? (a.i < 0 ? -1 : 0) : (a.i >> b.i);
      return 0;
  }
  if (both_bool) r.tag = kBool;
  return 0;
}

// An operation with a complex operand: TypeError where CPython has one, else the fallback.
inline uint8_t complex_operand(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::TrueDiv:
    case Op::Pow:
    case Op::Eq:
    case Op::Ne:
    case Op::Neg:
    case Op::Pos:
    case Op::Not:
    case Op::Truth:
    case Op::Abs:
    case Op::Sum:
      return kFallback;
    default:
      return kError;
  }
}

[[gnu::always_inline]] inline uint8_t binary(Op op, const Val& a, const Val& b, Val& r) {
  if (a.tag == kComplex || b.tag == kComplex) return complex_operand(op);
  if (op <= Op::Pow) {
    if (a.tag == kFloat || b.tag == kFloat) {
      r.tag = kFloat;
      const uint8_t flags = float_arith(op, as_double(a), as_double(b), r.f);
      if (flags == py::kComplexResult) return r.tag = kComplex, 0;
      return flags;
    }
    const uint8_t flags = int_arith(op, a.i, b.i, r);
    if (flags == py::kComplexResult) return r.tag = kComplex, 0;
    return flags;
  }
  if (op <= Op::RShift) return bitwise(op, a, b, r);
  if (op <= Op::Ge) return r = boolean(comparison_holds(op, compare(a, b))), 0;
  if (op == Op::Min) return r = (compare(b, a) == -1 ? b : a), 0;
  if (op == Op::Max) return r = (compare(b, a) == 1 ? b : a), 0;
  // Gcd: ints only
  if (a.tag == kFloat || b.tag == kFloat) return kError;
  const uint64_t ua = a.i < 0 ? 0 - static_cast<uint64_t>(a.i) : static_cast<uint64_t>(a.i);
  const uint64_t ub = b.i < 0 ? 0 - static_cast<uint64_t>(b.i) : static_cast<uint64_t>(b.i);
  const uint64_t g = std::gcd(ua, ub);
  if (g > static_cast<uint64_t>(INT64_MAX)) return kFallback;
  return r = integer(static_cast<int64_t>(g)), 0;
}

inline uint8_t unary(Op op, const Val& a, int32_t imm, bool python312, Val& r) {
  if (a.tag == kComplex) {
    if (op == Op::IsInstance) return r = boolean(false), 0;
    return complex_operand(op);
  }
  const bool is_float = a.tag == kFloat;
  switch (op) {
    case Op::Neg:
      if (is_float) return r = real(-a.f), 0;
      if (a.i == INT64_MIN) return kFallback;
      return r = integer(-a.i), 0;
    case Op::Pos:
      return r = is_float ? a : integer(a.i), 0;
    case Op::Invert:
      if (is_float) return kError;
      return r = integer(~a.i), 0;
    case Op::Not:
      return r = boolean(!truthy(a)), 0;
    case Op::Truth:
      return r = boolean(truthy(a)), 0;
    case Op::Abs:
      if (is_float) return r = real(std::fabs(a.f)), 0;
      if (a.i == INT64_MIN) return kFallback;
      return r = integer(a.i < 0 ? -a.i : a.i), 0;
    case Op::ToInt:
      r.tag = kInt;
      return is_float ? py::trunc_to_int(a.f, r.i) : (r.i = a.i, 0);
    case Op::ToFloat:
      return r = real(as_double(a)), 0;
    case Op::Round:
      r.tag = kInt;
      return is_float ? py::round_to_int(a.f, r.i) : (r.i = a.i, 0);
    case Op::Floor:
      r.tag = kInt;
      return is_float ? py::int_from_integral(std::floor(a.f), r.i) : (r.i = a.i, 0);
    case Op::Ceil:
      r.tag = kInt;
      return is_float ? py::int_from_integral(std::ceil(a.f), r.i) : (r.i = a.i, 0);
    case Op::Sqrt: {
      const double v = as_double(a);
      if (v < 0.0) return kError;  // math domain error
      return r = real(std::sqrt(v)), 0;
    }
    case Op::Fabs:
      return r = real(std::fabs(as_double(a))), 0;
    case Op::IsInteger:
      if (!is_float) return python312 ? (r = boolean(true), 0) : kError;  // int.is_integer is new in 3.12
      return r = boolean(std::isfinite(a.f) && std::floor(a.f) == a.f), 0;
    default:  // IsInstance
      return r = boolean(is_float ? (imm & 2) != 0 : (imm & 1) != 0), 0;
  }
}

inline uint8_t round_digits(const Val& a, const Val& digits, Val& r) {
  if (digits.tag == kFloat || a.tag == kComplex || digits.tag == kComplex)
    return kError;  // TypeError: float cannot be interpreted as an integer
  if (a.tag != kFloat) {
    if (digits.i < 0) return kFallback;
    return r = integer(a.i), 0;
  }
  r.tag = kFloat;
  return py::round_digits(a.f, digits.i, r.f);
}

// sum(items) starting from int 0. Before 3.12 that is plain left-to-right addition; 3.12 sums
// floats with compensation, which the Python interpreter reproduces for us.
inline uint8_t sum(const Val* items, int32_t count, bool python312, Val& r) {
  Val acc = integer(0);
  for (int32_t k = 0; k < count; ++k) {
    if ((python312 && items[k].tag == kFloat) || items[k].tag == kComplex) return kFallback;
    Val next{};
    if (const uint8_t flags = binary(Op::Add, acc, items[k], next)) return flags;
    acc = next;
  }
  r = acc;
  return 0;
}

}  // namespace cogsim::wilt::detail
