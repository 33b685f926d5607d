// 3D Maze (RNG-Bench): generation, shortest paths over the agent's action space, batched stepping.
//
// A maze is an n x n grid of cells; walls[r * n + c] holds the wall bits NORTH=1, EAST=2, SOUTH=4,
// WEST=8 (row 0 is north), and a wall between two cells is set on both sides. Headings are
// 0..3 = north, east, south, west. Actions are 0 = move_forward, 1 = turn_left, 2 = turn_right;
// moving into a wall is a collision: the agent stays put and the step still counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cogsim::maze {

inline constexpr uint8_t kNorth = 1, kEast = 2, kSouth = 4, kWest = 8;
inline constexpr uint8_t kSideBit[4] = {kNorth, kEast, kSouth, kWest};
inline constexpr int kDeltaRow[4] = {-1, 0, 1, 0};
inline constexpr int kDeltaCol[4] = {0, 1, 0, -1};
inline constexpr int kMinSize = 2, kMaxSize = 64;
inline constexpr int kStartHeading = 1;  // the agent starts in the top-left cell facing east

enum Action : uint8_t { kForward = 0, kTurnLeft = 1, kTurnRight = 2 };
enum Outcome : uint8_t { kMoved = 0, kTurned = 1, kCollided = 2, kReachedGoal = 3, kIgnored = 4, kBadAction = 5 };

struct Maze {
  int size = 0;
  std::vector<uint8_t> walls;  // size * size cells
  int extra_openings = 0;      // walls removed beyond the spanning tree
};

// Interior walls a spanning tree leaves standing: 2n(n-1) - (n^2 - 1) = (n-1)^2.
inline int walls_left_by_tree(int n) { return (n - 1) * (n - 1); }

// Extra openings for a loop rate: round-half-up(loop_rate * walls left by the tree).
int extra_opening_count(int n, double loop_rate);

// A uniformly random depth-first (recursive backtracker) spanning tree rooted at the top-left cell,
// then exactly extra_opening_count(n, loop_rate) further interior walls opened, chosen uniformly
// without replacement. Throws std::invalid_argument on a bad size or rate.
Maze generate(int n, uint64_t seed, double loop_rate);

// Fewest actions (move_forward / turn_left / turn_right) from (row, col, heading) to reach the goal
// cell in any heading, found by BFS over the 4 n^2 poses; ties broken in action order 0, 1, 2.
// Returns the action sequence (empty when already there). Throws when the goal is unreachable.
std::vector<uint8_t> shortest_actions(const uint8_t* walls, int n, int row, int col, int heading, int goal_row,
                                      int goal_col);

// Fewest cell-to-cell moves between two cells (BFS on the grid), -1 if unreachable.
int shortest_cells(const uint8_t* walls, int n, int from_row, int from_col, int to_row, int to_col);

// Number of cells reachable from the top-left cell.
int reachable_cells(const uint8_t* walls, int n);

// Structure-of-arrays view of B agents, each in its own maze (numpy buffers on the Python side).
// Maze i's cells start at offset[i] in walls and visited.
struct Walkers {
  const uint8_t* walls;
  const int64_t* offset;
  const int32_t* size;
  const int32_t* goal_row;
  const int32_t* goal_col;
  int32_t* row;
  int32_t* col;
  int32_t* heading;
  int32_t* steps;
  int32_t* collisions;
  int32_t* visited_count;
  uint8_t* visited;
  uint8_t* done;
};

inline Outcome step_one(const Walkers& w, size_t i, uint8_t action) {
  if (w.done[i]) return kIgnored;
  if (action > kTurnRight) return kBadAction;
  w.steps[i] += 1;
  if (action == kTurnLeft) {
    w.heading[i] = (w.heading[i] + 3) & 3;
    return kTurned;
  }
  if (action == kTurnRight) {
    w.heading[i] = (w.heading[i] + 1) & 3;
    return kTurned;
  }
  const int n = w.size[i];
  const int h = w.heading[i];
  const int64_t base = w.offset[i];
  if (w.walls[base + w.row[i] * n + w.col[i]] & kSideBit[h]) {
    w.collisions[i] += 1;
    return kCollided;
  }
  const int r = w.row[i] + kDeltaRow[h];
  const int c = w.col[i] + kDeltaCol[h];
  w.row[i] = r;
  w.col[i] = c;
  uint8_t& seen = w.visited[base + r * n + c];
  w.visited_count[i] += 1 - seen;
  seen = 1;
  if (r == w.goal_row[i] && c == w.goal_col[i]) {
    w.done[i] = 1;
    return kReachedGoal;
  }
  return kMoved;
}

// Applies actions[t * count + i] to walker i for t = 0..rounds-1; outcomes has the same layout
// (may be null). Walkers are split over threads in chunks.
void step_batch(const Walkers& w, size_t count, const uint8_t* actions, size_t rounds, uint8_t* outcomes,
                unsigned threads);

}  // namespace cogsim::maze
