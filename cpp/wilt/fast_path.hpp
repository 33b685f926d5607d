// The WILT VM's typed fast path. A program whose values are all statically float or bool (int/bool
// constants exact as doubles; prepare() sets Program::fast) runs as plain loops over doubles, bools
// held as 0.0/1.0 or as bits (Program::fast_bits), in chunks of 1024 lanes (8 KiB per live value,
// so a typical rule's 3-5 stay in L1; at 256 lanes the per-chunk dispatch was a sixth of a check's
// time). No lane carries a tag or flags: an op that could raise (division, %, //, **, sqrt,
// isclose) reports whether it did anywhere in the block, and such a block is re-run on the general
// path (evaluator.hpp), which applies CPython's short-circuit rules to the error. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

// Truth bits of lanes [0, n) of a Program::fast program, bits past n zero; false if the block must
// run on the general path.
bool run_fast(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint64_t* truth);

// An instruction of the typed fast path on n lanes, its operand v at values[v]; returns nonzero if
// CPython would raise in some lane (or needs the fallback there).
uint8_t fast_step(const Program& p, const Instr& in, const double* const* values, double* out, size_t n);

}  // namespace cogsim::wilt::detail
