#include "cube/phase1.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>

#include "common/parallel.hpp"
#include "cube/coords.hpp"

namespace cogsim::cube {
namespace {

constexpr uint32_t kUnassigned = 0xFFFFFFFF;
constexpr int kSliceCubieFirst = 8;

uint32_t slice_mask_of(const CubieCube& c) {
  uint32_t mask = 0;
  for (int p = 0; p < kEdges; ++p) {
    if (c.ep[p] >= kSliceCubieFirst) mask |= 1u << p;
  }
  return mask;
}

// Lehmer rank of the order of four distinct values 0..3 (identity = 0), and its inverse.
uint32_t order_rank(const uint8_t* order) {
  uint32_t rank = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t smaller_after = 0;
    for (int j = i + 1; j < 4; ++j) smaller_after += order[j] < order[i];
    rank = rank * (4 - i) + smaller_after;
  }
  return rank;
}

void order_unrank(uint32_t rank, uint8_t* order) {
  uint32_t digits[4];
  for (int i = 3; i >= 0; --i) {
    digits[i] = rank % (4 - i);
    rank /= 4 - i;
  }
  bool used[4] = {false, false, false, false};
  for (int i = 0; i < 4; ++i) {
    uint32_t skip = digits[i];
    for (uint8_t v = 0; v < 4; ++v) {
      if (used[v]) continue;
      if (skip-- == 0) {
        order[i] = v;
        used[v] = true;
        break;
      }
    }
  }
}

constexpr uint8_t kUnseen = 15;
constexpr uint32_t kClassesPerTask = 64;

uint8_t nibble(const std::vector<uint8_t>& table, uint64_t i) {
  const uint8_t byte = std::atomic_ref<const uint8_t>(table[i >> 1]).load(std::memory_order_relaxed);
  return (byte >> ((i & 1) << 2)) & 15;
}

// Sets an unseen entry to `value`; true if this call was the one that changed it. All writers of
// one breadth-first level write the same value, so AND-ing it into an unseen (all ones) nibble
// is idempotent and needs no compare-and-swap.
bool claim(std::vector<uint8_t>& table, uint64_t i, uint8_t value) {
  const int shift = static_cast<int>(i & 1) << 2;
  const uint8_t keep = static_cast<uint8_t>(~((kUnseen ^ value) << shift));
  const uint8_t old = std::atomic_ref<uint8_t>(table[i >> 1]).fetch_and(keep, std::memory_order_relaxed);
  return ((old >> shift) & 15) == kUnseen;
}

CubieCube twist_cube(uint32_t twist) {
  CubieCube c = CubieCube::solved();
  corner_twist_unrank(twist, c.co.data());
  return c;
}

}  // namespace

Phase1::Phase1(Phase1Kind kind)
    : kind_(kind), slices_(kind == Phase1Kind::kSorted ? kPhase1Slices * kSliceOrders : kPhase1Slices) {
  if (kind == Phase1Kind::kOff) throw std::invalid_argument("Phase1 needs the plain or the sorted variant");
  slice_rank_.fill(0xFFFF);
  uint16_t next = 0;
  for (uint32_t mask = 0; mask < (1u << kEdges); ++mask) {
    if (std::popcount(mask) == 4) {
      slice_mask_[next] = static_cast<uint16_t>(mask);
      slice_rank_[mask] = next++;
    }
  }
  for (int axis = 0; axis < kAxes; ++axis) {
    for (int m = 0; m < kMoves; ++m) view_move_[axis][m] = static_cast<uint8_t>(symmetries().view_move(axis, m));
  }
  build_move_tables();
  build_symmetry_classes();
}

void Phase1::build_move_tables() {
  twist_.assign(corner_moves().twist.begin(), corner_moves().twist.end());
  flip_.resize(size_t{kPhase1Flips} * kMoves);
  slice_.resize(size_t{slices_} * kMoves);
  const uint32_t home = slice_coord(CubieCube::solved());
  for (uint32_t f = 0; f < kPhase1Flips; ++f) {
    const CubieCube c = flip_slice_cube(home * kPhase1Flips + f);
    for (int m = 0; m < kMoves; ++m) flip_[f * kMoves + m] = plain_coord(c * move_cube(m)).flip;
  }
  for (uint32_t s = 0; s < slices_; ++s) {
    const CubieCube c = flip_slice_cube(s * kPhase1Flips);
    for (int m = 0; m < kMoves; ++m) slice_[s * kMoves + m] = plain_coord(c * move_cube(m)).slice;
  }
}

void Phase1::build_symmetry_classes() {
  const Symmetries& sym = symmetries();
  twist_conjugate_.resize(size_t{kPhase1Twists} * kAxisSymmetries);
  for (uint32_t t = 0; t < kPhase1Twists; ++t) {
    const CubieCube c = twist_cube(t);
    for (int s = 0; s < kAxisSymmetries; ++s) {
      twist_conjugate_[t * kAxisSymmetries + s] = plain_coord(sym.conjugate_into(c, s)).twist;
    }
  }
  // class_of_[y] = (class, s) means G_s Y G_s^-1 has the representative's flip and slice.
  class_of_.assign(flip_slices(), kUnassigned);
  representative_.clear();
  stabilizer_.clear();
  for (uint32_t fs = 0; fs < flip_slices(); ++fs) {
    if (class_of_[fs] != kUnassigned) continue;
    const uint32_t cls = static_cast<uint32_t>(representative_.size());
    representative_.push_back(fs);
    const CubieCube c = flip_slice_cube(fs);
    uint32_t members[kAxisSymmetries];
    uint16_t stabilizer = 0;
    for (int s = 0; s < kAxisSymmetries; ++s) {
      members[s] = flip_slice(plain_coord(sym.conjugate_by(c, s)));
      if (members[s] == fs) stabilizer |= static_cast<uint16_t>(1u << s);
    }
    stabilizer_.push_back(stabilizer);
    const uint32_t flag = stabilizer != 1 ? kSymmetricClass : 0;
    for (int s = 0; s < kAxisSymmetries; ++s) {
      if (class_of_[members[s]] == kUnassigned) {
        class_of_[members[s]] = flag | cls << kSymmetryBits | static_cast<uint32_t>(s);
      }
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

CubieCube Phase1::flip_slice_cube(uint32_t flip_slice) const {
  const uint32_t slice = flip_slice / kPhase1Flips;
  const uint32_t flip = flip_slice % kPhase1Flips;
  const bool sorted = kind_ == Phase1Kind::kSorted;
  const uint32_t mask = slice_mask_[sorted ? slice / kSliceOrders : slice];
  uint8_t order[4] = {0, 1, 2, 3};
  if (sorted) order_unrank(slice % kSliceOrders, order);
  CubieCube c = CubieCube::solved();
  int slice_edge = 0, other_edge = 0, sum = 0;
  for (int p = 0; p < kEdges; ++p) {
    c.ep[p] = static_cast<uint8_t>((mask >> p & 1) ? kSliceCubieFirst + order[slice_edge++] : other_edge++);
  }
  for (int p = 0; p < kEdges - 1; ++p) sum += c.eo[p] = (flip >> (kEdges - 2 - p)) & 1;
  c.eo[kEdges - 1] = sum & 1;
  return c;
}

Phase1Coord Phase1::plain_coord(const CubieCube& c) const {
  uint32_t flip = 0;
  for (int p = 0; p < kEdges - 1; ++p) flip = flip * 2 + c.eo[p];
  return {static_cast<uint16_t>(corner_twist_rank(c)), static_cast<uint16_t>(flip),
          static_cast<uint16_t>(slice_coord(c))};
}

uint32_t Phase1::slice_coord(const CubieCube& c) const {
  const uint32_t where = slice_rank_[slice_mask_of(c)];
  if (kind_ != Phase1Kind::kSorted) return where;
  uint8_t order[4];
  int found = 0;
  for (int p = 0; p < kEdges; ++p) {
    if (c.ep[p] >= kSliceCubieFirst) order[found++] = static_cast<uint8_t>(c.ep[p] - kSliceCubieFirst);
  }
  return where * kSliceOrders + order_rank(order);
}

Phase1Coord Phase1::coord(const CubieCube& cube, int axis) const { return plain_coord(symmetries().view(cube, axis)); }

uint64_t Phase1::solved_index() const { return index(plain_coord(CubieCube::solved())); }

Phase1::ClassStep Phase1::step(uint32_t cls, int move) const {
  const uint32_t fs = representative_[cls];
  const uint32_t next =
      uint32_t{slice_[fs / kPhase1Flips * kMoves + move]} * kPhase1Flips + flip_[fs % kPhase1Flips * kMoves + move];
  const uint32_t class_and_symmetry = class_of_[next];
  return {(class_and_symmetry & ~kSymmetricClass) >> kSymmetryBits,
          static_cast<uint8_t>(class_and_symmetry & (kAxisSymmetries - 1)),
          (class_and_symmetry & kSymmetricClass) != 0};
}

// One level of the breadth-first search, class by class: the 18 moves take all twists of a class
// to one neighbouring class each, so the entries a class touches lie in 18 blocks of 1.1 KB
// instead of all over the table. Forwards, every entry at `depth` claims its unseen neighbours;
// backwards (once few entries remain unseen), every unseen entry looks for a neighbour at `depth`.
uint64_t Phase1::breadth_first_level(std::vector<uint8_t>& table, uint8_t depth, bool backwards,
                                     unsigned threads) const {
  std::atomic<uint64_t> found{0};
  const uint32_t tasks = (classes() + kClassesPerTask - 1) / kClassesPerTask;
  parallel_for(tasks, threads, [&](size_t task) {
    uint64_t local = 0;
    std::vector<uint16_t> twists;
    twists.reserve(kPhase1Twists);
    const uint32_t first = static_cast<uint32_t>(task) * kClassesPerTask;
    const uint32_t last = std::min(classes(), first + kClassesPerTask);
    for (uint32_t cls = first; cls < last; ++cls) {
      const uint64_t base = uint64_t{cls} * kPhase1Twists;
      const uint8_t wanted = backwards ? kUnseen : depth;
      twists.clear();
      for (uint32_t t = 0; t < kPhase1Twists; ++t) {
        if (nibble(table, base + t) == wanted && !is_alias(cls, t)) twists.push_back(static_cast<uint16_t>(t));
      }
      for (int m = 0; m < kMoves && !twists.empty(); ++m) {
        const ClassStep next = step(cls, m);
        const uint64_t next_base = uint64_t{next.cls} * kPhase1Twists;
        if (!backwards) {
          for (uint16_t t : twists) {
            const uint64_t j = next_base + stepped_twist(next, t, m);
            if (nibble(table, j) == kUnseen && claim(table, j, depth + 1)) ++local;
          }
          continue;
        }
        size_t kept = 0;
        for (uint16_t t : twists) {
          if (nibble(table, next_base + stepped_twist(next, t, m)) == depth) {
            claim(table, base + t, depth + 1);
            ++local;
          } else {
            twists[kept++] = t;
          }
        }
        twists.resize(kept);
      }
    }
    found.fetch_add(local, std::memory_order_relaxed);
  });
  return found.load();
}

std::vector<uint8_t> Phase1::build_distances(unsigned threads,
                                             const std::function<void(const std::string&)>& report) const {
  const uint64_t n = entries();
  std::vector<uint8_t> table((n + 1) / 2, 0xFF);
  uint64_t aliases = 0;
  for (uint32_t cls = 0; cls < classes(); ++cls) {
    for (uint32_t t = 0; t < kPhase1Twists && stabilizer_[cls] != 1; ++t) aliases += is_alias(cls, t);
  }
  claim(table, solved_index(), 0);
  uint64_t seen = 1 + aliases, frontier = 1;
  for (uint8_t depth = 0; seen < n && frontier > 0; ++depth) {
    if (depth + 1 >= kUnseen) throw std::logic_error("phase-1 table deeper than 4-bit entries allow");
    frontier = breadth_first_level(table, depth, frontier > n - seen, threads);
    seen += frontier;
    if (report) {
      report("depth " + std::to_string(depth + 1) + ", " + std::to_string(frontier) + " states (" +
             std::to_string(seen * 100 / n) + "% of " + std::to_string(n) + ")");
    }
  }
  if (seen != n) throw std::logic_error("phase-1 breadth-first search did not reach every entry");
  for (uint32_t cls = 0; cls < classes(); ++cls) {
    if (stabilizer_[cls] == 1) continue;
    const uint64_t base = uint64_t{cls} * kPhase1Twists;
    for (uint32_t t = 0; t < kPhase1Twists; ++t) {
      const uint32_t canonical = canonical_twist(cls, t);
      if (canonical != t) claim(table, base + t, nibble(table, base + canonical));
    }
  }
  return table;
}

const Phase1& phase1(Phase1Kind kind) {
  if (kind == Phase1Kind::kSorted) {
    static const Phase1 sorted(Phase1Kind::kSorted);
    return sorted;
  }
  static const Phase1 plain(Phase1Kind::kPlain);
  return plain;
}

}  // namespace cogsim::cube
