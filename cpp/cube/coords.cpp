#include "cube/coords.hpp"

#include <bit>
#include <stdexcept>

namespace cogsim::cube {
namespace {

// Bits set in every 12-bit mask: ranking runs in the search's inner loop, and the portable
// x86-64 baseline has no popcount instruction.
// Computed at compile time, so it is ready before any static initialiser could rank a state.
struct BitCounts {
  uint8_t of[1 << kEdges] = {};
  constexpr BitCounts() {
    for (uint32_t mask = 0; mask < (1u << kEdges); ++mask) of[mask] = static_cast<uint8_t>(std::popcount(mask));
  }
};
constexpr BitCounts kBitCounts;

// Lehmer codes of partial permutations: `count` distinct values from 0..n-1 (n <= 12), ranked
// in mixed radix n, n-1, ..., each digit counting the smaller values not used before it.
uint32_t rank_partial(const uint8_t* values, int count, int n) {
  uint32_t rank = 0, used = 0;
  for (int i = 0; i < count; ++i) {
    const uint32_t v = values[i];
    rank = rank * static_cast<uint32_t>(n - i) + (v - kBitCounts.of[used & ((1u << v) - 1)]);
    used |= 1u << v;
  }
  return rank;
}

void unrank_partial(uint32_t rank, int count, int n, uint8_t* values) {
  int digits[kEdges];
  for (int i = count - 1; i >= 0; --i) {
    const uint32_t radix = static_cast<uint32_t>(n - i);
    digits[i] = static_cast<int>(rank % radix);
    rank /= radix;
  }
  uint32_t used = 0;
  for (int i = 0; i < count; ++i) {
    int skip = digits[i];
    for (int v = 0; v < n; ++v) {
      if (used & (1u << v)) continue;
      if (skip-- == 0) {
        values[i] = static_cast<uint8_t>(v);
        used |= 1u << v;
        break;
      }
    }
  }
}

}  // namespace

void corner_twist_unrank(uint32_t rank, uint8_t* co) {
  int sum = 0;
  for (int i = kCorners - 2; i >= 0; --i) {
    co[i] = static_cast<uint8_t>(rank % 3);
    sum += co[i];
    rank /= 3;
  }
  co[kCorners - 1] = static_cast<uint8_t>((3 - sum % 3) % 3);
}

uint32_t corner_perm_rank(const CubieCube& c) { return rank_partial(c.cp.data(), kCorners, kCorners); }

uint32_t corner_twist_rank(const CubieCube& c) {
  uint32_t rank = 0;
  for (int i = 0; i < kCorners - 1; ++i) rank = rank * 3 + c.co[i];
  return rank;
}

CornerMoveTables::CornerMoveTables() : perm(size_t{kCornerPerms} * kMoves), twist(size_t{kCornerTwists} * kMoves) {
  CubieCube c = CubieCube::solved();
  for (uint32_t p = 0; p < kCornerPerms; ++p) {
    unrank_partial(p, kCorners, kCorners, c.cp.data());
    for (int m = 0; m < kMoves; ++m) perm[p * kMoves + m] = static_cast<uint16_t>(corner_perm_rank(c * move_cube(m)));
  }
  c = CubieCube::solved();
  for (uint32_t t = 0; t < kCornerTwists; ++t) {
    corner_twist_unrank(t, c.co.data());
    for (int m = 0; m < kMoves; ++m) {
      twist[t * kMoves + m] = static_cast<uint16_t>(corner_twist_rank(c * move_cube(m)));
    }
  }
}

const CornerMoveTables& corner_moves() {
  static const CornerMoveTables tables;
  return tables;
}

EdgeMoveMaps::EdgeMoveMaps() {
  for (int m = 0; m < kMoves; ++m) {
    const CubieCube& mc = move_cube(m);
    for (int q = 0; q < kEdges; ++q) {
      destination[m][mc.ep[q]] = static_cast<uint8_t>(q);
      flip_at[m][q] = mc.eo[q];
    }
  }
}

const EdgeMoveMaps& edge_move_maps() {
  static const EdgeMoveMaps maps;
  return maps;
}

EdgeSubset::EdgeSubset(int first, int size) : first_(first), size_(size) {
  if (size < 1 || size > 8 || first < 0 || first + size > kEdges) {
    throw std::invalid_argument("edge subset must track 1..8 consecutive edge cubies within 0..11");
  }
  placements_ = 1;
  for (int i = 0; i < size_; ++i) placements_ *= static_cast<uint32_t>(kEdges - i);
}

std::vector<uint32_t> EdgeSubset::move_table() const {
  const EdgeMoveMaps& maps = edge_move_maps();
  std::vector<uint32_t> table(size_t{placements_} * kMoves);
  uint8_t positions[kEdges], moved[kEdges];
  for (uint32_t r = 0; r < placements_; ++r) {
    unrank_positions(r, positions);
    for (int m = 0; m < kMoves; ++m) {
      uint32_t flips = 0;
      for (int t = 0; t < size_; ++t) {
        moved[t] = maps.destination[m][positions[t]];
        flips |= uint32_t{maps.flip_at[m][moved[t]]} << t;
      }
      table[size_t{r} * kMoves + m] = rank_positions(moved) | (flips << 24);
    }
  }
  return table;
}

uint32_t EdgeSubset::rank_positions(const uint8_t* positions) const { return rank_partial(positions, size_, kEdges); }

void EdgeSubset::unrank_positions(uint32_t rank, uint8_t* positions) const {
  unrank_partial(rank, size_, kEdges, positions);
}

uint32_t EdgeSubset::placement_rank(const CubieCube& c) const {
  uint8_t positions[kEdges];
  for (int p = 0; p < kEdges; ++p) {
    const int t = c.ep[p] - first_;
    if (t >= 0 && t < size_) positions[t] = static_cast<uint8_t>(p);
  }
  return rank_positions(positions);
}

uint32_t EdgeSubset::flip_bits(const CubieCube& c) const {
  uint32_t flips = 0;
  for (int p = 0; p < kEdges; ++p) {
    const int t = c.ep[p] - first_;
    if (t >= 0 && t < size_) flips |= uint32_t{c.eo[p]} << t;
  }
  return flips;
}

}  // namespace cogsim::cube
