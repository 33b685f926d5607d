#include "maze/maze.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/parallel.hpp"
#include "common/rng.hpp"

namespace cogsim::maze {

namespace {

void check_size(int n) {
  if (n < kMinSize || n > kMaxSize) {
    throw std::invalid_argument("maze size must be in [" + std::to_string(kMinSize) + ", " + std::to_string(kMaxSize) +
                                "], got " + std::to_string(n));
  }
}

void open_between(std::vector<uint8_t>& walls, int n, int row, int col, int side) {
  walls[row * n + col] &= static_cast<uint8_t>(~kSideBit[side]);
  const int r = row + kDeltaRow[side], c = col + kDeltaCol[side];
  walls[r * n + c] &= static_cast<uint8_t>(~kSideBit[(side + 2) & 3]);
}

bool inside(int n, int r, int c) { return r >= 0 && r < n && c >= 0 && c < n; }

// Iterative recursive backtracker: from the top of the stack, step to a uniformly chosen
// unvisited neighbour (sides examined in order N, E, S, W), or pop when there is none.
void carve_spanning_tree(std::vector<uint8_t>& walls, int n, SplitMix64& rng) {
  std::vector<uint8_t> in_tree(static_cast<size_t>(n) * n, 0);
  std::vector<int> stack{0};
  in_tree[0] = 1;
  while (!stack.empty()) {
    const int cell = stack.back();
    const int row = cell / n, col = cell % n;
    int options[4], count = 0;
    for (int side = 0; side < 4; ++side) {
      const int r = row + kDeltaRow[side], c = col + kDeltaCol[side];
      if (inside(n, r, c) && !in_tree[r * n + c]) options[count++] = side;
    }
    if (count == 0) {
      stack.pop_back();
      continue;
    }
    const int side = options[rng.below(static_cast<uint64_t>(count))];
    open_between(walls, n, row, col, side);
    const int next = (row + kDeltaRow[side]) * n + (col + kDeltaCol[side]);
    in_tree[next] = 1;
    stack.push_back(next);
  }
}

// Interior walls still standing, as (cell, side) with side EAST or SOUTH, in row-major order.
std::vector<std::pair<int, int>> standing_interior_walls(const std::vector<uint8_t>& walls, int n) {
  std::vector<std::pair<int, int>> standing;
  for (int row = 0; row < n; ++row) {
    for (int col = 0; col < n; ++col) {
      const uint8_t bits = walls[row * n + col];
      if (col + 1 < n && (bits & kEast)) standing.emplace_back(row * n + col, 1);
      if (row + 1 < n && (bits & kSouth)) standing.emplace_back(row * n + col, 2);
    }
  }
  return standing;
}

}  // namespace

int extra_opening_count(int n, double loop_rate) {
  check_size(n);
  if (!(loop_rate >= 0.0 && loop_rate <= 1.0)) {
    throw std::invalid_argument("loop_rate must be in [0, 1], got " + std::to_string(loop_rate));
  }
  return static_cast<int>(std::floor(loop_rate * walls_left_by_tree(n) + 0.5));
}

Maze generate(int n, uint64_t seed, double loop_rate) {
  const int extra = extra_opening_count(n, loop_rate);
  Maze maze;
  maze.size = n;
  maze.walls.assign(static_cast<size_t>(n) * n, kNorth | kEast | kSouth | kWest);
  SplitMix64 rng(seed);
  carve_spanning_tree(maze.walls, n, rng);
  auto standing = standing_interior_walls(maze.walls, n);
  // Partial Fisher-Yates: the first `extra` entries become a uniform sample without replacement.
  for (int i = 0; i < extra; ++i) {
    const auto j = i + static_cast<int>(rng.below(standing.size() - i));
    std::swap(standing[i], standing[j]);
    const auto [cell, side] = standing[i];
    open_between(maze.walls, n, cell / n, cell % n, side);
  }
  maze.extra_openings = extra;
  return maze;
}

std::vector<uint8_t> shortest_actions(const uint8_t* walls, int n, int row, int col, int heading, int goal_row,
                                      int goal_col) {
  check_size(n);
  if (!inside(n, row, col) || !inside(n, goal_row, goal_col) || heading < 0 || heading > 3) {
    throw std::invalid_argument("pose and goal must lie inside the maze with heading in [0, 3]");
  }
  const int poses = 4 * n * n;
  std::vector<int> parent(poses, -1);
  std::vector<uint8_t> via(poses, 0);
  std::vector<int> queue;
  queue.reserve(poses);
  const int source = (row * n + col) * 4 + heading;
  parent[source] = source;
  queue.push_back(source);
  int found = -1;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int pose = queue[head];
    const int cell = pose >> 2, h = pose & 3;
    if (cell == goal_row * n + goal_col) {
      found = pose;
      break;
    }
    int next[3] = {-1, cell * 4 + ((h + 3) & 3), cell * 4 + ((h + 1) & 3)};
    if (!(walls[cell] & kSideBit[h])) {
      const int r = cell / n + kDeltaRow[h], c = cell % n + kDeltaCol[h];
      if (inside(n, r, c)) next[0] = (r * n + c) * 4 + h;
    }
    for (int action = 0; action < 3; ++action) {
      const int to = next[action];
      if (to < 0 || parent[to] >= 0) continue;
      parent[to] = pose;
      via[to] = static_cast<uint8_t>(action);
      queue.push_back(to);
    }
  }
  if (found < 0) throw std::invalid_argument("the goal cannot be reached from this pose");
  std::vector<uint8_t> actions;
  for (int pose = found; pose != source; pose = parent[pose]) actions.push_back(via[pose]);
  return {actions.rbegin(), actions.rend()};
}

namespace {

// BFS distances in cell moves from one cell (-1 where unreachable).
std::vector<int> cell_distances(const uint8_t* walls, int n, int from_row, int from_col) {
  std::vector<int> distance(static_cast<size_t>(n) * n, -1);
  std::vector<int> queue{from_row * n + from_col};
  distance[queue.front()] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int cell = queue[head];
    for (int side = 0; side < 4; ++side) {
      const int r = cell / n + kDeltaRow[side], c = cell % n + kDeltaCol[side];
      if ((walls[cell] & kSideBit[side]) || !inside(n, r, c) || distance[r * n + c] >= 0) continue;
      distance[r * n + c] = distance[cell] + 1;
      queue.push_back(r * n + c);
    }
  }
  return distance;
}

}  // namespace

int shortest_cells(const uint8_t* walls, int n, int from_row, int from_col, int to_row, int to_col) {
  check_size(n);
  if (!inside(n, from_row, from_col) || !inside(n, to_row, to_col)) {
    throw std::invalid_argument("both cells must lie inside the maze");
  }
  return cell_distances(walls, n, from_row, from_col)[to_row * n + to_col];
}

int reachable_cells(const uint8_t* walls, int n) {
  check_size(n);
  int count = 0;
  for (int d : cell_distances(walls, n, 0, 0)) count += d >= 0;
  return count;
}

void step_batch(const Walkers& w, size_t count, const uint8_t* actions, size_t rounds, uint8_t* outcomes,
                unsigned threads) {
  constexpr size_t kChunk = 4096;
  const size_t chunks = (count + kChunk - 1) / kChunk;
  parallel_for(chunks, threads, [&](size_t chunk) {
    const size_t begin = chunk * kChunk, end = std::min(count, begin + kChunk);
    for (size_t t = 0; t < rounds; ++t) {
      const uint8_t* row_actions = actions + t * count;
      uint8_t* row_outcomes = outcomes ? outcomes + t * count : nullptr;
      for (size_t i = begin; i < end; ++i) {
        const Outcome outcome = step_one(w, i, row_actions[i]);
        if (row_outcomes) row_outcomes[i] = outcome;
      }
    }
  });
}

}  // namespace cogsim::maze
