// A pruning table of coset distances for optimal search, after Rokicki's nxopt (cube20src,
// nxopt.md) and Kociemba's symmetry reduction.
//
// The table is indexed by coordinates that do not change when a U or D turn is applied *before*
// a state (S -> U * S relabels the U-layer cubies among themselves and changes no twist or flip):
//   corners: the twist of each position (3^7) and which positions hold D-layer cubies (C(8,4)),
//            reduced by the 16 symmetries that keep the U-D axis to 9,930 classes;
//   edges:   which positions hold the four E-slice cubies FR FL BL BR (C(12,4) = 495), and by the
//            table's shape, their order there (4! = 24) or which of the other eight positions
//            hold U-layer cubies (C(8,4) = 70), and the flips of the E-slice cubies (2^4) or of
//            the other eight (2^8).
// Each entry is the distance of its coset: the fewest moves that bring some state with these
// coordinates home. That bounds the distance of every state of the coset, and more: as U * S
// and S share an entry, a state whose entry equals the moves left cannot be solved in exactly
// that many moves by a sequence that ends with U or D (else U * S would be one move closer).
// Looked up on the state seen along each of its three axes and on its inverse, an entry equal
// to the budget rules out the last (or, for the inverse, the first) move's axis; when all three
// views of one side agree, the distance is one more.
//
// Storage: two bits per entry, relative to a base depth: 0 means "at most base", 1 and 2 mean
// base + 1 and base + 2, 3 means "base + 3 or more". Entries of 62 consecutive E-slice placements
// share a 16-byte stripe whose low four bits hold the smallest distance among them, the bound used
// for code 0 (so a lookup reads one cache line). Rows of a symmetric corner class hold every
// conjugate entry, so any symmetry that maps a state's corners onto the representative finds it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/table_file.hpp"
#include "cube/cubie.hpp"
#include "cube/symmetry.hpp"
#include "cube/vector_cube.hpp"

namespace cogsim::cube {

constexpr uint32_t kCornerClasses = 9930;
constexpr uint32_t kSlicePlacements = 495;
constexpr uint32_t kSlotsPerStripe = 62;
constexpr uint32_t kStripesPerGroup = 8;  // 8 x 62 slots hold the 495 placements
constexpr uint32_t kStripeBytes = 16;
constexpr uint32_t kCosetTableVersion = 1;

enum class EdgeOrder : uint8_t { kNone, kSliceOrder, kLayerSplit };
enum class EdgeFlips : uint8_t { kSliceEdges, kLayerEdges };

struct CosetShape {
  std::string name;
  EdgeOrder order;
  EdgeFlips flips;
  uint8_t base;

  uint32_t orders() const { return order == EdgeOrder::kNone ? 1 : order == EdgeOrder::kSliceOrder ? 24 : 70; }
  uint32_t flip_values() const { return flips == EdgeFlips::kSliceEdges ? 16 : 256; }
  uint32_t groups() const { return orders() * flip_values(); }
  uint64_t row_bytes() const { return uint64_t{groups()} * kStripesPerGroup * kStripeBytes; }
  uint64_t bytes() const { return row_bytes() * kCornerClasses; }
  std::string table_name() const { return "cube-cosets-" + name; }
};

// "small" (19 MiB; tests), "medium" (1.3 GiB) or "large" (7.3 GiB); throws std::invalid_argument.
CosetShape coset_shape(const std::string& name);
std::vector<std::string> coset_shape_names();

// Corner coordinates and their symmetry classes (shared by every shape).
class CornerClasses {
 public:
  // twist x D-layer placement, 2187 x 70.
  static constexpr uint32_t kRaw = 2187 * 70;

  [[gnu::always_inline]] uint32_t raw(Bytes16 corners) const {
    const uint32_t low = top_bits(corners << 3) & 0x7F, high = top_bits(corners << 2) & 0x7F;
    return uint32_t{twist_of_bits_[low | high << 7]} * 70 + layer_rank_[top_bits(corners << 5) & 0xFF];
  }
  // class << 4 | s, where conjugating by symmetry s gives the class representative's coordinates.
  uint32_t class_and_symmetry(uint32_t raw) const { return of_raw_[raw]; }
  const uint32_t* class_table() const { return of_raw_.data(); }

  // For builds: a cube with the representative's corners, and where each move takes a class: the
  // neighbouring class and every symmetry that maps the neighbour onto its representative.
  struct Step {
    uint32_t target;
    uint16_t symmetries;
  };
  const CubieCube& representative(uint32_t cls) const { return representative_[cls]; }
  Step step(uint32_t cls, int move) const { return steps_[cls * kMoves + move]; }

 private:
  CornerClasses();
  friend const CornerClasses& corner_classes();
  uint16_t twist_of_bits_[1 << 14];
  uint8_t layer_rank_[256];
  std::vector<uint32_t> of_raw_;
  std::vector<CubieCube> representative_;
  std::vector<Step> steps_;
};
const CornerClasses& corner_classes();

// Edge coordinates (shared by every shape) and the 16 symmetries' edge forms as vectors.
class EdgeCoords {
 public:
  struct Coord {
    uint32_t group;      // order * flip_values + flips
    uint32_t placement;  // of the E-slice edges, 0..494
  };

  [[gnu::always_inline]] Coord coord(Bytes16 edges, const CosetShape& shape) const {
    const uint32_t placement = placement_of_mask_[top_bits(edges << 4) & 0xFFF];
    // Non-slice positions to bytes 0-7, slice positions to bytes 8-11, both in position order.
    const Bytes16 gathered = shuffle(edges, gather_[placement]);
    const uint32_t flips = top_bits(gathered << 3);
    uint32_t group = shape.flips == EdgeFlips::kSliceEdges ? flips >> 8 & 0xF : flips & 0xFF;
    if (shape.order == EdgeOrder::kSliceOrder) {
      const uint32_t order = (top_bits(gathered << 7) >> 8 & 0xF) | (top_bits(gathered << 6) >> 4 & 0xF0);
      group += uint32_t{slice_order_rank_[order]} * shape.flip_values();
    } else if (shape.order == EdgeOrder::kLayerSplit) {
      group += uint32_t{layer_rank_[top_bits(gathered << 5) & 0xFF]} * shape.flip_values();
    }
    return {group, placement};
  }
  // The edges of G_s^-1 * edges * G_s.
  [[gnu::always_inline]] Bytes16 conjugate(Bytes16 edges, uint32_t s) const {
    return compose_edges(compose_edges(symmetry_inverse_[s], edges), symmetry_[s]);
  }
  // Stripe (bits 8 and up) and bit offset in it (low 8 bits) of each placement.
  uint32_t place(uint32_t placement) const { return place_[placement]; }

  // A representative edge vector of (placement, order, flips): coord() of it gives them back.
  Bytes16 representative(uint32_t placement, uint32_t order, uint32_t flips, const CosetShape& shape) const;

 private:
  EdgeCoords();
  friend const EdgeCoords& edge_coords();
  uint16_t placement_of_mask_[1 << kEdges];
  uint16_t mask_of_placement_[kSlicePlacements];
  uint16_t place_[kSlicePlacements];
  Bytes16 gather_[kSlicePlacements + 1];
  uint8_t slice_order_rank_[256];
  uint8_t slice_order_[24][4];
  uint8_t layer_rank_[256];
  uint8_t layer_mask_[70];
  Bytes16 symmetry_[kAxisSymmetries], symmetry_inverse_[kAxisSymmetries];
};
const EdgeCoords& edge_coords();

// Progress of a build: work units done of total (rows x levels) and a line for the current stage.
using BuildProgress = std::function<void(uint64_t done, uint64_t total, const std::string& stage)>;

class CosetTable {
 public:
  CosetTable() = default;
  CosetTable(CosetTable&&) = default;
  CosetTable& operator=(CosetTable&&) = default;

  // Maps `path` if it holds a complete, checked table of `shape`; otherwise returns an empty
  // table and says why in `why`.
  static CosetTable load(const CosetShape& shape, const std::string& path, std::string* why);
  // Builds into `path` (written atomically, with a checksum) unless a valid table is there, and
  // returns the mapped table. The build holds the table in memory and writes a checkpoint next to
  // `path` after a level once `checkpoint_seconds` have passed since the last; a build that was
  // killed resumes from its checkpoint. Throws std::runtime_error when another process is building
  // the same table, or on I/O failure.
  static CosetTable build(const CosetShape& shape, const std::string& path, unsigned threads,
                          const BuildProgress& progress, double checkpoint_seconds = 60);
  // Builds in memory only (small shapes; tests).
  static CosetTable build_in_memory(const CosetShape& shape, unsigned threads, const BuildProgress& progress);

  bool empty() const { return data_ == nullptr; }
  const CosetShape& shape() const { return shape_; }
  const std::string& path() const { return path_; }
  uint64_t bytes() const { return shape_.bytes(); }
  const uint8_t* data() const { return data_; }
  double build_seconds() const { return build_seconds_; }
  bool built() const { return built_; }

  struct Probe {
    const uint64_t* stripe;
    uint32_t bit;
  };
  // Where the entry of a cube (as seen: no views, no inverse) is; prefetches its line.
  [[gnu::always_inline]] Probe probe(const VectorCube& cube) const {
    const CornerClasses& corners = *corners_;
    const uint32_t class_and_symmetry = corners.class_table()[corners.raw(cube.corners)];
    const EdgeCoords::Coord edge = edges_->coord(edges_->conjugate(cube.edges, class_and_symmetry & 15), shape_);
    const uint32_t place = edges_->place(edge.placement);
    const uint8_t* stripe =
        data_ +
        ((uint64_t{class_and_symmetry >> 4} * groups_ + edge.group) * kStripesPerGroup + (place >> 8)) * kStripeBytes;
    __builtin_prefetch(stripe);
    return {reinterpret_cast<const uint64_t*>(stripe), place & 0xFF};
  }
  [[gnu::always_inline]] int value(Probe p) const {
    const uint32_t code = (p.stripe[p.bit >> 6] >> (p.bit & 63)) & 3;
    return code ? shape_.base + static_cast<int>(code) : static_cast<int>(p.stripe[0] & 15);
  }
  int value(const VectorCube& cube) const { return value(probe(cube)); }

  // Entries per code (0: at most base, 1, 2, 3: base + 3 or more), unused slots included in 3.
  std::array<uint64_t, 4> code_counts() const;

  // Nanoseconds per read of a random stripe of this table: reads that each wait for the one before
  // (the memory's latency), and reads issued 16 at a time (what a search that prefetches sees).
  struct ReadTimes {
    double dependent_ns, batched_ns;
  };
  ReadTimes time_random_reads(uint64_t reads) const;

 private:
  void attach(const uint8_t* data, const CosetShape& shape);
  CosetShape shape_;
  std::string path_;
  MappedTable mapped_;
  std::shared_ptr<AnonymousMemory> memory_;
  const uint8_t* data_ = nullptr;
  uint32_t groups_ = 0;
  const CornerClasses* corners_ = nullptr;
  const EdgeCoords* edges_ = nullptr;
  double build_seconds_ = 0;
  bool built_ = false;
  friend class CosetBuild;
};

}  // namespace cogsim::cube
