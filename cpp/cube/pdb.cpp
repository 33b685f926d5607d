#include "cube/pdb.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "common/parallel.hpp"
#include "cube/phase1.hpp"

namespace cogsim::cube {
namespace {

constexpr uint8_t kUnseen = 0xFF;
constexpr size_t kBlock = 1 << 16;

// Level-synchronous BFS over [0, n). Early levels expand the frontier forwards; once the
// frontier outnumbers the unseen states, it switches to checking each unseen state for a
// neighbour on the frontier, which touches far fewer entries in the widest levels.
template <typename Neighbours>
std::vector<uint8_t> breadth_first(uint64_t n, uint64_t start, Neighbours neighbours, unsigned threads,
                                   const std::string& label, const Progress& progress) {
  std::vector<uint8_t> dist(n, kUnseen);
  uint64_t seen = 1, frontier = 1;
  dist[start] = 0;
  const size_t blocks = (n + kBlock - 1) / kBlock;
  for (uint8_t depth = 0; seen < n && frontier > 0; ++depth) {
    if (depth >= 14) throw std::logic_error("pattern database deeper than 4-bit entries allow");
    const bool backwards = frontier > n - seen;
    std::atomic<uint64_t> found{0};
    parallel_for(blocks, threads, [&](size_t block) {
      const uint64_t begin = block * kBlock, end = std::min<uint64_t>(n, begin + kBlock);
      uint64_t local = 0, next[kMoves];
      for (uint64_t i = begin; i < end; ++i) {
        std::atomic_ref<uint8_t> here(dist[i]);
        if (backwards) {
          if (here.load(std::memory_order_relaxed) != kUnseen) continue;
          neighbours(i, next);
          for (int m = 0; m < kMoves; ++m) {
            if (std::atomic_ref<uint8_t>(dist[next[m]]).load(std::memory_order_relaxed) == depth) {
              here.store(depth + 1, std::memory_order_relaxed);
              ++local;
              break;
            }
          }
        } else {
          if (here.load(std::memory_order_relaxed) != depth) continue;
          neighbours(i, next);
          for (int m = 0; m < kMoves; ++m) {
            std::atomic_ref<uint8_t> there(dist[next[m]]);
            uint8_t expected = kUnseen;
            if (there.load(std::memory_order_relaxed) == kUnseen &&
                there.compare_exchange_strong(expected, depth + 1, std::memory_order_relaxed)) {
              ++local;
            }
          }
        }
      }
      found.fetch_add(local, std::memory_order_relaxed);
    });
    frontier = found.load();
    seen += frontier;
    if (progress) {
      progress(label + ": depth " + std::to_string(depth + 1) + ", " + std::to_string(frontier) + " states (" +
               std::to_string(seen * 100 / n) + "% of " + std::to_string(n) + ")");
    }
  }
  if (seen != n) throw std::logic_error(label + ": breadth-first search did not reach every state");
  return dist;
}

std::vector<uint8_t> pack_nibbles(const std::vector<uint8_t>& dist) {
  std::vector<uint8_t> packed((dist.size() + 1) / 2, 0);
  for (uint64_t i = 0; i < dist.size(); ++i) packed[i >> 1] |= static_cast<uint8_t>(dist[i] << ((i & 1) << 2));
  return packed;
}

}  // namespace

std::optional<TableBuildLock> table_build_lock(const std::string& path, const std::string& name,
                                               const Progress& progress) {
  if (path.empty()) return std::nullopt;
  return std::optional<TableBuildLock>(std::in_place, path, [&] {
    if (progress) progress(name + ": another process is building it, waiting for it");
  });
}

PatternDatabase PatternDatabase::load_or_build(const std::string& name, uint64_t entries, uint64_t build_bytes,
                                               const std::string& cache_dir, const Progress& progress,
                                               const std::function<std::vector<uint8_t>()>& build) {
  PatternDatabase db;
  db.name_ = name;
  db.entries_ = entries;
  if (!cache_dir.empty()) db.path_ = cache_dir + "/" + file_name(name);
  std::string why;
  const auto load = [&] {
    if (db.path_.empty() || !db.mapped_.open(db.path_, name, kTableVersion, &why)) return false;
    if (db.mapped_.size() != db.bytes()) throw std::logic_error("table size mismatch for " + name);
    db.data_ = db.mapped_.data();
    return true;
  };
  if (load()) return db;
  const std::optional<TableBuildLock> lock = table_build_lock(db.path_, name, progress);  // until it is written
  if (lock && load()) return db;  // built by another process meanwhile
  if (lock && progress) progress(name + ": cached table " + why + ", building it");
  const auto t0 = std::chrono::steady_clock::now();
  try {
    db.owned_ = build();
  } catch (const std::bad_alloc&) {
    throw TableMemoryError(memory_shortage("building the table " + name, build_bytes));
  }
  if (db.owned_.size() != db.bytes()) throw std::logic_error("built table size mismatch for " + name);
  db.build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  db.built_ = true;
  db.data_ = db.owned_.data();
  if (!db.path_.empty()) {
    write_table(db.path_, name, kTableVersion, db.owned_.data(), db.owned_.size());
    if (progress) progress(name + ": written to " + db.path_);
  }
  return db;
}

PatternDatabase PatternDatabase::corners(const std::string& cache_dir, unsigned threads, const Progress& progress) {
  const CornerMoveTables& moves = corner_moves();
  auto neighbours = [&moves](uint64_t index, uint64_t* out) {
    const uint32_t perm = static_cast<uint32_t>(index / kCornerTwists);
    const uint32_t twist = static_cast<uint32_t>(index % kCornerTwists);
    const uint16_t* perm_row = &moves.perm[size_t{perm} * kMoves];
    const uint16_t* twist_row = &moves.twist[size_t{twist} * kMoves];
    for (int m = 0; m < kMoves; ++m) out[m] = corner_index(perm_row[m], twist_row[m]);
  };
  const CubieCube solved = CubieCube::solved();
  const uint64_t start = corner_index(corner_perm_rank(solved), corner_twist_rank(solved));
  // A breadth-first build holds a byte per entry, then the packed table beside it.
  return load_or_build("cube-corners", kCornerStates, kCornerStates + kCornerStates / 2 + 1, cache_dir, progress, [&] {
    return pack_nibbles(breadth_first(kCornerStates, start, neighbours, threads, "cube-corners", progress));
  });
}

PatternDatabase PatternDatabase::edges(const EdgeSubset& subset, const std::string& cache_dir, unsigned threads,
                                       const Progress& progress) {
  const int k = subset.size();
  const uint32_t flip_mask = (1u << k) - 1;
  std::vector<uint32_t> table;  // filled only if the table has to be built
  auto neighbours = [&subset, &table, k, flip_mask](uint64_t index, uint64_t* out) {
    const uint32_t placement = static_cast<uint32_t>(index >> k);
    const uint32_t flips = static_cast<uint32_t>(index) & flip_mask;
    const uint32_t* row = &table[size_t{placement} * kMoves];
    for (int m = 0; m < kMoves; ++m) {
      out[m] = subset.index(row[m] & EdgeSubset::kPlacementMask, flips ^ (row[m] >> 24));
    }
  };
  const CubieCube solved = CubieCube::solved();
  const uint64_t start = subset.index(subset.placement_rank(solved), 0);
  const std::string name = "cube-edges" + std::to_string(k) + "-from" + std::to_string(subset.first());
  return load_or_build(name, subset.states(), subset.states() + subset.states() / 2 + 1, cache_dir, progress, [&] {
    table = subset.move_table();
    return pack_nibbles(breadth_first(subset.states(), start, neighbours, threads, name, progress));
  });
}

PatternDatabase PatternDatabase::phase1(Phase1Kind kind, const std::string& cache_dir, unsigned threads,
                                        const Progress& progress) {
  const Phase1& p1 = cube::phase1(kind);
  const std::string name = phase1_name(kind);
  return load_or_build(name, p1.entries(), p1.entries() / 2 + 1, cache_dir, progress, [&] {  // packed as it goes
    return p1.build_distances(threads, [&](const std::string& line) {
      if (progress) progress(name + ": " + line);
    });
  });
}

std::string PatternDatabase::phase1_name(Phase1Kind kind) {
  return kind == Phase1Kind::kSorted ? "cube-phase1-sorted-sym16" : "cube-phase1-sym16";
}

std::string PatternDatabase::file_name(const std::string& name) {
  return name + ".v" + std::to_string(kTableVersion) + ".table";
}

std::array<uint64_t, 16> PatternDatabase::histogram() const {
  std::array<uint64_t, 16> counts{};
  for (uint64_t i = 0; i < entries_; ++i) ++counts[(*this)[i]];
  return counts;
}

}  // namespace cogsim::cube
