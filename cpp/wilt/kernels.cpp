#include "wilt/kernels.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "wilt/pyfloat.hpp"

namespace cogsim::wilt::detail {

namespace {

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

}  // namespace

bool float_kernel(Op op, const Lanes& A, const Lanes& B, uint8_t ta, uint8_t tb, const Lanes& out, size_t n,
                  double* promoted_a, double* promoted_b) {
  if (!(op < Op::Pow || is_comparison(op) || op == Op::Min || op == Op::Max || op == Op::Pow)) return false;
  const bool exact = is_comparison(op) || op == Op::Min || op == Op::Max;
  if (op == Op::Min || op == Op::Max) {
    if (ta != kFloatBit || tb != kFloatBit) return false;  // min/max keep their operand's type
  } else if (ta != kFloatBit && tb != kFloatBit) {
    return false;
  }
  const double* a = float_view(A, ta, exact, n, promoted_a);
  const double* b = a ? float_view(B, tb, exact, n, promoted_b) : nullptr;
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

}  // namespace cogsim::wilt::detail
