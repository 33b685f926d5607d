// Optimal face-turn distance oracle: IDA* with Korf's heuristic (the max of a corner database
// and two edge databases, and optionally the phase-1 distance along three axes, phase1.hpp),
// move pruning, and a perimeter: an exact table of every state within
// `perimeter_depth` moves of solved. The perimeter makes shallow queries a single lookup and
// lifts the heuristic of every other state to at least perimeter_depth + 1.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/table_file.hpp"
#include "cube/coords.hpp"
#include "cube/cubie.hpp"
#include "cube/pdb.hpp"
#include "cube/phase1.hpp"
#include "cube/search_limits.hpp"

namespace cogsim::cube {

struct OracleConfig {
  std::string cache_dir;     // empty: build every table in memory, write nothing
  int edge_size = 6;         // edges per edge database (two databases: cubies 0.. and ..11)
  int perimeter_depth = 6;   // exact table radius
  bool shell_filter = true;  // a Bloom filter of the states one move beyond the perimeter
  unsigned threads = 0;      // for table builds; 0 = default
  // Add the phase-1 bound along three axes (phase1.hpp): kPlain 70 MB, kSorted 1.67 GB.
  Phase1Kind phase1 = Phase1Kind::kOff;
};

// A state during search: corner coordinates, and where each edge cubie is and how it is flipped
// (indexed by cubie), so a move is a 12-byte lookup and the edge database indices of any subset
// are computed on demand.
struct SearchNode {
  uint16_t corner_perm, corner_twist;
  uint8_t edge_position[kEdges];
  uint8_t edge_flip[kEdges];
  Phase1Coord view[kAxes];  // kept only when the phase-1 table is in use
};

// Exact distances of every state within a radius of solved, keyed by the full coordinates.
class Perimeter {
 public:
  struct Entry {
    uint64_t a, b;  // packed coordinates; b also holds the distance in bits 56..63
  };
  static constexpr uint64_t kKeyMask = (uint64_t{1} << 56) - 1;

  void build(std::vector<std::vector<Entry>> levels);
  bool load(const std::string& path, const std::string& name, std::string* why);
  void save(const std::string& path, const std::string& name) const;
  int find(uint64_t a, uint64_t b) const;  // distance, or -1 when outside the perimeter
  void prefetch(uint64_t a, uint64_t b) const { __builtin_prefetch(buckets_ + (hash(a, b) >> bucket_shift_)); }
  uint64_t size() const { return count_; }
  const Entry* entries() const { return entries_; }
  uint64_t bytes() const { return count_ * sizeof(Entry) + (bucket_count_ + 1) * sizeof(uint32_t); }

 private:
  static uint64_t hash(uint64_t a, uint64_t b);
  std::vector<uint8_t> owned_;  // or mapped_: [count][bucket bits][entries][bucket starts]
  MappedTable mapped_;
  const Entry* entries_ = nullptr;
  const uint32_t* buckets_ = nullptr;
  uint64_t count_ = 0;
  uint64_t bucket_count_ = 0;
  int bucket_shift_ = 64;
  void attach(const uint8_t* payload);
};

// A blocked Bloom filter holding every state at distance perimeter_depth + 1 (and no state of
// the perimeter is ever asked). "Absent" is certain, so a state outside the perimeter that the
// filter does not hold is at least perimeter_depth + 2 moves from solved; false positives only
// weaken that bound back to perimeter_depth + 1.
class ShellFilter {
 public:
  void allocate(uint64_t expected_entries);
  void insert(const Perimeter::Entry* keys, int count);  // thread-safe
  bool maybe_contains(uint64_t a, uint64_t b) const;
  void prefetch(uint64_t a, uint64_t b) const { __builtin_prefetch(words_ + block_of(a, b) * kWordsPerBlock); }
  bool enabled() const { return words_ != nullptr; }
  bool load(const std::string& path, const std::string& name, std::string* why);
  void save(const std::string& path, const std::string& name) const;
  uint64_t bytes() const { return blocks_ * kWordsPerBlock * 8; }

 private:
  static constexpr uint64_t kWordsPerBlock = 8;  // one 64-byte cache line
  static constexpr int kProbes = 7;
  uint64_t block_of(uint64_t a, uint64_t b) const;
  std::vector<uint64_t> owned_;
  MappedTable mapped_;
  const uint64_t* words_ = nullptr;
  uint64_t blocks_ = 0;
  int block_shift_ = 64;
};

class Oracle {
 public:
  Oracle(const OracleConfig& config, const Progress& progress);

  int distance(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats = nullptr) const;
  std::vector<int> solve(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats = nullptr) const;
  // The database lower bound the search starts from (max of every table, without the perimeter).
  int heuristic(const CubieCube& cube) const;
  // The phase-1 distance of each of the three views; requires config.phase1.
  std::array<int, kAxes> phase1_bounds(const CubieCube& cube) const;

  const OracleConfig& config() const { return config_; }
  const PatternDatabase& corners() const { return corners_; }
  const PatternDatabase& edges_a() const { return edges_a_; }
  const PatternDatabase& edges_b() const { return edges_b_; }
  const PatternDatabase& phase1_table() const { return phase1_; }
  const Perimeter& perimeter() const { return perimeter_; }
  const ShellFilter& shell() const { return shell_; }
  double perimeter_seconds() const { return perimeter_seconds_; }
  bool perimeter_built() const { return perimeter_built_; }

 private:
  struct Found {
    int length = -1;
    int prefix_length = 0;
    int prefix[32];
    SearchNode state;
  };
  struct Search;
  static constexpr int kSplitDepth = 2;

  SearchNode node_of(const CubieCube& cube, bool with_views = true) const;
  void add_views(SearchNode& s, const CubieCube& cube) const;
  SearchNode apply(const SearchNode& s, int move) const { return apply(s, move, p1_ != nullptr); }
  // with_views = false leaves the phase-1 views zero: for table builds that only need the cubies.
  SearchNode apply(const SearchNode& s, int move, bool with_views) const;
  uint64_t corner_key(const SearchNode& s) const { return corner_index(s.corner_perm, s.corner_twist); }
  uint64_t edge_a_key(const SearchNode& s) const { return subset_a_.index_of(s.edge_position, s.edge_flip); }
  uint64_t edge_b_key(const SearchNode& s) const { return subset_b_.index_of(s.edge_position, s.edge_flip); }
  Perimeter::Entry perimeter_key(const SearchNode& s) const;
  int exact_distance(const SearchNode& s) const;
  int depth_first(Search& search, const SearchNode& s, int g, int last_face) const;
  void iterate(Search& search, const SearchNode& root, int first_bound) const;
  int parallel_iteration(Search& search, const SearchNode& root) const;
  int perimeter_level(Search& search, const SearchNode& s, int g, int last_face) const;
  static void count_nodes(Search& search, int count);
  int database_bound(const SearchNode& s) const;
  Found run(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats) const;
  void search_from(const CubieCube& cube, Search& search) const;
  std::string limit_message(uint64_t max_nodes, int bound) const;
  void load_or_build_perimeter(const Progress& progress);
  void load_or_build_shell(const Progress& progress);
  SearchNode node_of_key(const Perimeter::Entry& key) const;
  int bound_outside_perimeter(const SearchNode& s) const;
  std::string table_path(const std::string& name, uint32_t version) const;
  std::vector<std::vector<Perimeter::Entry>> perimeter_levels() const;

  OracleConfig config_;
  EdgeSubset subset_a_, subset_b_;
  PatternDatabase corners_, edges_a_, edges_b_, phase1_;
  const Phase1* p1_ = nullptr;  // the coordinates of phase1_, when the oracle has one
  Perimeter perimeter_;
  ShellFilter shell_;
  double perimeter_seconds_ = 0;
  bool perimeter_built_ = false;
};

}  // namespace cogsim::cube
