// Coordinates of the cube for pattern databases and search, with their move tables.
//
// Corners: permutation rank (8!) x twist rank (3^7), both position-based, so a move acts on each
// part independently through a small table. Edge subsets (Korf's edge databases): where the
// tracked edge cubies are (a partial permutation, 12!/(12-k)!) and how each is flipped (2^k).
// A move sends a tracked edge to a new position and flips it depending on that position, so the
// edge table stores, per (placement, move), the new placement and a k-bit flip mask.
#pragma once

#include <cstdint>
#include <vector>

#include "cube/cubie.hpp"

namespace cogsim::cube {

constexpr uint32_t kCornerPerms = 40320;
constexpr uint32_t kCornerTwists = 2187;
constexpr uint64_t kCornerStates = uint64_t{kCornerPerms} * kCornerTwists;

uint32_t corner_perm_rank(const CubieCube& cube);
uint32_t corner_twist_rank(const CubieCube& cube);
void corner_twist_unrank(uint32_t rank, uint8_t* co);  // the inverse: co[0..7] from a twist rank
inline uint64_t corner_index(uint32_t perm, uint32_t twist) { return uint64_t{perm} * kCornerTwists + twist; }

struct CornerMoveTables {
  std::vector<uint16_t> perm;   // [perm * 18 + move]
  std::vector<uint16_t> twist;  // [twist * 18 + move]
  CornerMoveTables();
};
const CornerMoveTables& corner_moves();

// The tracked edge cubies are `first, first + 1, ..., first + size - 1`.
class EdgeSubset {
 public:
  EdgeSubset(int first, int size);

  int first() const { return first_; }
  int size() const { return size_; }
  uint32_t placements() const { return placements_; }
  uint64_t states() const { return uint64_t{placements_} << size_; }

  uint32_t placement_rank(const CubieCube& cube) const;
  uint32_t flip_bits(const CubieCube& cube) const;
  uint64_t index(uint32_t placement, uint32_t flips) const { return (uint64_t{placement} << size_) | flips; }

  // Index from per-cubie arrays (position and flip of every edge cubie, indexed by cubie).
  uint64_t index_of(const uint8_t* cubie_positions, const uint8_t* cubie_flips) const {
    uint32_t flips = 0;
    for (int t = 0; t < size_; ++t) flips |= uint32_t{cubie_flips[first_ + t]} << t;
    return index(rank_positions(cubie_positions + first_), flips);
  }

  // Inverse of index_of for the tracked cubies: writes their positions and flips.
  void decode(uint64_t index, uint8_t* cubie_positions, uint8_t* cubie_flips) const {
    unrank_positions(static_cast<uint32_t>(index >> size_), cubie_positions + first_);
    for (int t = 0; t < size_; ++t) cubie_flips[first_ + t] = (index >> t) & 1;
  }

  // Move table for breadth-first search, [placement * 18 + move]: new placement in the low
  // 24 bits, flip mask above. Built on demand (up to 287 MB for 7 edges).
  std::vector<uint32_t> move_table() const;
  static constexpr uint32_t kPlacementMask = (1u << 24) - 1;

 private:
  void unrank_positions(uint32_t rank, uint8_t* positions) const;
  uint32_t rank_positions(const uint8_t* positions) const;

  int first_;
  int size_;
  uint32_t placements_;
};

// Where each move sends each position, and the flip it adds at the destination: S * M puts
// the cubie from position M.ep[q] at position q.
struct EdgeMoveMaps {
  uint8_t destination[kMoves][kEdges];
  uint8_t flip_at[kMoves][kEdges];
  EdgeMoveMaps();
};
const EdgeMoveMaps& edge_move_maps();

}  // namespace cogsim::cube
