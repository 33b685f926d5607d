#include "wilt/vm.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>

#include "common/parallel.hpp"
#include "wilt/bits.hpp"
#include "wilt/lanes.hpp"
#include "wilt/pyfloat.hpp"

namespace cogsim::wilt {
using detail::bit_comparison;
using detail::kBlock;  // lanes per task; bigger blocks cut per-block work, not L1 use (chunks do)
using detail::kBoolBit;
using detail::kFloatBit;
using detail::kIntBit;
using detail::Lanes;
using detail::Val;

namespace {

constexpr uint8_t kIntegral = kBoolBit | kIntBit;
constexpr uint8_t kComplexBit = 1 << kComplex;

inline Val boolean(bool b) { return {kBool, 0.0, b ? 1 : 0}; }
inline Val integer(int64_t i) { return {kInt, 0.0, i}; }
inline Val real(double f) { return {kFloat, f, 0}; }
inline bool truthy(const Val& v) { return v.tag == kFloat ? v.f != 0.0 : v.i != 0; }
inline double as_double(const Val& v) { return v.tag == kFloat ? v.f : static_cast<double>(v.i); }

bool is_binary(Op op) {
  return (op >= Op::Add && op <= Op::Pow) || (op >= Op::BitAnd && op <= Op::Ge) || op == Op::Min || op == Op::Max ||
         op == Op::Gcd;
}
using detail::is_comparison;
bool is_unary(Op op) {
  return (op >= Op::Neg && op <= Op::Truth) || (op >= Op::Abs && op <= Op::Round) ||
         (op >= Op::Floor && op <= Op::Fabs) || op == Op::IsInteger || op == Op::IsInstance;
}

// -1, 0, 1, or 2 when unordered.
int compare(const Val& a, const Val& b) {
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

bool comparison_holds(Op op, int c) {
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

uint8_t float_arith(Op op, double a, double b, double& r) {
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

uint8_t int_arith(Op op, int64_t a, int64_t b, Val& r) {
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

uint8_t bitwise(Op op, const Val& a, const Val& b, Val& r) {
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
uint8_t complex_operand(Op op) {
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

uint8_t unary(Op op, const Val& a, int32_t imm, bool python312, Val& r) {
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

uint8_t round_digits(const Val& a, const Val& digits, Val& r) {
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
uint8_t sum(const Val* items, int32_t count, bool python312, Val& r) {
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

// Static type sets, so that float-only instructions run as plain array loops.
uint8_t result_tags(const Program& p, const Instr& in) {
  const auto& st = p.static_tags;
  auto has_float = [&](int32_t v) { return (st[v] & kFloatBit) != 0; };
  auto only_float = [&](int32_t v) { return st[v] == kFloatBit; };
  switch (in.op) {
    case Op::Arg:
      return kFloatBit;
    case Op::Const:
      return static_cast<uint8_t>(1 << p.constants[in.a].tag);
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::FloorDiv:
    case Op::Mod: {
      uint8_t t = 0;
      if (has_float(in.a) || has_float(in.b)) t |= kFloatBit;
      if (!only_float(in.a) && !only_float(in.b)) t |= kIntBit;
      return t;
    }
    case Op::Pow: {
      // A negative float to a fractional power is complex; an integral constant exponent rules that out.
      const Instr& exponent = p.code[in.b];
      const bool integral_exponent =
          exponent.op == Op::Const &&
          (p.constants[exponent.a].tag != kFloat || p.constants[exponent.a].f == std::trunc(p.constants[exponent.a].f));
      uint8_t t = integral_exponent ? kFloatBit : (kFloatBit | kComplexBit);
      if (!only_float(in.a) && !only_float(in.b)) t |= kIntBit;
      return t;
    }
    case Op::TrueDiv:
    case Op::ToFloat:
    case Op::Sqrt:
    case Op::Fabs:
      return kFloatBit;
    case Op::Neg:
    case Op::Pos:
    case Op::Abs:
      return static_cast<uint8_t>((has_float(in.a) ? kFloatBit : 0) | ((st[in.a] & kIntegral) ? kIntBit : 0));
    case Op::RoundDigits:
      return static_cast<uint8_t>((has_float(in.a) ? kFloatBit : 0) | ((st[in.a] & kIntegral) ? kIntBit : 0));
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor:
      return kBoolBit | kIntBit;
    case Op::Invert:
    case Op::LShift:
    case Op::RShift:
    case Op::ToInt:
    case Op::Round:
    case Op::Floor:
    case Op::Ceil:
    case Op::Gcd:
      return kIntBit;
    case Op::And:
    case Op::Or:
    case Op::Min:
    case Op::Max:
      return st[in.a] | st[in.b];
    case Op::Select:
      return st[in.b] | st[in.c];
    case Op::Seq:
      return st[in.b];
    case Op::Sum:
      return kIntBit | kFloatBit;
    default:
      return kBoolBit;  // Not, Truth, comparisons, IsClose, IsInteger, IsInstance
  }
}

struct Scratch {
  std::vector<double> f, promoted_a, promoted_b;
  std::vector<int64_t> i;
  std::vector<uint8_t> t, fl;
  std::vector<Val> items;
  std::vector<int64_t> zero_ints = std::vector<int64_t>(kBlock, 0);
  std::vector<uint8_t> float_tags = std::vector<uint8_t>(kBlock, kFloat), zero_flags = std::vector<uint8_t>(kBlock, 0);
  void reserve(int32_t slots) {
    const size_t n = static_cast<size_t>(slots) * kBlock;
    if (f.size() < n) {
      f.resize(n);
      i.resize(n);
      t.resize(n);
      fl.resize(n);
    }
    promoted_a.resize(kBlock);
    promoted_b.resize(kBlock);
  }
  Lanes lanes(int32_t slot) {
    const size_t o = static_cast<size_t>(slot) * kBlock;
    return {f.data() + o, i.data() + o, t.data() + o, fl.data() + o};
  }
};

// The float view of an operand for a float kernel: the float lanes themselves, or the int lanes
// converted (exact for comparisons only within 2^53). Returns nullptr if not representable.
const double* float_view(const Lanes& v, uint8_t tags, bool need_exact, size_t n, double* buffer) {
  if (tags == kFloatBit) return v.f;
  if (tags & kFloatBit) return nullptr;
  for (size_t l = 0; l < n; ++l) {
    const int64_t x = v.i[l];
    if (need_exact && (x > py::kTwo53 || x < -py::kTwo53) && v.fl[l] == 0) return nullptr;
    buffer[l] = static_cast<double>(x);
  }
  return buffer;
}

template <typename F>
void map_values(size_t n, const double* __restrict a, const double* __restrict b, double* __restrict out, F f) {
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l], b[l]);
}

// Writes 1/0 into int64 lanes through a double view: SSE2 has packed double compares and blends,
// but no double-to-int64 conversion, so this form vectorizes where `out[l] = a[l] < b[l]` does not.
typedef double __attribute__((may_alias)) AliasedDouble;

template <typename F>
void map_compare(size_t n, const double* __restrict a, const double* __restrict b, int64_t* __restrict out_i, F f) {
  AliasedDouble* __restrict out = reinterpret_cast<AliasedDouble*>(out_i);
  const double one = std::bit_cast<double>(int64_t{1});
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l], b[l]) ? one : 0.0;
}

void or_flags(size_t n, const uint8_t* __restrict fa, const uint8_t* __restrict fb, uint8_t* __restrict out) {
  for (size_t l = 0; l < n; ++l) out[l] = fa[l] | fb[l];
}

// Arithmetic and comparisons where one side is statically float: loops over plain doubles.
bool float_kernel(Op op, const Lanes& A, const Lanes& B, uint8_t ta, uint8_t tb, const Lanes& out, size_t n,
                  Scratch& s) {
  if (!(op < Op::Pow || is_comparison(op) || op == Op::Min || op == Op::Max || op == Op::Pow)) return false;
  const bool exact = is_comparison(op) || op == Op::Min || op == Op::Max;
  if (op == Op::Min || op == Op::Max) {
    if (ta != kFloatBit || tb != kFloatBit) return false;  // min/max keep their operand's type
  } else if (ta != kFloatBit && tb != kFloatBit) {
    return false;
  }
  const double* a = float_view(A, ta, exact, n, s.promoted_a.data());
  const double* b = a ? float_view(B, tb, exact, n, s.promoted_b.data()) : nullptr;
  if (!a || !b) return false;
  or_flags(n, A.fl, B.fl, out.fl);
  switch (op) {
    case Op::Add:
      map_values(n, a, b, out.f, [](double x, double y) { return x + y; });
      break;
    case Op::Sub:
      map_values(n, a, b, out.f, [](double x, double y) { return x - y; });
      break;
    case Op::Mul:
      map_values(n, a, b, out.f, [](double x, double y) { return x * y; });
      break;
    case Op::Min:
      map_values(n, a, b, out.f, [](double x, double y) { return y < x ? y : x; });
      break;
    case Op::Max:
      map_values(n, a, b, out.f, [](double x, double y) { return y > x ? y : x; });
      break;
    case Op::Eq:
      map_compare(n, a, b, out.i, [](double x, double y) { return x == y; });
      break;
    case Op::Ne:
      map_compare(n, a, b, out.i, [](double x, double y) { return x != y; });
      break;
    case Op::Lt:
      map_compare(n, a, b, out.i, [](double x, double y) { return x < y; });
      break;
    case Op::Le:
      map_compare(n, a, b, out.i, [](double x, double y) { return x <= y; });
      break;
    case Op::Gt:
      map_compare(n, a, b, out.i, [](double x, double y) { return x > y; });
      break;
    case Op::Ge:
      map_compare(n, a, b, out.i, [](double x, double y) { return x >= y; });
      break;
    case Op::TrueDiv:
      for (size_t l = 0; l < n; ++l) {
        const bool zero = b[l] == 0.0;
        out.f[l] = a[l] / (zero ? 1.0 : b[l]);
        out.fl[l] |= zero ? kError : 0;
      }
      break;
    default:
      for (size_t l = 0; l < n; ++l) {
        double r = 0.0;
        const uint8_t e = float_arith(op, a[l], b[l], r);
        out.fl[l] |= e == py::kComplexResult ? uint8_t{kFallback} : e;  // pow reaches here only with integral exponents
        out.f[l] = r;
      }
  }
  std::memset(out.t, is_comparison(op) ? kBool : kFloat, n);
  return true;
}

// Unary operations on a statically float operand: plain loops over doubles, no per-lane dispatch.
bool float_unary_kernel(Op op, const Lanes& A, uint8_t ta, const Lanes& out, size_t n) {
  if (ta != kFloatBit) return false;
  const double* __restrict f = A.f;
  const uint8_t* __restrict fa = A.fl;
  uint8_t* __restrict fo = out.fl;
  uint8_t tag = kFloat;
  switch (op) {
    case Op::IsInteger:
      for (size_t l = 0; l < n; ++l) out.i[l] = std::isfinite(f[l]) && std::floor(f[l]) == f[l];
      std::memcpy(fo, fa, n);
      tag = kBool;
      break;
    case Op::ToInt:
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
      for (size_t l = 0; l < n; ++l) {
        int64_t r = 0;
        const double v = f[l];
        const uint8_t e = op == Op::ToInt   ? py::trunc_to_int(v, r)
                          : op == Op::Floor ? py::int_from_integral(std::floor(v), r)
                          : op == Op::Ceil  ? py::int_from_integral(std::ceil(v), r)
                                            : py::round_to_int(v, r);
        out.i[l] = r;
        fo[l] = fa[l] | e;
      }
      tag = kInt;
      break;
    case Op::Abs:
    case Op::Fabs:
      for (size_t l = 0; l < n; ++l) out.f[l] = std::fabs(f[l]);
      std::memcpy(fo, fa, n);
      break;
    case Op::Neg:
      for (size_t l = 0; l < n; ++l) out.f[l] = -f[l];
      std::memcpy(fo, fa, n);
      break;
    case Op::Sqrt:
      for (size_t l = 0; l < n; ++l) {
        const bool negative = f[l] < 0.0;
        out.f[l] = std::sqrt(negative ? 0.0 : f[l]);
        fo[l] = fa[l] | (negative ? kError : 0);
      }
      break;
    default:
      return false;
  }
  std::memset(out.t, tag, n);
  return true;
}

// and / or / not / bool() on operands that are statically bool: branch-free loops.
bool bool_kernel(Op op, const Lanes& A, const Lanes* B, uint8_t ta, uint8_t tb, const Lanes& out, size_t n) {
  const int64_t* __restrict a = A.i;
  const uint8_t* __restrict fa = A.fl;
  int64_t* __restrict o = out.i;
  uint8_t* __restrict fo = out.fl;
  if (op == Op::Not || op == Op::Truth) {
    if (ta == kBoolBit) {
      const int64_t flip = op == Op::Not;
      for (size_t l = 0; l < n; ++l) o[l] = a[l] ^ flip;
    } else if (ta == kFloatBit) {
      const double* __restrict f = A.f;
      if (op == Op::Not) {
        for (size_t l = 0; l < n; ++l) o[l] = f[l] == 0.0;
      } else {
        for (size_t l = 0; l < n; ++l) o[l] = f[l] != 0.0;
      }
    } else {
      return false;
    }
    std::memcpy(fo, fa, n);
    std::memset(out.t, kBool, n);
    return true;
  }
  if (ta != kBoolBit || tb != kBoolBit) return false;
  const int64_t* __restrict b = B->i;
  const uint8_t* __restrict fb = B->fl;
  const bool is_and = op == Op::And;
  if (is_and) {
    for (size_t l = 0; l < n; ++l) o[l] = a[l] & b[l];
  } else {
    for (size_t l = 0; l < n; ++l) o[l] = a[l] | b[l];
  }
  uint8_t any_b_flags = 0;
  for (size_t l = 0; l < n; ++l) any_b_flags |= fb[l];
  if (any_b_flags == 0) {  // the usual block: nothing to mask
    std::memcpy(fo, fa, n);
  } else {
    // b's flags count where b was evaluated: a truthy for `and`, falsy for `or` (branch-free).
    const int64_t evaluated_when = is_and ? 1 : 0;
    for (size_t l = 0; l < n; ++l) {
      const auto mask = static_cast<uint8_t>(-static_cast<int64_t>(a[l] == evaluated_when));
      fo[l] = fa[l] | (fb[l] & mask);
    }
  }
  std::memset(out.t, kBool, n);
  return true;
}

// -- Typed fast path ---------------------------------------------------------------------------------
// A program whose values are all statically float or bool (int/bool constants exact as doubles)
// runs as plain loops over doubles, bools held as 0.0/1.0, in chunks of kChunk lanes (8 KiB per
// live value, so a typical rule's 3-5 stay in L1; at 256 lanes the per-chunk dispatch was a sixth
// of a check's time). No lane carries a tag or flags: an op that could raise (division, %, //,
// **, sqrt, isclose) reports whether it did anywhere in the block, and such a block is re-run on the
// general path, which applies CPython's short-circuit rules to the error.

constexpr size_t kChunk = 1024;
// Registers a multiple of 4 KiB apart would all sit at the same address modulo 4 KiB, where loads
// falsely wait on stores to the other; a cache line of padding staggers them.
constexpr size_t kSlotStride = kChunk + 8;
constexpr size_t kChunkWords = kChunk / 64;  // a bool register held as bits

bool exact_constant(const Program& p, int32_t v) {
  const Instr& in = p.code[v];
  if (in.op != Op::Const) return false;
  const Constant& c = p.constants[in.a];
  return c.tag == kFloat || (c.i <= py::kTwo53 && c.i >= -py::kTwo53);
}

// A float, or a constant whose double is exactly its value (so float arithmetic and comparisons
// with it are CPython's int/float mixed operations).
bool numeric(const Program& p, int32_t v) { return p.static_tags[v] == kFloatBit || exact_constant(p, v); }

bool fast_eligible(const Program& p, size_t k) {
  const Instr& in = p.code[k];
  const uint8_t tag = p.static_tags[k];
  const bool is_float = tag == kFloatBit, float_or_bool = tag == kFloatBit || tag == kBoolBit;
  auto floats = [&](std::initializer_list<int32_t> vs) {
    return std::all_of(vs.begin(), vs.end(), [&](int32_t v) { return numeric(p, v); });
  };
  switch (in.op) {
    case Op::Arg:
      return true;
    case Op::Const:
      return exact_constant(p, static_cast<int32_t>(k));
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::TrueDiv:
    case Op::FloorDiv:
    case Op::Mod:
    case Op::Pow:
      return is_float && floats({in.a, in.b});  // Pow: float only when the exponent rules out complex results
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return floats({in.a, in.b});
    case Op::Min:
    case Op::Max:
      return is_float && p.static_tags[in.a] == kFloatBit && p.static_tags[in.b] == kFloatBit;
    case Op::Neg:
    case Op::Pos:
    case Op::Abs:
    case Op::Fabs:
    case Op::Sqrt:
    case Op::ToFloat:
      return is_float && floats({in.a});
    case Op::Not:
    case Op::Truth:
      return floats({in.a}) || p.static_tags[in.a] == kBoolBit;
    case Op::IsInteger:
    case Op::IsInstance:
      return p.static_tags[in.a] == kFloatBit;
    case Op::And:
    case Op::Or:
    case Op::Seq:
      return float_or_bool;
    case Op::Select:
      return float_or_bool && (floats({in.a}) || p.static_tags[in.a] == kBoolBit);
    case Op::IsClose:
      return floats({in.a, in.b, in.c, in.d});
    default:
      return false;
  }
}

struct FastScratch {
  uint64_t constants_of = 0;  // the program whose constants fill their slots (0: none)
  size_t constant_lanes = 0;  // how many lanes of them
  std::vector<double> slots;
  std::vector<uint64_t> bit_slots;  // the same registers for values held as bits
  std::vector<const double*> values;
  std::vector<const uint64_t*> bits;
  std::vector<uint64_t> spare_a = std::vector<uint64_t>(kChunkWords), spare_b = std::vector<uint64_t>(kChunkWords);
};

thread_local FastScratch tls_fast;

template <typename F>
void fast_map(size_t n, const double* __restrict a, const double* __restrict b, double* __restrict out, F f) {
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l], b[l]);
}

template <typename F>
void fast_map1(size_t n, const double* __restrict a, double* __restrict out, F f) {
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l]);
}

// A per-lane CPython float operation that may raise; returns its flags or'ed over the lanes.
template <typename F>
uint8_t fast_checked(size_t n, const double* __restrict a, const double* __restrict b, double* __restrict out, F f) {
  uint8_t flags = 0;
  for (size_t l = 0; l < n; ++l) flags |= f(a[l], b[l], out[l]);
  return flags;
}

// x % c for a nonzero integral constant c (the parity and fractional-part rules): py::mod's answer,
// with its integral-operand and x % 1 shortcuts taken without libm's trunc and floor calls, which
// SSE2 has no instruction for.
uint8_t fast_mod_by_integer(size_t n, const double* __restrict a, double c, double* __restrict o) {
  constexpr double kExactInt = 9007199254740992.0;  // 2^53
  const auto ci = static_cast<int64_t>(c);
  const double zero = std::copysign(0.0, c);
  uint8_t flags = 0;
  for (size_t l = 0; l < n; ++l) {
    const double v = a[l];
    if (std::fabs(v) < kExactInt) {
      const auto vi = static_cast<int64_t>(v);  // truncation
      const auto truncated = static_cast<double>(vi);
      if (truncated == v) {  // integral: an exact integer remainder with the divisor's sign
        int64_t r = ci == 1 ? 0 : ci == 2 ? (vi & 1) : vi % ci;  // the common divisors skip idiv
        if (r != 0 && ((r < 0) != (ci < 0))) r += ci;
        o[l] = r != 0 ? static_cast<double>(r) : zero;
        continue;
      }
      if (ci == 1) {  // x - floor(x), rounded once, as py::mod computes it
        o[l] = v - (truncated > v ? truncated - 1.0 : truncated);
        continue;
      }
      if (ci == 2 && std::fabs(v) >= 0x1p-1000) {
        // x - 2 floor(x / 2): x / 2 and 2 floor(x / 2) are exact here, so this is the exact remainder
        // rounded once; CPython's fmod result is exact and, for negative x, also rounded once when
        // the divisor is added. Same value, without libm's slow fmod.
        const double half = v * 0.5, t = static_cast<double>(static_cast<int64_t>(half));
        o[l] = v - 2.0 * (t > half ? t - 1.0 : t);
        continue;
      }
    }
    flags |= py::mod(v, c, o[l]);
  }
  return flags;
}

// x % 1 and x % 2 as branch-free vector loops: floor by the 2^52 rounding trick (exact below 2^52),
// then the exact remainder rounded once, + 0.0 for CPython's +0.0 on -0.0. Lanes outside that range
// (huge, NaN, inf, and for % 2 tiny values whose half is inexact) are redone by py::mod.
template <bool kTwo>
uint8_t fast_mod_one_or_two(size_t n, const double* __restrict a, double* __restrict o) {
  constexpr double kTwo52 = 4503599627370496.0;
  uint8_t special = 0;
  for (size_t l = 0; l < n; ++l) {
    const double v = a[l], magnitude = std::fabs(v);
    const double h = kTwo ? v * 0.5 : v;
    const double magic = std::copysign(kTwo52, h);
    const double rounded = (h + magic) - magic;
    const double floor = rounded > h ? rounded - 1.0 : rounded;
    o[l] = (v - (kTwo ? 2.0 * floor : floor)) + 0.0;
    const bool outside = !(magnitude < kTwo52) || (kTwo && magnitude < 0x1p-1000 && v != 0.0);
    special |= static_cast<uint8_t>(outside);
  }
  uint8_t flags = 0;
  if (special) {
    for (size_t l = 0; l < n; ++l) {
      const double v = a[l], magnitude = std::fabs(v);
      if (!(magnitude < kTwo52) || (kTwo && magnitude < 0x1p-1000 && v != 0.0))
        flags |= py::mod(v, kTwo ? 2.0 : 1.0, o[l]);
    }
  }
  return flags;
}

// Runs one instruction on a chunk; returns nonzero if CPython would have raised (or needs the
// fallback) in some lane.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(COGSIM_NO_CLONES)
// Compiled twice, and picked when the library loads: AVX2 (4 lanes per instruction) where the CPU
// has it, SSE2 (2 lanes) elsewhere. The lane loops are all the fast path does.
__attribute__((target_clones("avx2", "default")))
#endif
uint8_t fast_step(const Program& p, const Instr& in, const double* const* v, double* __restrict o, size_t n) {
  const double* a = v[in.a];
  const double* b = (in.op == Op::Const || is_unary(in.op)) ? nullptr : v[in.b];
  switch (in.op) {
    case Op::Add:
      fast_map(n, a, b, o, [](double x, double y) { return x + y; });
      return 0;
    case Op::Sub:
      fast_map(n, a, b, o, [](double x, double y) { return x - y; });
      return 0;
    case Op::Mul:
      fast_map(n, a, b, o, [](double x, double y) { return x * y; });
      return 0;
    case Op::Min:
      fast_map(n, a, b, o, [](double x, double y) { return y < x ? y : x; });
      return 0;
    case Op::Max:
      fast_map(n, a, b, o, [](double x, double y) { return y > x ? y : x; });
      return 0;
    case Op::Eq:
      fast_map(n, a, b, o, [](double x, double y) { return x == y ? 1.0 : 0.0; });
      return 0;
    case Op::Ne:
      fast_map(n, a, b, o, [](double x, double y) { return x != y ? 1.0 : 0.0; });
      return 0;
    case Op::Lt:
      fast_map(n, a, b, o, [](double x, double y) { return x < y ? 1.0 : 0.0; });
      return 0;
    case Op::Le:
      fast_map(n, a, b, o, [](double x, double y) { return x <= y ? 1.0 : 0.0; });
      return 0;
    case Op::Gt:
      fast_map(n, a, b, o, [](double x, double y) { return x > y ? 1.0 : 0.0; });
      return 0;
    case Op::Ge:
      fast_map(n, a, b, o, [](double x, double y) { return x >= y ? 1.0 : 0.0; });
      return 0;
    case Op::And:
      fast_map(n, a, b, o, [](double x, double y) { return x != 0.0 ? y : x; });
      return 0;
    case Op::Or:
      fast_map(n, a, b, o, [](double x, double y) { return x != 0.0 ? x : y; });
      return 0;
    case Op::Seq:
      std::memcpy(o, b, n * sizeof(double));
      return 0;
    case Op::Select: {
      const double* __restrict c = v[in.c];
      for (size_t l = 0; l < n; ++l) o[l] = a[l] != 0.0 ? b[l] : c[l];
      return 0;
    }
    case Op::TrueDiv: {
      uint8_t zero = 0;
      for (size_t l = 0; l < n; ++l) {
        const bool z = b[l] == 0.0;
        zero |= z;
        o[l] = a[l] / (z ? 1.0 : b[l]);
      }
      return zero;
    }
    case Op::Mod:
      if (const double c = p.fast_constants[in.b];
          p.code[in.b].op == Op::Const && c == std::trunc(c) && c != 0.0 && std::fabs(c) < 9007199254740992.0) {
        if (c == 1.0) return fast_mod_one_or_two<false>(n, a, o);
        if (c == 2.0) return fast_mod_one_or_two<true>(n, a, o);
        return fast_mod_by_integer(n, a, c, o);
      }
      return fast_checked(n, a, b, o, [](double x, double y, double& r) { return py::mod(x, y, r); });
    case Op::FloorDiv:
      return fast_checked(n, a, b, o, [](double x, double y, double& r) { return py::floordiv(x, y, r); });
    case Op::Pow:
      return fast_checked(n, a, b, o, [](double x, double y, double& r) { return py::pow(x, y, r); });
    case Op::Neg:
      fast_map1(n, a, o, [](double x) { return -x; });
      return 0;
    case Op::Pos:
    case Op::ToFloat:
      std::memcpy(o, a, n * sizeof(double));
      return 0;
    case Op::Abs:
    case Op::Fabs:
      fast_map1(n, a, o, [](double x) { return std::fabs(x); });
      return 0;
    case Op::Not:
      fast_map1(n, a, o, [](double x) { return x == 0.0 ? 1.0 : 0.0; });
      return 0;
    case Op::Truth:
      fast_map1(n, a, o, [](double x) { return x != 0.0 ? 1.0 : 0.0; });
      return 0;
    case Op::IsInteger:
      fast_map1(n, a, o, [](double x) { return std::isfinite(x) && std::floor(x) == x ? 1.0 : 0.0; });
      return 0;
    case Op::IsInstance:
      std::fill(o, o + n, (in.b & 2) ? 1.0 : 0.0);
      return 0;
    case Op::Sqrt: {
      uint8_t negative = 0;
      for (size_t l = 0; l < n; ++l) {
        const bool below = a[l] < 0.0;
        negative |= below;
        o[l] = std::sqrt(below ? 0.0 : a[l]);
      }
      return negative;
    }
    case Op::IsClose: {
      const double* __restrict rel = v[in.c];
      const double* __restrict abs_tol = v[in.d];
      uint8_t flags = 0;
      for (size_t l = 0; l < n; ++l) {
        bool close = false;
        flags |= py::isclose(a[l], b[l], rel[l], abs_tol[l], close);
        o[l] = close ? 1.0 : 0.0;
      }
      return flags;
    }
    default:
      return kFallback;  // not reached: prepare() admits only the ops above
  }
}

// A comparison operand of the bit path: a constant is read as one scalar rather than from its slot.
bits::Operand operand(const Program& p, const double* const* v, int32_t value) {
  if (p.code[value].op == Op::Const) return {nullptr, p.fast_constants[value]};
  return {v[value], 0.0};
}

// A bool operand as bits: its own where it is held so, else its 0.0/1.0 doubles turned into `spare`.
const uint64_t* bool_bits(const double* const* v, const uint64_t* const* held, int32_t value, uint64_t* spare,
                          size_t n) {
  if (held[value]) return held[value];
  bits::compare(bits::Cmp::Ne, {v[value], 0.0}, {nullptr, 0.0}, spare, n);
  return spare;
}

// Runs one instruction whose value is held as bits (Program::fast_bits) on a chunk. Operands are
// bits where they are held so, else doubles (bools as 0.0/1.0, numbers as they are). Bits past n
// may be left set (by not); the result is masked once at the end.
void fast_bit_step(const Program& p, const Instr& in, const double* const* v, const uint64_t* const* held,
                   FastScratch& s, uint64_t* __restrict o, size_t n) {
  const size_t words = bits::words_for(n);
  if (is_comparison(in.op)) {
    bits::compare(bit_comparison(in.op), operand(p, v, in.a), operand(p, v, in.b), o, n);
    return;
  }
  switch (in.op) {
    case Op::And:
    case Op::Or: {
      // Both operands are bools here, for which `a and b` is a & b and `a or b` is a | b.
      const uint64_t* a = bool_bits(v, held, in.a, s.spare_a.data(), n);
      const uint64_t* b = bool_bits(v, held, in.b, s.spare_b.data(), n);
      if (in.op == Op::And) {
        for (size_t w = 0; w < words; ++w) o[w] = a[w] & b[w];
      } else {
        for (size_t w = 0; w < words; ++w) o[w] = a[w] | b[w];
      }
      return;
    }
    case Op::Not:
      if (held[in.a]) {
        for (size_t w = 0; w < words; ++w) o[w] = ~held[in.a][w];
      } else {
        bits::compare(bits::Cmp::Eq, {v[in.a], 0.0}, {nullptr, 0.0}, o, n);  // NaN is truthy
      }
      return;
    case Op::Truth:
      if (held[in.a]) {
        std::copy(held[in.a], held[in.a] + words, o);
      } else {
        bits::compare(bits::Cmp::Ne, {v[in.a], 0.0}, {nullptr, 0.0}, o, n);
      }
      return;
    case Op::IsInteger: {
      const double* __restrict a = v[in.a];
      std::fill(o, o + words, 0);
      for (size_t l = 0; l < n; ++l) {
        o[l / 64] |= uint64_t{std::isfinite(a[l]) && std::floor(a[l]) == a[l]} << (l % 64);
      }
      return;
    }
    case Op::IsInstance:
      std::fill(o, o + words, (in.b & 2) ? ~uint64_t{0} : 0);
      return;
    default:
      return;  // not reached: bit_values() admits only the ops above
  }
}

// Truth bits of lanes [0, n) on the fast path, bits past n zero; false if the block must run on the
// general path.
bool run_fast(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint64_t* truth) {
  FastScratch& s = tls_fast;
  const size_t values = p.code.size();
  const size_t needed = static_cast<size_t>(p.fast_slots) * kSlotStride;
  if (s.slots.size() < needed) {
    s.slots.resize(needed);
    s.constants_of = 0;
  }
  // Constants keep their slots, so the blocks of one call (and of calls in a row) fill them once,
  // as far as the first chunk reaches (a few lanes when many rules meet a few points).
  const size_t constant_lanes = std::min(kChunk, n);
  const bool fill_constants = s.constants_of != p.id || s.constant_lanes < constant_lanes;
  s.constants_of = 0;
  const size_t bit_needed = static_cast<size_t>(p.fast_slots) * kChunkWords;
  if (s.bit_slots.size() < bit_needed) s.bit_slots.resize(bit_needed);
  s.values.resize(values);
  s.bits.assign(values, nullptr);
  const double* args[3] = {xs, ys, zs};
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t len = std::min(kChunk, n - begin);
    uint64_t* const chunk_truth = truth + begin / 64;
    for (size_t k = 0; k < values; ++k) {
      const Instr& in = p.code[k];
      if (in.op == Op::Arg) {
        s.values[k] = args[in.a] + begin;
        continue;
      }
      if (p.fast_bits[k]) {  // the result writes the truth itself
        uint64_t* out =
            k + 1 == values ? chunk_truth : s.bit_slots.data() + static_cast<size_t>(p.fast_slot[k]) * kChunkWords;
        fast_bit_step(p, in, s.values.data(), s.bits.data(), s, out, len);
        s.bits[k] = out;
        s.values[k] = nullptr;
        continue;
      }
      double* out = s.slots.data() + static_cast<size_t>(p.fast_slot[k]) * kSlotStride;
      s.values[k] = out;
      if (in.op == Op::Const) {
        if (fill_constants && begin == 0) std::fill(out, out + constant_lanes, p.fast_constants[k]);
      } else if (fast_step(p, in, s.values.data(), out, len)) {
        return false;
      }
    }
    s.constants_of = p.id;  // every constant is filled once a chunk has run through
    if (fill_constants) s.constant_lanes = constant_lanes;
    if (!p.fast_bits[values - 1])
      bits::compare(bits::Cmp::Ne, {s.values[values - 1], 0.0}, {nullptr, 0.0}, chunk_truth, len);
  }
  truth[(n - 1) / 64] &= bits::tail_mask(n);
  return true;
}

class Evaluator {
 public:
  // views: where operand values are read (views[v] for value v) instead of the program's registers.
  Evaluator(const Program& p, Scratch& s, const Lanes* views = nullptr) : p_(p), s_(s), views_(views) {
    s_.reserve(p.num_slots);
  }

  // Runs lanes [0, n) of one block; returns the lanes of the program's result.
  Lanes run(const double* xs, const double* ys, const double* zs, size_t n) {
    const double* args[3] = {xs, ys, zs};
    for (int k = 0; k < 3; ++k) {
      arg_views_[k] = {const_cast<double*>(args[k]), s_.zero_ints.data(), s_.float_tags.data(), s_.zero_flags.data()};
    }
    for (size_t k = 0; k < p_.code.size(); ++k) {
      if (p_.code[k].op == Op::Arg) continue;  // read in place through arg_views_
      step(k, lanes(static_cast<int32_t>(k)), n);
    }
    return lanes(static_cast<int32_t>(p_.code.size()) - 1);
  }

  // Instruction k (not Arg) on lanes [0, n) into out.
  void step(size_t k, const Lanes& out, size_t n) {
    const Instr& in = p_.code[k];
    switch (in.op) {
      case Op::Const: {
        const Constant& c = p_.constants[in.a];
        std::fill(out.f, out.f + n, c.f);
        std::fill(out.i, out.i + n, c.i);
        std::memset(out.t, c.tag, n);
        std::memset(out.fl, 0, n);
        break;
      }
      case Op::And:
      case Op::Or: {
        const Lanes A = lanes(in.a), B = lanes(in.b);
        if (!bool_kernel(in.op, A, &B, p_.static_tags[in.a], p_.static_tags[in.b], out, n)) {
          select_short_circuit(in, out, n);
        }
        break;
      }
      case Op::Select:
        select_branch(in, out, n);
        break;
      case Op::Seq:
        sequence(in, out, n);
        break;
      case Op::RoundDigits:
        round_digits_lanes(in, out, n);
        break;
      case Op::IsClose:
        isclose_lanes(in, out, n);
        break;
      case Op::Sum:
        sum_lanes(in, out, n);
        break;
      default:
        if (is_binary(in.op)) {
          binary_lanes(in, out, n);
        } else {
          unary_lanes(in, out, n);
        }
    }
  }

 private:
  Lanes lanes(int32_t value) {
    if (views_) return views_[value];
    const Instr& in = p_.code[value];
    return in.op == Op::Arg ? arg_views_[in.a] : s_.lanes(p_.slot[value]);
  }

  void binary_lanes(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a), B = lanes(in.b);
    const bool may_be_complex = (p_.static_tags[&in - p_.code.data()] & kComplexBit) != 0;
    if (!(in.op == Op::Pow && may_be_complex) &&
        float_kernel(in.op, A, B, p_.static_tags[in.a], p_.static_tags[in.b], out, n, s_)) {
      return;
    }
    for (size_t l = 0; l < n; ++l) {
      const uint8_t flags = A.fl[l] | B.fl[l];
      if (flags) {
        out.store_flags(l, flags);
        continue;
      }
      Val r{};
      const uint8_t f = binary(in.op, A.load(l), B.load(l), r);
      out.store(l, r, f);
    }
  }

  void unary_lanes(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a);
    if ((in.op == Op::Not || in.op == Op::Truth) && bool_kernel(in.op, A, nullptr, p_.static_tags[in.a], 0, out, n)) {
      return;
    }
    if (float_unary_kernel(in.op, A, p_.static_tags[in.a], out, n)) return;
    for (size_t l = 0; l < n; ++l) {
      if (A.fl[l]) {
        out.store_flags(l, A.fl[l]);
        continue;
      }
      Val r{};
      const uint8_t f = unary(in.op, A.load(l), in.b, p_.python312, r);
      out.store(l, r, f);
    }
  }

  // a and b / a or b: b counts only where CPython evaluates it.
  void select_short_circuit(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a), B = lanes(in.b);
    const bool is_and = in.op == Op::And;
    for (size_t l = 0; l < n; ++l) {
      const Val a = A.load(l);
      if (a.tag == kComplex && !A.fl[l]) {
        out.store_flags(l, kFallback);
        continue;
      }
      const bool take_b = truthy(a) == is_and;
      if (take_b) {
        out.store(l, B.load(l), A.fl[l] | B.fl[l]);
      } else {
        out.store(l, a, A.fl[l]);
      }
    }
  }

  void select_branch(const Instr& in, const Lanes& out, size_t n) {
    const Lanes C = lanes(in.a), T = lanes(in.b), F = lanes(in.c);
    for (size_t l = 0; l < n; ++l) {
      if (C.t[l] == kComplex && !C.fl[l]) {
        out.store_flags(l, kFallback);
        continue;
      }
      const Lanes& chosen = truthy(C.load(l)) ? T : F;
      out.store(l, chosen.load(l), C.fl[l] | chosen.fl[l]);
    }
  }

  void sequence(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a), B = lanes(in.b);
    for (size_t l = 0; l < n; ++l) out.store(l, B.load(l), A.fl[l] | B.fl[l]);
  }

  void round_digits_lanes(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a), D = lanes(in.b);
    for (size_t l = 0; l < n; ++l) {
      const uint8_t flags = A.fl[l] | D.fl[l];
      if (flags) {
        out.store_flags(l, flags);
        continue;
      }
      Val r{};
      const uint8_t f = round_digits(A.load(l), D.load(l), r);
      out.store(l, r, f);
    }
  }

  void isclose_lanes(const Instr& in, const Lanes& out, size_t n) {
    const Lanes A = lanes(in.a), B = lanes(in.b), R = lanes(in.c), T = lanes(in.d);
    for (size_t l = 0; l < n; ++l) {
      const uint8_t flags = A.fl[l] | B.fl[l] | R.fl[l] | T.fl[l];
      if (flags) {
        out.store_flags(l, flags);
        continue;
      }
      if (A.t[l] == kComplex || B.t[l] == kComplex || R.t[l] == kComplex || T.t[l] == kComplex) {
        out.store_flags(l, kError);
        continue;
      }
      bool close = false;
      const uint8_t f =
          py::isclose(as_double(A.load(l)), as_double(B.load(l)), as_double(R.load(l)), as_double(T.load(l)), close);
      out.store(l, boolean(close), f);
    }
  }

  void sum_lanes(const Instr& in, const Lanes& out, size_t n) {
    s_.items.resize(static_cast<size_t>(in.b));
    for (size_t l = 0; l < n; ++l) {
      uint8_t flags = 0;
      for (int32_t k = 0; k < in.b; ++k) {
        const Lanes item = lanes(p_.aux[in.a + k]);
        flags |= item.fl[l];
        s_.items[k] = item.load(l);
      }
      if (flags) {
        out.store_flags(l, flags);
        continue;
      }
      Val r{};
      const uint8_t f = sum(s_.items.data(), in.b, p_.python312, r);
      out.store(l, r, f);
    }
  }

  const Program& p_;
  Scratch& s_;
  const Lanes* views_;
  Lanes arg_views_[3]{};
};

thread_local Scratch tls_scratch;

void result_lanes_to_bytes(const Lanes& result, size_t n, uint8_t* __restrict truth, uint8_t* __restrict status,
                           uint8_t static_tags) {
  static constexpr uint8_t kStatusOf[4] = {kOk, kRaised, kNeedsFallback, kNeedsFallback};
  static_assert(int{kError} == int{kRaised} && int{kFallback} == int{kNeedsFallback});  // flags double as statuses
  const uint8_t* __restrict fl = result.fl;
  if (static_tags == kBoolBit) {
    const int64_t* __restrict i = result.i;
    for (size_t l = 0; l < n; ++l) {
      const uint8_t f = fl[l];
      status[l] = static_cast<uint8_t>((f & kFallback) | (f & kError & ~(f >> 1)));
    }
    for (size_t l = 0; l < n; ++l) truth[l] = static_cast<uint8_t>(i[l] != 0);
    for (size_t l = 0; l < n; ++l) truth[l] &= static_cast<uint8_t>(fl[l] == 0);
    return;
  }
  for (size_t l = 0; l < n; ++l) {
    const uint8_t flags = fl[l] | (result.t[l] == kComplex ? kFallback : 0);
    status[l] = kStatusOf[flags & 3];
    truth[l] = flags == 0 && truthy(result.load(l));
  }
}

void check(bool ok, size_t k, const std::string& what) {
  if (!ok) throw std::invalid_argument("rule program instruction " + std::to_string(k) + ": " + what);
}

// Values an instruction reads (the operands that are value indices).
std::vector<int32_t> operands(const Program& p, const Instr& in) {
  switch (in.op) {
    case Op::Arg:
    case Op::Const:
      return {};
    case Op::Select:
      return {in.a, in.b, in.c};
    case Op::IsClose:
      return {in.a, in.b, in.c, in.d};
    case Op::Sum:
      return std::vector<int32_t>(p.aux.begin() + in.a, p.aux.begin() + in.a + in.b);
    default:
      if (is_unary(in.op)) return {in.a};
      return {in.a, in.b};
  }
}

constexpr size_t kBlockWords = kBlock / 64;

// Truth bits and status of one block: the fast path when it applies, else the general VM. Returns
// true when the fast path decided every lane (all statuses kOk), and then leaves status unwritten.
// Bits past n are zero.
bool evaluate_block(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint64_t* truth,
                    uint8_t* status) {
  if (p.fast && run_fast(p, xs, ys, zs, n, truth)) return true;
  uint8_t truth_bytes[kBlock];
  Evaluator ev(p, tls_scratch);
  result_lanes_to_bytes(ev.run(xs, ys, zs, n), n, truth_bytes, status, p.static_tags.back());
  bits::pack(truth_bytes, truth, n);
  return false;
}

// Linear-scan slots: a value's slot is reused once its last reader has run. With keep_constants,
// constants are never freed (the fast path fills them once per block, not once per chunk).
int32_t assign_slots(const Program& p, const std::vector<size_t>& last_use, bool keep_constants,
                     std::vector<int32_t>& slot) {
  const size_t n = p.code.size();
  slot.assign(n, -1);
  std::vector<int32_t> free_slots;
  std::vector<std::vector<int32_t>> dying(n);
  for (size_t v = 0; v + 1 < n; ++v) {
    if (keep_constants && p.code[v].op == Op::Const) continue;
    dying[std::max(last_use[v], v)].push_back(static_cast<int32_t>(v));
  }
  int32_t count = 0;
  for (size_t k = 0; k < n; ++k) {
    if (free_slots.empty() || (keep_constants && p.code[k].op == Op::Const)) {
      slot[k] = count++;  // a kept constant must not share a register with any earlier value either
    } else {
      slot[k] = free_slots.back();
      free_slots.pop_back();
    }
    for (const int32_t v : dying[k]) free_slots.push_back(slot[v]);
  }
  return count;
}

// Whether an op can hold its value as bits: a bool made from numbers or bools by an op that
// never raises.
bool bit_capable(const Program& p, size_t k) {
  const Instr& in = p.code[k];
  if (is_comparison(in.op)) return numeric(p, in.a) && numeric(p, in.b);
  switch (in.op) {
    case Op::And:
    case Op::Or:
      return p.static_tags[in.a] == kBoolBit && p.static_tags[in.b] == kBoolBit;
    case Op::Not:
    case Op::Truth:
      return numeric(p, in.a) || p.static_tags[in.a] == kBoolBit;
    case Op::IsInteger:
    case Op::IsInstance:
      return p.static_tags[in.a] == kFloatBit;
    default:
      return false;
  }
}

// Values the fast path holds as bits: bit-capable ones whose readers all take bits (and, or, not,
// truth held as bits themselves), and the result. Readers come later in the code, so one backward
// pass decides each value after all of its readers.
std::vector<uint8_t> bit_values(const Program& p) {
  const size_t n = p.code.size();
  std::vector<uint8_t> held(n, 0), read_as_double(n, 0);
  for (size_t k = n; k-- > 0;) {
    const Instr& in = p.code[k];
    held[k] = bit_capable(p, k) && !read_as_double[k];
    const bool takes_bits = held[k] && (in.op == Op::And || in.op == Op::Or || in.op == Op::Not || in.op == Op::Truth);
    for (const int32_t v : operands(p, in)) {
      if (!takes_bits) read_as_double[v] = 1;
    }
  }
  return held;
}

}  // namespace

void prepare(Program& p) {
  static std::atomic<uint64_t> next_id{1};
  p.id = next_id++;
  const size_t n = p.code.size();
  if (n == 0) throw std::invalid_argument("rule program is empty");
  p.static_tags.assign(n, 0);
  std::vector<size_t> last_use(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const Instr& in = p.code[k];
    check(in.op >= Op::Arg && in.op < Op::kCount, k, "unknown opcode " + std::to_string(static_cast<int>(in.op)));
    if (in.op == Op::Arg) check(in.a >= 0 && in.a < 3, k, "argument index must be 0, 1 or 2");
    if (in.op == Op::Const) check(in.a >= 0 && static_cast<size_t>(in.a) < p.constants.size(), k, "bad constant index");
    if (in.op == Op::Sum) {
      check(in.a >= 0 && in.b >= 0 && static_cast<size_t>(in.a) + static_cast<size_t>(in.b) <= p.aux.size(), k,
            "bad operand list");
    }
    for (const int32_t v : operands(p, in)) {
      check(v >= 0 && static_cast<size_t>(v) < k, k, "operand must be an earlier value");
      last_use[v] = k;
    }
    if (in.op == Op::Const) check(p.constants[in.a].tag <= kFloat, k, "bad constant type");
    p.static_tags[k] = result_tags(p, in);
  }
  p.num_slots = assign_slots(p, last_use, false, p.slot);
  p.fast_slots = assign_slots(p, last_use, true, p.fast_slot);
  p.fast = true;
  p.fast_constants.assign(n, 0.0);
  p.fast_bits = bit_values(p);
  p.variables.assign(n, 0);
  p.operand_lists.clear();
  p.operand_start.assign(1, 0);
  for (size_t k = 0; k < n; ++k) {
    const Instr& in = p.code[k];
    if (in.op == Op::Arg) p.variables[k] = static_cast<uint8_t>(1 << in.a);
    for (const int32_t v : operands(p, in)) {
      p.variables[k] |= p.variables[v];
      p.operand_lists.push_back(v);
    }
    p.operand_start.push_back(static_cast<uint32_t>(p.operand_lists.size()));
  }
  for (size_t k = 0; k < n; ++k) {
    p.fast = p.fast && fast_eligible(p, k);
    const Instr& in = p.code[k];
    if (in.op == Op::Const) {
      const Constant& c = p.constants[in.a];
      p.fast_constants[k] = c.tag == kFloat ? c.f : static_cast<double>(c.i);
    }
  }
}

void evaluate(const Program& program, const double* xs, const double* ys, const double* zs, size_t n, uint8_t* truth,
              uint8_t* status, unsigned threads) {
  const size_t blocks = (n + kBlock - 1) / kBlock;
  parallel_for(
      blocks, threads,
      [&](size_t b) {
        const size_t begin = b * kBlock, len = std::min(kBlock, n - begin);
        uint64_t block_truth[kBlockWords];
        if (evaluate_block(program, xs + begin, ys + begin, zs + begin, len, block_truth, status + begin)) {
          std::memset(status + begin, kOk, len);
        }
        bits::expand(block_truth, truth + begin, len);
      },
      8);
}

namespace {
bool no_fallback(const uint8_t* __restrict sa, const uint8_t* __restrict sb, size_t n) {
  uint8_t any = 0;
  for (size_t l = 0; l < n; ++l) any |= sa[l] | sb[l];
  return (any & kNeedsFallback) == 0;
}
}  // namespace

namespace detail {

std::vector<int32_t> operands(const Program& p, const Instr& in) { return wilt::operands(p, in); }

void general_step(const Program& p, size_t k, const Lanes* views, const Lanes& out, size_t n) {
  Evaluator(p, tls_scratch, views).step(k, out, n);
}

uint8_t fast_step(const Program& p, const Instr& in, const double* const* values, double* out, size_t n) {
  return wilt::fast_step(p, in, values, out, n);
}

void write_results(const Lanes& result, size_t n, uint8_t* truth, uint8_t* status, uint8_t static_tags) {
  result_lanes_to_bytes(result, n, truth, status, static_tags);
}

void compare_block(const Program& a, const Program* b, const uint64_t* tb, const double* xs, const double* ys,
                   const double* zs, size_t len, size_t offset, size_t max_examples, bool want_examples,
                   Comparison& c) {
  const size_t words = bits::words_for(len);
  uint64_t ta[kBlockWords], tb_own[kBlockWords], decided[kBlockWords];
  uint8_t sa[kBlock], sb[kBlock];
  const bool a_ok = evaluate_block(a, xs, ys, zs, len, ta, sa);
  bool b_ok = true;
  if (b) {
    b_ok = evaluate_block(*b, xs, ys, zs, len, tb_own, sb);
    tb = tb_own;
  }
  // Points the VM decided for both rules: the usual block has every one.
  bool all_decided = a_ok && b_ok;
  if (!all_decided) {
    if (a_ok) std::memset(sa, kOk, len);
    if (b_ok) std::memset(sb, kOk, len);
    all_decided = no_fallback(sa, sb, len);
  }
  if (all_decided) {
    std::fill(decided, decided + words, ~uint64_t{0});
    decided[words - 1] = bits::tail_mask(len);
  } else {
    std::fill(decided, decided + words, 0);
    for (size_t l = 0; l < len; ++l) decided[l / 64] |= uint64_t{((sa[l] | sb[l]) & kNeedsFallback) == 0} << (l % 64);
  }
  const bits::Tally t = bits::tally(ta, tb, decided, words);
  c.true_a = t.a;
  c.true_b = t.b;
  c.true_both = t.both;
  c.mismatches = t.differ;
  c.fallback = static_cast<int64_t>(len) - t.kept;
  if (!a_ok) {
    for (size_t l = 0; l < len; ++l) {
      if (sa[l] != kRaised || (sb[l] & kNeedsFallback)) continue;
      ++c.raised_a;
      if (c.first_raised_a.size() < max_examples) c.first_raised_a.push_back(static_cast<int64_t>(offset + l));
    }
  }
  if (!want_examples) return;
  for (size_t w = 0; w < words && c.first_mismatches.size() < max_examples; ++w) {
    for (uint64_t differ = (ta[w] ^ tb[w]) & decided[w]; differ && c.first_mismatches.size() < max_examples;
         differ &= differ - 1) {
      c.first_mismatches.push_back(static_cast<int64_t>(offset + w * 64 + std::countr_zero(differ)));
    }
  }
}

void add_comparison(Comparison& total, const Comparison& c, size_t max_examples) {
  total.mismatches += c.mismatches;
  total.true_a += c.true_a;
  total.true_b += c.true_b;
  total.true_both += c.true_both;
  total.fallback += c.fallback;
  total.raised_a += c.raised_a;
  for (const int64_t i : c.first_mismatches) {
    if (total.first_mismatches.size() < max_examples) total.first_mismatches.push_back(i);
  }
  for (const int64_t i : c.first_raised_a) {
    if (total.first_raised_a.size() < max_examples) total.first_raised_a.push_back(i);
  }
}

}  // namespace detail

namespace detail {

Comparison compare_blocks(const Program& a, const Program* b, const BlockTruth& truth, const double* xs,
                          const double* ys, const double* zs, size_t n, size_t offset, size_t max_examples,
                          unsigned threads) {
  const size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<Comparison> partial(blocks);
  // Run in block order (one thread), later blocks need not look for counterexamples once the earlier
  // ones hold enough; the counts still cover every point.
  constexpr size_t kBlocksPerTask = 16;
  const bool in_order = (threads == 0 ? default_threads() : threads) <= 1 || blocks <= kBlocksPerTask;
  size_t examples_found = 0;
  parallel_for(
      blocks, threads,
      [&](size_t blk) {
        const size_t begin = blk * kBlock, len = std::min(kBlock, n - begin);
        uint64_t scratch[kBlockWords];
        const uint64_t* tb = b ? nullptr : truth(begin, len, scratch);
        Comparison& c = partial[blk];
        compare_block(a, b, tb, xs + begin, ys + begin, zs + begin, len, offset + begin, max_examples,
                      !in_order || examples_found < max_examples, c);
        if (in_order) examples_found += c.first_mismatches.size();
      },
      kBlocksPerTask);
  Comparison total;
  for (const Comparison& c : partial) add_comparison(total, c, max_examples);
  return total;
}

}  // namespace detail

Comparison compare(const Program& a, const Program* b, const uint8_t* truth_b, const double* xs, const double* ys,
                   const double* zs, size_t n, size_t max_examples, unsigned threads) {
  const auto pack = [truth_b](size_t begin, size_t len, uint64_t* scratch) {
    bits::pack(truth_b + begin, scratch, len);
    return static_cast<const uint64_t*>(scratch);
  };
  return detail::compare_blocks(a, b, pack, xs, ys, zs, n, 0, max_examples, threads);
}

}  // namespace cogsim::wilt
