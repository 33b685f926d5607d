// A rule evaluated and compared block by block: each block of kBlock points runs on the typed fast
// path where the program allows it (fast_path.hpp) and on the general VM otherwise or where the fast
// path raised (evaluator.hpp); blocks spread over threads. Defines vm.hpp's evaluate() and
// compare(); the grid evaluator (grid.cpp) compares the points outside its grid with these.
// Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "wilt/vm.hpp"

namespace cogsim::wilt::detail {

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
