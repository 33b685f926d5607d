#include "wilt/blocks.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "common/parallel.hpp"
#include "wilt/bits.hpp"
#include "wilt/evaluator.hpp"
#include "wilt/fast_path.hpp"
#include "wilt/lanes.hpp"

namespace cogsim::wilt {
using detail::kBlock;

namespace {

constexpr size_t kBlockWords = kBlock / 64;

// Truth bits and status of one block: the fast path when it applies, else the general VM. Returns
// true when the fast path decided every lane (all statuses kOk), and then leaves status unwritten.
// Bits past n are zero.
bool evaluate_block(const Program& p, const double* xs, const double* ys, const double* zs, size_t n, uint64_t* truth,
                    uint8_t* status) {
  if (p.fast && detail::run_fast(p, xs, ys, zs, n, truth)) return true;
  uint8_t truth_bytes[kBlock];
  detail::evaluate_general(p, xs, ys, zs, n, truth_bytes, status);
  bits::pack(truth_bytes, truth, n);
  return false;
}

bool no_fallback(const uint8_t* __restrict sa, const uint8_t* __restrict sb, size_t n) {
  uint8_t any = 0;
  for (size_t l = 0; l < n; ++l) any |= sa[l] | sb[l];
  return (any & kNeedsFallback) == 0;
}

}  // namespace

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

namespace detail {

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
