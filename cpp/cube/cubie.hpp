// Rubik's cube in cubie form, with Kociemba's conventions for cubies and facelets.
//
// Corners URF UFL ULB UBR DFR DLF DBL DRB, edges UR UF UL UB DR DF DL DB FR FL BL BR.
// cp[i] is the cubie sitting at position i, co[i] its twist there (0..2, clockwise), and
// likewise ep/eo for edges (flip 0..1). Applying move M to state S is the product S * M.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cogsim::cube {

constexpr int kCorners = 8;
constexpr int kEdges = 12;
constexpr int kFaces = 6;
constexpr int kMoves = 18;
constexpr int kFacelets = 54;

// Faces in the public move order: opposite faces are adjacent (U D, R L, F B), so the
// opposite of face f is f ^ 1. Move m turns face m / 3 by (m % 3 + 1) quarter turns clockwise.
enum Face : uint8_t { U = 0, D = 1, R = 2, L = 3, F = 4, B = 5 };

struct CubieCube {
  std::array<uint8_t, kCorners> cp;
  std::array<uint8_t, kCorners> co;
  std::array<uint8_t, kEdges> ep;
  std::array<uint8_t, kEdges> eo;

  static CubieCube solved();
  // this, then other (S * M applies M after S).
  CubieCube operator*(const CubieCube& other) const;
  CubieCube inverse() const;
  bool is_solved() const;
  bool operator==(const CubieCube&) const = default;
};

// Packed layout used across the binding boundary: cp, co, ep, eo as 40 bytes.
constexpr int kPackedSize = 2 * kCorners + 2 * kEdges;
void pack(const CubieCube& cube, uint8_t* out);
CubieCube unpack(const uint8_t* in);

const CubieCube& move_cube(int move);
inline int move_face(int move) { return move / 3; }
inline int inverse_move(int move) { return move - move % 3 + (2 - move % 3); }
const std::string& move_name(int move);

// Parses whitespace-separated Singmaster moves; throws std::invalid_argument naming the token.
std::vector<int> parse_moves(std::string_view text);
std::string format_moves(const std::vector<int>& moves);
CubieCube apply_moves(CubieCube cube, const std::vector<int>& moves);

// 54 facelets, faces in order U R F D L B, each row-major; colours are the face letters.
std::string to_facelets(const CubieCube& cube);
// Throws std::invalid_argument on anything that is not a reachable cube, saying why.
CubieCube from_facelets(std::string_view facelets);

// A state written either way: 54 facelet letters, else a move sequence (applied to the solved cube).
bool is_facelet_string(std::string_view text);
CubieCube state_from_text(std::string_view text);

// Throws std::invalid_argument unless the cube is reachable by face turns (one of each cubie,
// twist sum 0 mod 3, flip sum 0 mod 2, corner and edge permutation parities equal).
void validate(const CubieCube& cube);

// Permutation parity: 0 even, 1 odd.
int permutation_parity(const uint8_t* perm, int n);

}  // namespace cogsim::cube
