// Lane bit masks for the WILT VM's fast path: a bool per lane held as one bit, 64 lanes per word
// (lane l is bit l % 64 of word l / 64). Comparisons write them straight from vector compare masks,
// and/or/not become word operations, and a check counts agreement with popcounts.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cogsim::wilt::bits {

constexpr size_t words_for(size_t lanes) { return (lanes + 63) / 64; }

// The bits of lanes [0, n % 64) of a word: what the last word of n lanes keeps.
constexpr uint64_t tail_mask(size_t n) { return n % 64 ? (uint64_t{1} << (n % 64)) - 1 : ~uint64_t{0}; }

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// `b op a` as `a mirrored(op) b`.
Cmp mirrored(Cmp op);

// A comparison operand: one double per lane, or one value for every lane (lanes == nullptr).
struct Operand {
  const double* lanes;
  double value;
};

// Bit l = (a[l] op b[l]) for l < n, as CPython compares floats (false where a NaN takes part,
// except for !=). Bits past n in the last word are zero. Runs AVX2 loops where the CPU has them.
void compare(Cmp op, Operand a, Operand b, uint64_t* out, size_t n);

// An operand of compare_rows: row r reads the scalar data[r * stride], or (vector) the lanes at
// data + r * stride; stride 0 reads the same for every row.
struct RowOperand {
  const double* data;
  size_t stride;
  bool vector;
};

// out[r] bit l = (a row r lane l) op (b row r lane l), for r < rows and l < lanes, where lanes is a
// multiple of 4 up to 64 (vectors hold that many doubles); bits from `lanes` up are zero.
void compare_rows(Cmp op, RowOperand a, RowOperand b, uint64_t* out, size_t rows, size_t lanes);

// Rows of bits of a bool for combine_rows: row r is rows[r * stride] (stride 0: the same row for every
// r), or, where rows is null, bit r * stride of `word` repeated over the whole row.
struct BitRows {
  const uint64_t* rows;
  uint64_t word;
  size_t stride;
};

// out[r] = a row r & b row r (and), or | (or), for r < rows.
void combine_rows(bool is_and, BitRows a, BitRows b, uint64_t* out, size_t rows);

// Agreement of two truth masks over the lanes a third one keeps.
struct Tally {
  int64_t kept = 0, a = 0, b = 0, both = 0, differ = 0;
};
Tally tally(const uint64_t* a, const uint64_t* b, const uint64_t* kept, size_t words);

// Set bits of a & keep, and of a & b & keep, over whole words (keep: the same for every word).
struct Overlap {
  int64_t a = 0, both = 0;
};
Overlap overlap(const uint64_t* a, const uint64_t* b, uint64_t keep, size_t words);

// Bit l = bytes[l] != 0 for l < n; bits past n are zero.
void pack(const uint8_t* bytes, uint64_t* out, size_t n);

// bytes[l] = bit l (0 or 1) for l < n.
void expand(const uint64_t* words, uint8_t* bytes, size_t n);

}  // namespace cogsim::wilt::bits
