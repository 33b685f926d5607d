#include "cube/coset_search.hpp"

#include "cube/coset_search_kernel.hpp"

namespace cogsim::cube {
namespace coset_kernel {

std::vector<int> solve_portable(const CosetSearchData& data, const CubieCube& cube, uint64_t max_nodes,
                                SearchStats* stats, unsigned threads) {
  return Kernel<0>(data).solve(cube, max_nodes, stats, threads);
}

}  // namespace coset_kernel

namespace {

// The canonical order of consecutive moves: never the same face twice, and of two opposite
// faces (which commute) the even one (U, R, F) first.
bool canonical(int first_face, int second_face) {
  return first_face != second_face && !((first_face & 1) && second_face == (first_face ^ 1));
}

uint32_t face_moves(int face) { return 7u << (3 * face); }

}  // namespace

CosetSolver::CosetSolver(std::shared_ptr<const CosetTable> table)
    : table_(std::move(table)), vectorised_(coset_kernel::ssse3_available()) {
  if (!table_ || table_->empty()) throw std::invalid_argument("a coset solver needs a loaded table");
  data_.table = table_.get();
  const Symmetries& sym = symmetries();
  for (int k = 0; k < kAxes; ++k) {
    for (int m = 0; m < kMoves; ++m) {
      const int seen = sym.view_move(k, m);
      data_.move[k][m] = VectorCube::of(move_cube(seen));
      data_.inverse_move[k][m] = VectorCube::of(move_cube(inverse_move(seen)));
      if (move_face(seen) == U || move_face(seen) == D) {
        data_.axis_moves[k] |= 1u << m;
        data_.view_of_move[m] = static_cast<uint8_t>(k);
      }
    }
  }
  for (int last = 0; last <= kFaces; ++last) {
    for (int face = 0; face < kFaces; ++face) {
      // Front: `face` comes right after `last`; back: `face` comes right before it.
      if (last == kFaces || canonical(last, face)) data_.front_after[last] |= face_moves(face);
      if (last == kFaces || canonical(face, last)) data_.back_after[last] |= face_moves(face);
    }
  }
}

std::vector<int> CosetSolver::solve(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats,
                                    unsigned threads) const {
  if (vectorised_) return coset_kernel::solve_ssse3(data_, cube, max_nodes, stats, threads);
  return coset_kernel::solve_portable(data_, cube, max_nodes, stats, threads);
}

std::array<int, 2 * kAxes> CosetSolver::entries(const CubieCube& cube) const {
  return coset_kernel::Kernel<0>(data_).entries(cube);
}

int CosetSolver::bound(const CubieCube& cube) const { return coset_kernel::Kernel<0>::bound_of(entries(cube)); }

}  // namespace cogsim::cube
