#include "cube/cubie.hpp"

#include <stdexcept>

#include "common/text.hpp"

namespace cogsim::cube {
namespace {

enum Corner : uint8_t { URF, UFL, ULB, UBR, DFR, DLF, DBL, DRB };
enum Edge : uint8_t { UR, UF, UL, UB, DR, DF, DL, DB, FR, FL, BL, BR };

// The six basic quarter turns (Kociemba, cubie.py), indexed by Face.
CubieCube basic_turn(Face face) {
  switch (face) {
    case U:
      return {{UBR, URF, UFL, ULB, DFR, DLF, DBL, DRB},
              {0, 0, 0, 0, 0, 0, 0, 0},
              {UB, UR, UF, UL, DR, DF, DL, DB, FR, FL, BL, BR},
              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    case R:
      return {{DFR, UFL, ULB, URF, DRB, DLF, DBL, UBR},
              {2, 0, 0, 1, 1, 0, 0, 2},
              {FR, UF, UL, UB, BR, DF, DL, DB, DR, FL, BL, UR},
              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    case F:
      return {{UFL, DLF, ULB, UBR, URF, DFR, DBL, DRB},
              {1, 2, 0, 0, 2, 1, 0, 0},
              {UR, FL, UL, UB, DR, FR, DL, DB, UF, DF, BL, BR},
              {0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0}};
    case D:
      return {{URF, UFL, ULB, UBR, DLF, DBL, DRB, DFR},
              {0, 0, 0, 0, 0, 0, 0, 0},
              {UR, UF, UL, UB, DF, DL, DB, DR, FR, FL, BL, BR},
              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    case L:
      return {{URF, ULB, DBL, UBR, DFR, UFL, DLF, DRB},
              {0, 1, 2, 0, 0, 2, 1, 0},
              {UR, UF, BL, UB, DR, DF, FL, DB, FR, UL, DL, BR},
              {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    case B:
      return {{URF, UFL, UBR, DRB, DFR, DLF, ULB, DBL},
              {0, 0, 1, 2, 0, 0, 2, 1},
              {UR, UF, UL, BR, DR, DF, DL, BL, FR, FL, UB, DB},
              {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1}};
  }
  throw std::logic_error("unknown face");
}

struct MoveTable {
  std::array<CubieCube, kMoves> cubes;
  std::array<std::string, kMoves> names;
  MoveTable() {
    const char letters[] = "UDRLFB";
    const char* suffixes[] = {"", "2", "'"};
    for (int face = 0; face < kFaces; ++face) {
      const CubieCube turn = basic_turn(static_cast<Face>(face));
      CubieCube power = turn;
      for (int p = 0; p < 3; ++p) {
        cubes[face * 3 + p] = power;
        names[face * 3 + p] = std::string(1, letters[face]) + suffixes[p];
        power = power * turn;
      }
    }
  }
};

const MoveTable& moves() {
  static const MoveTable table;
  return table;
}

// Facelet indices (0..53) of each corner and edge position, first the U/D facelet, then
// clockwise; and the face colours of each cubie in the same order (Kociemba, defs.py).
constexpr uint8_t kCornerFacelet[kCorners][3] = {{8, 9, 20},   {6, 18, 38},  {0, 36, 47},  {2, 45, 11},
                                                 {29, 26, 15}, {27, 44, 24}, {33, 53, 42}, {35, 17, 51}};
constexpr uint8_t kEdgeFacelet[kEdges][2] = {{5, 10},  {7, 19},  {3, 37},  {1, 46},  {32, 16}, {28, 25},
                                             {30, 43}, {34, 52}, {23, 12}, {21, 41}, {50, 39}, {48, 14}};
// Colours as facelet-string letters.
constexpr char kCornerColor[kCorners][3] = {{'U', 'R', 'F'}, {'U', 'F', 'L'}, {'U', 'L', 'B'}, {'U', 'B', 'R'},
                                            {'D', 'F', 'R'}, {'D', 'L', 'F'}, {'D', 'B', 'L'}, {'D', 'R', 'B'}};
constexpr char kEdgeColor[kEdges][2] = {{'U', 'R'}, {'U', 'F'}, {'U', 'L'}, {'U', 'B'}, {'D', 'R'}, {'D', 'F'},
                                        {'D', 'L'}, {'D', 'B'}, {'F', 'R'}, {'F', 'L'}, {'B', 'L'}, {'B', 'R'}};
constexpr const char* kFaceOrder = "URFDLB";  // facelet string face order, not the move order
constexpr const char* kCornerNames[kCorners] = {"URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB"};
constexpr const char* kEdgeNames[kEdges] = {"UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The move a token names (face letter, then nothing, '2' or '\''), or -1.
int decode_move(std::string_view token) {
  static constexpr std::string_view kLetters = "UDRLFB";
  if (token.empty() || token.size() > 2) return -1;
  const size_t face = kLetters.find(token[0]);
  if (face == std::string_view::npos) return -1;
  if (token.size() == 1) return static_cast<int>(face) * 3;
  if (token[1] == '2') return static_cast<int>(face) * 3 + 1;
  if (token[1] == '\'') return static_cast<int>(face) * 3 + 2;
  return -1;
}

std::string allowed_moves_list() {
  std::string out;
  for (int m = 0; m < kMoves; ++m) out += (m ? " " : "") + move_name(m);
  return out;
}

}  // namespace

CubieCube CubieCube::solved() {
  CubieCube c{};
  for (int i = 0; i < kCorners; ++i) c.cp[i] = static_cast<uint8_t>(i);
  for (int i = 0; i < kEdges; ++i) c.ep[i] = static_cast<uint8_t>(i);
  return c;
}

CubieCube CubieCube::operator*(const CubieCube& b) const {
  CubieCube r;
  for (int i = 0; i < kCorners; ++i) {
    r.cp[i] = cp[b.cp[i]];
    r.co[i] = static_cast<uint8_t>((co[b.cp[i]] + b.co[i]) % 3);
  }
  for (int i = 0; i < kEdges; ++i) {
    r.ep[i] = ep[b.ep[i]];
    r.eo[i] = static_cast<uint8_t>((eo[b.ep[i]] + b.eo[i]) & 1);
  }
  return r;
}

CubieCube CubieCube::inverse() const {
  CubieCube r;
  for (int i = 0; i < kCorners; ++i) r.cp[cp[i]] = static_cast<uint8_t>(i);
  for (int i = 0; i < kCorners; ++i) r.co[i] = static_cast<uint8_t>((3 - co[r.cp[i]]) % 3);
  for (int i = 0; i < kEdges; ++i) r.ep[ep[i]] = static_cast<uint8_t>(i);
  for (int i = 0; i < kEdges; ++i) r.eo[i] = eo[r.ep[i]];
  return r;
}

bool CubieCube::is_solved() const { return *this == solved(); }

void pack(const CubieCube& c, uint8_t* out) {
  for (int i = 0; i < kCorners; ++i) out[i] = c.cp[i], out[kCorners + i] = c.co[i];
  for (int i = 0; i < kEdges; ++i) out[2 * kCorners + i] = c.ep[i], out[2 * kCorners + kEdges + i] = c.eo[i];
}

CubieCube unpack(const uint8_t* in) {
  CubieCube c;
  for (int i = 0; i < kCorners; ++i) c.cp[i] = in[i], c.co[i] = in[kCorners + i];
  for (int i = 0; i < kEdges; ++i) c.ep[i] = in[2 * kCorners + i], c.eo[i] = in[2 * kCorners + kEdges + i];
  return c;
}

const CubieCube& move_cube(int move) { return moves().cubes.at(move); }
const std::string& move_name(int move) { return moves().names.at(move); }

std::vector<int> parse_moves(std::string_view text) {
  std::vector<int> out;
  size_t i = 0;
  int index = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    const std::string_view token = text.substr(i, j - i);
    ++index;
    const int found = decode_move(token);
    if (found < 0) {
      throw std::invalid_argument(
          "invalid move '" + shown_text(token) + "' (token " + std::to_string(index) +
          " of the move string); moves are whitespace-separated face turns: " + allowed_moves_list());
    }
    out.push_back(found);
    i = j;
  }
  return out;
}

bool is_facelet_string(std::string_view text) {
  if (text.size() != kFacelets) return false;
  for (char c : text) {
    if (c != 'U' && c != 'R' && c != 'F' && c != 'D' && c != 'L' && c != 'B') return false;
  }
  return true;
}

CubieCube state_from_text(std::string_view text) {
  return is_facelet_string(text) ? from_facelets(text) : apply_moves(CubieCube::solved(), parse_moves(text));
}

std::string format_moves(const std::vector<int>& seq) {
  std::string out;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (i) out += ' ';
    out += move_name(seq[i]);
  }
  return out;
}

CubieCube apply_moves(CubieCube cube, const std::vector<int>& seq) {
  for (int m : seq) cube = cube * move_cube(m);
  return cube;
}

std::string to_facelets(const CubieCube& c) {
  std::string f(kFacelets, '?');
  for (int face = 0; face < kFaces; ++face) f[9 * face + 4] = kFaceOrder[face];
  for (int i = 0; i < kCorners; ++i) {
    for (int k = 0; k < 3; ++k) f[kCornerFacelet[i][(k + c.co[i]) % 3]] = kCornerColor[c.cp[i]][k];
  }
  for (int i = 0; i < kEdges; ++i) {
    for (int k = 0; k < 2; ++k) f[kEdgeFacelet[i][(k + c.eo[i]) % 2]] = kEdgeColor[c.ep[i]][k];
  }
  return f;
}

CubieCube from_facelets(std::string_view f) {
  if (f.size() != kFacelets) {
    throw std::invalid_argument("facelet string must have 54 characters (faces U R F D L B, 9 each), got " +
                                std::to_string(f.size()));
  }
  int counts[128] = {};
  for (char ch : f) {
    if (ch != 'U' && ch != 'R' && ch != 'F' && ch != 'D' && ch != 'L' && ch != 'B') {
      const auto byte = static_cast<unsigned char>(ch);
      // Not "'" + std::string(1, ch) + "'": GCC 12 warns falsely on it at -O3 (-Wrestrict).
      std::string shown = "byte " + std::to_string(byte);
      if (byte >= 32 && byte < 127) shown.assign({'\'', ch, '\''});
      throw std::invalid_argument("facelet string may contain only the letters U R F D L B, found " + shown);
    }
    ++counts[static_cast<unsigned char>(ch)];
  }
  for (int face = 0; face < kFaces; ++face) {
    const char colour = kFaceOrder[face];
    if (counts[static_cast<unsigned char>(colour)] != 9) {
      throw std::invalid_argument(std::string("facelet string must contain each colour 9 times; '") + colour +
                                  "' appears " + std::to_string(counts[static_cast<unsigned char>(colour)]) + " times");
    }
    if (f[9 * face + 4] != colour) {
      throw std::invalid_argument(std::string("the centre of face ") + colour + " (index " +
                                  std::to_string(9 * face + 4) + ") must be '" + colour + "', got '" + f[9 * face + 4] +
                                  "'");
    }
  }
  CubieCube c{};
  for (int i = 0; i < kCorners; ++i) {
    int ori = 0;
    while (ori < 3 && f[kCornerFacelet[i][ori]] != 'U' && f[kCornerFacelet[i][ori]] != 'D') ++ori;
    if (ori == 3) {
      throw std::invalid_argument(std::string("corner position ") + kCornerNames[i] +
                                  " has no U or D sticker: not a valid corner");
    }
    const char c1 = f[kCornerFacelet[i][(ori + 1) % 3]];
    const char c2 = f[kCornerFacelet[i][(ori + 2) % 3]];
    int cubie = -1;
    for (int j = 0; j < kCorners; ++j) {
      if (kCornerColor[j][1] == c1 && kCornerColor[j][2] == c2 && kCornerColor[j][0] == f[kCornerFacelet[i][ori]]) {
        cubie = j;
      }
    }
    if (cubie < 0) {
      throw std::invalid_argument(std::string("corner position ") + kCornerNames[i] + " shows colours " +
                                  f[kCornerFacelet[i][ori]] + c1 + c2 + ", which no corner cubie has");
    }
    c.cp[i] = static_cast<uint8_t>(cubie);
    c.co[i] = static_cast<uint8_t>(ori);
  }
  for (int i = 0; i < kEdges; ++i) {
    const char a = f[kEdgeFacelet[i][0]], b = f[kEdgeFacelet[i][1]];
    int cubie = -1, flip = 0;
    for (int j = 0; j < kEdges; ++j) {
      if (kEdgeColor[j][0] == a && kEdgeColor[j][1] == b) cubie = j, flip = 0;
      if (kEdgeColor[j][0] == b && kEdgeColor[j][1] == a) cubie = j, flip = 1;
    }
    if (cubie < 0) {
      throw std::invalid_argument(std::string("edge position ") + kEdgeNames[i] + " shows colours " + a + b +
                                  ", which no edge cubie has");
    }
    c.ep[i] = static_cast<uint8_t>(cubie);
    c.eo[i] = static_cast<uint8_t>(flip);
  }
  validate(c);
  return c;
}

int permutation_parity(const uint8_t* perm, int n) {
  int parity = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) parity ^= perm[i] > perm[j];
  }
  return parity;
}

void validate(const CubieCube& c) {
  bool seen_corner[kCorners] = {}, seen_edge[kEdges] = {};
  int twist = 0, flip = 0;
  for (int i = 0; i < kCorners; ++i) {
    if (c.cp[i] >= kCorners || c.co[i] > 2) {
      throw std::invalid_argument("corner data out of range: cp values must be 0..7 and co values 0..2");
    }
    if (seen_corner[c.cp[i]]) {
      throw std::invalid_argument(std::string("corner ") + kCornerNames[c.cp[i]] +
                                  " appears twice: each corner cubie must appear exactly once");
    }
    seen_corner[c.cp[i]] = true;
    twist += c.co[i];
  }
  for (int i = 0; i < kEdges; ++i) {
    if (c.ep[i] >= kEdges || c.eo[i] > 1) {
      throw std::invalid_argument("edge data out of range: ep values must be 0..11 and eo values 0..1");
    }
    if (seen_edge[c.ep[i]]) {
      throw std::invalid_argument(std::string("edge ") + kEdgeNames[c.ep[i]] +
                                  " appears twice: each edge cubie must appear exactly once");
    }
    seen_edge[c.ep[i]] = true;
    flip += c.eo[i];
  }
  if (twist % 3 != 0) {
    throw std::invalid_argument("corner twists sum to " + std::to_string(twist % 3) +
                                " mod 3 (a twisted corner): unreachable by face turns");
  }
  if (flip % 2 != 0) {
    throw std::invalid_argument("edge flips sum to 1 mod 2 (a flipped edge): unreachable by face turns");
  }
  if (permutation_parity(c.cp.data(), kCorners) != permutation_parity(c.ep.data(), kEdges)) {
    throw std::invalid_argument(
        "corner and edge permutation parities differ (two pieces swapped): unreachable by face turns");
  }
}

}  // namespace cogsim::cube
