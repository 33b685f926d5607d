#include "cube/oracle.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>

#include "common/parallel.hpp"

namespace cogsim::cube {
namespace {

constexpr int kNotFound = 1000;
constexpr int kFoundMarker = -1;
constexpr int kMaxDepth = 26;
// An IDA* iteration after one of this many nodes runs on all cores (a single deep query).
constexpr uint64_t kParallelAfterNodes = 200000;
constexpr uint32_t kPerimeterVersion = 1;
constexpr uint32_t kShellVersion = 1;

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 33);
}

bool pruned(int face, int last_face) {
  // Never turn the same face twice in a row; of two opposite (commuting) faces, turn the even
  // one (U, R, F) first. Every state keeps at least one optimal sequence in this canonical form.
  return face == last_face || ((last_face & 1) && face == (last_face ^ 1));
}

bool entry_less(const Perimeter::Entry& x, const Perimeter::Entry& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; }

bool entry_same(const Perimeter::Entry& x, const Perimeter::Entry& y) { return x.a == y.a && x.b == y.b; }

}  // namespace

// ---- Perimeter ---------------------------------------------------------------------------------

uint64_t Perimeter::hash(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}

void Perimeter::build(std::vector<std::vector<Entry>> levels) {
  std::vector<Entry> entries;
  for (size_t depth = 0; depth < levels.size(); ++depth) {
    for (Entry e : levels[depth]) entries.push_back({e.a, e.b | (uint64_t(depth) << 56)});
  }
  int bits = 1;
  while ((uint64_t{1} << bits) < entries.size() / 4 + 1) ++bits;
  const int shift = 64 - bits;
  auto bucket = [&](const Entry& e) { return hash(e.a, e.b & kKeyMask) >> shift; };
  std::sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) { return bucket(x) < bucket(y); });
  std::vector<uint32_t> starts((size_t{1} << bits) + 1, 0);
  for (const Entry& e : entries) ++starts[bucket(e) + 1];
  for (size_t i = 1; i < starts.size(); ++i) starts[i] += starts[i - 1];

  const uint64_t header[2] = {entries.size(), static_cast<uint64_t>(bits)};
  owned_.resize(sizeof header + entries.size() * sizeof(Entry) + starts.size() * sizeof(uint32_t));
  uint8_t* out = owned_.data();
  std::memcpy(out, header, sizeof header);
  std::memcpy(out + sizeof header, entries.data(), entries.size() * sizeof(Entry));
  std::memcpy(out + sizeof header + entries.size() * sizeof(Entry), starts.data(), starts.size() * sizeof(uint32_t));
  attach(owned_.data());
}

void Perimeter::attach(const uint8_t* payload) {
  uint64_t header[2];
  std::memcpy(header, payload, sizeof header);
  count_ = header[0];
  bucket_count_ = uint64_t{1} << header[1];
  bucket_shift_ = 64 - static_cast<int>(header[1]);
  entries_ = reinterpret_cast<const Entry*>(payload + sizeof header);
  buckets_ = reinterpret_cast<const uint32_t*>(payload + sizeof header + count_ * sizeof(Entry));
}

bool Perimeter::load(const std::string& path, const std::string& name, std::string* why) {
  if (!mapped_.open(path, name, kPerimeterVersion, why)) return false;
  uint64_t header[2];
  if (mapped_.size() < sizeof header) {
    *why = "truncated header";
    return false;
  }
  std::memcpy(header, mapped_.data(), sizeof header);
  const uint64_t expected = sizeof header + header[0] * sizeof(Entry) + ((uint64_t{1} << header[1]) + 1) * 4;
  if (header[1] > 40 || mapped_.size() != expected) {
    *why = "inconsistent layout";
    return false;
  }
  attach(mapped_.data());
  return true;
}

void Perimeter::save(const std::string& path, const std::string& name) const {
  write_table(path, name, kPerimeterVersion, owned_.data(), owned_.size());
}

int Perimeter::find(uint64_t a, uint64_t b) const {
  const uint64_t bucket = hash(a, b) >> bucket_shift_;
  for (uint32_t i = buckets_[bucket], end = buckets_[bucket + 1]; i < end; ++i) {
    if (entries_[i].a == a && (entries_[i].b & kKeyMask) == b) return static_cast<int>(entries_[i].b >> 56);
  }
  return -1;
}

// ---- ShellFilter -------------------------------------------------------------------------------

void ShellFilter::allocate(uint64_t expected_entries) {
  const uint64_t wanted_blocks = expected_entries * 10 / 512 + 1;  // about 10 bits per entry
  int bits = 0;
  while ((uint64_t{1} << bits) < wanted_blocks) ++bits;
  blocks_ = uint64_t{1} << bits;
  block_shift_ = 64 - bits;
  owned_.assign(1 + blocks_ * kWordsPerBlock, 0);
  owned_[0] = blocks_;
  words_ = owned_.data() + 1;
}

uint64_t ShellFilter::block_of(uint64_t a, uint64_t b) const {
  return block_shift_ >= 64 ? 0 : mix(a ^ mix(b + 0x9E3779B97F4A7C15ULL)) >> block_shift_;
}

void ShellFilter::insert(const Perimeter::Entry* keys, int count) {
  // Blocks are random cache lines of a large table: find them all, prefetch, then write, so the
  // misses of a batch overlap.
  constexpr int kMaxBatch = 32;
  uint64_t* blocks[kMaxBatch];
  uint64_t probes[kMaxBatch];
  for (int start = 0; start < count; start += kMaxBatch) {
    const int n = std::min(kMaxBatch, count - start);
    for (int i = 0; i < n; ++i) {
      const Perimeter::Entry& key = keys[start + i];
      blocks[i] = owned_.data() + 1 + block_of(key.a, key.b) * kWordsPerBlock;
      probes[i] = mix(key.b ^ mix(key.a + 0x632BE59BD9B4E019ULL));
      __builtin_prefetch(blocks[i], 1);
    }
    for (int i = 0; i < n; ++i) {
      uint64_t p = probes[i];
      for (int k = 0; k < kProbes; ++k, p >>= 9) {
        const uint64_t bit = p & 511;
        std::atomic_ref<uint64_t>(blocks[i][bit >> 6]).fetch_or(uint64_t{1} << (bit & 63), std::memory_order_relaxed);
      }
    }
  }
}

bool ShellFilter::maybe_contains(uint64_t a, uint64_t b) const {
  const uint64_t* block = words_ + block_of(a, b) * kWordsPerBlock;
  uint64_t probes = mix(b ^ mix(a + 0x632BE59BD9B4E019ULL));
  for (int i = 0; i < kProbes; ++i, probes >>= 9) {
    const uint64_t bit = probes & 511;
    if (!(block[bit >> 6] & (uint64_t{1} << (bit & 63)))) return false;
  }
  return true;
}

bool ShellFilter::load(const std::string& path, const std::string& name, std::string* why) {
  if (!mapped_.open(path, name, kShellVersion, why)) return false;
  uint64_t blocks = 0;
  if (mapped_.size() >= 8) std::memcpy(&blocks, mapped_.data(), 8);
  if (blocks == 0 || (blocks & (blocks - 1)) || mapped_.size() != 8 + blocks * kWordsPerBlock * 8) {
    *why = "inconsistent layout";
    return false;
  }
  blocks_ = blocks;
  block_shift_ = 64 - std::countr_zero(blocks);
  words_ = reinterpret_cast<const uint64_t*>(mapped_.data() + 8);
  return true;
}

void ShellFilter::save(const std::string& path, const std::string& name) const {
  write_table(path, name, kShellVersion, reinterpret_cast<const uint8_t*>(owned_.data()), owned_.size() * 8);
}

// ---- Oracle ------------------------------------------------------------------------------------

struct Oracle::Search {
  int bound = 0;
  uint64_t nodes = 0;
  uint64_t max_nodes = 0;
  Found found;
  // A parallel iteration splits the tree by its first moves: this search only follows
  // `forced[0..forced_length)` from the root, and gives up once a subtree ordered before its own
  // (`subtree`) has found a solution.
  const int* forced = nullptr;
  int forced_length = 0;
  size_t subtree = 0;
  const std::atomic<size_t>* first_solved = nullptr;
};

Oracle::Oracle(const OracleConfig& config, const Progress& progress)
    : config_(config),
      subset_a_(0, config.edge_size >= 6 && config.edge_size <= 8 ? config.edge_size : 6),
      subset_b_(kEdges - subset_a_.size(), subset_a_.size()) {
  if (config.edge_size < 6 || config.edge_size > 8) {
    throw std::invalid_argument("edge_size must be 6, 7 or 8 (edges per edge database), got " +
                                std::to_string(config.edge_size));
  }
  if (config.perimeter_depth < 0 || config.perimeter_depth > 7) {
    throw std::invalid_argument("perimeter_depth must be in 0..7, got " + std::to_string(config.perimeter_depth));
  }
  corners_ = PatternDatabase::corners(config.cache_dir, config.threads, progress);
  edges_a_ = PatternDatabase::edges(subset_a_, config.cache_dir, config.threads, progress);
  edges_b_ = PatternDatabase::edges(subset_b_, config.cache_dir, config.threads, progress);
  if (config.phase1 != Phase1Kind::kOff) {
    p1_ = &phase1(config.phase1);
    phase1_ = PatternDatabase::phase1(config.phase1, config.cache_dir, config.threads, progress);
  }
  try {
    load_or_build_perimeter(progress);
    if (config.shell_filter) load_or_build_shell(progress);
  } catch (const std::bad_alloc&) {
    throw TableMemoryError(memory_shortage("building the perimeter tables around solved", 0));
  }
}

int Oracle::database_bound(const SearchNode& s) const {
  int h = std::max({corners_[corner_key(s)], edges_a_[edge_a_key(s)], edges_b_[edge_b_key(s)]});
  for (int axis = 0; axis < kAxes && p1_; ++axis) h = std::max<int>(h, phase1_[p1_->index(s.view[axis])]);
  return h;
}

int Oracle::heuristic(const CubieCube& cube) const { return database_bound(node_of(cube)); }

std::array<int, kAxes> Oracle::phase1_bounds(const CubieCube& cube) const {
  if (phase1_.empty()) throw std::invalid_argument("this oracle was configured without the phase-1 table");
  std::array<int, kAxes> bounds;
  for (int axis = 0; axis < kAxes; ++axis) bounds[axis] = phase1_[p1_->index(p1_->coord(cube, axis))];
  return bounds;
}

std::string Oracle::table_path(const std::string& name, uint32_t version) const {
  return config_.cache_dir.empty() ? "" : config_.cache_dir + "/" + name + ".v" + std::to_string(version) + ".table";
}

SearchNode Oracle::node_of_key(const Perimeter::Entry& key) const {
  SearchNode s{};  // no phase-1 views: the perimeter and shell builds never need them
  const uint64_t corner = key.a & ((uint64_t{1} << 27) - 1);
  s.corner_perm = static_cast<uint16_t>(corner / kCornerTwists);
  s.corner_twist = static_cast<uint16_t>(corner % kCornerTwists);
  subset_a_.decode(key.a >> 27, s.edge_position, s.edge_flip);
  subset_b_.decode(key.b & Perimeter::kKeyMask, s.edge_position, s.edge_flip);
  return s;
}

void Oracle::load_or_build_shell(const Progress& progress) {
  const int depth = config_.perimeter_depth + 1;
  const std::string name = "cube-shell" + std::to_string(depth) + "-edges" + std::to_string(config_.edge_size);
  const std::string path = table_path(name, kShellVersion);
  std::string why;
  const auto load = [&] { return !path.empty() && shell_.load(path, name, &why); };
  if (load()) return;
  const std::optional<TableBuildLock> lock = table_build_lock(path, name, progress);
  if (lock && load()) return;  // built by another process meanwhile
  if (!path.empty() && progress) progress(name + ": cached table " + why + ", building it");
  // Every state at distance depth is a neighbour of one at depth - 1, the outer perimeter layer.
  std::vector<uint64_t> outer;
  for (uint64_t i = 0; i < perimeter_.size(); ++i) {
    if (static_cast<int>(perimeter_.entries()[i].b >> 56) == depth - 1) outer.push_back(i);
  }
  shell_.allocate(std::max<uint64_t>(outer.size() * 14, 64));
  parallel_for(
      outer.size(), config_.threads,
      [&](size_t i) {
        const SearchNode s = node_of_key(perimeter_.entries()[outer[i]]);
        Perimeter::Entry keys[kMoves];
        for (int m = 0; m < kMoves; ++m) keys[m] = perimeter_key(apply(s, m, false));
        shell_.insert(keys, kMoves);
      },
      4096);
  if (!path.empty()) {
    shell_.save(path, name);
    if (progress) progress(name + ": written to " + path);
  }
}

int Oracle::bound_outside_perimeter(const SearchNode& s) const {
  const int beyond = config_.perimeter_depth + 1;
  if (!shell_.enabled()) return beyond;
  const Perimeter::Entry key = perimeter_key(s);
  return shell_.maybe_contains(key.a, key.b) ? beyond : beyond + 1;
}

void Oracle::add_views(SearchNode& s, const CubieCube& c) const {
  for (int axis = 0; axis < kAxes; ++axis) s.view[axis] = p1_ ? p1_->coord(c, axis) : Phase1Coord{};
}

SearchNode Oracle::node_of(const CubieCube& c, bool with_views) const {
  SearchNode s{};
  s.corner_perm = static_cast<uint16_t>(corner_perm_rank(c));
  s.corner_twist = static_cast<uint16_t>(corner_twist_rank(c));
  for (int p = 0; p < kEdges; ++p) {
    s.edge_position[c.ep[p]] = static_cast<uint8_t>(p);
    s.edge_flip[c.ep[p]] = c.eo[p];
  }
  if (with_views) add_views(s, c);
  return s;
}

SearchNode Oracle::apply(const SearchNode& s, int m, bool with_views) const {
  const CornerMoveTables& cm = corner_moves();
  const EdgeMoveMaps& maps = edge_move_maps();
  SearchNode t;
  t.corner_perm = cm.perm[size_t{s.corner_perm} * kMoves + m];
  t.corner_twist = cm.twist[size_t{s.corner_twist} * kMoves + m];
  for (int c = 0; c < kEdges; ++c) {
    const uint8_t q = maps.destination[m][s.edge_position[c]];
    t.edge_position[c] = q;
    t.edge_flip[c] = s.edge_flip[c] ^ maps.flip_at[m][q];
  }
  if (with_views) {
    for (int axis = 0; axis < kAxes; ++axis) t.view[axis] = p1_->apply(s.view[axis], axis, m);
  } else {
    for (int axis = 0; axis < kAxes; ++axis) t.view[axis] = Phase1Coord{};
  }
  return t;
}

Perimeter::Entry Oracle::perimeter_key(const SearchNode& s) const {
  return {corner_key(s) | (edge_a_key(s) << 27), edge_b_key(s)};
}

int Oracle::exact_distance(const SearchNode& s) const {
  const Perimeter::Entry key = perimeter_key(s);
  return perimeter_.find(key.a, key.b);
}

std::vector<std::vector<Perimeter::Entry>> Oracle::perimeter_levels() const {
  // Level by level from solved: next = neighbours(level) minus the two levels they can touch.
  using Entry = Perimeter::Entry;
  std::vector<SearchNode> states{node_of(CubieCube::solved())};
  std::vector<std::vector<Entry>> levels{{perimeter_key(states[0])}};
  for (int depth = 1; depth <= config_.perimeter_depth; ++depth) {
    std::vector<std::pair<Entry, SearchNode>> candidates;
    candidates.reserve(states.size() * kMoves);
    for (const SearchNode& s : states) {
      for (int m = 0; m < kMoves; ++m) {
        const SearchNode t = apply(s, m, false);
        candidates.emplace_back(perimeter_key(t), t);
      }
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& x, const auto& y) { return entry_less(x.first, y.first); });
    candidates.erase(std::unique(candidates.begin(), candidates.end(),
                                 [](const auto& x, const auto& y) { return entry_same(x.first, y.first); }),
                     candidates.end());
    const std::vector<Entry>& current = levels[depth - 1];
    const std::vector<Entry>* previous = depth >= 2 ? &levels[depth - 2] : nullptr;
    std::vector<Entry> next;
    states.clear();
    for (const auto& [entry, state] : candidates) {
      if (std::binary_search(current.begin(), current.end(), entry, entry_less) ||
          (previous && std::binary_search(previous->begin(), previous->end(), entry, entry_less))) {
        continue;
      }
      next.push_back(entry);
      states.push_back(state);
    }
    levels.push_back(std::move(next));
  }
  return levels;
}

void Oracle::load_or_build_perimeter(const Progress& progress) {
  const std::string name =
      "cube-perimeter" + std::to_string(config_.perimeter_depth) + "-edges" + std::to_string(config_.edge_size);
  const std::string path = table_path(name, kPerimeterVersion);
  std::string why;
  const auto load = [&] { return !path.empty() && perimeter_.load(path, name, &why); };
  if (load()) return;
  const std::optional<TableBuildLock> lock = table_build_lock(path, name, progress);
  if (lock && load()) return;  // built by another process meanwhile
  if (!path.empty() && progress) progress(name + ": cached table " + why + ", building it");
  const auto t0 = std::chrono::steady_clock::now();
  perimeter_.build(perimeter_levels());
  perimeter_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  perimeter_built_ = true;
  if (!path.empty()) {
    perimeter_.save(path, name);
    if (progress) progress(name + ": written to " + path);
  }
}

// A parallel iteration's subtree searches each hold what was left of the budget, so the message
// that reaches the caller is written by run(), which knows the query's own max_nodes.
void Oracle::count_nodes(Search& search, int count) {
  search.nodes += static_cast<uint64_t>(count);
  if (search.nodes > search.max_nodes) throw SearchLimitExceeded("node budget spent");
}

std::string Oracle::limit_message(uint64_t max_nodes, int bound) const {
  const std::string advice = config_.phase1 == Phase1Kind::kSorted
                                 ? "raise max_nodes (random states can take billions of nodes)"
                                 : "raise max_nodes or use the sorted phase-1 table (phase1='sorted')";
  return "search exceeded max_nodes=" + std::to_string(max_nodes) + " while proving the distance is above " +
         std::to_string(bound - 1) + "; for deep states " + advice;
}

// The last level above the perimeter: a child within the bound must be inside the perimeter, so
// one exact lookup per child decides it, and the database bounds (which could only reject what
// the perimeter rejects) are skipped. (Going one level further up with the shell filter in place
// of the databases visits as many nodes but costs twice the time: every child then needs a
// perimeter lookup and a shell probe, where the databases reject most children first.)
int Oracle::perimeter_level(Search& search, const SearchNode& s, int g, int last_face) const {
  struct Child {
    SearchNode node;
    Perimeter::Entry key;
    int move;
  };
  Child children[kMoves];
  int count = 0;
  for (int m = 0; m < kMoves; ++m) {
    if (pruned(move_face(m), last_face) || (g < search.forced_length && m != search.forced[g])) continue;
    Child& child = children[count++];
    child.node = apply(s, m, false);
    child.move = m;
    child.key = perimeter_key(child.node);
    perimeter_.prefetch(child.key.a, child.key.b);
  }
  count_nodes(search, count);
  const int budget = search.bound - g - 1;
  int next_bound = kNotFound;
  for (int i = 0; i < count; ++i) {
    const Child& child = children[i];
    const int d = perimeter_.find(child.key.a, child.key.b);
    const int h = d >= 0 ? d : config_.perimeter_depth + 1;
    if (h > budget) {
      next_bound = std::min(next_bound, g + 1 + h);
      continue;
    }
    search.found.prefix[g] = child.move;
    search.found.length = g + 1 + h;
    search.found.prefix_length = g + 1;
    search.found.state = child.node;
    return kFoundMarker;
  }
  return next_bound;
}

int Oracle::depth_first(Search& search, const SearchNode& s, int g, int last_face) const {
  if (search.first_solved && search.first_solved->load(std::memory_order_relaxed) < search.subtree) return kNotFound;
  if (search.bound - g - 1 <= config_.perimeter_depth) return perimeter_level(search, s, g, last_face);
  // Three passes over the children so the memory accesses of siblings overlap instead of
  // stalling one after another: generate and prefetch database entries; read the bounds and
  // prefetch perimeter buckets and shell blocks for the children that need them; decide.
  struct Child {
    SearchNode node;
    uint64_t corner, edge_a, edge_b, views[kAxes];
    Perimeter::Entry key;
    int move, h;
  };
  const Phase1* p1 = p1_;
  const bool use_phase1 = p1 != nullptr;
  Child children[kMoves];
  int count = 0;
  for (int m = 0; m < kMoves; ++m) {
    if (pruned(move_face(m), last_face) || (g < search.forced_length && m != search.forced[g])) continue;
    Child& child = children[count++];
    child.node = apply(s, m);
    child.move = m;
    child.corner = corner_key(child.node);
    child.edge_a = edge_a_key(child.node);
    child.edge_b = edge_b_key(child.node);
    corners_.prefetch(child.corner);
    edges_a_.prefetch(child.edge_a);
    edges_b_.prefetch(child.edge_b);
    if (use_phase1) {
      for (int axis = 0; axis < kAxes; ++axis) p1->prefetch_class(child.node.view[axis]);
    }
  }
  // Phase-1 indices need the symmetry class first: a second pass, so those misses overlap too.
  for (int i = 0; i < count && use_phase1; ++i) {
    for (int axis = 0; axis < kAxes; ++axis) {
      children[i].views[axis] = p1->index(children[i].node.view[axis]);
      phase1_.prefetch(children[i].views[axis]);
    }
  }
  count_nodes(search, count);
  const int budget = search.bound - g - 1;
  const int beyond = config_.perimeter_depth + 1;
  for (int i = 0; i < count; ++i) {
    Child& child = children[i];
    child.h = std::max({corners_[child.corner], edges_a_[child.edge_a], edges_b_[child.edge_b]});
    if (use_phase1) {
      for (int axis = 0; axis < kAxes; ++axis) child.h = std::max<int>(child.h, phase1_[child.views[axis]]);
    }
    if (child.h > budget || child.h > beyond) continue;
    child.key = {child.corner | (child.edge_a << 27), child.edge_b};
    if (child.h < beyond) perimeter_.prefetch(child.key.a, child.key.b);
    if (beyond <= budget && shell_.enabled()) shell_.prefetch(child.key.a, child.key.b);
  }
  int next_bound = kNotFound;
  for (int i = 0; i < count; ++i) {
    const Child& child = children[i];
    int h = child.h;
    bool exact = false;
    if (h <= budget && h < beyond) {
      const int d = perimeter_.find(child.key.a, child.key.b);
      exact = d >= 0;
      h = exact ? d : beyond;
    }
    if (!exact && h == beyond && h <= budget && shell_.enabled() && !shell_.maybe_contains(child.key.a, child.key.b)) {
      h = beyond + 1;
    }
    if (h > budget) {
      next_bound = std::min(next_bound, g + 1 + h);
      continue;
    }
    search.found.prefix[g] = child.move;
    if (exact) {
      // Every shorter solution was ruled out by the previous iteration, so this one is optimal.
      search.found.length = g + 1 + h;
      search.found.prefix_length = g + 1;
      search.found.state = child.node;
      return kFoundMarker;
    }
    const int r = depth_first(search, child.node, g + 1, move_face(child.move));
    if (r == kFoundMarker) return kFoundMarker;
    next_bound = std::min(next_bound, r);
  }
  return next_bound;
}

// One IDA* iteration over all cores: the canonical move sequences of length kSplitDepth split the
// tree into subtrees searched independently, each from the root along its forced prefix, so every
// node is handled by the same code as the serial search. The solution kept is the one of the
// first subtree in move order that has one, which is the one the serial search would find.
int Oracle::parallel_iteration(Search& search, const SearchNode& root) const {
  std::vector<std::array<int, kSplitDepth>> prefixes;
  for (int a = 0; a < kMoves; ++a) {
    for (int b = 0; b < kMoves; ++b) {
      if (!pruned(move_face(b), move_face(a))) prefixes.push_back({a, b});
    }
  }
  std::atomic<size_t> first_solved{prefixes.size()};
  std::atomic<uint64_t> nodes{search.nodes};
  std::vector<Search> results(prefixes.size());
  for (Search& part : results) part.bound = kNotFound;  // stays so for subtrees skipped after a solution
  parallel_for(prefixes.size(), 0, [&](size_t i) {
    if (first_solved.load(std::memory_order_relaxed) < i) return;
    Search& part = results[i];
    part.bound = search.bound;
    part.max_nodes = search.max_nodes - std::min(search.max_nodes, nodes.load(std::memory_order_relaxed));
    part.forced = prefixes[i].data();
    part.forced_length = kSplitDepth;
    part.subtree = i;
    part.first_solved = &first_solved;
    const int r = depth_first(part, root, 0, -1);
    nodes.fetch_add(part.nodes, std::memory_order_relaxed);
    if (r == kFoundMarker) {
      size_t current = first_solved.load();
      while (i < current && !first_solved.compare_exchange_weak(current, i)) {
      }
    }
    part.bound = r;
  });
  search.nodes = nodes.load();
  const size_t solved = first_solved.load();
  if (solved < prefixes.size()) {
    search.found = results[solved].found;
    return kFoundMarker;
  }
  int next_bound = kNotFound;
  for (const Search& part : results) next_bound = std::min(next_bound, part.bound);
  return next_bound;
}

// IDA* from a first bound: each iteration searches to the bound and returns the next one.
void Oracle::iterate(Search& search, const SearchNode& root, int first_bound) const {
  uint64_t last_iteration_nodes = 0;
  for (search.bound = first_bound; search.bound <= kMaxDepth;) {
    const uint64_t before = search.nodes;
    const int r = last_iteration_nodes >= kParallelAfterNodes ? parallel_iteration(search, root)
                                                              : depth_first(search, root, 0, -1);
    last_iteration_nodes = search.nodes - before;
    if (r == kFoundMarker) return;
    search.bound = r;
  }
}

Oracle::Found Oracle::run(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats) const {
  Search search;
  search.max_nodes = max_nodes;
  try {
    search_from(cube, search);
  } catch (const SearchLimitExceeded&) {
    throw SearchLimitExceeded(limit_message(max_nodes, search.bound));
  }
  if (stats) stats->nodes = search.nodes;
  return search.found;
}

void Oracle::search_from(const CubieCube& cube, Search& search) const {
  SearchNode root = node_of(cube, false);
  const int exact = exact_distance(root);
  if (exact >= 0) {
    search.found.length = exact;
    search.found.state = root;
  } else {
    int h = bound_outside_perimeter(root);
    if (shell_.enabled() && h == config_.perimeter_depth + 1) {
      // The shell filter holds the state, so it is one move beyond the perimeter (but for a
      // false positive in about 1%): one perimeter level decides it before any database read.
      search.bound = h;
      h = perimeter_level(search, root, 0, -1);
    }
    if (h != kFoundMarker) {
      add_views(root, cube);
      iterate(search, root, std::max(h, database_bound(root)));
    }
    if (search.found.length < 0) throw std::logic_error("cube search found no solution: invalid state?");
  }
}

int Oracle::distance(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats) const {
  return run(cube, max_nodes, stats).length;
}

std::vector<int> Oracle::solve(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats) const {
  const Found found = run(cube, max_nodes, stats);
  std::vector<int> moves(found.prefix, found.prefix + found.prefix_length);
  // Inside the perimeter, walk down the exact table one move at a time.
  SearchNode state = found.state;
  for (int remaining = found.length - found.prefix_length; remaining > 0; --remaining) {
    int chosen = -1;
    for (int m = 0; m < kMoves && chosen < 0; ++m) {
      const SearchNode t = apply(state, m, false);
      if (exact_distance(t) == remaining - 1) {
        chosen = m;
        state = t;
      }
    }
    if (chosen < 0) throw std::logic_error("perimeter table is inconsistent");
    moves.push_back(chosen);
  }
  return moves;
}

}  // namespace cogsim::cube
