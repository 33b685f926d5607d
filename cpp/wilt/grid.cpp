#include "wilt/grid.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "wilt/bits.hpp"
#include "wilt/blocks.hpp"
#include "wilt/evaluator.hpp"
#include "wilt/fast_path.hpp"
#include "wilt/lanes.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
#include <immintrin.h>
#endif

namespace cogsim::wilt {
namespace {

using detail::Lanes;

// The variables a value depends on, as bits: x 1, y 2, z 4.
constexpr uint8_t kVarX = 1, kVarY = 2, kVarZ = 4, kAllVars = 7;

uint8_t lane_variable(uint8_t vars) { return vars == 0 ? 0 : static_cast<uint8_t>(1u << (std::bit_width(vars) - 1u)); }

// How values are laid out over the grid. A value that depends on the variables V is held as rows of
// P lanes: lanes along its last variable (z, else y, else x), rows along the others (one row for one
// variable, L rows for two); a constant is one lane. P is the axis length L rounded up to a multiple of
// 4, and lanes past L hold copies of lane L - 1, so vector loops need no tail and padding lanes compute
// what lane L - 1 computes (they never raise where it does not).
//
// An instruction runs over the rows and lanes of its own variables, its *space*; a value of all three
// variables is evaluated one slab at a time (x = axis[i]: L rows along y, lanes along z) and only its
// current slab is held. An operand of fewer variables is seen there through a RowMap.
struct RowMap {
  size_t offset, stride;  // row r reads element offset + r * stride of the operand's own layout
  bool vector;            // the P lanes from there (the operand has the space's lane variable), else one scalar
};

struct Shape {
  size_t size, lanes;  // L and P

  size_t rows(uint8_t vars) const { return vars == 0 ? 1 : std::popcount(vars) == 1 ? 1 : size; }
  size_t elements(uint8_t vars) const { return vars == 0 ? 1 : rows(vars) * lanes; }

  // An operand of variables `own` in the space of `vars` (a superset of own), slab i of all three.
  RowMap map(uint8_t own, uint8_t vars, size_t i) const {
    if (own == 0) return {0, 0, false};
    if (own == vars) return {0, lanes, true};
    if (own & lane_variable(vars)) {  // rows along the space's row variable, if it has it
      if (std::popcount(own) == 1) return {0, 0, true};
      return (own & kVarX) && vars == kAllVars ? RowMap{i * lanes, 0, true} : RowMap{0, lanes, true};
    }
    if (vars != kAllVars) return {0, 1, false};  // two variables: the row variable alone
    if (own == kVarX) return {i, 0, false};
    if (own == kVarY) return {0, 1, false};
    return {i * lanes, 1, false};  // x and y: row i, lane along y
  }

  // The same for a bool held as bits (one word per own row): `offset` counts words for a vector,
  // bits (in the operand's one word) for a scalar.
  RowMap bit_map(uint8_t own, uint8_t vars, size_t i) const {
    if (own == 0) return {0, 0, false};
    if (own == vars) return {0, 1, true};
    if (own & lane_variable(vars)) {
      if (std::popcount(own) == 1) return {0, 0, true};
      return (own & kVarX) && vars == kAllVars ? RowMap{i, 0, true} : RowMap{0, 1, true};
    }
    if (vars != kAllVars) return {0, 1, false};
    if (own == kVarX) return {i, 0, false};
    if (own == kVarY) return {0, 1, false};
    return {i * 64, 1, false};  // x and y: bit j of word i
  }
};

using detail::bit_comparison;
using detail::is_comparison;

uint64_t low_bits(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The tables of a comparison between a scalar per row and a vector of whole numbers per row (see
// GridEvaluator::table_rows): for each own row of the vector, the row's bits for every key of the
// scalar. Keys t run from `base` for `count` whole numbers: 2 (t - base) for a whole scalar t,
// 2 (t - base) + 1 for one strictly between t and t + 1, 2 count for NaN.
struct CompareTables {
  bool usable = false;
  int64_t base = 0, count = 0;
  size_t row_words = 0;         // 2 count + 1
  std::vector<uint64_t> words;  // row_words per vector row
  std::vector<uint32_t> keys;   // per element of the scalar's own layout
};

// Buffers a thread reuses from call to call.
struct GridScratch {
  std::vector<double> doubles, temps, lane_f;
  std::vector<int64_t> lane_i;
  std::vector<uint8_t> lane_t, lane_fl;
  std::vector<uint64_t> words, spare;
  std::vector<size_t> all_three;  // the instructions of all three variables, run slab by slab
  std::vector<double> axis;       // padded
  std::vector<const double*> call;
  std::vector<Lanes> views, own;
  std::vector<uint8_t> truth_bytes, status_bytes;
  std::vector<CompareTables> compare_tables;  // per instruction, built on the first slab
  std::vector<uint64_t> marks, greater;
};
thread_local GridScratch tls_grid;

// Tables pay while their keys (a vector row's span of whole numbers, plus two) cost less than the
// lane comparisons they save: at most this many keys per row of the comparison.
constexpr size_t kTableKeysPerRow = 8;

// Keys are whole numbers of at most this magnitude (they and their differences fit int32).
constexpr double kMaxKey = 1e9;

// Whether every value is a finite whole number (from 2^52 up every finite double is one), and their
// range. Below 2^52, adding and taking away 2^52 rounds to a whole number: the same one if v is whole.
bool whole_range_scalar(const double* v, size_t from, size_t n, double& lo, double& hi) {
  constexpr double kTwo52 = 4503599627370496.0;
  for (size_t e = from; e < n; ++e) {
    const double magnitude = std::fabs(v[e]);
    if (!(magnitude < kTwo52 ? (magnitude + kTwo52) - kTwo52 == magnitude : magnitude <= DBL_MAX)) return false;
    lo = std::min(lo, v[e]);
    hi = std::max(hi, v[e]);
  }
  return true;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
__attribute__((target("avx2"))) bool whole_range_avx2(const double* v, size_t n, double& lo, double& hi) {
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0), largest = _mm256_set1_pd(DBL_MAX);
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d low = _mm256_set1_pd(lo), high = _mm256_set1_pd(hi);
  __m256d bad = _mm256_setzero_pd();
  size_t e = 0;
  for (; e + 4 <= n; e += 4) {
    const __m256d x = _mm256_loadu_pd(v + e), magnitude = _mm256_andnot_pd(sign, x);
    const __m256d small = _mm256_cmp_pd(magnitude, two52, _CMP_LT_OQ);
    const __m256d rounded = _mm256_sub_pd(_mm256_add_pd(magnitude, two52), two52);
    const __m256d whole = _mm256_blendv_pd(_mm256_cmp_pd(magnitude, largest, _CMP_LE_OQ),
                                           _mm256_cmp_pd(rounded, magnitude, _CMP_EQ_OQ), small);
    bad = _mm256_or_pd(bad, _mm256_xor_pd(whole, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))));
    low = _mm256_min_pd(low, x);
    high = _mm256_max_pd(high, x);
  }
  if (_mm256_movemask_pd(bad)) return false;
  alignas(32) double lows[4], highs[4];
  _mm256_store_pd(lows, low);
  _mm256_store_pd(highs, high);
  for (int k = 0; k < 4; ++k) {
    lo = std::min(lo, lows[k]);
    hi = std::max(hi, highs[k]);
  }
  return whole_range_scalar(v, e, n, lo, hi);
}
#endif

bool whole_range(const double* v, size_t n, double& lo, double& hi) {
  lo = hi = v[0];
#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
  if (__builtin_cpu_supports("avx2")) return whole_range_avx2(v, n, lo, hi);
#endif
  return whole_range_scalar(v, 0, n, lo, hi);
}

// The range of the finite values, none beyond kMaxKey (false if one is); [0, 0] when none is finite.
bool finite_range(const double* s, size_t n, double& lo, double& hi) {
  bool any = false;
  for (size_t e = 0; e < n; ++e) {
    if (!(std::fabs(s[e]) <= DBL_MAX)) continue;  // inf or NaN: keys of their own
    if (std::fabs(s[e]) > kMaxKey) return false;
    lo = any ? std::min(lo, s[e]) : s[e];
    hi = any ? std::max(hi, s[e]) : s[e];
    any = true;
  }
  if (!any) lo = hi = 0.0;
  return true;
}

// floor(x) for |x| <= kMaxKey + 1, without libm (the baseline x86-64 target has no rounding instruction).
int64_t floor_of(double x) {
  const auto t = static_cast<int64_t>(x);
  return static_cast<double>(t) > x ? t - 1 : t;
}

// The key of each scalar for tables of keys base .. base + count - 1: 2 (floor - base), plus one if
// the scalar is not whole; scalars beyond either end (inf too) take that end's whole key, NaN 2 count.
void table_keys_scalar(const double* s, size_t from, size_t n, int64_t base, int64_t count, uint32_t* keys) {
  const auto first = static_cast<double>(base), last = static_cast<double>(base + count - 1);
  for (size_t e = from; e < n; ++e) {
    const double x = s[e];
    if (x != x) {
      keys[e] = static_cast<uint32_t>(2 * count);
      continue;
    }
    const double c = std::min(std::max(x, first), last);
    const int64_t floor = floor_of(c);
    keys[e] = static_cast<uint32_t>(2 * (floor - base) + (static_cast<double>(floor) != c));
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
// Four at a time: AVX's floor, truncation to int32, the not-whole mask narrowed to int32 lanes.
__attribute__((target("avx2"))) void table_keys_avx2(const double* s, size_t n, int64_t base, int64_t count,
                                                     uint32_t* keys) {
  const __m256d first = _mm256_set1_pd(static_cast<double>(base));
  const __m256d last = _mm256_set1_pd(static_cast<double>(base + count - 1));
  const __m128i base32 = _mm_set1_epi32(static_cast<int32_t>(base)),
                nan_key = _mm_set1_epi32(static_cast<int32_t>(2 * count));
  const __m256i narrow = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);  // the low halves of four 64-bit lanes
  size_t e = 0;
  for (; e + 4 <= n; e += 4) {
    const __m256d x = _mm256_loadu_pd(s + e);
    const __m256d nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    const __m256d c = _mm256_min_pd(_mm256_max_pd(_mm256_blendv_pd(x, first, nan), first), last);
    const __m256d floor = _mm256_floor_pd(c);
    const __m256i fraction64 = _mm256_castpd_si256(_mm256_cmp_pd(floor, c, _CMP_NEQ_OQ));
    const __m128i fraction = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(fraction64, narrow));  // -1 or 0
    const __m128i nan32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(nan), narrow));
    const __m128i offset = _mm_sub_epi32(_mm256_cvttpd_epi32(floor), base32);
    const __m128i key = _mm_sub_epi32(_mm_add_epi32(offset, offset), fraction);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(keys + e), _mm_blendv_epi8(key, nan_key, nan32));
  }
  table_keys_scalar(s, e, n, base, count, keys);
}
#endif

void table_keys(const double* s, size_t n, int64_t base, int64_t count, uint32_t* keys) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(COGSIM_NO_CLONES)
  if (__builtin_cpu_supports("avx2")) return table_keys_avx2(s, n, base, count, keys);
#endif
  table_keys_scalar(s, 0, n, base, count, keys);
}

// One vector row's words for `s op v`: key by key, the lanes where it holds (its whole word, then its
// `between` word). `marks[t - base]` holds the lanes whose value is t; `greater` is scratch.
void fill_row_table(const std::vector<uint64_t>& marks, bits::Cmp op, std::vector<uint64_t>& greater, uint64_t* out) {
  const size_t count = marks.size();
  greater.resize(count);  // lanes with v > t
  uint64_t above = 0;
  for (size_t k = count; k-- > 0;) {
    greater[k] = above;
    above |= marks[k];
  }
  const auto fill = [&](auto whole, auto between) {
    uint64_t at_most = 0;  // lanes with v <= t
    for (size_t k = 0; k < count; ++k) {
      at_most |= marks[k];
      out[2 * k] = whole(marks[k], greater[k], at_most);
      out[2 * k + 1] = between(greater[k], at_most);
    }
  };
  switch (op) {
    case bits::Cmp::Eq:
      fill([](uint64_t eq, uint64_t, uint64_t) { return eq; }, [](uint64_t, uint64_t) { return uint64_t{0}; });
      break;
    case bits::Cmp::Ne:
      fill([](uint64_t eq, uint64_t, uint64_t) { return ~eq; }, [](uint64_t, uint64_t) { return ~uint64_t{0}; });
      break;
    case bits::Cmp::Lt:
      fill([](uint64_t, uint64_t gt, uint64_t) { return gt; }, [](uint64_t gt, uint64_t) { return gt; });
      break;
    case bits::Cmp::Le:
      fill([](uint64_t eq, uint64_t gt, uint64_t) { return gt | eq; }, [](uint64_t gt, uint64_t) { return gt; });
      break;
    case bits::Cmp::Gt:
      fill([](uint64_t eq, uint64_t, uint64_t le) { return le & ~eq; }, [](uint64_t, uint64_t le) { return le; });
      break;
    case bits::Cmp::Ge:
      fill([](uint64_t, uint64_t, uint64_t le) { return le; }, [](uint64_t, uint64_t le) { return le; });
      break;
  }
  out[2 * count] = op == bits::Cmp::Ne ? ~uint64_t{0} : 0;  // NaN: unordered
}

template <typename T>
T* sized(std::vector<T>& buffer, size_t count) {
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

class GridEvaluator {
 public:
  GridEvaluator(const Program& p, const std::vector<double>& axis)
      : p_(p), shape_{axis.size(), (axis.size() + 3) / 4 * 4}, s_(tls_grid), vars_(p.variables) {
    if (axis.empty() || axis.size() > kMaxGridAxis) {
      throw std::invalid_argument("grid axis must hold 1.." + std::to_string(kMaxGridAxis) + " values");
    }
    s_.axis.assign(shape_.lanes, axis.back());
    std::copy(axis.begin(), axis.end(), s_.axis.begin());
    for (size_t k = 0; k < p.code.size(); ++k) {
      most_operands_ = std::max<size_t>(most_operands_, p.operand_start[k + 1] - p.operand_start[k]);
    }
    block_ = shape_.size * shape_.lanes;
  }

  // The typed fast path (Program::fast); false if some lane raised or needs the fallback.
  bool run_fast(GridTruth& out);
  // The general VM: every point's status beside its truth.
  void run_general(GridTruth& out);

 private:
  size_t result() const { return p_.code.size() - 1; }
  size_t space_rows(uint8_t vars) const { return vars == kAllVars ? shape_.size : shape_.rows(vars); }
  size_t space_lanes(uint8_t vars) const { return vars == 0 ? 1 : shape_.lanes; }

  // -- the typed fast path --
  const double* value(int32_t v) const;
  bits::RowOperand row_operand(int32_t v, uint8_t vars, size_t i) const;
  bool fast_values(size_t k, size_t i);
  void fast_bits(size_t k, size_t i);
  bool table_rows(size_t k, size_t i, uint64_t* out);
  void build_tables(int32_t vector, int32_t scalar, bits::Cmp op, size_t lookups, CompareTables& tables) const;
  bits::BitRows bool_rows(int32_t v, uint8_t vars, size_t i, uint64_t* spare) const;
  uint64_t* own_words(size_t k) { return s_.words.data() + k * shape_.size * shape_.size; }
  const uint64_t* own_words(size_t k) const { return s_.words.data() + k * shape_.size * shape_.size; }

  // -- the general path --
  Lanes own_lanes(size_t k) const { return s_.own[k]; }
  void general_values(size_t k, size_t i);
  void general_result_rows(size_t i, GridTruth& out);

  const Program& p_;
  const Shape shape_;
  GridScratch& s_;
  const std::vector<uint8_t>& vars_;  // per value: the variables it depends on
  size_t block_ = 0;                  // elements of the largest own layout or slab: L x P
  uint64_t* result_rows_ = nullptr;   // fast path: the truth rows being written
  size_t most_operands_ = 0;
};

const double* GridEvaluator::value(int32_t v) const {
  switch (p_.code[v].op) {
    case Op::Const:
      return &p_.fast_constants[v];
    case Op::Arg:
      return s_.axis.data();
    default:
      return s_.doubles.data() + static_cast<size_t>(v) * block_;
  }
}

bits::RowOperand GridEvaluator::row_operand(int32_t v, uint8_t vars, size_t i) const {
  const RowMap m = shape_.map(vars_[v], vars, i);
  return {value(v) + m.offset, m.stride, m.vector};
}

// A double-valued instruction over its space (slab i for all three variables), its operands copied
// into that space where they are seen through another layout.
bool GridEvaluator::fast_values(size_t k, size_t i) {
  const Instr& in = p_.code[k];
  const uint8_t vars = vars_[k];
  const size_t rows = space_rows(vars), lanes = space_lanes(vars);
  size_t temp = 0;
  for (uint32_t o = p_.operand_start[k]; o < p_.operand_start[k + 1]; ++o) {
    const int32_t v = p_.operand_lists[o];
    const RowMap m = shape_.map(vars_[v], vars, i);
    const double* source = value(v);
    if (vars_[v] == vars && p_.code[v].op != Op::Const) {
      s_.call[v] = source;
      continue;
    }
    double* copy = s_.temps.data() + (temp++) * block_;
    for (size_t r = 0; r < rows; ++r) {
      if (m.vector) {
        std::memcpy(copy + r * lanes, source + m.offset + r * m.stride, lanes * sizeof(double));
      } else {
        std::fill(copy + r * lanes, copy + (r + 1) * lanes, source[m.offset + r * m.stride]);
      }
    }
    s_.call[v] = copy;
  }
  double* out = s_.doubles.data() + k * block_;
  return detail::fast_step(p_, in, s_.call.data(), out, rows * lanes) == 0;
}

// Rows of P truth bits of a bool operand in the space of `vars` (slab i): its own bit rows where it is
// held as bits, else its doubles compared with zero (NaN is truthy, as in CPython).
bits::BitRows GridEvaluator::bool_rows(int32_t v, uint8_t vars, size_t i, uint64_t* spare) const {
  if (!p_.fast_bits[v]) {
    static constexpr double kZero = 0.0;
    bits::compare_rows(bits::Cmp::Ne, row_operand(v, vars, i), {&kZero, 0, false}, spare, space_rows(vars),
                       shape_.lanes);
    return {spare, 0, 1};
  }
  const uint64_t* own = own_words(v);
  if (vars_[v] == kAllVars) return {own + i * shape_.size, 0, 1};
  const RowMap m = shape_.bit_map(vars_[v], vars, i);
  if (m.vector) return {own + m.offset, 0, m.stride};
  // One bit per row: the rows' bits lie in one word (the operand's row for the space's row, its lane
  // variable along the space's rows or fixed).
  return {nullptr, own[m.offset / 64] >> (m.offset % 64), m.stride};
}

// An instruction whose value is held as bits (Program::fast_bits): its rows in its space.
void GridEvaluator::fast_bits(size_t k, size_t i) {
  const Instr& in = p_.code[k];
  const uint8_t vars = vars_[k];
  const size_t rows = space_rows(vars), lanes = shape_.lanes;
  uint64_t* out = vars != kAllVars ? own_words(k)
                  : k == result()  ? result_rows_ + i * shape_.size
                                   : own_words(k) + i * shape_.size;
  uint64_t* spare_a = s_.spare.data();
  uint64_t* spare_b = spare_a + shape_.size;
  if (is_comparison(in.op)) {
    if (std::popcount(vars) >= 2 && table_rows(k, i, out)) return;
    bits::compare_rows(bit_comparison(in.op), row_operand(in.a, vars, i), row_operand(in.b, vars, i), out, rows, lanes);
    return;
  }
  switch (in.op) {
    case Op::And:
    case Op::Or: {  // bools: `a and b` is a & b, `a or b` is a | b
      bits::combine_rows(in.op == Op::And, bool_rows(in.a, vars, i, spare_a), bool_rows(in.b, vars, i, spare_b), out,
                         rows);
      return;
    }
    case Op::Not:
    case Op::Truth: {
      // not a = a xor all ones, computed as (a or 0) with the row flipped after; truth(a) = a or 0
      static constexpr uint64_t kNone = 0;
      bits::combine_rows(false, bool_rows(in.a, vars, i, spare_a), {&kNone, 0, 0}, out, rows);
      if (in.op == Op::Not) {
        for (size_t r = 0; r < rows; ++r) out[r] = ~out[r];
      }
      return;
    }
    case Op::IsInteger: {
      const bits::RowOperand a = row_operand(in.a, vars, i);  // its own space: a vector, or a constant
      for (size_t r = 0; r < rows; ++r) {
        uint64_t word = 0;
        for (size_t l = 0; l < lanes; ++l) {
          const double x = a.vector ? a.data[r * a.stride + l] : a.data[r * a.stride];
          word |= uint64_t{std::isfinite(x) && std::floor(x) == x} << l;
        }
        out[r] = word;
      }
      return;
    }
    default:  // IsInstance (bit_values() admits no other op)
      std::fill(out, out + rows, (in.b & 2) ? ~uint64_t{0} : 0);
  }
}

// A comparison of two or three variables whose one operand lacks the space's lane variable (a scalar
// per row: x for x > y, x + y for x + y == z, or a constant) and whose other has it (a vector per row,
// not a slab of all three) with whole numbers for values, as on the integer grid: each of the
// vector's own rows gets a table from the scalar's key (its floor, and whether it is whole) to the
// row's bits, built on the first slab, so a row costs a lookup rather than P lane comparisons. False
// if it does not apply.
bool GridEvaluator::table_rows(size_t k, size_t i, uint64_t* out) {
  const Instr& in = p_.code[k];
  const uint8_t vars = vars_[k], lane = lane_variable(vars);
  const bool a_vector = (vars_[in.a] & lane) != 0, b_vector = (vars_[in.b] & lane) != 0;
  if (a_vector == b_vector || vars_[a_vector ? in.a : in.b] == kAllVars) return false;
  const int32_t vector = a_vector ? in.a : in.b, scalar = a_vector ? in.b : in.a;
  CompareTables& tables = s_.compare_tables[k];
  if (i == 0) {
    const bits::Cmp op = bit_comparison(in.op);
    build_tables(vector, scalar, a_vector ? bits::mirrored(op) : op,
                 space_rows(vars) * (vars == kAllVars ? shape_.size : 1), tables);
  }
  if (!tables.usable) return false;
  const RowMap s_map = shape_.map(vars_[scalar], vars, i), v_map = shape_.map(vars_[vector], vars, i);
  const uint32_t* keys = tables.keys.data() + s_map.offset;
  // The vector's own row for the space's row r (its offset and stride count lanes of whole rows).
  const uint64_t* words = tables.words.data() + v_map.offset / shape_.lanes * tables.row_words;
  const size_t step = v_map.stride / shape_.lanes * tables.row_words;
  for (size_t r = 0, rows = space_rows(vars); r < rows; ++r) out[r] = words[r * step + keys[r * s_map.stride]];
  return true;
}

// The tables of `scalar op vector`, if the vector holds whole numbers and the keys pay. Keys run over
// the whole numbers t0 - 1 .. t1 + 1, where [t0, t1] is the vector's range if it is narrow, else the
// range just around the floors of the scalar's finite values: a vector value below t0 compares with
// every scalar as t0 does and one above t1 as t1 does, so each is marked there, and every scalar
// beyond the keys (inf too) compares as the outermost one.
void GridEvaluator::build_tables(int32_t vector, int32_t scalar, bits::Cmp op, size_t lookups,
                                 CompareTables& tables) const {
  tables.usable = false;
  const size_t rows = shape_.rows(vars_[vector]), lanes = shape_.lanes;
  const double* values = value(vector);
  double lo = 0.0, hi = 0.0;
  if (!whole_range(values, rows * lanes, lo, hi)) return;
  const auto most_keys = static_cast<double>(kTableKeysPerRow * lookups / rows);
  const size_t scalars = shape_.elements(vars_[scalar]);
  const double* s = value(scalar);
  if (!(hi - lo + 3 <= most_keys && std::fabs(lo) <= kMaxKey && std::fabs(hi) <= kMaxKey)) {
    if (!finite_range(s, scalars, lo, hi)) return;
    lo = static_cast<double>(floor_of(lo) - 1);
    hi = static_cast<double>(floor_of(hi) + 1);
    if (!(hi - lo + 3 <= most_keys)) return;
  }
  const auto t0 = static_cast<int64_t>(lo), t1 = static_cast<int64_t>(hi);
  tables.base = t0 - 1;
  tables.count = t1 - t0 + 3;
  tables.row_words = 2 * static_cast<size_t>(tables.count) + 1;
  tables.words.resize(rows * tables.row_words);
  std::vector<uint64_t>& marks = s_.marks;
  for (size_t r = 0; r < rows; ++r) {
    marks.assign(static_cast<size_t>(tables.count), 0);
    const double* row = values + r * lanes;
    for (size_t l = 0; l < lanes; ++l) {
      const double v = std::clamp(row[l], lo, hi);
      marks[static_cast<size_t>(static_cast<int64_t>(v) - tables.base)] |= uint64_t{1} << l;
    }
    fill_row_table(marks, op, s_.greater, tables.words.data() + r * tables.row_words);
  }
  tables.keys.resize(scalars);
  table_keys(s, scalars, tables.base, tables.count, tables.keys.data());
  tables.usable = true;
}

bool GridEvaluator::run_fast(GridTruth& out) {
  const size_t n = p_.code.size(), size = shape_.size;
  sized(s_.doubles, n * block_);
  sized(s_.temps, std::max<size_t>(most_operands_, 1) * block_);
  sized(s_.words, n * size * size);
  sized(s_.spare, 2 * size);
  sized(s_.call, n);
  if (s_.compare_tables.size() < n) s_.compare_tables.resize(n);
  std::vector<size_t>& all_three = s_.all_three;
  all_three.clear();
  for (size_t k = 0; k < n; ++k) {
    const Op op = p_.code[k].op;
    if (op == Op::Arg || op == Op::Const) continue;
    if (vars_[k] == kAllVars) {
      all_three.push_back(k);
    } else if (p_.fast_bits[k]) {
      fast_bits(k, 0);
    } else if (!fast_values(k, 0)) {
      return false;
    }
  }
  out.rows.resize(size * size);
  out.status.clear();
  result_rows_ = out.rows.data();
  const int32_t last = static_cast<int32_t>(result());
  static constexpr double kZero = 0.0;
  for (size_t i = 0; i < size; ++i) {
    for (const size_t k : all_three) {
      if (p_.fast_bits[k]) {
        fast_bits(k, i);  // the result's own rows are out.rows
      } else if (!fast_values(k, i)) {
        return false;
      }
    }
    uint64_t* rows = out.rows.data() + i * size;
    if (p_.fast_bits[last] && vars_[last] != kAllVars) {
      static constexpr uint64_t kNone = 0;
      bits::combine_rows(false, bool_rows(last, kAllVars, i, s_.spare.data()), {&kNone, 0, 0}, rows, size);
    } else if (!p_.fast_bits[last]) {
      bits::compare_rows(bits::Cmp::Ne, row_operand(last, kAllVars, i), {&kZero, 0, false}, rows, size, shape_.lanes);
    }
  }
  return true;
}

// A value of the general VM over its space (slab i for all three variables), operands copied into
// that space where they are seen through another layout.
void GridEvaluator::general_values(size_t k, size_t i) {
  const uint8_t vars = vars_[k];
  const size_t rows = space_rows(vars), lanes = space_lanes(vars);
  size_t temp = 0;
  for (uint32_t o = p_.operand_start[k]; o < p_.operand_start[k + 1]; ++o) {
    const int32_t v = p_.operand_lists[o];
    const Lanes source = own_lanes(v);
    if (vars_[v] == vars) {
      s_.views[v] = source;
      continue;
    }
    const RowMap m = shape_.map(vars_[v], vars, i);
    const size_t at = (p_.code.size() + temp++) * block_;  // the temporaries follow the values
    const Lanes copy{s_.lane_f.data() + at, s_.lane_i.data() + at, s_.lane_t.data() + at, s_.lane_fl.data() + at};
    for (size_t r = 0; r < rows; ++r) {
      const size_t to = r * lanes, from = m.offset + r * m.stride;
      if (m.vector) {
        std::memcpy(copy.f + to, source.f + from, lanes * sizeof(double));
        std::memcpy(copy.i + to, source.i + from, lanes * sizeof(int64_t));
        std::memcpy(copy.t + to, source.t + from, lanes);
        std::memcpy(copy.fl + to, source.fl + from, lanes);
      } else {
        std::fill(copy.f + to, copy.f + to + lanes, source.f[from]);
        std::fill(copy.i + to, copy.i + to + lanes, source.i[from]);
        std::memset(copy.t + to, source.t[from], lanes);
        std::memset(copy.fl + to, source.fl[from], lanes);
      }
    }
    s_.views[v] = copy;
  }
  detail::general_step(p_, k, s_.views.data(), own_lanes(k), rows * lanes);
}

void GridEvaluator::run_general(GridTruth& out) {
  const size_t n = p_.code.size(), size = shape_.size;
  const size_t lanes_needed = (n + std::max<size_t>(most_operands_, 1)) * block_;
  sized(s_.lane_f, lanes_needed);
  sized(s_.lane_i, lanes_needed);
  sized(s_.lane_t, lanes_needed);
  sized(s_.lane_fl, lanes_needed);
  sized(s_.views, n);
  s_.own.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t at = k * block_;
    s_.own[k] = {s_.lane_f.data() + at, s_.lane_i.data() + at, s_.lane_t.data() + at, s_.lane_fl.data() + at};
    if (p_.code[k].op == Op::Arg) {  // a float argument: the axis
      std::copy(s_.axis.begin(), s_.axis.end(), s_.own[k].f);
      std::fill(s_.own[k].i, s_.own[k].i + shape_.lanes, 0);
      std::memset(s_.own[k].t, kFloat, shape_.lanes);
      std::memset(s_.own[k].fl, 0, shape_.lanes);
    }
  }
  std::vector<size_t>& all_three = s_.all_three;
  all_three.clear();
  for (size_t k = 0; k < n; ++k) {
    if (p_.code[k].op == Op::Arg) continue;
    if (vars_[k] == kAllVars) {
      all_three.push_back(k);
    } else {
      general_values(k, 0);
    }
  }
  out.rows.assign(size * size, 0);
  out.status.clear();
  for (size_t i = 0; i < size; ++i) {
    for (const size_t k : all_three) general_values(k, i);
    general_result_rows(i, out);
  }
}

// The truth rows and statuses of slab i from the result's lanes.
void GridEvaluator::general_result_rows(size_t i, GridTruth& out) {
  const size_t size = shape_.size, lanes = shape_.lanes, n = size * lanes;
  const size_t last = result();
  Lanes result = own_lanes(last);
  if (vars_[last] != kAllVars) {  // seen from the slab
    const RowMap m = shape_.map(vars_[last], kAllVars, i);
    const size_t at = p_.code.size() * block_;
    const Lanes copy{s_.lane_f.data() + at, s_.lane_i.data() + at, s_.lane_t.data() + at, s_.lane_fl.data() + at};
    for (size_t r = 0; r < size; ++r) {
      const size_t to = r * lanes, from = m.offset + r * m.stride;
      for (size_t l = 0; l < lanes; ++l) {
        const size_t e = m.vector ? from + l : from;
        copy.f[to + l] = result.f[e];
        copy.i[to + l] = result.i[e];
        copy.t[to + l] = result.t[e];
        copy.fl[to + l] = result.fl[e];
      }
    }
    result = copy;
  }
  uint8_t* truth = sized(s_.truth_bytes, n);
  uint8_t* status = sized(s_.status_bytes, n);
  detail::write_results(result, n, truth, status, p_.static_tags[last]);
  for (size_t r = 0; r < size; ++r) {
    uint64_t word = 0;
    for (size_t l = 0; l < size; ++l) {
      word |= uint64_t{truth[r * lanes + l] != 0} << l;
      if (status[r * lanes + l] == kOk) continue;
      if (out.status.empty()) out.status.assign(size * size * size, kOk);
      out.status[(i * size + r) * size + l] = status[r * lanes + l];
    }
    out.rows[i * size + r] = word;
  }
}

// Comparison counts of rule a against packed truth bits on points [offset, offset + count).
Comparison compare_range(const Program& a, const uint64_t* truth, const Cases& cases, size_t offset, size_t count,
                         size_t max_examples, unsigned threads) {
  const auto packed = [truth](size_t begin, size_t, uint64_t*) { return truth + begin / 64; };
  return detail::compare_blocks(a, nullptr, packed, cases.xs + offset, cases.ys + offset, cases.zs + offset, count,
                                offset, max_examples, threads);
}

// The first mismatching points of the grid rows (where kept, if given), in point order.
void find_mismatches(const uint64_t* truth, const uint64_t* expected, const uint64_t* kept, size_t rows, size_t size,
                     size_t first_point, size_t max_examples, Comparison& c) {
  for (size_t r = 0; r < rows && c.first_mismatches.size() < max_examples; ++r) {
    for (uint64_t differ = (truth[r] ^ expected[r]) & (kept ? kept[r] : low_bits(size));
         differ && c.first_mismatches.size() < max_examples; differ &= differ - 1) {
      c.first_mismatches.push_back(static_cast<int64_t>(first_point + r * size + std::countr_zero(differ)));
    }
  }
}

// Comparison counts of rule a against the reference's grid rows.
Comparison compare_grid(const Program& a, const Reference& reference, const Cases& cases, size_t max_examples) {
  thread_local GridTruth tls_truth;
  thread_local std::vector<uint64_t> tls_kept;
  GridTruth& g = tls_truth;
  evaluate_grid(a, cases.axis, g);
  const size_t size = cases.axis.size(), rows = size * size;
  const uint64_t* truth = g.rows.data();  // bits past the axis may be set
  const uint64_t* expected = reference.grid_rows.data();
  Comparison c;
  if (g.status.empty()) {  // every point decided: only the guess's own counts need counting
    const bits::Overlap o = bits::overlap(truth, expected, low_bits(size), rows);
    c.true_a = o.a;
    c.true_b = reference.grid_true;
    c.true_both = o.both;
    c.mismatches = o.a + reference.grid_true - 2 * o.both;
    if (c.mismatches) find_mismatches(truth, expected, nullptr, rows, size, cases.grid_begin, max_examples, c);
    return c;
  }
  std::vector<uint64_t>& kept = tls_kept;
  kept.assign(rows, low_bits(size));
  for (size_t p = 0; p < g.status.size(); ++p) {
    const uint8_t status = g.status[p];
    if (status & kNeedsFallback) kept[p / size] &= ~(uint64_t{1} << (p % size));
    if (status != kRaised) continue;
    ++c.raised_a;
    if (c.first_raised_a.size() < max_examples) c.first_raised_a.push_back(static_cast<int64_t>(cases.grid_begin + p));
  }
  const bits::Tally t = bits::tally(truth, expected, kept.data(), rows);
  c.true_a = t.a;
  c.true_b = t.b;
  c.true_both = t.both;
  c.mismatches = t.differ;
  c.fallback = static_cast<int64_t>(size * rows) - t.kept;
  if (c.mismatches) find_mismatches(truth, expected, kept.data(), rows, size, cases.grid_begin, max_examples, c);
  return c;
}

std::vector<uint64_t> pack_range(const uint8_t* truth, size_t count) {
  std::vector<uint64_t> words(bits::words_for(count) + 1, 0);
  bits::pack(truth, words.data(), count);
  return words;
}

}  // namespace

bool factoring_pays(const Program& p) {
  int by_point = 0, factored = 0;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const Op op = p.code[k].op;
    if (op == Op::Arg || op == Op::Const) continue;
    ++by_point;
    if (p.variables[k] != kAllVars) continue;
    ++factored;
    if (p.fast && p.fast_bits[k]) continue;  // held as bits: its operands are read where they are
    for (uint32_t o = p.operand_start[k]; o < p.operand_start[k + 1]; ++o) {
      const int32_t v = p.operand_lists[o];
      factored += p.variables[v] != kAllVars && p.code[v].op != Op::Const;  // copied into the slab first
    }
  }
  return factored < by_point;
}

void evaluate_grid(const Program& p, const std::vector<double>& axis, GridTruth& out) {
  GridEvaluator evaluator(p, axis);
  if (p.fast && evaluator.run_fast(out)) return;
  evaluator.run_general(out);
}

bool grid_matches(const Cases& cases) {
  const size_t size = cases.axis.size();
  if (size == 0 || size > kMaxGridAxis || cases.grid_begin + cases.grid_size() > cases.n) return false;
  const double* axis = cases.axis.data();
  size_t at = cases.grid_begin;
  for (size_t i = 0; i < size; ++i) {
    for (size_t j = 0; j < size; ++j) {
      for (size_t k = 0; k < size; ++k, ++at) {
        // bit for bit: -0.0 and 0.0 are different points to a rule (1 / x, math.copysign)
        if (std::memcmp(&cases.xs[at], &axis[i], sizeof(double)) ||
            std::memcmp(&cases.ys[at], &axis[j], sizeof(double)) ||
            std::memcmp(&cases.zs[at], &axis[k], sizeof(double))) {
          return false;
        }
      }
    }
  }
  return true;
}

Reference pack_reference(const Cases& cases, const uint8_t* truth) {
  Reference r;
  const size_t size = cases.axis.size(), end = cases.grid_begin + cases.grid_size();
  r.before = pack_range(truth, cases.grid_begin);
  r.after = pack_range(truth + end, cases.n - end);
  r.grid = pack_range(truth + cases.grid_begin, cases.grid_size());
  r.grid_rows.assign(size * size, 0);
  for (size_t row = 0; row < size * size; ++row) {
    for (size_t k = 0; k < size; ++k) r.grid_rows[row] |= uint64_t{truth[cases.grid_begin + row * size + k] != 0} << k;
    r.grid_true += std::popcount(r.grid_rows[row]);
  }
  return r;
}

Comparison check(const Program& a, const Reference& reference, const Cases& cases, size_t max_examples,
                 unsigned threads) {
  const size_t end = cases.grid_begin + cases.grid_size();
  Comparison total;
  detail::add_comparison(total,
                         compare_range(a, reference.before.data(), cases, 0, cases.grid_begin, max_examples, threads),
                         max_examples);
  if (!cases.axis.empty()) {
    const Comparison grid = factoring_pays(a) ? compare_grid(a, reference, cases, max_examples)
                                              : compare_range(a, reference.grid.data(), cases, cases.grid_begin,
                                                              cases.grid_size(), max_examples, threads);
    detail::add_comparison(total, grid, max_examples);
  }
  detail::add_comparison(
      total, compare_range(a, reference.after.data(), cases, end, cases.n - end, max_examples, threads), max_examples);
  return total;
}

}  // namespace cogsim::wilt
