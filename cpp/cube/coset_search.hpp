// Optimal solver over a coset table (coset_table.hpp): iterative deepening from both ends of the
// solution at once, after Rokicki's nxopt.
//
// A search node is the state still to solve and its inverse, each seen along the three axes: six
// cubes in vector form (vector_cube.hpp), kept up to date by one byte shuffle per cube and move,
// and six table entries. The entries of the state's views say which axes the solution's last move
// cannot be on (an entry equal to the moves left), those of the inverse's views which axes its
// first move cannot be on. So at every node the search may grow the solution at its front (the
// state takes the move) or at its back (the move is applied before the state), and it takes the
// end with fewer moves left to try. Move sequences are canonical at both ends (no face twice in a
// row, of two opposite faces the U, R or F turn first). When a child's bound exceeds the moves
// left by two, the other turns of its face are skipped (they are one move from it), and when it
// exceeds them by three the parent is cut (bidirectional pathmax). The children of a node are
// generated and their table lines prefetched before any is read, so the memory latency of
// siblings overlaps.
//
// One query uses several threads once an iteration is large: the nodes a few moves deep become
// tasks, taken in order, and the solution kept is that of the first task in order that has one,
// the one a serial search would find.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "cube/coset_table.hpp"
#include "cube/cubie.hpp"
#include "cube/search_limits.hpp"

namespace cogsim::cube {

// Moves and masks the search kernels share (one copy per solver).
struct CosetSearchData {
  const CosetTable* table = nullptr;
  VectorCube move[kAxes][kMoves];          // the move as seen in view k
  VectorCube inverse_move[kAxes][kMoves];  // and its inverse
  uint32_t axis_moves[kAxes] = {};         // moves that are U or D turns in view k (one axis)
  uint8_t view_of_move[kMoves] = {};       // the view in which the move is a U or D turn
  uint32_t front_after[kFaces + 1] = {};   // canonical next front moves after a face (kFaces: none)
  uint32_t back_after[kFaces + 1] = {};    // canonical next back moves (earlier in the solution)
};

class CosetSolver {
 public:
  explicit CosetSolver(std::shared_ptr<const CosetTable> table);

  // One optimal solution of `cube`. threads: 0 = default; 1 searches on the calling thread only.
  // Throws SearchLimitExceeded when the search needs more than max_nodes nodes.
  std::vector<int> solve(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats = nullptr,
                         unsigned threads = 0) const;
  int distance(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats = nullptr, unsigned threads = 0) const {
    return static_cast<int>(solve(cube, max_nodes, stats, threads).size());
  }
  // The six table entries of a state: its views along axes 0-2, then its inverse's.
  std::array<int, 2 * kAxes> entries(const CubieCube& cube) const;
  // The lower bound the search starts from.
  int bound(const CubieCube& cube) const;

  const CosetTable& table() const { return *table_; }
  // Whether the search runs on byte shuffles (SSSE3) rather than their portable form: where the CPU
  // has SSSE3, unless use_portable_search() was called (tests compare the two).
  bool vectorised() const { return vectorised_; }
  void use_portable_search() { vectorised_ = false; }

 private:
  std::shared_ptr<const CosetTable> table_;
  CosetSearchData data_;
  bool vectorised_;
};

namespace coset_kernel {
// The search compiled for the build's baseline target, and for SSSE3 (a byte shuffle in one
// instruction) where the compiler can target it; the solver picks by the CPU it runs on.
std::vector<int> solve_portable(const CosetSearchData& data, const CubieCube& cube, uint64_t max_nodes,
                                SearchStats* stats, unsigned threads);
std::vector<int> solve_ssse3(const CosetSearchData& data, const CubieCube& cube, uint64_t max_nodes, SearchStats* stats,
                             unsigned threads);
bool ssse3_available();
}  // namespace coset_kernel

}  // namespace cogsim::cube
