#include "cube/phase1.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "cube/coords.hpp"

namespace cogsim::cube {
namespace {

// Whole-cube rotations in Kociemba's cubie convention (his S_URF3, S_F2, S_U4).
// 120 degrees about the URF-DBL diagonal.
const CubieCube kRotateUrf3 = {{0, 4, 5, 1, 3, 7, 6, 2},
                               {1, 2, 1, 2, 2, 1, 2, 1},
                               {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2},
                               {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};
// 180 degrees about the F-B axis.
const CubieCube kRotateF2 = {{5, 4, 7, 6, 1, 0, 3, 2},
                             {0, 0, 0, 0, 0, 0, 0, 0},
                             {6, 5, 4, 7, 2, 1, 0, 3, 9, 8, 11, 10},
                             {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
// 90 degrees clockwise about the U-D axis.
const CubieCube kRotateU4 = {{3, 0, 1, 2, 7, 4, 5, 6},
                             {0, 0, 0, 0, 0, 0, 0, 0},
                             {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10},
                             {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}};

constexpr uint32_t kUnassigned = 0xFFFFFFFF;
constexpr uint32_t kSliceHome = 0xF00;  // positions 8..11 hold FR FL BL BR when solved
constexpr int kSliceCubieFirst = 8;

uint32_t slice_mask_of(const CubieCube& c) {
  uint32_t mask = 0;
  for (int p = 0; p < kEdges; ++p) {
    if (c.ep[p] >= kSliceCubieFirst) mask |= 1u << p;
  }
  return mask;
}

CubieCube power(const CubieCube& c, int n) {
  CubieCube r = CubieCube::solved();
  for (int i = 0; i < n; ++i) r = r * c;
  return r;
}

// The face turn equal to `cube`; throws if there is none (a wrong rotation table).
int face_turn_of(const CubieCube& cube) {
  for (int k = 0; k < kMoves; ++k) {
    if (move_cube(k) == cube) return k;
  }
  throw std::logic_error("a move conjugated by a whole-cube rotation is not a face turn");
}

CubieCube twist_cube(uint32_t twist) {
  CubieCube c = CubieCube::solved();
  int sum = 0;
  for (int i = kCorners - 2; i >= 0; --i) {
    c.co[i] = static_cast<uint8_t>(twist % 3);
    sum += c.co[i];
    twist /= 3;
  }
  c.co[kCorners - 1] = static_cast<uint8_t>((3 - sum % 3) % 3);
  return c;
}

}  // namespace

Phase1::Phase1() {
  slice_rank_.fill(0xFFFF);
  uint16_t next = 0;
  for (uint32_t mask = 0; mask < (1u << kEdges); ++mask) {
    if (std::popcount(mask) == 4) {
      slice_mask_[next] = static_cast<uint16_t>(mask);
      slice_rank_[mask] = next++;
    }
  }
  build_move_tables();
  build_views();
  build_symmetry_classes();
}

void Phase1::build_move_tables() {
  twist_.assign(corner_moves().twist.begin(), corner_moves().twist.end());
  flip_.resize(size_t{kPhase1Flips} * kMoves);
  slice_.resize(size_t{kPhase1Slices} * kMoves);
  for (uint32_t f = 0; f < kPhase1Flips; ++f) {
    const CubieCube c = flip_slice_cube(uint32_t{slice_rank_[kSliceHome]} * kPhase1Flips + f);
    for (int m = 0; m < kMoves; ++m) flip_[f * kMoves + m] = plain_coord(c * move_cube(m)).flip;
  }
  for (uint32_t s = 0; s < kPhase1Slices; ++s) {
    // Which slice edge sits where does not matter to the coordinate.
    const CubieCube c = flip_slice_cube(s * kPhase1Flips);
    for (int m = 0; m < kMoves; ++m) slice_[s * kMoves + m] = plain_coord(c * move_cube(m)).slice;
  }
}

void Phase1::build_views() {
  if (!power(kRotateUrf3, 3).is_solved()) throw std::logic_error("the URF rotation is not of order 3");
  for (int axis = 0; axis < kAxes; ++axis) {
    rotation_[axis] = power(kRotateUrf3, axis);
    rotation_inverse_[axis] = rotation_[axis].inverse();
    for (int m = 0; m < kMoves; ++m) {
      view_move_[axis][m] = static_cast<uint8_t>(face_turn_of(rotation_inverse_[axis] * move_cube(m) * rotation_[axis]));
    }
  }
}

void Phase1::build_symmetry_classes() {
  if (!power(kRotateU4, 4).is_solved() || !power(kRotateF2, 2).is_solved()) {
    throw std::logic_error("the UD-axis rotations have the wrong order");
  }
  std::array<CubieCube, kAxisSymmetries> inverse;
  for (int s = 0; s < kAxisSymmetries; ++s) {
    symmetry_[s] = power(kRotateF2, s / 4) * power(kRotateU4, s % 4);
    inverse[s] = symmetry_[s].inverse();
    for (int m = 0; m < kMoves; ++m) face_turn_of(inverse[s] * move_cube(m) * symmetry_[s]);
  }
  twist_conjugate_.resize(size_t{kPhase1Twists} * kAxisSymmetries);
  for (uint32_t t = 0; t < kPhase1Twists; ++t) {
    const CubieCube c = twist_cube(t);
    for (int s = 0; s < kAxisSymmetries; ++s) {
      twist_conjugate_[t * kAxisSymmetries + s] = plain_coord(symmetry_[s] * c * inverse[s]).twist;
    }
  }
  // class_of_[y] = (class, s) means S_s Y S_s^-1 has the representative's flip and slice.
  class_of_.assign(kFlipSlices, kUnassigned);
  representative_.clear();
  stabilizer_.clear();
  for (uint32_t fs = 0; fs < kFlipSlices; ++fs) {
    if (class_of_[fs] != kUnassigned) continue;
    const uint32_t cls = static_cast<uint32_t>(representative_.size());
    representative_.push_back(fs);
    const CubieCube c = flip_slice_cube(fs);
    uint32_t members[kAxisSymmetries];
    uint8_t stabilizer = 0;
    for (int s = 0; s < kAxisSymmetries; ++s) {
      const Phase1Coord y = plain_coord(inverse[s] * c * symmetry_[s]);
      members[s] = uint32_t{y.slice} * kPhase1Flips + y.flip;
      if (members[s] == fs) stabilizer |= static_cast<uint8_t>(1u << s);
    }
    stabilizer_.push_back(stabilizer);
    const uint32_t flag = stabilizer != 1 ? kSymmetricClass : 0;
    for (int s = 0; s < kAxisSymmetries; ++s) {
      if (class_of_[members[s]] == kUnassigned) class_of_[members[s]] = flag | cls << 3 | static_cast<uint32_t>(s);
    }
  }
}

uint32_t Phase1::canonical_twist(uint32_t cls, uint32_t twist) const {
  uint32_t best = twist;
  for (int s = 1; s < kAxisSymmetries; ++s) {
    if (stabilizer_[cls] >> s & 1) best = std::min<uint32_t>(best, twist_conjugate_[twist * kAxisSymmetries + s]);
  }
  return best;
}

uint64_t Phase1::mark_aliases(std::vector<uint8_t>& distances, uint8_t mark) const {
  uint64_t marked = 0;
  for (uint32_t cls = 0; cls < classes(); ++cls) {
    if (stabilizer_[cls] == 1) continue;
    const uint64_t base = uint64_t{cls} * kPhase1Twists;
    for (uint32_t t = 0; t < kPhase1Twists; ++t) {
      if (canonical_twist(cls, t) != t) {
        distances[base + t] = mark;
        ++marked;
      }
    }
  }
  return marked;
}

void Phase1::fill_aliases(std::vector<uint8_t>& distances) const {
  for (uint32_t cls = 0; cls < classes(); ++cls) {
    if (stabilizer_[cls] == 1) continue;
    const uint64_t base = uint64_t{cls} * kPhase1Twists;
    for (uint32_t t = 0; t < kPhase1Twists; ++t) distances[base + t] = distances[base + canonical_twist(cls, t)];
  }
}

CubieCube Phase1::flip_slice_cube(uint32_t flip_slice) const {
  const uint32_t mask = slice_mask_[flip_slice / kPhase1Flips];
  const uint32_t flip = flip_slice % kPhase1Flips;
  CubieCube c = CubieCube::solved();
  int slice_edge = kSliceCubieFirst, other_edge = 0, sum = 0;
  for (int p = 0; p < kEdges; ++p) c.ep[p] = static_cast<uint8_t>((mask >> p & 1) ? slice_edge++ : other_edge++);
  for (int p = 0; p < kEdges - 1; ++p) sum += c.eo[p] = (flip >> (kEdges - 2 - p)) & 1;
  c.eo[kEdges - 1] = sum & 1;
  return c;
}

Phase1Coord Phase1::plain_coord(const CubieCube& c) const {
  uint32_t flip = 0;
  for (int p = 0; p < kEdges - 1; ++p) flip = flip * 2 + c.eo[p];
  return {static_cast<uint16_t>(corner_twist_rank(c)), static_cast<uint16_t>(flip), slice_rank_[slice_mask_of(c)]};
}

Phase1Coord Phase1::coord(const CubieCube& cube, int axis) const {
  return plain_coord(rotation_inverse_[axis] * cube * rotation_[axis]);
}

uint64_t Phase1::solved_index() const { return index({0, 0, slice_rank_[kSliceHome]}); }

void Phase1::neighbours(uint64_t index, uint64_t* out) const {
  const uint32_t fs = representative_[index / kPhase1Twists];
  const Phase1Coord c{static_cast<uint16_t>(index % kPhase1Twists), static_cast<uint16_t>(fs % kPhase1Flips),
                      static_cast<uint16_t>(fs / kPhase1Flips)};
  for (int m = 0; m < kMoves; ++m) out[m] = this->index(apply_plain(c, m));
}

const Phase1& phase1() {
  static const Phase1 instance;
  return instance;
}

}  // namespace cogsim::cube
