#include "wilt/evaluator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "wilt/pyfloat.hpp"
#include "wilt/scalar.hpp"

namespace cogsim::wilt::detail {

namespace {

// Registers of the general VM: kBlock lanes per slot (Program::slot), and the buffers its kernels
// and ops borrow.
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

// -- Typed kernels: whole-block loops for an instruction whose operands' static types allow one, in
// place of the lane-by-lane dispatch of scalar.hpp. Each returns false, writing nothing, where the
// types do not fit. In this file so that the evaluator's step inlines them (out of line, in a file
// of their own, round(x) == y checked 15% slower).

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

// -- The general VM ----------------------------------------------------------------------------------

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

}  // namespace

void write_results(const Lanes& result, size_t n, uint8_t* __restrict truth, uint8_t* __restrict status,
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

void general_step(const Program& p, size_t k, const Lanes* views, const Lanes& out, size_t n) {
  Evaluator(p, tls_scratch, views).step(k, out, n);
}

void evaluate_general(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint8_t* truth,
                      uint8_t* status) {
  Evaluator ev(p, tls_scratch);
  write_results(ev.run(xs, ys, zs, n), n, truth, status, p.static_tags.back());
}

}  // namespace cogsim::wilt::detail
