// What the WILT VM's evaluators share: the block size, a value of the general VM on a run of lanes,
// and the classes of opcodes. The block evaluator (blocks.cpp, over evaluator.cpp and
// fast_path.cpp) and the grid evaluator (grid.cpp), which runs the same instructions on lanes laid
// out by the variables each value depends on, both read values this way. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wilt/bits.hpp"
#include "wilt/scalar.hpp"
#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

// Lanes per block of the general VM (its scratch registers' size) and per task of the block
// evaluator; bigger blocks cut per-block work, not L1 use (the fast path's chunks do).
constexpr size_t kBlock = 2048;

// A value of the general VM on a run of lanes: tag, float and int payloads and flags per lane.
struct Lanes {
  double* f;
  int64_t* i;
  uint8_t* t;
  uint8_t* fl;
  Val load(size_t l) const { return {t[l], f[l], i[l]}; }
  void store(size_t l, const Val& v, uint8_t flags) const {
    t[l] = v.tag;
    f[l] = v.f;
    i[l] = v.i;
    fl[l] = flags;
  }
  void store_flags(size_t l, uint8_t flags) const {
    t[l] = kBool;
    i[l] = 0;
    fl[l] = flags;
  }
};

inline bool is_comparison(Op op) { return op >= Op::Eq && op <= Op::Ge; }

// Ops with two value operands (a, b) whose result each lane computes alone.
inline bool is_binary(Op op) {
  return (op >= Op::Add && op <= Op::Pow) || (op >= Op::BitAnd && op <= Op::Ge) || op == Op::Min || op == Op::Max ||
         op == Op::Gcd;
}

// Ops with one value operand (a); IS_INSTANCE's b is an immediate.
inline bool is_unary(Op op) {
  return (op >= Op::Neg && op <= Op::Truth) || (op >= Op::Abs && op <= Op::Round) ||
         (op >= Op::Floor && op <= Op::Fabs) || op == Op::IsInteger || op == Op::IsInstance;
}

// A comparison op as the bit kernels name it.
inline bits::Cmp bit_comparison(Op op) {
  switch (op) {
    case Op::Eq:
      return bits::Cmp::Eq;
    case Op::Ne:
      return bits::Cmp::Ne;
    case Op::Lt:
      return bits::Cmp::Lt;
    case Op::Le:
      return bits::Cmp::Le;
    case Op::Gt:
      return bits::Cmp::Gt;
    default:
      return bits::Cmp::Ge;
  }
}

}  // namespace cogsim::wilt::detail
