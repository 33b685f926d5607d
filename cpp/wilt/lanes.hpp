// The WILT VM's pieces that evaluate one instruction at a time, shared by the block evaluator
// (vm.cpp) and the grid evaluator (grid.cpp), which runs the same instructions on lanes laid out by
// the variables each value depends on. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "wilt/bits.hpp"
#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

constexpr size_t kBlock = 2048;  // lanes per task of the general VM (its scratch registers' size)
constexpr uint8_t kBoolBit = 1 << kBool, kIntBit = 1 << kInt, kFloatBit = 1 << kFloat;

struct Val {
  uint8_t tag;
  double f;
  int64_t i;
};

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

// The values an instruction reads (its operands that are value indices).
std::vector<int32_t> operands(const Program& p, const Instr& in);

// Instruction k of the general VM on n <= kBlock lanes (not Arg): operand v is read from views[v].
void general_step(const Program& p, size_t k, const Lanes* views, const Lanes& out, size_t n);

// An instruction of the typed fast path (Program::fast) on n lanes, its operand v at values[v];
// returns nonzero if CPython would raise in some lane (or needs the fallback there).
uint8_t fast_step(const Program& p, const Instr& in, const double* const* values, double* out, size_t n);

// Truth bytes and statuses (Status) of a result's lanes; truth is 0 unless the status is kOk.
void write_results(const Lanes& result, size_t n, uint8_t* truth, uint8_t* status, uint8_t static_tags);

// One block's comparison of rule a with rule b (when b is not null) or with truth bits tb, on the
// len <= kBlock points at xs, ys, zs; `offset` is the index of the block's first point. Points either
// rule could not decide are left out of the counts; examples are looked for only if want_examples.
void compare_block(const Program& a, const Program* b, const uint64_t* tb, const double* xs, const double* ys,
                   const double* zs, size_t len, size_t offset, size_t max_examples, bool want_examples,
                   Comparison& out);

// The packed truth of points [begin, begin + len) of a range (len <= kBlock, begin a multiple of
// kBlock): a pointer into packed bits, or `scratch` (kBlock / 64 words) filled with them.
using BlockTruth = std::function<const uint64_t*(size_t begin, size_t len, uint64_t* scratch)>;

// compare_block over the n points at xs, ys, zs in blocks (over threads), against rule b or, where b
// is null, the truth `truth` gives; `offset` is the index of the first point. Counts cover every
// point, examples come in point order.
Comparison compare_blocks(const Program& a, const Program* b, const BlockTruth& truth, const double* xs,
                          const double* ys, const double* zs, size_t n, size_t offset, size_t max_examples,
                          unsigned threads);

// Adds a later part's counts to total, and its examples while total holds fewer than max_examples.
void add_comparison(Comparison& total, const Comparison& part, size_t max_examples);

}  // namespace cogsim::wilt::detail
