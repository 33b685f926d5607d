#include "cube/symmetry.hpp"

#include <stdexcept>
#include <string>

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

// The left-right mirror M swaps these corner and edge positions (URF <-> UFL, UR <-> UL, ...).
constexpr std::array<uint8_t, kCorners> kMirrorCorner = {1, 0, 3, 2, 5, 4, 7, 6};
constexpr std::array<uint8_t, kEdges> kMirrorEdge = {2, 1, 0, 3, 6, 5, 4, 7, 9, 8, 11, 10};

// M * c * M: the cube seen in a mirror between its left and right faces. A reflection reverses
// the clockwise order of a corner's facelets, so twists are negated; flips are kept.
CubieCube mirrored(const CubieCube& c) {
  CubieCube r;
  for (int p = 0; p < kCorners; ++p) {
    r.cp[kMirrorCorner[p]] = kMirrorCorner[c.cp[p]];
    r.co[kMirrorCorner[p]] = static_cast<uint8_t>((3 - c.co[p]) % 3);
  }
  for (int p = 0; p < kEdges; ++p) {
    r.ep[kMirrorEdge[p]] = kMirrorEdge[c.ep[p]];
    r.eo[kMirrorEdge[p]] = c.eo[p];
  }
  return r;
}

// The same mirror on the facelet picture: each face's columns reversed, R and L swapped (in
// place and in colour). An independent statement of `mirrored`, checked against it.
CubieCube mirrored_facelets(const CubieCube& c) {
  const std::string in = to_facelets(c);
  std::string out(kFacelets, ' ');
  constexpr int kOther[kFaces] = {0, 4, 2, 3, 1, 5};  // facelet faces U R F D L B
  for (int face = 0; face < kFaces; ++face) {
    for (int i = 0; i < 9; ++i) {
      char colour = in[face * 9 + i];
      colour = colour == 'R' ? 'L' : colour == 'L' ? 'R' : colour;
      out[kOther[face] * 9 + i / 3 * 3 + 2 - i % 3] = colour;
    }
  }
  return from_facelets(out);
}

// The mirror as a cubie cube acting on edges only (its corners are left solved).
CubieCube edge_mirror() {
  CubieCube m = CubieCube::solved();
  for (int p = 0; p < kEdges; ++p) m.ep[p] = kMirrorEdge[p];
  return m;
}

bool same_edges(const CubieCube& a, const CubieCube& b) { return a.ep == b.ep && a.eo == b.eo; }

}  // namespace

CubieCube power(const CubieCube& c, int n) {
  CubieCube r = CubieCube::solved();
  for (int i = 0; i < n; ++i) r = r * c;
  return r;
}

int face_turn_of(const CubieCube& cube) {
  for (int k = 0; k < kMoves; ++k) {
    if (move_cube(k) == cube) return k;
  }
  throw std::logic_error("a move conjugated by a whole-cube rotation is not a face turn");
}

Symmetries::Symmetries() {
  if (!power(kRotateUrf3, 3).is_solved()) throw std::logic_error("the URF rotation is not of order 3");
  if (!power(kRotateU4, 4).is_solved() || !power(kRotateF2, 2).is_solved()) {
    throw std::logic_error("the UD-axis rotations have the wrong order");
  }
  for (int r = 0; r < kAxisRotations; ++r) {
    rotation_of_symmetry_[r] = power(kRotateF2, r / 4) * power(kRotateU4, r % 4);
    rotation_of_symmetry_inverse_[r] = rotation_of_symmetry_[r].inverse();
  }
  for (int s = 0; s < kAxisSymmetries; ++s) {
    const CubieCube& rotation = rotation_of_symmetry_[s % kAxisRotations];
    edge_symmetry_[s] = s >= kAxisRotations ? edge_mirror() * rotation : rotation;
  }
  for (int axis = 0; axis < kAxes; ++axis) {
    rotation_[axis] = power(kRotateUrf3, axis);
    rotation_inverse_[axis] = rotation_[axis].inverse();
    for (int m = 0; m < kMoves; ++m) {
      view_move_[axis][m] = static_cast<uint8_t>(face_turn_of(view(move_cube(m), axis)));
    }
  }
  check();
}

CubieCube Symmetries::conjugate_by(const CubieCube& c, int s) const {
  const int r = s % kAxisRotations;
  const CubieCube seen = s >= kAxisRotations ? mirrored(c) : c;
  return rotation_of_symmetry_inverse_[r] * seen * rotation_of_symmetry_[r];
}

CubieCube Symmetries::conjugate_into(const CubieCube& c, int s) const {
  const int r = s % kAxisRotations;
  const CubieCube rotated = rotation_of_symmetry_[r] * c * rotation_of_symmetry_inverse_[r];
  return s >= kAxisRotations ? mirrored(rotated) : rotated;
}

void Symmetries::check() const {
  // Each symmetry must map the face turns onto face turns (so distances are kept), the cubie
  // mirror must agree with the mirrored facelet picture, and the edge form of each symmetry must
  // agree with its conjugation.
  CubieCube probe = CubieCube::solved();
  for (int m = 0; m < kMoves; ++m) {
    probe = probe * move_cube((m * 7 + 3) % kMoves);
    for (int s = 0; s < kAxisSymmetries; ++s) {
      face_turn_of(conjugate_by(move_cube(m), s));
      if (!(conjugate_into(conjugate_by(probe, s), s) == probe) ||
          !same_edges(conjugate_by(probe, s), edge_symmetry_[s].inverse() * probe * edge_symmetry_[s])) {
        throw std::logic_error("a symmetry's conjugations disagree");
      }
    }
    if (!(mirrored(probe) == mirrored_facelets(probe)) ||
        !(mirrored(move_cube(m)) == mirrored_facelets(move_cube(m)))) {
      throw std::logic_error("the cubie mirror disagrees with the facelet mirror");
    }
  }
}

const Symmetries& symmetries() {
  static const Symmetries instance;
  return instance;
}

}  // namespace cogsim::cube
