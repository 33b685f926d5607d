// Kociemba's phase-1 coordinates as a lower bound for the optimal search (Reid's optimal solver).
//
// Phase 1 of the two-phase algorithm tracks corner twist (3^7), edge flip (2^11) and which four
// positions hold the UD-slice edges FR FL BL BR (C(12,4) = 495). The number of moves to bring
// all three home is a lower bound on the full distance. The cube seen along its other two axes
// gives two more bounds: the views are the conjugates X^-k S X^k by the 120-degree rotation X
// about the URF-DBL diagonal, and a move M acts on view k as the face turn X^-k M X^k.
//
// The table is reduced by the 8 rotations that keep the UD axis (four quarter turns about it,
// times the half turn about the F-B axis): conjugating a state by one of them changes neither
// its distance nor its phase-1 distance. Flip x slice (1,013,760 values) falls into a few more
// than 1/8 as many classes; the table is indexed by (class, twist seen from the class's
// representative). The mirror symmetries would halve it again, but they need the reflected
// corner orientations of Kociemba's implementation; the 8 rotations keep the arithmetic plain.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cube/cubie.hpp"

namespace cogsim::cube {

constexpr uint32_t kPhase1Twists = 2187;
constexpr uint32_t kPhase1Flips = 2048;
constexpr uint32_t kPhase1Slices = 495;
constexpr uint32_t kFlipSlices = kPhase1Flips * kPhase1Slices;
constexpr int kAxes = 3;
constexpr int kAxisSymmetries = 8;

struct Phase1Coord {
  uint16_t twist, flip, slice;
};

class Phase1 {
 public:
  Phase1();

  // Coordinates of the cube seen along axis 0 (U-D), 1 and 2.
  Phase1Coord coord(const CubieCube& cube, int axis) const;
  // The coordinates of a view after the cube itself turns by `move`.
  Phase1Coord apply(const Phase1Coord& c, int axis, int move) const { return apply_plain(c, view_move_[axis][move]); }
  Phase1Coord apply_plain(const Phase1Coord& c, int m) const {
    return {twist_[c.twist * kMoves + m], flip_[c.flip * kMoves + m], slice_[c.slice * kMoves + m]};
  }

  // Table index: (symmetry class of flip x slice) x (twist conjugated onto the representative).
  // A representative fixed by some rotations (a symmetric flip x slice) is shared by several
  // twists that are conjugates of each other; they all map to the smallest one, so that every
  // state has exactly one entry and the breadth-first build reaches each entry from all sides.
  uint64_t index(const Phase1Coord& c) const {
    const uint32_t class_and_symmetry = class_of_[uint32_t{c.slice} * kPhase1Flips + c.flip];
    const uint32_t cls = (class_and_symmetry & ~kSymmetricClass) >> 3;
    uint32_t twist = twist_conjugate_[c.twist * kAxisSymmetries + (class_and_symmetry & 7)];
    if (class_and_symmetry & kSymmetricClass) twist = canonical_twist(cls, twist);
    return uint64_t{cls} * kPhase1Twists + twist;
  }
  void prefetch_class(const Phase1Coord& c) const {
    __builtin_prefetch(&class_of_[uint32_t{c.slice} * kPhase1Flips + c.flip]);
  }
  uint32_t classes() const { return static_cast<uint32_t>(representative_.size()); }
  uint64_t entries() const { return uint64_t{classes()} * kPhase1Twists; }
  uint64_t solved_index() const;
  // The 18 neighbours of a table entry, for the breadth-first build.
  void neighbours(uint64_t index, uint64_t* out) const;
  // Entries of a symmetric class whose twist is not canonical are aliases, never looked up: the
  // breadth-first build skips them (mark_aliases sets them to `mark`, returns how many) and
  // fill_aliases copies the canonical entry's distance into them afterwards.
  uint64_t mark_aliases(std::vector<uint8_t>& distances, uint8_t mark) const;
  void fill_aliases(std::vector<uint8_t>& distances) const;

 private:
  static constexpr uint32_t kSymmetricClass = 1u << 31;
  uint32_t canonical_twist(uint32_t cls, uint32_t twist) const;
  Phase1Coord plain_coord(const CubieCube& cube) const;
  CubieCube flip_slice_cube(uint32_t flip_slice) const;
  void build_move_tables();
  void build_symmetry_classes();
  void build_views();

  std::vector<uint16_t> twist_, flip_, slice_;          // [coordinate * 18 + move]
  std::vector<uint32_t> class_of_;                       // [flip_slice]: symmetric flag | class << 3 | symmetry
  std::vector<uint8_t> stabilizer_;                      // [class]: mask of rotations fixing the representative
  std::vector<uint32_t> representative_;                 // [class]: flip_slice
  std::vector<uint16_t> twist_conjugate_;                // [twist * 8 + symmetry]
  std::array<CubieCube, kAxisSymmetries> symmetry_;      // F2^(s/4) * U4^(s%4)
  std::array<std::array<uint8_t, kMoves>, kAxes> view_move_;
  std::array<CubieCube, kAxes> rotation_, rotation_inverse_;
  std::array<uint16_t, 1 << kEdges> slice_rank_;         // [mask of the four slice positions]
  std::array<uint16_t, kPhase1Slices> slice_mask_;
};

const Phase1& phase1();

}  // namespace cogsim::cube
