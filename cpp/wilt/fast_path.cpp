#include "wilt/fast_path.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "wilt/bits.hpp"
#include "wilt/lanes.hpp"
#include "wilt/pyfloat.hpp"

namespace cogsim::wilt {
using detail::bit_comparison;
using detail::is_comparison;
using detail::is_unary;

namespace {

constexpr size_t kChunk = 1024;
// Registers a multiple of 4 KiB apart would all sit at the same address modulo 4 KiB, where loads
// falsely wait on stores to the other; a cache line of padding staggers them.
constexpr size_t kSlotStride = kChunk + 8;
constexpr size_t kChunkWords = kChunk / 64;  // a bool register held as bits

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

// The lane loops of fast_step. Always inlined, so that each of fast_step's clones has them compiled
// for its own instruction set (an out-of-line copy would be compiled once, for the baseline).
template <typename F>
[[gnu::always_inline]] inline void fast_map(size_t n, const double* __restrict a, const double* __restrict b,
                                            double* __restrict out, F f) {
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l], b[l]);
}

template <typename F>
[[gnu::always_inline]] inline void fast_map1(size_t n, const double* __restrict a, double* __restrict out, F f) {
  for (size_t l = 0; l < n; ++l) out[l] = f(a[l]);
}

// A per-lane CPython float operation that may raise; returns its flags or'ed over the lanes.
template <typename F>
[[gnu::always_inline]] inline uint8_t fast_checked(size_t n, const double* __restrict a, const double* __restrict b,
                                                   double* __restrict out, F f) {
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

}  // namespace

namespace detail {

uint8_t fast_step(const Program& p, const Instr& in, const double* const* values, double* out, size_t n) {
  return wilt::fast_step(p, in, values, out, n);
}

bool run_fast(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint64_t* truth) {
  return wilt::run_fast(p, xs, ys, zs, n, truth);
}

}  // namespace detail

}  // namespace cogsim::wilt
