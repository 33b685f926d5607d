// Symmetries of the cube used by the symmetry-reduced tables and their searches.
//
// The 16 symmetries that keep the U-D axis (Kociemba's D4h: four quarter turns about it, times
// the half turn about the F-B axis, times the left-right mirror): conjugating a state by one of
// them changes neither its distance nor any distance to a goal that they map onto itself, as each
// maps the 18 face turns onto face turns. Symmetry s is G = M^(s/8) * R with R = F2^(s%8/4) *
// U4^(s%4) (rotation s % kAxisRotations) and M the left-right mirror.
//
// The three axis views: the cube seen with each of its axes in turn as the U-D axis, that is the
// conjugates R_k^-1 * S * R_k by the powers of the 120-degree rotation R about the URF-DBL
// diagonal. A move M acts on view k as the face turn R_k^-1 * M * R_k.
#pragma once

#include <array>
#include <cstdint>

#include "cube/cubie.hpp"

namespace cogsim::cube {

constexpr int kAxes = 3;
constexpr int kAxisSymmetries = 16;
constexpr int kSymmetryBits = 4;
constexpr int kAxisRotations = kAxisSymmetries / 2;  // symmetry s >= kAxisRotations adds the mirror

class Symmetries {
 public:
  // G_s^-1 * c * G_s and its inverse operation G_s * c * G_s^-1.
  CubieCube conjugate_by(const CubieCube& c, int s) const;
  CubieCube conjugate_into(const CubieCube& c, int s) const;
  // G_s acting on edges as a cubie cube (mirror included; edge flips are kept by the mirror, so
  // unlike corner twists they have this form): the edges of conjugate_by(c, s) are those of
  // edge_symmetry(s).inverse() * c * edge_symmetry(s).
  const CubieCube& edge_symmetry(int s) const { return edge_symmetry_[s]; }

  // R_k^-1 * c * R_k: the cube seen along axis k (0 is the cube itself).
  CubieCube view(const CubieCube& c, int axis) const { return rotation_inverse_[axis] * c * rotation_[axis]; }
  // The face turn a move is in view k.
  int view_move(int axis, int move) const { return view_move_[axis][move]; }

 private:
  Symmetries();
  friend const Symmetries& symmetries();
  void check() const;

  std::array<CubieCube, kAxisRotations> rotation_of_symmetry_, rotation_of_symmetry_inverse_;
  std::array<CubieCube, kAxisSymmetries> edge_symmetry_;
  std::array<CubieCube, kAxes> rotation_, rotation_inverse_;
  std::array<std::array<uint8_t, kMoves>, kAxes> view_move_;
};

// The process-wide instance (built and self-checked on first use).
const Symmetries& symmetries();

// The cubie cube raised to the n-th power (n >= 0).
CubieCube power(const CubieCube& c, int n);

// The face turn equal to `cube`; throws std::logic_error if there is none.
int face_turn_of(const CubieCube& cube);

}  // namespace cogsim::cube
