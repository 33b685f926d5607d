// Kociemba's phase-1 coordinates as a lower bound for the optimal search (Reid's optimal solver).
//
// Phase 1 of the two-phase algorithm tracks corner twist (3^7), edge flip (2^11) and which four
// positions hold the UD-slice edges FR FL BL BR (C(12,4) = 495). The number of moves to bring
// all three home is a lower bound on the full distance. The cube seen along its other two axes
// gives two more bounds: the views are the conjugates X^-k S X^k by the 120-degree rotation X
// about the URF-DBL diagonal, and a move M acts on view k as the face turn X^-k M X^k.
//
// The table is reduced by the 16 symmetries that keep the UD axis (Kociemba's D4h: four quarter
// turns about it, times the half turn about the F-B axis, times the left-right mirror):
// conjugating a state by one of them changes neither its distance nor its phase-1 distance, as
// each maps the 18 face turns onto themselves. Flip x slice falls into a few more than 1/16 as
// many classes; the table is indexed by (class, twist seen from the class's representative).
//
// Two variants share this code. kPlain is phase 1 as above (141M entries, 70 MB). kSorted also
// tracks the order of the four slice edges (12!/8! = 11,880 slice values instead of 495): the
// coordinates of Kociemba's optimal solver. Its distance is a far stronger bound (the slice edges
// must come home in order, not just into the slice), at 24x the size: 1,523,864 classes x 2187
// twists = 3.33 billion entries, 1.67 GB.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cube/cubie.hpp"
#include "cube/symmetry.hpp"

namespace cogsim::cube {

constexpr uint32_t kPhase1Twists = 2187;
constexpr uint32_t kPhase1Flips = 2048;
constexpr uint32_t kPhase1Slices = 495;  // where the four slice edges are
constexpr uint32_t kSliceOrders = 24;    // in which order they sit there (sorted variant)

struct Phase1Coord {
  uint16_t twist, flip, slice;
};

enum class Phase1Kind : uint8_t { kOff = 0, kPlain = 1, kSorted = 2 };

class Phase1 {
 public:
  explicit Phase1(Phase1Kind kind);

  Phase1Kind kind() const { return kind_; }
  uint32_t slices() const { return slices_; }

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
    const uint32_t class_and_symmetry = class_of_[flip_slice(c)];
    const uint32_t cls = (class_and_symmetry & ~kSymmetricClass) >> kSymmetryBits;
    uint32_t twist = twist_conjugate_[c.twist * kAxisSymmetries + (class_and_symmetry & (kAxisSymmetries - 1))];
    if (class_and_symmetry & kSymmetricClass) twist = canonical_twist(cls, twist);
    return uint64_t{cls} * kPhase1Twists + twist;
  }
  void prefetch_class(const Phase1Coord& c) const { __builtin_prefetch(&class_of_[flip_slice(c)]); }
  uint32_t classes() const { return static_cast<uint32_t>(representative_.size()); }
  uint64_t entries() const { return uint64_t{classes()} * kPhase1Twists; }
  uint64_t solved_index() const;

  // The distance table, 4 bits per entry (entry i in the low nibble of byte i / 2 when i is
  // even), by breadth-first search. Entries of a symmetric class whose twist is not canonical
  // are aliases, never looked up: the search skips them and copies the canonical entry's
  // distance into them at the end. `report` gets one line per depth.
  std::vector<uint8_t> build_distances(unsigned threads, const std::function<void(const std::string&)>& report) const;

 private:
  static constexpr uint32_t kSymmetricClass = 1u << 31;
  uint32_t flip_slice(const Phase1Coord& c) const { return uint32_t{c.slice} * kPhase1Flips + c.flip; }
  uint32_t canonical_twist(uint32_t cls, uint32_t twist) const;
  bool is_alias(uint32_t cls, uint32_t twist) const {
    return stabilizer_[cls] != 1 && canonical_twist(cls, twist) != twist;
  }
  // Where move m takes the twists of class `cls`: the neighbouring class, and the twist map.
  struct ClassStep {
    uint32_t cls;
    uint8_t symmetry;
    bool symmetric;
  };
  ClassStep step(uint32_t cls, int move) const;
  uint32_t stepped_twist(const ClassStep& step, uint32_t twist, int move) const {
    const uint32_t t = twist_conjugate_[twist_[twist * kMoves + move] * kAxisSymmetries + step.symmetry];
    return step.symmetric ? canonical_twist(step.cls, t) : t;
  }
  uint64_t breadth_first_level(std::vector<uint8_t>& table, uint8_t depth, bool backwards, unsigned threads) const;
  uint32_t slice_coord(const CubieCube& cube) const;
  Phase1Coord plain_coord(const CubieCube& cube) const;
  CubieCube flip_slice_cube(uint32_t flip_slice) const;
  uint32_t flip_slices() const { return kPhase1Flips * slices_; }
  void build_move_tables();
  void build_symmetry_classes();

  Phase1Kind kind_;
  uint32_t slices_;
  std::vector<uint16_t> twist_, flip_, slice_;                // [coordinate * 18 + move]
  std::vector<uint32_t> class_of_;                            // [flip_slice]: symmetric flag | class << 4 | symmetry
  std::vector<uint16_t> stabilizer_;                          // [class]: mask of symmetries fixing the representative
  std::vector<uint32_t> representative_;                      // [class]: flip_slice
  std::vector<uint16_t> twist_conjugate_;                     // [twist * 8 + symmetry]
  std::array<std::array<uint8_t, kMoves>, kAxes> view_move_;  // symmetries().view_move, kept here for the search
  std::array<uint16_t, 1 << kEdges> slice_rank_;              // [mask of the four slice positions]
  std::array<uint16_t, kPhase1Slices> slice_mask_;
};

// The process-wide instance of each variant, built on first use (kSorted: about 100 MB of
// class tables and a few seconds).
const Phase1& phase1(Phase1Kind kind = Phase1Kind::kPlain);

}  // namespace cogsim::cube
