#include "wilt/evaluator.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "wilt/kernels.hpp"
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
    const uint8_t ta = p_.static_tags[in.a], tb = p_.static_tags[in.b];
    if (!(in.op == Op::Pow && may_be_complex) &&
        float_kernel(in.op, A, B, ta, tb, out, n, s_.promoted_a.data(), s_.promoted_b.data())) {
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
