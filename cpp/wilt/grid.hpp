// WILT checks factored over a product grid. Most of a case set's points are the integer grid
// range(-20, 21)^3, where a value that depends on one variable takes 41 values and one that
// depends on two takes 41 x 41: each value of a rule is evaluated at the shape of the variables it
// depends on (x % 2 == 0 on 41 values, x > y on a 41 x 41 table), and broadcast only where they
// meet, its truths held one bit per point. Every lane runs the VM's own instructions on the same
// operand values a point would see, so each point's truth and status are what evaluate() gives
// it; a rule whose typed fast path raises anywhere on the grid is evaluated again on the general
// path, which applies CPython's short-circuit rules to the error, as evaluate() does per block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wilt/vm.hpp"

namespace cogsim::wilt {

// Longest grid axis: a value of two variables (axis x axis rounded up to 4) fits one block of the
// general VM (detail::kBlock lanes).
constexpr size_t kMaxGridAxis = 44;

// The truth of every point of axis^3 (x slowest, z fastest: itertools.product's order), one word
// per (x, y) row: rows[i * L + j] bit k holds the point (axis[i], axis[j], axis[k]); bits from L up
// are not part of it (they may be set). status is empty when every point was decided and none
// raised, else one Status per point in grid order.
struct GridTruth {
  std::vector<uint64_t> rows;
  std::vector<uint8_t> status;
};

// Throws std::invalid_argument for an axis of 0 or more than kMaxGridAxis values.
void evaluate_grid(const Program& p, const std::vector<double>& axis, GridTruth& out);

// The points of a check: n of them at xs, ys, zs (not owned), of which [grid_begin, grid_begin +
// L^3) are the grid of `axis` (empty axis: no grid part).
struct Cases {
  const double *xs = nullptr, *ys = nullptr, *zs = nullptr;
  size_t n = 0;
  std::vector<double> axis;
  size_t grid_begin = 0;
  size_t grid_size() const { return axis.size() * axis.size() * axis.size(); }
};

// Whether cases' points in the grid range are exactly (bit for bit) axis^3 in order.
bool grid_matches(const Cases& cases);

// A rule's truth on a case set, packed once: the bits of the points before and after the grid part,
// and the grid part's rows as GridTruth holds them.
struct Reference {
  std::vector<uint64_t> before, after, grid;  // packed bits of the points in order
  std::vector<uint64_t> grid_rows;
  int64_t grid_true = 0;  // true points of the grid part
};
Reference pack_reference(const Cases& cases, const uint8_t* truth);

// Whether evaluating a rule on the grid factored is expected to cost less than point by point, counting
// passes over the grid's points: point by point every instruction makes one; factored only those of
// all three variables do, and those holding doubles need every operand of fewer variables copied into
// their slab first (a pass each). Rules that compute with all three variables before comparing
// (max(x, y, z) == x) are no faster factored.
bool factoring_pays(const Program& p);

// compare(a, nullptr, truth, ...) on the case set, the grid part evaluated by evaluate_grid where
// factoring pays.
Comparison check(const Program& a, const Reference& reference, const Cases& cases, size_t max_examples,
                 unsigned threads);

}  // namespace cogsim::wilt
