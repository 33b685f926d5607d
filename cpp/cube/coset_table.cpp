#include "cube/coset_table.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>

#include "common/parallel.hpp"
#include "cube/coords.hpp"

namespace cogsim::cube {
namespace {

constexpr uint32_t kUnassigned = 0xFFFFFFFF;
constexpr uint64_t kPairLowBits = 0x5555555555555555ULL;
constexpr uint64_t kNibble = 0xF;

// The cube with the given twist rank and D-layer placement (D-layer cubies 4..7 in position
// order, U-layer cubies 0..3 likewise); its edges are solved.
CubieCube corner_cube(uint32_t twist, uint32_t layer_mask) {
  CubieCube c = CubieCube::solved();
  corner_twist_unrank(twist, c.co.data());
  uint8_t up = 0, down = 4;
  for (int p = 0; p < kCorners; ++p) c.cp[p] = (layer_mask >> p & 1) ? down++ : up++;
  return c;
}

// Masks of `bits` bits with `ones` bits set, in increasing order.
std::vector<uint32_t> masks_with(int bits, int ones) {
  std::vector<uint32_t> masks;
  for (uint32_t m = 0; m < (1u << bits); ++m) {
    if (std::popcount(m) == ones) masks.push_back(m);
  }
  return masks;
}

// A bit per 2-bit field of `word` that equals `code` (the field's low bit).
uint64_t fields_equal(uint64_t word, uint64_t code) {
  const uint64_t x = word ^ (code * kPairLowBits);
  return ~(x | x >> 1) & kPairLowBits;
}

}  // namespace

CosetShape coset_shape(const std::string& name) {
  // Base depths: the code 0 ("at most base") should be rare and the codes 1-3 common; these are
  // nxopt's choices for the same coordinates in the face-turn metric.
  if (name == "small") return {"small", EdgeOrder::kNone, EdgeFlips::kSliceEdges, 7};
  if (name == "medium") return {"medium", EdgeOrder::kLayerSplit, EdgeFlips::kSliceEdges, 9};
  if (name == "large") return {"large", EdgeOrder::kSliceOrder, EdgeFlips::kLayerEdges, 9};
  throw std::invalid_argument("coset table size must be 'small', 'medium' or 'large', got '" + name + "'");
}

std::vector<std::string> coset_shape_names() { return {"small", "medium", "large"}; }

// ---- CornerClasses ----------------------------------------------------------------------------

CornerClasses::CornerClasses() : of_raw_(kRaw, kUnassigned) {
  std::fill(std::begin(twist_of_bits_), std::end(twist_of_bits_), 0);
  for (uint32_t t = 0; t < kCornerTwists; ++t) {
    const CubieCube c = corner_cube(t, 0xF0);
    uint32_t low = 0, high = 0;
    for (int p = 0; p < kCorners - 1; ++p) {
      low |= uint32_t{c.co[p] & 1u} << p;
      high |= static_cast<uint32_t>(c.co[p] >> 1) << p;
    }
    twist_of_bits_[low | high << 7] = static_cast<uint16_t>(corner_twist_rank(c));
  }
  std::fill(std::begin(layer_rank_), std::end(layer_rank_), 0);
  const std::vector<uint32_t> layers = masks_with(kCorners, 4);
  for (size_t i = 0; i < layers.size(); ++i) layer_rank_[layers[i]] = static_cast<uint8_t>(i);

  // Class of every raw coordinate: the smallest raw coordinate among its 16 conjugates.
  const Symmetries& sym = symmetries();
  auto raw_of = [&](const CubieCube& c) { return raw(VectorCube::of(c).corners); };
  std::vector<uint32_t> class_of_representative(kRaw, kUnassigned);
  std::vector<uint32_t> representative_raw;
  for (uint32_t t = 0; t < kCornerTwists; ++t) {
    for (uint32_t mask : layers) {
      const CubieCube c = corner_cube(t, mask);
      const uint32_t here = raw_of(c);
      uint32_t best = kUnassigned, best_symmetry = 0;
      for (int s = 0; s < kAxisSymmetries; ++s) {
        const uint32_t seen = raw_of(sym.conjugate_by(c, s));
        if (seen < best) best = seen, best_symmetry = static_cast<uint32_t>(s);
      }
      if (class_of_representative[best] == kUnassigned) {
        class_of_representative[best] = static_cast<uint32_t>(representative_raw.size());
        representative_raw.push_back(best);
      }
      of_raw_[here] = class_of_representative[best] << kSymmetryBits | best_symmetry;
    }
  }
  if (representative_raw.size() != kCornerClasses) {
    throw std::logic_error("corner symmetry classes: found " + std::to_string(representative_raw.size()) +
                           ", expected " + std::to_string(kCornerClasses));
  }
  representative_.resize(kCornerClasses);
  for (uint32_t cls = 0; cls < kCornerClasses; ++cls) {
    const uint32_t r = representative_raw[cls];
    representative_[cls] = corner_cube(r / 70, layers[r % 70]);
  }
  steps_.resize(size_t{kCornerClasses} * kMoves);
  for (uint32_t cls = 0; cls < kCornerClasses; ++cls) {
    for (int m = 0; m < kMoves; ++m) {
      const CubieCube next = representative_[cls] * move_cube(m);
      const uint32_t target = of_raw_[raw_of(next)] >> kSymmetryBits;
      uint16_t symmetries = 0;
      for (int s = 0; s < kAxisSymmetries; ++s) {
        if (raw_of(sym.conjugate_by(next, s)) == representative_raw[target]) symmetries |= uint16_t(1u << s);
      }
      steps_[cls * kMoves + m] = {target, symmetries};
    }
  }
}

const CornerClasses& corner_classes() {
  static const CornerClasses instance;
  return instance;
}

// ---- EdgeCoords -------------------------------------------------------------------------------

EdgeCoords::EdgeCoords() {
  std::fill(std::begin(placement_of_mask_), std::end(placement_of_mask_), 0);
  const std::vector<uint32_t> placements = masks_with(kEdges, 4);
  for (uint32_t p = 0; p < kSlicePlacements; ++p) {
    const uint32_t mask = placements[p];
    placement_of_mask_[mask] = static_cast<uint16_t>(p);
    mask_of_placement_[p] = static_cast<uint16_t>(mask);
    place_[p] = static_cast<uint16_t>((p / kSlotsPerStripe) << 8 | (4 + 2 * (p % kSlotsPerStripe)));
    int other = 0, slice = 8;
    for (int i = 0; i < 16; ++i) gather_[p][i] = static_cast<uint8_t>(i);
    for (int q = 0; q < kEdges; ++q) gather_[p][(mask >> q & 1) ? slice++ : other++] = static_cast<uint8_t>(q);
  }
  for (int i = 0; i < 16; ++i) gather_[kSlicePlacements][i] = static_cast<uint8_t>(i);

  std::fill(std::begin(slice_order_rank_), std::end(slice_order_rank_), 0);
  uint8_t order[4] = {0, 1, 2, 3};
  int rank = 0;
  do {
    uint32_t code = 0;
    for (int j = 0; j < 4; ++j) code |= (order[j] & 1u) << j | static_cast<uint32_t>(order[j] >> 1) << (j + 4);
    slice_order_rank_[code] = static_cast<uint8_t>(rank);
    std::copy(order, order + 4, slice_order_[rank++]);
  } while (std::next_permutation(order, order + 4));

  std::fill(std::begin(layer_rank_), std::end(layer_rank_), 0);
  const std::vector<uint32_t> layers = masks_with(8, 4);
  for (size_t i = 0; i < layers.size(); ++i) {
    layer_rank_[layers[i]] = static_cast<uint8_t>(i);
    layer_mask_[i] = static_cast<uint8_t>(layers[i]);
  }

  const Symmetries& sym = symmetries();
  for (int s = 0; s < kAxisSymmetries; ++s) {
    symmetry_[s] = VectorCube::of(sym.edge_symmetry(s)).edges;
    symmetry_inverse_[s] = VectorCube::of(sym.edge_symmetry(s).inverse()).edges;
  }
}

Bytes16 EdgeCoords::representative(uint32_t placement, uint32_t order, uint32_t flips, const CosetShape& shape) const {
  const uint32_t mask = mask_of_placement_[placement];
  Bytes16 edges;
  for (int i = 0; i < 16; ++i) edges[i] = static_cast<uint8_t>(i);
  uint8_t up = 0, down = 4;
  int other = 0, slice = 0;
  for (int q = 0; q < kEdges; ++q) {
    uint8_t cubie;
    bool flipped;
    if (mask >> q & 1) {
      cubie = static_cast<uint8_t>(8 + (shape.order == EdgeOrder::kSliceOrder ? slice_order_[order][slice] : slice));
      flipped = shape.flips == EdgeFlips::kSliceEdges && (flips >> slice & 1);
      ++slice;
    } else {
      if (shape.order == EdgeOrder::kLayerSplit) {
        cubie = (layer_mask_[order] >> other & 1) ? down++ : up++;
      } else {
        cubie = static_cast<uint8_t>(other);
      }
      flipped = shape.flips == EdgeFlips::kLayerEdges && (flips >> other & 1);
      ++other;
    }
    edges[q] = static_cast<uint8_t>(cubie | (flipped ? kFlipBit : 0));
  }
  return edges;
}

const EdgeCoords& edge_coords() {
  static const EdgeCoords instance;
  return instance;
}

// ---- The breadth-first build ------------------------------------------------------------------

// Level-synchronous breadth-first search over the table, in place. Until the base depth, entries
// hold their distance modulo 3 (3 = not reached), so level d expands the entries equal to d mod 3
// (those of depth d, and a few of depth d - 3, d - 6, ... whose neighbours are all reached
// already). Before level `base` every reached entry becomes 0 ("at most base"); level base then
// marks the new entries 1 and level base + 1 marks its new ones 2; whatever is left is 3.
//
// A row is the entries of one corner class. A move takes a row to one row (with the symmetries
// that map it onto its representative) and each edge coordinate through a map that, for a fixed
// E-slice placement, acts on the order and on the flips separately: per (move, symmetry) the build
// holds for each placement its image and those two small maps, so a neighbour costs three table
// reads. Rows are shared out between threads; a write into a neighbouring row is an atomic AND
// (all writers of a level write the same code), and so is setting a stripe's least distance (the
// first entry a stripe receives has its least distance, since levels run in order).
class CosetBuild {
 public:
  CosetBuild(const CosetShape& shape, uint8_t* table, unsigned threads, const BuildProgress& progress)
      : shape_(shape),
        table_(table),
        threads_(threads),
        progress_(progress),
        corners_(corner_classes()),
        edges_(edge_coords()),
        touched_(kCornerClasses) {
    build_maps();
  }

  int levels() const { return shape_.base + 2; }
  uint64_t work_units() const { return uint64_t{kCornerClasses} * static_cast<uint64_t>(levels()); }

  void initialize() {
    std::memset(table_, 0xFF, shape_.bytes());
    const VectorCube solved = VectorCube::of(CubieCube::solved());
    const uint32_t cls = corners_.class_and_symmetry(corners_.raw(solved.corners)) >> kSymmetryBits;
    for (int s = 0; s < kAxisSymmetries; ++s) {
      const EdgeCoords::Coord e = edges_.coord(edges_.conjugate(solved.edges, s), shape_);
      set_entry(row(cls), e.group, e.placement, 0, 0);
    }
    for (auto& t : touched_) t.store(kNever, std::memory_order_relaxed);
    touched_[cls].store(0, std::memory_order_relaxed);
    frontier_ = 1;
    unseen_ = entries() - 1;
  }

  // Runs levels first_level .. levels() - 1 (after initialize(), or on a table that holds the
  // first `first_level` levels); `after_level(level)` runs after each.
  void run(int first_level, const std::function<void(int)>& after_level) {
    if (first_level > 0) {
      for (auto& t : touched_) t.store(kUnknown, std::memory_order_relaxed);
      const std::array<uint64_t, 4> codes = count_codes();
      unseen_ = codes[3] - unused_slots();
      frontier_ = first_level == shape_.base ? entries() - unseen_ : codes[frontier_code(first_level)];
    }
    for (int level = first_level; level < levels(); ++level) {
      if (level == shape_.base) {
        clear_below_base();
        frontier_ = entries() - unseen_;
      }
      const auto started = std::chrono::steady_clock::now();
      const uint64_t found = expand_level(level);
      frontier_ = found;
      unseen_ -= std::min(unseen_, found);
      report(static_cast<uint64_t>(level + 1) * kCornerClasses, "depth " + std::to_string(level + 1) + ": " +
                                                                    std::to_string(found) + " entries, " +
                                                                    seconds_since(started) + " s");
      if (after_level) after_level(level);
    }
  }

 private:
  // touched_ values besides the depth of the newest entries: no entry yet; not known (resumed).
  static constexpr uint8_t kNever = 0xFF;
  static constexpr uint8_t kUnknown = 0xFE;

  struct EdgeMap {
    std::vector<uint16_t> placement;  // [placement]
    std::vector<uint8_t> order;       // [placement * orders + order]
    std::vector<uint8_t> flips;       // [placement * flip_values + flips]
  };
  struct FrontierStripe {
    uint32_t index;  // group * 8 + stripe
    uint64_t low, high;
  };

  uint8_t* row(uint32_t cls) const { return table_ + uint64_t{cls} * shape_.row_bytes(); }

  static std::string seconds_since(std::chrono::steady_clock::time_point t) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    return text;
  }

  void report(uint64_t done, const std::string& stage) const {
    if (progress_) progress_(done, work_units(), stage);
  }

  void build_maps() {
    const uint32_t orders = shape_.orders(), flip_values = shape_.flip_values();
    maps_.resize(kMoves * kAxisSymmetries);
    parallel_for(maps_.size(), threads_, [&](size_t i) {
      const Bytes16 move = VectorCube::of(move_cube(static_cast<int>(i / kAxisSymmetries))).edges;
      const uint32_t s = i % kAxisSymmetries;
      auto image = [&](uint32_t placement, uint32_t order, uint32_t flips) {
        const Bytes16 from = edges_.representative(placement, order, flips, shape_);
        return edges_.coord(edges_.conjugate(compose_edges(from, move), s), shape_);
      };
      EdgeMap& map = maps_[i];
      map.placement.resize(kSlicePlacements);
      map.order.resize(kSlicePlacements * orders);
      map.flips.resize(kSlicePlacements * flip_values);
      for (uint32_t p = 0; p < kSlicePlacements; ++p) {
        const EdgeCoords::Coord base = image(p, 0, 0);
        map.placement[p] = static_cast<uint16_t>(base.placement);
        for (uint32_t o = 0; o < orders; ++o) map.order[p * orders + o] = uint8_t(image(p, o, 0).group / flip_values);
        for (uint32_t f = 0; f < flip_values; ++f) {
          map.flips[p * flip_values + f] = static_cast<uint8_t>(image(p, 0, f).group % flip_values);
        }
      }
    });
  }

  // Sets an unreached entry to `code`; true if this call was the one that reached it. The stripe's
  // least distance is set on its first entry.
  bool set_entry(uint8_t* row, uint32_t group, uint32_t placement, uint64_t code, uint64_t depth) {
    const uint32_t place = edges_.place(placement);
    auto* stripe =
        reinterpret_cast<uint64_t*>(row + (uint64_t{group} * kStripesPerGroup + (place >> 8)) * kStripeBytes);
    const uint32_t bit = place & 63;
    uint64_t& word = stripe[(place & 0xFF) >> 6];
    if ((std::atomic_ref<uint64_t>(word).load(std::memory_order_relaxed) >> bit & 3) != 3) return false;
    const uint64_t before = std::atomic_ref<uint64_t>(word).fetch_and(~((3 ^ code) << bit), std::memory_order_relaxed);
    if ((std::atomic_ref<uint64_t>(stripe[0]).load(std::memory_order_relaxed) & kNibble) == kNibble) {
      std::atomic_ref<uint64_t>(stripe[0]).fetch_and(~(kNibble ^ depth), std::memory_order_relaxed);
    }
    return (before >> bit & 3) == 3;
  }

  // Every reached entry (code 0, 1 or 2) becomes 0; the least distances stay.
  void clear_below_base() {
    parallel_for(
        kCornerClasses, threads_,
        [&](size_t cls) {
          auto* w = reinterpret_cast<uint64_t*>(row(static_cast<uint32_t>(cls)));
          for (uint64_t i = 0, n = shape_.row_bytes() / 8; i < n; ++i) {
            const uint64_t unreached = w[i] & w[i] >> 1 & kPairLowBits;
            const uint64_t codes = unreached | unreached << 1;
            w[i] = i % 2 == 0 ? (codes & ~kNibble) | (w[i] & kNibble)
                              : codes;  // word 0 of a stripe: keep its least distance
          }
        },
        16);
  }

  uint64_t entries() const { return uint64_t{kCornerClasses} * shape_.groups() * kSlicePlacements; }
  uint64_t unused_slots() const {
    return uint64_t{kCornerClasses} * shape_.groups() * (kStripesPerGroup * kSlotsPerStripe - kSlicePlacements);
  }
  uint64_t frontier_code(int level) const { return level < shape_.base ? level % 3 : level == shape_.base ? 0 : 1; }
  uint64_t new_code(int level) const { return level < shape_.base ? (level + 1) % 3 : level == shape_.base ? 1 : 2; }

  std::array<uint64_t, 4> count_codes() const {
    CosetTable view;
    view.attach(table_, shape_);
    return view.code_counts();
  }

  // Forwards, each frontier entry reaches its unreached neighbours; backwards (once the frontier
  // outnumbers the unreached entries), each unreached entry looks for a neighbour on the frontier
  // and stops at the first, which reads far fewer entries in the widest levels.
  uint64_t expand_level(int level) {
    const uint64_t frontier = frontier_code(level), next_code = new_code(level);
    const bool backwards = frontier_ > unseen_;
    // The rows that can hold frontier entries: those reached by the level before (at the base
    // level, every row reached at all); backwards, every row.
    std::vector<uint32_t> rows;
    for (uint32_t cls = 0; cls < kCornerClasses; ++cls) {
      const uint8_t t = touched_[cls].load(std::memory_order_relaxed);
      if (backwards || t == level || t == kUnknown || (level == shape_.base && t != kNever)) rows.push_back(cls);
    }
    const uint64_t first_unit = static_cast<uint64_t>(level) * kCornerClasses + (kCornerClasses - rows.size());
    std::atomic<uint64_t> done{0}, found{0};
    parallel_for(rows.size(), threads_, [&](size_t i) {
      const uint64_t here = backwards ? expand_row_backwards(rows[i], level, frontier, next_code)
                                      : expand_row(rows[i], level, frontier, next_code);
      found.fetch_add(here, std::memory_order_relaxed);
      const uint64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (progress_ && d % 64 == 0) report(first_unit + d, "depth " + std::to_string(level + 1));
    });
    return found.load();
  }

  // The unreached entries of row `cls` take `next_code` where a neighbour holds `frontier`. Only
  // this row is written, by this thread alone; other threads only read it, for entries that hold
  // `frontier`, which no write here makes or unmakes.
  uint64_t expand_row_backwards(uint32_t cls, int level, uint64_t frontier, uint64_t next_code) {
    thread_local std::vector<FrontierStripe> stripes;
    stripes.clear();
    auto* words = reinterpret_cast<uint64_t*>(row(cls));
    const uint32_t count = shape_.groups() * kStripesPerGroup;
    // Slot 61 of a group's last stripe holds no placement (8 x 62 = 496 > 495).
    const uint64_t last_slot = uint64_t{1} << 62;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t low = fields_equal(words[2 * i], 3) & ~kNibble;
      uint64_t high = fields_equal(words[2 * i + 1], 3);
      if (i % kStripesPerGroup == kStripesPerGroup - 1) high &= ~last_slot;
      if (low | high) stripes.push_back({i, low, high});
    }
    const uint32_t orders = shape_.orders(), flip_values = shape_.flip_values();
    const uint32_t flip_bits = static_cast<uint32_t>(std::countr_zero(flip_values));
    const uint64_t depth = static_cast<uint64_t>(level) + 1;
    uint64_t found = 0;
    for (int m = 0; m < kMoves && !stripes.empty(); ++m) {
      const CornerClasses::Step step = corners_.step(cls, m);
      const uint8_t* target = row(step.target);
      // Any one symmetry will do: a symmetric row holds every conjugate entry.
      const EdgeMap& map = maps_[m * kAxisSymmetries + std::countr_zero(step.symmetries)];
      size_t kept = 0;
      for (FrontierStripe s : stripes) {
        const uint32_t group = s.index / kStripesPerGroup;
        const uint32_t order = group >> flip_bits, flips = group & (flip_values - 1);
        const uint32_t first = (s.index % kStripesPerGroup) * kSlotsPerStripe;
        uint64_t reached_low = 0, reached_high = 0;
        auto reached = [&](uint32_t slot) {
          const uint32_t p = first + slot;
          const uint32_t to_group =
              uint32_t{map.order[p * orders + order]} << flip_bits | map.flips[p * flip_values + flips];
          return entry(target, to_group, map.placement[p]) == frontier;
        };
        for (uint64_t b = s.low; b; b &= b - 1) {
          if (reached((static_cast<uint32_t>(std::countr_zero(b)) - 4) / 2)) reached_low |= b & -b;
        }
        for (uint64_t b = s.high; b; b &= b - 1) {
          if (reached(30 + static_cast<uint32_t>(std::countr_zero(b)) / 2)) reached_high |= b & -b;
        }
        if (reached_low | reached_high) {
          uint64_t* stripe = words + 2 * s.index;
          const uint64_t set = 3 ^ next_code;  // unreached (3) becomes next_code
          uint64_t first_word = stripe[0] & ~(reached_low * set);
          if ((first_word & kNibble) == kNibble) first_word &= ~(kNibble ^ depth);
          std::atomic_ref<uint64_t>(stripe[0]).store(first_word, std::memory_order_relaxed);
          std::atomic_ref<uint64_t>(stripe[1]).store(stripe[1] & ~(reached_high * set), std::memory_order_relaxed);
          found += static_cast<uint64_t>(std::popcount(reached_low) + std::popcount(reached_high));
          s.low &= ~reached_low;
          s.high &= ~reached_high;
        }
        if (s.low | s.high) stripes[kept++] = s;
      }
      stripes.resize(kept);
    }
    if (found) touched_[cls].store(static_cast<uint8_t>(depth), std::memory_order_relaxed);
    return found;
  }

  uint8_t entry(const uint8_t* row, uint32_t group, uint32_t placement) const {
    const uint32_t place = edges_.place(placement);
    const auto* stripe =
        reinterpret_cast<const uint64_t*>(row + (uint64_t{group} * kStripesPerGroup + (place >> 8)) * kStripeBytes);
    return static_cast<uint8_t>(
        std::atomic_ref<const uint64_t>(stripe[(place & 0xFF) >> 6]).load(std::memory_order_relaxed) >> (place & 63) &
        3);
  }

  uint64_t expand_row(uint32_t cls, int level, uint64_t frontier, uint64_t next_code) {
    thread_local std::vector<FrontierStripe> stripes;
    stripes.clear();
    const auto* words = reinterpret_cast<const uint64_t*>(row(cls));
    const uint32_t count = shape_.groups() * kStripesPerGroup;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t low = fields_equal(words[2 * i], frontier) & ~kNibble;
      const uint64_t high = fields_equal(words[2 * i + 1], frontier);
      if (low | high) stripes.push_back({i, low, high});
    }
    if (stripes.empty()) return 0;
    const uint32_t orders = shape_.orders(), flip_values = shape_.flip_values();
    const uint32_t flip_bits = static_cast<uint32_t>(std::countr_zero(flip_values));
    const uint64_t depth = static_cast<uint64_t>(level) + 1;
    uint64_t found = 0;
    for (int m = 0; m < kMoves; ++m) {
      const CornerClasses::Step step = corners_.step(cls, m);
      uint8_t* target = row(step.target);
      bool reached = false;
      for (uint32_t symmetries = step.symmetries; symmetries; symmetries &= symmetries - 1) {
        const EdgeMap& map = maps_[m * kAxisSymmetries + std::countr_zero(symmetries)];
        for (const FrontierStripe& s : stripes) {
          const uint32_t group = s.index / kStripesPerGroup;
          const uint32_t order = group >> flip_bits, flips = group & (flip_values - 1);
          const uint32_t first = (s.index % kStripesPerGroup) * kSlotsPerStripe;
          auto visit = [&](uint32_t slot) {
            const uint32_t p = first + slot;
            const uint32_t to_group =
                uint32_t{map.order[p * orders + order]} << flip_bits | map.flips[p * flip_values + flips];
            if (set_entry(target, to_group, map.placement[p], next_code, depth)) {
              ++found;
              reached = true;
            }
          };
          for (uint64_t b = s.low; b; b &= b - 1) visit((static_cast<uint32_t>(std::countr_zero(b)) - 4) / 2);
          for (uint64_t b = s.high; b; b &= b - 1) visit(30 + static_cast<uint32_t>(std::countr_zero(b)) / 2);
        }
      }
      if (reached) touched_[step.target].store(static_cast<uint8_t>(depth), std::memory_order_relaxed);
    }
    return found;
  }

  const CosetShape shape_;
  uint8_t* table_;
  unsigned threads_;
  BuildProgress progress_;
  const CornerClasses& corners_;
  const EdgeCoords& edges_;
  std::vector<EdgeMap> maps_;
  std::vector<std::atomic<uint8_t>> touched_;  // per row: the last level that reached an entry in it
  uint64_t frontier_ = 0, unseen_ = 0;         // entries of the last level, and not reached yet
};

// ---- CosetTable -------------------------------------------------------------------------------

namespace {

AnonymousMemory build_memory(const CosetShape& shape) {
  try {
    return AnonymousMemory(shape.bytes());
  } catch (const std::bad_alloc&) {
    throw TableMemoryError(memory_shortage("building the " + shape.name + " cube table", shape.bytes()));
  }
}

}  // namespace

void CosetTable::attach(const uint8_t* data, const CosetShape& shape) {
  shape_ = shape;
  data_ = data;
  groups_ = shape.groups();
  corners_ = &corner_classes();
  edges_ = &edge_coords();
}

CosetTable CosetTable::load(const CosetShape& shape, const std::string& path, std::string* why) {
  CosetTable table;
  if (!table.mapped_.open(path, shape.table_name(), kCosetTableVersion, why)) return table;
  if (table.mapped_.size() != shape.bytes()) {
    *why = "holds " + std::to_string(table.mapped_.size()) + " bytes, expected " + std::to_string(shape.bytes());
    table.mapped_ = MappedTable();
    return table;
  }
  table.path_ = path;
  table.attach(table.mapped_.data(), shape);
  return table;
}

CosetTable CosetTable::build_in_memory(const CosetShape& shape, unsigned threads, const BuildProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  auto memory = std::make_shared<AnonymousMemory>(build_memory(shape));
  CosetBuild build(shape, memory->data(), threads, progress);
  build.initialize();
  build.run(0, nullptr);
  CosetTable table;
  table.memory_ = memory;
  table.attach(memory->data(), shape);
  table.built_ = true;
  table.build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return table;
}

namespace {

// A checkpoint is the payload in the partial file and a state line naming the levels done and the
// payload's checksum, so that a checkpoint cut short by a kill is never resumed.
struct Checkpoints {
  PartialTableFile& partial;
  std::string state_path, tag;

  int levels_done(const CosetShape& shape, int levels, uint8_t* table, const BuildProgress& progress,
                  uint64_t units) const {
    std::istringstream state(read_small_file(state_path, 4096));
    std::string tag_a, tag_b;
    int done = -1;
    uint64_t checksum = 0;
    if (!(state >> tag_a >> tag_b >> done >> checksum) || tag_a + " " + tag_b != tag || done <= 0 || done >= levels ||
        !partial.has_payload()) {
      return 0;
    }
    if (progress) progress(0, units, "resuming from a checkpoint after depth " + std::to_string(done));
    partial.read_payload(table);
    return checksum64(table, shape.bytes()) == checksum ? done : 0;
  }

  void write(const CosetShape& shape, int levels_done, const uint8_t* table) const {
    std::remove(state_path.c_str());
    partial.write_payload(table);
    const std::string line =
        tag + " " + std::to_string(levels_done) + " " + std::to_string(checksum64(table, shape.bytes())) + "\n";
    write_file_atomically(state_path, {{line.data(), line.size()}});
  }
};

}  // namespace

CosetTable CosetTable::build(const CosetShape& shape, const std::string& path, unsigned threads,
                             const BuildProgress& progress, double checkpoint_seconds) {
  std::string why;
  {
    CosetTable existing = load(shape, path, &why);
    if (!existing.empty()) return existing;
  }
  const std::string lock_path = path + ".lock";
  FileLock lock(lock_path);
  if (!lock.try_lock()) {
    throw std::runtime_error("another process is building " + path + "; wait for it to finish");
  }
  {
    CosetTable existing = load(shape, path, &why);  // a build that finished while this one started
    if (!existing.empty()) return existing;
  }
  const auto started = std::chrono::steady_clock::now();
  {
    // The build's memory is given back before the written table is mapped.
    AnonymousMemory memory = build_memory(shape);
    PartialTableFile partial(path, shape.bytes());
    const Checkpoints checkpoints{partial, partial.partial_path() + ".state",
                                  shape.table_name() + " v" + std::to_string(kCosetTableVersion)};
    CosetBuild build(shape, memory.data(), threads, progress);
    const int first_level = checkpoints.levels_done(shape, build.levels(), memory.data(), progress, build.work_units());
    if (first_level == 0) build.initialize();
    auto last_checkpoint = std::chrono::steady_clock::now();
    build.run(first_level, [&](int level) {
      const auto now = std::chrono::steady_clock::now();
      if (level + 1 == build.levels() ||
          std::chrono::duration<double>(now - last_checkpoint).count() < checkpoint_seconds) {
        return;
      }
      if (progress) progress(uint64_t(level + 1) * kCornerClasses, build.work_units(), "writing a checkpoint");
      checkpoints.write(shape, level + 1, memory.data());
      last_checkpoint = std::chrono::steady_clock::now();
    });
    if (progress) progress(build.work_units(), build.work_units(), "writing " + path);
    partial.write_payload(memory.data());
    partial.finish(shape.table_name(), kCosetTableVersion, checksum64(memory.data(), shape.bytes()));
    std::remove(checkpoints.state_path.c_str());
    std::remove(lock_path.c_str());  // while still held: a builder that comes now finds the table
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CosetTable table = load(shape, path, &why);
  if (table.empty()) throw std::runtime_error("the table just written to " + path + " does not load: " + why);
  table.built_ = true;
  table.build_seconds_ = seconds;
  return table;
}

std::array<uint64_t, 4> CosetTable::code_counts() const {
  std::array<uint64_t, 4> counts{};
  const auto* words = reinterpret_cast<const uint64_t*>(data_);
  for (uint64_t i = 0, n = shape_.bytes() / 8; i < n; ++i) {
    uint64_t w = words[i];
    if (i % 2 == 0) w |= kNibble;  // the least distance is not an entry; count its two fields as unused
    for (int code = 0; code < 4; ++code) counts[code] += std::popcount(fields_equal(w, code));
  }
  counts[3] -= shape_.bytes() / kStripeBytes * 2;
  return counts;
}

CosetTable::ReadTimes CosetTable::time_random_reads(uint64_t reads) const {
  const uint64_t stripes = shape_.bytes() / kStripeBytes;
  uint64_t x = 0x9E3779B97F4A7C15ULL, sum = 0;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % stripes;
  };
  const auto* words = reinterpret_cast<const uint64_t*>(data_);
  auto started = std::chrono::steady_clock::now();
  uint64_t at = next();
  for (uint64_t i = 0; i < reads; ++i) at = (next() + (words[2 * at] & 1)) % stripes;  // waits for the read
  const double dependent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  started = std::chrono::steady_clock::now();
  constexpr int kBatch = 16;
  uint64_t batch[kBatch];
  for (uint64_t i = 0; i < reads; i += kBatch) {
    for (int j = 0; j < kBatch; ++j) __builtin_prefetch(words + 2 * (batch[j] = next()));
    for (int j = 0; j < kBatch; ++j) sum += words[2 * batch[j]];
  }
  const double batched = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if ((sum ^ at) == 42) std::fprintf(stderr, " ");  // keeps the reads
  return {dependent * 1e9 / static_cast<double>(reads), batched * 1e9 / static_cast<double>(reads)};
}

}  // namespace cogsim::cube
