#include "wilt/bits.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <type_traits>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
#include <immintrin.h>
#define COGSIM_WILT_AVX2 1
#endif

namespace cogsim::wilt::bits {
namespace {

template <Cmp kOp>
inline bool holds(double x, double y) {
  if constexpr (kOp == Cmp::Eq) return x == y;
  if constexpr (kOp == Cmp::Ne) return x != y;
  if constexpr (kOp == Cmp::Lt) return x < y;
  if constexpr (kOp == Cmp::Le) return x <= y;
  if constexpr (kOp == Cmp::Gt) return x > y;
  return x >= y;
}

// Calls f with the comparison as a compile-time constant (std::integral_constant<Cmp, op>).
template <typename F>
void with_comparison(Cmp op, F&& f) {
  switch (op) {
    case Cmp::Eq:
      return f(std::integral_constant<Cmp, Cmp::Eq>{});
    case Cmp::Ne:
      return f(std::integral_constant<Cmp, Cmp::Ne>{});
    case Cmp::Lt:
      return f(std::integral_constant<Cmp, Cmp::Lt>{});
    case Cmp::Le:
      return f(std::integral_constant<Cmp, Cmp::Le>{});
    case Cmp::Gt:
      return f(std::integral_constant<Cmp, Cmp::Gt>{});
    case Cmp::Ge:
      return f(std::integral_constant<Cmp, Cmp::Ge>{});
  }
}

}  // namespace

Cmp mirrored(Cmp op) {
  switch (op) {
    case Cmp::Lt:
      return Cmp::Gt;
    case Cmp::Le:
      return Cmp::Ge;
    case Cmp::Gt:
      return Cmp::Lt;
    case Cmp::Ge:
      return Cmp::Le;
    default:
      return op;
  }
}

namespace {

// Lanes [from, n) one at a time, into words whose bits below `from` are already written: the tail
// of the vector loops below, and the whole job where no vector unit is compiled in.
template <Cmp kOp, bool kConstant>
void compare_lanes(const double* a, Operand b, uint64_t* out, size_t from, size_t n) {
  for (size_t l = from; l < n; ++l) {
    const uint64_t bit = uint64_t{holds<kOp>(a[l], kConstant ? b.value : b.lanes[l])} << (l % 64);
    out[l / 64] = l % 64 ? out[l / 64] | bit : bit;
  }
}

// The vector loops: whole words with a constant trip count, then the last word's whole groups of
// kWidth lanes; they return how many lanes they wrote (the rest is compare_lanes' job).
// `mask_of(l)` is the comparison's lane mask for lanes [l, l + kWidth).
template <size_t kWidth, typename MaskOf>
__attribute__((always_inline)) inline size_t compare_groups(uint64_t* out, size_t n, MaskOf mask_of) {
  const size_t words = n / 64, lanes = n / kWidth * kWidth;
  for (size_t w = 0; w < words; ++w) {
    uint64_t word = 0;
    for (size_t j = 0; j < 64; j += kWidth) word |= mask_of(w * 64 + j) << j;
    out[w] = word;
  }
  if (words * 64 < lanes) {
    uint64_t word = 0;
    for (size_t l = words * 64; l < lanes; l += kWidth) word |= mask_of(l) << (l % 64);
    out[words] = word;
  }
  return lanes;
}

#if defined(__SSE2__)
template <Cmp kOp>
inline __m128d sse2_compare(__m128d x, __m128d y) {
  if constexpr (kOp == Cmp::Eq) return _mm_cmpeq_pd(x, y);
  if constexpr (kOp == Cmp::Ne) return _mm_cmpneq_pd(x, y);  // unordered or unequal, as != is
  if constexpr (kOp == Cmp::Lt) return _mm_cmplt_pd(x, y);
  if constexpr (kOp == Cmp::Le) return _mm_cmple_pd(x, y);
  if constexpr (kOp == Cmp::Gt) return _mm_cmpgt_pd(x, y);
  return _mm_cmpge_pd(x, y);
}

template <Cmp kOp, bool kConstant>
size_t compare_sse2(const double* a, Operand b, uint64_t* out, size_t n) {
  const __m128d value = _mm_set1_pd(b.value);
  return compare_groups<2>(out, n, [&](size_t l) {
    const __m128d y = kConstant ? value : _mm_loadu_pd(b.lanes + l);
    return static_cast<uint64_t>(_mm_movemask_pd(sse2_compare<kOp>(_mm_loadu_pd(a + l), y)));
  });
}
#endif

#if defined(COGSIM_WILT_AVX2)
// The predicates of CPython's float comparisons: ordered (false on NaN), and != unordered.
template <Cmp kOp>
constexpr int avx_predicate() {
  if constexpr (kOp == Cmp::Eq) return _CMP_EQ_OQ;
  if constexpr (kOp == Cmp::Ne) return _CMP_NEQ_UQ;
  if constexpr (kOp == Cmp::Lt) return _CMP_LT_OQ;
  if constexpr (kOp == Cmp::Le) return _CMP_LE_OQ;
  if constexpr (kOp == Cmp::Gt) return _CMP_GT_OQ;
  return _CMP_GE_OQ;
}

template <Cmp kOp, bool kConstant>
__attribute__((target("avx2"))) size_t compare_avx2(const double* a, Operand b, uint64_t* out, size_t n) {
  const __m256d value = _mm256_set1_pd(b.value);
  return compare_groups<4>(out, n, [&](size_t l) __attribute__((target("avx2"))) {
    const __m256d y = kConstant ? value : _mm256_loadu_pd(b.lanes + l);
    return static_cast<uint64_t>(_mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(a + l), y, avx_predicate<kOp>())));
  });
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

template <Cmp kOp>
void compare_as(const double* a, Operand b, uint64_t* out, size_t n) {
  const bool constant = b.lanes == nullptr;
  size_t lanes = 0;
#if defined(COGSIM_WILT_AVX2)
  if (cpu_has_avx2()) {
    lanes = constant ? compare_avx2<kOp, true>(a, b, out, n) : compare_avx2<kOp, false>(a, b, out, n);
  } else
#endif
  {
#if defined(__SSE2__)
    lanes = constant ? compare_sse2<kOp, true>(a, b, out, n) : compare_sse2<kOp, false>(a, b, out, n);
#endif
  }
  if (constant) {
    compare_lanes<kOp, true>(a, b, out, lanes, n);
  } else {
    compare_lanes<kOp, false>(a, b, out, lanes, n);
  }
}

// compare_rows: one word per row from groups of kWidth lanes; `group(r, l)` is the mask of lanes
// [l, l + kWidth) of row r.
template <size_t kWidth, typename Group>
__attribute__((always_inline)) inline void compare_row_groups(uint64_t* out, size_t rows, size_t lanes, Group group) {
  for (size_t r = 0; r < rows; ++r) {
    uint64_t word = 0;
    for (size_t l = 0; l < lanes; l += kWidth) word |= group(r, l) << l;
    out[r] = word;
  }
}

#if defined(__SSE2__)
template <Cmp kOp, bool kVa, bool kVb>
void compare_rows_sse2(RowOperand a, RowOperand b, uint64_t* out, size_t rows, size_t lanes) {
  compare_row_groups<2>(out, rows, lanes, [&](size_t r, size_t l) {
    const __m128d x = kVa ? _mm_loadu_pd(a.data + r * a.stride + l) : _mm_set1_pd(a.data[r * a.stride]);
    const __m128d y = kVb ? _mm_loadu_pd(b.data + r * b.stride + l) : _mm_set1_pd(b.data[r * b.stride]);
    return static_cast<uint64_t>(_mm_movemask_pd(sse2_compare<kOp>(x, y)));
  });
}
#endif

#if defined(COGSIM_WILT_AVX2)
template <Cmp kOp, bool kVa, bool kVb>
__attribute__((target("avx2"))) void compare_rows_avx2(RowOperand a, RowOperand b, uint64_t* out, size_t rows,
                                                       size_t lanes) {
  compare_row_groups<4>(out, rows, lanes, [&](size_t r, size_t l) __attribute__((target("avx2"))) {
    const __m256d x = kVa ? _mm256_loadu_pd(a.data + r * a.stride + l) : _mm256_set1_pd(a.data[r * a.stride]);
    const __m256d y = kVb ? _mm256_loadu_pd(b.data + r * b.stride + l) : _mm256_set1_pd(b.data[r * b.stride]);
    return static_cast<uint64_t>(_mm256_movemask_pd(_mm256_cmp_pd(x, y, avx_predicate<kOp>())));
  });
}
#endif

template <Cmp kOp, bool kVa, bool kVb>
void compare_rows_as(RowOperand a, RowOperand b, uint64_t* out, size_t rows, size_t lanes) {
#if defined(COGSIM_WILT_AVX2)
  if (cpu_has_avx2()) return compare_rows_avx2<kOp, kVa, kVb>(a, b, out, rows, lanes);
#endif
#if defined(__SSE2__)
  compare_rows_sse2<kOp, kVa, kVb>(a, b, out, rows, lanes);
#else
  for (size_t r = 0; r < rows; ++r) {
    uint64_t word = 0;
    for (size_t l = 0; l < lanes; ++l) {
      const double x = kVa ? a.data[r * a.stride + l] : a.data[r * a.stride];
      const double y = kVb ? b.data[r * b.stride + l] : b.data[r * b.stride];
      word |= uint64_t{holds<kOp>(x, y)} << l;
    }
    out[r] = word;
  }
#endif
}

// Inlined into its callers, so the popcount builtin becomes the instruction where the caller's
// target has it.
__attribute__((always_inline)) inline int64_t count(uint64_t w) { return std::popcount(w); }

__attribute__((always_inline)) inline Tally tally_words(const uint64_t* a, const uint64_t* b, const uint64_t* kept,
                                                        size_t words) {
  Tally t;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t wa = a[w] & kept[w], wb = b[w] & kept[w];
    t.kept += count(kept[w]);
    t.a += count(wa);
    t.b += count(wb);
    t.both += count(wa & wb);
    t.differ += count(wa ^ wb);
  }
  return t;
}

__attribute__((always_inline)) inline Overlap overlap_words(const uint64_t* a, const uint64_t* b, uint64_t keep,
                                                            size_t words) {
  Overlap o;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t kept = a[w] & keep;
    o.a += count(kept);
    o.both += count(kept & b[w]);
  }
  return o;
}

#if defined(COGSIM_WILT_AVX2)
// The baseline x86-64 target has no popcnt instruction, and GCC calls a library routine for it.
__attribute__((target("popcnt"))) Tally tally_popcnt(const uint64_t* a, const uint64_t* b, const uint64_t* kept,
                                                     size_t words) {
  return tally_words(a, b, kept, words);
}

// Four words at a time: bytes counted from a table of nibbles (vpshufb), summed per word (vpsadbw).
__attribute__((target("avx2"))) Overlap overlap_avx2(const uint64_t* a, const uint64_t* b, uint64_t keep,
                                                     size_t words) {
  const __m256i nibbles =
      _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0F), kept = _mm256_set1_epi64x(static_cast<int64_t>(keep));
  const auto bytes = [&](__m256i v) __attribute__((target("avx2"))) {
    return _mm256_add_epi8(_mm256_shuffle_epi8(nibbles, _mm256_and_si256(v, low)),
                           _mm256_shuffle_epi8(nibbles, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
  };
  __m256i sum_a = _mm256_setzero_si256(), sum_both = _mm256_setzero_si256();
  size_t w = 0;
  for (; w + 4 <= words; w += 4) {
    const __m256i va = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + w)), kept);
    const __m256i vb = _mm256_and_si256(va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + w)));
    sum_a = _mm256_add_epi64(sum_a, _mm256_sad_epu8(bytes(va), _mm256_setzero_si256()));
    sum_both = _mm256_add_epi64(sum_both, _mm256_sad_epu8(bytes(vb), _mm256_setzero_si256()));
  }
  alignas(32) int64_t parts[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(parts), sum_a);
  _mm256_store_si256(reinterpret_cast<__m256i*>(parts + 4), sum_both);
  Overlap o = overlap_words(a + w, b + w, keep, words - w);
  o.a += parts[0] + parts[1] + parts[2] + parts[3];
  o.both += parts[4] + parts[5] + parts[6] + parts[7];
  return o;
}

bool cpu_has_popcnt() {
  static const bool has = __builtin_cpu_supports("popcnt");
  return has;
}
#endif

// expand's table: byte i of kSpread[b] is bit i of b.
constexpr std::array<uint64_t, 256> spread_table() {
  std::array<uint64_t, 256> table{};
  for (unsigned b = 0; b < 256; ++b) {
    for (unsigned i = 0; i < 8; ++i) table[b] |= static_cast<uint64_t>((b >> i) & 1) << (8 * i);
  }
  return table;
}
constexpr std::array<uint64_t, 256> kSpread = spread_table();

}  // namespace

void compare(Cmp op, Operand a, Operand b, uint64_t* out, size_t n) {
  if (!a.lanes) {
    std::swap(a, b);
    op = mirrored(op);
  }
  with_comparison(op, [&](auto kind) {
    constexpr Cmp kOp = decltype(kind)::value;
    if (a.lanes) return compare_as<kOp>(a.lanes, b, out, n);
    std::fill(out, out + words_for(n), holds<kOp>(a.value, b.value) ? ~uint64_t{0} : 0);  // two constants
    if (n % 64) out[n / 64] &= tail_mask(n);
  });
}

void compare_rows(Cmp op, RowOperand a, RowOperand b, uint64_t* out, size_t rows, size_t lanes) {
  with_comparison(op, [&](auto kind) {
    constexpr Cmp kOp = decltype(kind)::value;
    if (a.vector && b.vector) return compare_rows_as<kOp, true, true>(a, b, out, rows, lanes);
    if (a.vector) return compare_rows_as<kOp, true, false>(a, b, out, rows, lanes);
    if (b.vector) return compare_rows_as<kOp, false, true>(a, b, out, rows, lanes);
    const uint64_t all = lanes >= 64 ? ~uint64_t{0} : (uint64_t{1} << lanes) - 1;
    for (size_t r = 0; r < rows; ++r) out[r] = holds<kOp>(a.data[r * a.stride], b.data[r * b.stride]) ? all : 0;
  });
}

namespace {
// The kinds of BitRows the grid evaluator makes (strides 0 and 1), each read by a loop simple enough
// to run in vector registers (AVX2's variable shifts spread a bit per row).
struct Contiguous {
  const uint64_t* rows;
  uint64_t operator()(size_t r) const { return rows[r]; }
};
struct Repeated {
  uint64_t row;
  uint64_t operator()(size_t) const { return row; }
};
struct Spread {
  uint64_t word;
  uint64_t operator()(size_t r) const { return 0 - ((word >> r) & 1); }
};
struct Strided {
  BitRows x;
  uint64_t operator()(size_t r) const { return x.rows ? x.rows[r * x.stride] : 0 - ((x.word >> (r * x.stride)) & 1); }
};

template <typename A, typename B>
__attribute__((always_inline)) inline void combine_loop(bool is_and, A a, B b, uint64_t* __restrict out, size_t rows) {
  if (is_and) {
    for (size_t r = 0; r < rows; ++r) out[r] = a(r) & b(r);
  } else {
    for (size_t r = 0; r < rows; ++r) out[r] = a(r) | b(r);
  }
}

template <typename A>
__attribute__((always_inline)) inline void combine_with(bool is_and, A a, BitRows b, uint64_t* out, size_t rows) {
  if (b.rows && b.stride == 1) return combine_loop(is_and, a, Contiguous{b.rows}, out, rows);
  if (b.rows && b.stride == 0) return combine_loop(is_and, a, Repeated{b.rows[0]}, out, rows);
  if (!b.rows && b.stride == 1) return combine_loop(is_and, a, Spread{b.word}, out, rows);
  if (!b.rows && b.stride == 0) return combine_loop(is_and, a, Repeated{0 - (b.word & 1)}, out, rows);
  combine_loop(is_and, a, Strided{b}, out, rows);
}

__attribute__((always_inline)) inline void combine_any(bool is_and, BitRows a, BitRows b, uint64_t* out, size_t rows) {
  if (a.rows && a.stride == 1) return combine_with(is_and, Contiguous{a.rows}, b, out, rows);
  if (a.rows && a.stride == 0) return combine_with(is_and, Repeated{a.rows[0]}, b, out, rows);
  if (!a.rows && a.stride == 1) return combine_with(is_and, Spread{a.word}, b, out, rows);
  if (!a.rows && a.stride == 0) return combine_with(is_and, Repeated{0 - (a.word & 1)}, b, out, rows);
  combine_with(is_and, Strided{a}, b, out, rows);
}

#if defined(COGSIM_WILT_AVX2)
__attribute__((target("avx2"))) void combine_avx2(bool is_and, BitRows a, BitRows b, uint64_t* out, size_t rows) {
  combine_any(is_and, a, b, out, rows);
}
#endif
}  // namespace

void combine_rows(bool is_and, BitRows a, BitRows b, uint64_t* out, size_t rows) {
#if defined(COGSIM_WILT_AVX2)
  if (cpu_has_avx2()) return combine_avx2(is_and, a, b, out, rows);
#endif
  combine_any(is_and, a, b, out, rows);
}

Tally tally(const uint64_t* a, const uint64_t* b, const uint64_t* kept, size_t words) {
#if defined(COGSIM_WILT_AVX2)
  if (cpu_has_popcnt()) return tally_popcnt(a, b, kept, words);
#endif
  return tally_words(a, b, kept, words);
}

Overlap overlap(const uint64_t* a, const uint64_t* b, uint64_t keep, size_t words) {
#if defined(COGSIM_WILT_AVX2)
  if (cpu_has_avx2()) return overlap_avx2(a, b, keep, words);
#endif
  return overlap_words(a, b, keep, words);
}

void pack(const uint8_t* bytes, uint64_t* out, size_t n) {
  size_t l = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; l + 64 <= n; l += 64) {
    uint64_t word = 0;
    for (int j = 0; j < 64; j += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + l + j));
      const auto zeros = static_cast<uint64_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)));
      word |= (zeros ^ 0xFFFF) << j;
    }
    out[l / 64] = word;
  }
#endif
  for (; l < n; l += 64) {
    const size_t end = std::min(n, l + 64);
    uint64_t word = 0;
    for (size_t k = l; k < end; ++k) word |= uint64_t{bytes[k] != 0} << (k - l);
    out[l / 64] = word;
  }
}

void expand(const uint64_t* words, uint8_t* bytes, size_t n) {
  size_t l = 0;
  for (; l + 8 <= n; l += 8) {
    const uint64_t spread = kSpread[(words[l / 64] >> (l % 64)) & 0xFF];
    for (int i = 0; i < 8; ++i) bytes[l + i] = static_cast<uint8_t>(spread >> (8 * i));  // one store
  }
  for (; l < n; ++l) bytes[l] = (words[l / 64] >> (l % 64)) & 1;
}

}  // namespace cogsim::wilt::bits
