// The coset search itself (coset_search.hpp), included by one source file per target: the same
// code compiled for the baseline and for SSSE3. Variant only tells the instantiations apart.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/parallel.hpp"
#include "cube/coset_search.hpp"

namespace cogsim::cube::coset_kernel {

template <int Variant>
class Kernel {
 public:
  explicit Kernel(const CosetSearchData& data) : data_(data), table_(*data.table) {}

  std::vector<int> solve(const CubieCube& cube, uint64_t max_nodes, SearchStats* stats, unsigned threads) {
    if (threads == 0) threads = default_threads();
    Node root;
    const Symmetries& sym = symmetries();
    const CubieCube inverse = cube.inverse();
    for (int k = 0; k < kAxes; ++k) {
      root.fwd[k] = VectorCube::of(sym.view(cube, k));
      root.inv[k] = VectorCube::of(sym.view(inverse, k));
    }
    if (cube.is_solved()) {
      if (stats) stats->nodes = 0;
      return {};
    }
    const Values values = root_values(root);
    Totals totals{max_nodes};
    uint64_t last_iteration = 0;
    TaskWork previous;
    for (int bound = std::max(1, node_bound(values));;) {
      if (bound > kMaxDepth) throw std::logic_error("coset search found no solution within 26 moves: invalid state?");
      const uint64_t before = totals.nodes.load();
      // Large iterations run as tasks whatever the thread count, so the solution found does not
      // depend on it.
      Outcome outcome = last_iteration >= kTasksAfterNodes
                            ? task_iteration(root, values, bound, totals, threads, previous)
                            : serial_iteration(root, values, bound, totals);
      last_iteration = totals.nodes.load() - before;
      if (outcome.found) {
        if (stats) stats->nodes = totals.nodes.load();
        return outcome.moves;
      }
      bound = std::max(bound + 1, outcome.next_bound);
    }
  }

  std::array<int, 2 * kAxes> entries(const CubieCube& cube) const {
    const Symmetries& sym = symmetries();
    const CubieCube inverse = cube.inverse();
    std::array<int, 2 * kAxes> out;
    for (int k = 0; k < kAxes; ++k) {
      out[k] = table_.value(VectorCube::of(sym.view(cube, k)));
      out[kAxes + k] = table_.value(VectorCube::of(sym.view(inverse, k)));
    }
    return out;
  }

  static int bound_of(const std::array<int, 2 * kAxes>& e) {
    Values v;
    for (int k = 0; k < kAxes; ++k) v.fwd[k] = static_cast<int8_t>(e[k]), v.inv[k] = static_cast<int8_t>(e[kAxes + k]);
    return node_bound(v);
  }

 private:
  static constexpr int kFound = -1;
  static constexpr int kAbandoned = 1000;
  static constexpr int kMaxDepth = 26;
  static constexpr uint64_t kTasksAfterNodes = 200000;
  static constexpr int kSplitDepth = 4;
  static constexpr uint64_t kCheckEvery = 1 << 16;

  struct Node {
    VectorCube fwd[kAxes], inv[kAxes];
  };
  struct Values {
    int8_t fwd[kAxes], inv[kAxes];
  };
  // Each table entry of a node bounds its distance; if one side's three views agree on x > 0, no
  // solution of x moves ends (or, for the inverse, starts) on any axis, so it is at least x + 1.
  static int side_bound(const int8_t* v) {
    const int top = std::max({v[0], v[1], v[2]});
    return top > 0 && v[0] == v[1] && v[1] == v[2] ? top + 1 : top;
  }
  static int node_bound(const Values& v) { return std::max(side_bound(v.fwd), side_bound(v.inv)); }

  // A subtree to search in a parallel iteration: a node a few moves deep, as the serial search
  // would reach it.
  struct Task {
    Node node;
    Values values;
    int8_t remaining, depth, last_front, last_back;
    uint8_t path[kSplitDepth];
    bool path_back[kSplitDepth];

    uint64_t key() const {
      uint64_t k = static_cast<uint64_t>(depth);
      for (int i = 0; i < depth; ++i) k = k << 6 | path[i] << 1 | path_back[i];
      return k;
    }
  };
  // The nodes each task (by its path) took in the last iteration.
  using TaskWork = std::unordered_map<uint64_t, uint64_t>;

  struct Totals {
    uint64_t max_nodes;
    std::atomic<uint64_t> nodes{0};
  };

  struct Context {
    Totals* totals;
    uint64_t nodes = 0, counted = 0, check_at = 0;
    uint8_t path[kMaxDepth + 1];
    bool path_back[kMaxDepth + 1];
    // Parallel iterations: this context's task, and the first task (in order) known to have a
    // solution; a task after it is abandoned.
    size_t task = 0;
    const std::atomic<size_t>* first_found = nullptr;
    bool abandoned = false;
    // Task collection: nodes at split_depth are recorded instead of searched.
    std::vector<Task>* tasks = nullptr;
    int split_depth = 0;

    explicit Context(Totals* t) : totals(t) { check_at = kCheckEvery; }
  };

  struct Outcome {
    bool found = false;
    std::vector<int> moves;
    int next_bound = 0;
  };

  Values root_values(const Node& root) const {
    Values v;
    for (int k = 0; k < kAxes; ++k) {
      v.fwd[k] = static_cast<int8_t>(table_.value(root.fwd[k]));
      v.inv[k] = static_cast<int8_t>(table_.value(root.inv[k]));
    }
    return v;
  }

  // Adds to the node count; every kCheckEvery nodes, publishes it, checks the budget and whether
  // an earlier task has found a solution.
  static void count(Context& c, int n) {
    c.nodes += static_cast<uint64_t>(n);
    if (c.nodes < c.check_at) return;
    const uint64_t total =
        c.totals->nodes.fetch_add(c.nodes - c.counted, std::memory_order_relaxed) + (c.nodes - c.counted);
    c.counted = c.nodes;
    c.check_at = c.nodes + kCheckEvery;
    if (total > c.totals->max_nodes) throw SearchLimitExceeded("node budget spent");
    if (c.first_found && c.first_found->load(std::memory_order_relaxed) < c.task) c.abandoned = true;
  }
  static void flush(Context& c) {
    c.totals->nodes.fetch_add(c.nodes - c.counted, std::memory_order_relaxed);
    c.counted = c.nodes;
    if (c.totals->nodes.load(std::memory_order_relaxed) > c.totals->max_nodes) {
      throw SearchLimitExceeded("node budget spent");
    }
  }

  static std::vector<int> solution(const uint8_t* path, const bool* back, int length) {
    std::vector<int> front_moves, back_moves;
    for (int i = 0; i < length; ++i) (back[i] ? back_moves : front_moves).push_back(path[i]);
    front_moves.insert(front_moves.end(), back_moves.rbegin(), back_moves.rend());
    return front_moves;
  }

  Outcome serial_iteration(const Node& root, const Values& values, int bound, Totals& totals) {
    Context c(&totals);
    Outcome outcome;
    const int r = search(c, root, values, bound, 0, kFaces, kFaces);
    flush(c);
    if (r == kFound) {
      outcome.found = true;
      outcome.moves = solution(c.path, c.path_back, bound);
    }
    outcome.next_bound = r;
    return outcome;
  }

  // One iteration as tasks: the nodes kSplitDepth moves deep, searched on `threads` threads in
  // order of the work each took in the iteration before (most first: a subtree the last bound let
  // the search far into is likelier to hold a solution, so the last iteration tends to end
  // early). The solution kept is that of the first task in this order that has one.
  Outcome task_iteration(const Node& root, const Values& values, int bound, Totals& totals, unsigned threads,
                         TaskWork& previous) {
    Outcome outcome;
    std::vector<Task> tasks;
    Context collect(&totals);
    collect.tasks = &tasks;
    collect.split_depth = std::min(kSplitDepth, bound - 1);
    const int shallow = search(collect, root, values, bound, 0, kFaces, kFaces);
    flush(collect);
    if (shallow == kFound) {
      outcome.found = true;
      outcome.moves = solution(collect.path, collect.path_back, bound);
      return outcome;
    }
    std::vector<uint64_t> earlier(tasks.size(), 0);
    for (size_t i = 0; i < tasks.size(); ++i) {
      const auto found = previous.find(tasks[i].key());
      if (found != previous.end()) earlier[i] = found->second;
    }
    std::vector<uint32_t> order(tasks.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return earlier[a] > earlier[b]; });

    std::atomic<size_t> next_task{0}, first_found{tasks.size()};
    std::vector<uint64_t> work(tasks.size(), 0);
    std::vector<std::vector<int>> solutions(tasks.size());
    auto run_tasks = [&](size_t) {
      for (;;) {
        const size_t i = next_task.fetch_add(1, std::memory_order_relaxed);
        if (i >= tasks.size() || first_found.load(std::memory_order_relaxed) < i) break;
        const Task& t = tasks[order[i]];
        Context c(&totals);
        c.task = i;
        c.first_found = &first_found;
        std::copy(t.path, t.path + t.depth, c.path);
        std::copy(t.path_back, t.path_back + t.depth, c.path_back);
        const int r = search(c, t.node, t.values, t.remaining, t.depth, t.last_front, t.last_back);
        flush(c);
        work[i] = c.nodes;
        if (!c.abandoned && r == kFound) {
          solutions[i] = solution(c.path, c.path_back, bound);
          size_t current = first_found.load();
          while (i < current && !first_found.compare_exchange_weak(current, i)) {
          }
        }
      }
    };
    if (threads > 1) {
      parallel_for(threads, threads, run_tasks);
    } else {
      run_tasks(0);
    }
    const size_t winner = first_found.load();
    if (winner < tasks.size()) {
      outcome.found = true;
      outcome.moves = std::move(solutions[winner]);
      return outcome;
    }
    previous.clear();
    for (size_t i = 0; i < tasks.size(); ++i) previous[tasks[order[i]].key()] = work[i];
    outcome.next_bound = shallow;
    return outcome;
  }

  // A child's entries are read in rounds, each round's table lines prefetched for every child still
  // in play before any is read: first the entry most likely to exceed the budget, then the next, then
  // the other three. Most children are cut off by one of the first two, so most of the lines the
  // other three would need are never fetched; the rounds keep many reads in flight at once.
  static constexpr int kEntries = 2 * kAxes;
  static constexpr int kRoundEnds[] = {1, 2, kEntries - 1};  // entries read by the end of each round
  static constexpr int kRounds = sizeof kRoundEnds / sizeof kRoundEnds[0];

  struct Child {
    Node node;
    CosetTable::Probe probes[kEntries];
    int8_t values[kEntries];
    int8_t order[kEntries - 1];  // the entries it does not inherit, most likely to exceed first
    int8_t exceeded;             // the first entry read that exceeds the budget, or -1
    int8_t move;
  };

  static const VectorCube& view_cube(const Node& n, int j) { return j < kAxes ? n.fwd[j] : n.inv[j - kAxes]; }

  void prefetch_round(Child& child, int round) const {
    for (int q = round ? kRoundEnds[round - 1] : 0; q < kRoundEnds[round]; ++q) {
      child.probes[child.order[q]] = table_.probe(view_cube(child.node, child.order[q]));
    }
  }
  // Reads a round's entries; the first that exceeds `limit` ends it, in child.exceeded.
  void read_round(Child& child, int round, int limit) const {
    for (int q = round ? kRoundEnds[round - 1] : 0; q < kRoundEnds[round]; ++q) {
      const int j = child.order[q];
      child.values[j] = static_cast<int8_t>(table_.value(child.probes[j]));
      if (child.values[j] > limit) {
        child.exceeded = child.values[j];
        return;
      }
    }
  }

  static void child_node(Node& child, const Node& n, const CosetSearchData& d, int m, bool front) {
    for (int k = 0; k < kAxes; ++k) {
      if (front) {
        child.fwd[k] = compose(n.fwd[k], d.move[k][m]);
        child.inv[k] = compose(d.inverse_move[k][m], n.inv[k]);
      } else {
        child.fwd[k] = compose(d.move[k][m], n.fwd[k]);
        child.inv[k] = compose(n.inv[k], d.inverse_move[k][m]);
      }
    }
  }

  // Searches for a solution of r moves (r >= 1) of a node whose bound is at most r and which is
  // not solved. Returns kFound (the moves in the context's path) or a lower bound on the node's
  // distance drawn from table entries (no shorter solution exists, as the earlier iterations
  // found none, so the bound can be at most r).
  int search(Context& c, const Node& n, const Values& v, int r, int g, int last_front, int last_back) {
    if (c.abandoned) return kAbandoned;
    uint32_t front = data_.front_after[last_front], back = data_.back_after[last_back];
    int front_sum = 0, back_sum = 0;
    for (int k = 0; k < kAxes; ++k) {
      if (v.inv[k] == r) front &= ~data_.axis_moves[k];
      if (v.fwd[k] == r) back &= ~data_.axis_moves[k];
      front_sum += v.fwd[k];
      back_sum += v.inv[k];
    }
    const int front_count = std::popcount(front), back_count = std::popcount(back);
    const bool use_front = back_count > front_count || (back_count == front_count && front_sum > back_sum);
    const uint32_t moves = use_front ? front : back;
    if (r == 1) return last_move(c, n, moves, use_front, g);

    // Which entries to read first: a child's entry on the side the move changes (the state's
    // views for a front move) is within one of the parent's, so the parent's highest entries,
    // on that side first, are the likeliest to exceed.
    const int8_t parent[kEntries] = {v.fwd[0], v.fwd[1], v.fwd[2], v.inv[0], v.inv[1], v.inv[2]};
    int8_t order[kEntries];
    int priority[kEntries];
    for (int j = 0; j < kEntries; ++j) {
      order[j] = static_cast<int8_t>(j);
      priority[j] = 2 * parent[j] + ((j < kAxes) == use_front ? 1 : 0);
    }
    std::stable_sort(order, order + kEntries, [&](int8_t a, int8_t b) { return priority[a] > priority[b]; });

    Child children[kMoves];
    int count_children = 0;
    for (uint32_t rest = moves; rest; rest &= rest - 1) {
      Child& child = children[count_children++];
      const int m = std::countr_zero(rest);
      child.move = static_cast<int8_t>(m);
      child_node(child.node, n, data_, m, use_front);
      // A front move leaves the inverse's view of its own axis in the same coset, and vice versa.
      const int inherited = (use_front ? kAxes : 0) + data_.view_of_move[m];
      child.values[inherited] = parent[inherited];
      for (int j = 0, q = 0; j < kEntries; ++j) {
        if (order[j] != inherited) child.order[q++] = order[j];
      }
      child.exceeded = -1;
      prefetch_round(child, 0);
    }
    count(c, count_children);

    const int limit = r - 1;
    for (int round = 0; round + 1 < kRounds; ++round) {
      for (int i = 0; i < count_children; ++i) {
        Child& child = children[i];
        if (child.exceeded >= 0) continue;
        read_round(child, round, limit);
        if (child.exceeded >= r + 2 && !c.tasks) return child.exceeded - 1;  // see below
        if (child.exceeded < 0) prefetch_round(child, round + 1);
      }
    }

    int bound = node_bound(v);
    uint32_t skipped_faces = 0;
    for (int i = 0; i < count_children; ++i) {
      Child& child = children[i];
      const int face = child.move / 3;
      if (skipped_faces >> face & 1) continue;
      if (child.exceeded < 0) read_round(child, kRounds - 1, limit);
      int child_bound = child.exceeded;
      Values cv;
      if (child_bound < 0) {
        for (int k = 0; k < kAxes; ++k) cv.fwd[k] = child.values[k], cv.inv[k] = child.values[kAxes + k];
        child_bound = node_bound(cv);
      }
      if (child_bound <= limit) {
        c.path[g] = static_cast<uint8_t>(child.move);
        c.path_back[g] = !use_front;
        const int next_front = use_front ? face : last_front, next_back = use_front ? last_back : face;
        if (c.tasks && g + 1 == c.split_depth) {
          record_task(c, child.node, cv, limit, g + 1, next_front, next_back);
          continue;
        }
        child_bound = search(c, child.node, cv, limit, g + 1, next_front, next_back);
        if (child_bound == kFound) return kFound;
      }
      // A neighbour is at most one move closer: this node needs child_bound - 1 moves (cut it if
      // that is over the budget), and so does every other turn of the child's face.
      if (child_bound >= r + 2 && !c.tasks) return child_bound - 1;
      if (child_bound >= r + 1) skipped_faces |= 1u << face;
      bound = std::max(bound, child_bound - 1);
    }
    return bound;
  }

  // r == 1: a child is solved or needs at least one more move.
  int last_move(Context& c, const Node& n, uint32_t moves, bool front, int g) {
    count(c, std::popcount(moves));
    for (uint32_t rest = moves; rest; rest &= rest - 1) {
      const int m = std::countr_zero(rest);
      const VectorCube child = front ? compose(n.fwd[0], data_.move[0][m]) : compose(data_.move[0][m], n.fwd[0]);
      if (child == solved_vector()) {
        c.path[g] = static_cast<uint8_t>(m);
        c.path_back[g] = !front;
        return kFound;
      }
    }
    return 1;
  }

  static const VectorCube& solved_vector() {
    static const VectorCube solved = VectorCube::of(CubieCube::solved());
    return solved;
  }

  void record_task(Context& c, const Node& node, const Values& values, int remaining, int depth, int last_front,
                   int last_back) {
    Task t;
    t.node = node;
    t.values = values;
    t.remaining = static_cast<int8_t>(remaining);
    t.depth = static_cast<int8_t>(depth);
    t.last_front = static_cast<int8_t>(last_front);
    t.last_back = static_cast<int8_t>(last_back);
    std::copy(c.path, c.path + depth, t.path);
    std::copy(c.path_back, c.path_back + depth, t.path_back);
    c.tasks->push_back(t);
  }

  const CosetSearchData& data_;
  const CosetTable& table_;
};

}  // namespace cogsim::cube::coset_kernel
