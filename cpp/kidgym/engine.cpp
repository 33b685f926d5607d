// KidGym's transitions: the high-level actions, their low-level moves, the goal checks and the action
// lists (kidgym.hpp). Each function names the release's routine it follows.
#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>

#include "common/rng.hpp"
#include "kidgym/kidgym.hpp"

namespace cogsim::kidgym {

namespace {

// The release's directions: 0 down, 1 right, 2 up, 3 left, as (dx, dy).
constexpr int kDx[4] = {0, 1, 0, -1};
constexpr int kDy[4] = {1, 0, -1, 0};

int direction_of(int dx, int dy) {
  for (int d = 0; d < 4; ++d)
    if (kDx[d] == dx && kDy[d] == dy) return d;
  return -1;
}

bool in_grid(int x, int y) { return x >= 0 && x < kSide && y >= 0 && y < kSide; }

// grid.get_obj_with_pos: the first object on the cell, or -1.
int object_at(const State& s, int x, int y) {
  for (int i = 0; i < s.count; ++i)
    if (s.objects[i].x == x && s.objects[i].y == y) return i;
  return -1;
}

// grid.get_obj_with_id: the first object with the label, or -1.
int object_labelled(const State& s, int label) {
  for (int i = 0; i < s.count; ++i)
    if (s.objects[i].label == label) return i;
  return -1;
}

// grid.get_obj_with_name for a roman numeral: the first numbered tile showing it, or -1.
int roman_tile(const State& s, int numeral) {
  for (int i = 0; i < s.count; ++i)
    if (s.objects[i].role == Role::Roman && s.objects[i].value == numeral) return i;
  return -1;
}

void remove_object(State& s, int index) {
  for (int i = index; i + 1 < s.count; ++i) s.objects[i] = s.objects[i + 1];
  s.count--;
  s.objects[s.count] = Object{};
}

void append_object(State& s, const Object& o) { s.objects[s.count++] = o; }

// bag.add: fails (the object is lost to the caller) when the backpack is full.
bool bag_add(State& s, const Object& o) {
  if (s.bag_count == kBagSlots) return false;
  s.bag[s.bag_count++] = o;
  return true;
}

// bag.remove: later slots move up one.
Object bag_remove(State& s, int slot) {
  const Object o = s.bag[slot];
  for (int i = slot; i + 1 < kBagSlots; ++i) s.bag[i] = s.bag[i + 1];
  s.bag[kBagSlots - 1] = Object{};
  s.bag_count--;
  return o;
}

bool places_pieces(Task t) { return t == Task::Filling || t == Task::Puzzle || t == Task::MemoryFilling; }

}  // namespace

bool has_memory_phase(Task t) {
  return t == Task::Selection || t == Task::MemoryMaze || t == Task::MemoryDecode || t == Task::MemoryFilling;
}

const char* task_name(Task task) {
  static const char* names[] = {"classification", "maze",           "selection",     "placement", "sorting",
                                "decode_maze",    "memory_maze",    "memory_decode", "counting",  "filling",
                                "puzzle",         "memory_filling", "decode"};
  return names[static_cast<int>(task)];
}

int default_budget(Task task, int level) {
  switch (task) {
    case Task::Classification:
      return 4 * level;
    case Task::Maze:
      return 2 * level + 1;
    case Task::Selection:
    case Task::Sorting:
    case Task::MemoryDecode:
    case Task::MemoryFilling:
      return level + 1;
    case Task::Placement:
      return 1;
    case Task::DecodeMaze:
      return 2 * level + 2;  // one step of slack over the fewest (3/5/7)
    case Task::MemoryMaze:
      return 2 * level + 2;
    case Task::Counting:
      return 5;
    case Task::Filling:
    case Task::Puzzle:
    case Task::Decode:  // `level` steps for its one choice
      return level;
  }
  return 0;
}

int maze_index(Task task) {
  switch (task) {
    case Task::Maze:
      return 0;
    case Task::DecodeMaze:
      return 1;
    case Task::MemoryMaze:
      return 2;
    default:
      return -1;
  }
}

// utils.a_star_search over grid.construct_map with the agent's and the target's cells open. Nodes
// are (row, col); the open list is a heap of (f, row, col), so equal f pops the smallest cell first;
// a node is pushed again when reached more cheaply, and is not pushed twice while in the heap.
std::vector<std::pair<int, int>> astar_path(const State& s, int tx, int ty) {
  bool blocked[kSide][kSide] = {};
  for (int i = 0; i < s.count; ++i) blocked[s.objects[i].y][s.objects[i].x] = true;
  blocked[s.agent_y][s.agent_x] = false;
  blocked[ty][tx] = false;
  const int sr = s.agent_y, sc = s.agent_x;
  const auto h = [&](int r, int c) { return std::abs(r - ty) + std::abs(c - tx); };
  struct Entry {
    int f, r, c;
  };
  std::vector<Entry> open{{h(sr, sc), sr, sc}};
  int g[kSide][kSide];
  bool has_g[kSide][kSide] = {}, closed[kSide][kSide] = {};
  int from[kSide][kSide];
  for (auto& row : from) std::fill(std::begin(row), std::end(row), -1);
  g[sr][sc] = 0;
  has_g[sr][sc] = true;
  constexpr int kStep[4][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};
  while (!open.empty()) {
    auto best = std::min_element(open.begin(), open.end(), [](const Entry& a, const Entry& b) {
      return a.f != b.f ? a.f < b.f : a.r != b.r ? a.r < b.r : a.c < b.c;
    });
    const int r = best->r, c = best->c;
    open.erase(best);
    if (r == ty && c == tx) {
      std::vector<std::pair<int, int>> path;
      int node = r * kSide + c;
      while (from[node / kSide][node % kSide] >= 0) {
        path.emplace_back(node % kSide, node / kSide);
        node = from[node / kSide][node % kSide];
      }
      path.emplace_back(sc, sr);
      std::reverse(path.begin(), path.end());
      return path;
    }
    closed[r][c] = true;
    for (const auto& step : kStep) {
      const int nr = r + step[0], nc = c + step[1];
      if (nr < 0 || nr >= kSide || nc < 0 || nc >= kSide || blocked[nr][nc]) continue;
      const int tentative = g[r][c] + 1;
      const int known = has_g[nr][nc] ? g[nr][nc] : 0;
      if (closed[nr][nc] && tentative >= known) continue;
      const bool queued = std::any_of(open.begin(), open.end(), [&](const Entry& e) { return e.r == nr && e.c == nc; });
      if (tentative < known || !queued) {
        from[nr][nc] = r * kSide + c;
        g[nr][nc] = tentative;
        has_g[nr][nc] = true;
        open.push_back({tentative + h(nr, nc), nr, nc});
      }
    }
  }
  return {};
}

namespace {

// The release's low-level actions: moves 0-3 (a direction), rotate, pick, drop into slot k.
enum LowKind : uint8_t { kMove, kRotate, kPick, kDrop };
struct Low {
  LowKind kind;
  uint8_t arg;
};

// grid.extract_path: the moves along the A* path (all but the last cell) and the clockwise turns
// that leave the agent facing the target; nothing when the target cannot be reached.
std::vector<Low> walk_to(const State& s, int tx, int ty) {
  const auto path = astar_path(s, tx, ty);
  std::vector<Low> out;
  if (path.size() < 2) return out;
  for (size_t i = 1; i + 1 < path.size(); ++i) {
    const int d = direction_of(path[i].first - path[i - 1].first, path[i].second - path[i - 1].second);
    out.push_back({kMove, static_cast<uint8_t>(d)});
  }
  const auto& last = path[path.size() - 2];
  int facing = s.agent_dir;
  if (path.size() >= 3) {
    const auto& before = path[path.size() - 3];
    facing = direction_of(last.first - before.first, last.second - before.second);
  }
  const int goal = direction_of(tx - last.first, ty - last.second);
  while (facing != goal) {
    out.push_back({kRotate, 0});
    facing = (facing + 3) % 4;
  }
  return out;
}

int bag_value(const State& s) {
  int total = 0;
  for (int i = 0; i < s.bag_count; ++i) total += s.bag[i].value;
  return total;
}

}  // namespace

// Each task's check_goal: (task_success, terminated).
std::pair<bool, bool> check_goal(const State& s) {
  const int level = s.level;
  switch (task_of(s)) {
    case Task::Classification: {
      for (int i = 0; i < s.count; ++i)
        if (s.objects[i].flags & kPickable) return {false, false};
      return {s.bag_count == 0, s.bag_count == 0};
    }
    case Task::Counting: {
      const int value = bag_value(s), wanted = s.facts[0];
      if (s.declared) return {value == wanted, true};
      if (s.bag_count == kBagSlots && value < wanted) return {false, true};
      return {false, false};
    }
    case Task::Maze:
    case Task::DecodeMaze: {
      for (int i = 0; i < s.count; ++i)
        if (s.objects[i].role == Role::Diamond) return {false, false};
      return {true, true};
    }
    case Task::MemoryMaze: {
      int diamond = 0, empty = 0;
      for (int i = 0; i < s.count; ++i) {
        diamond += s.objects[i].role == Role::Diamond;
        empty += s.objects[i].role == Role::Treasure;
      }
      if (diamond + empty == 3) return {false, false};
      if (empty == 1) return {false, true};
      return {true, true};
    }
    case Task::Selection: {
      if (s.bag_count != level) return {false, false};
      for (int i = 0; i < s.bag_count; ++i)
        if (!(s.bag[i].flags & kMemorized)) return {false, true};
      return {true, true};
    }
    case Task::Decode:
    case Task::MemoryDecode:
      if (s.bag_count == 0) return {false, false};
      return {(s.bag[0].flags & kPartner) != 0, true};
    case Task::Placement: {
      if (s.bag_count != 0) return {false, false};
      const int at = object_at(s, s.target_x, s.target_y);
      return {at >= 0 && (s.objects[at].flags & kPickable), true};
    }
    case Task::Sorting:
      if (s.correct == level + 1) return {true, true};
      if (s.bag_count == 0) return {false, true};
      return {false, false};
    case Task::Filling:
    case Task::Puzzle:
    case Task::MemoryFilling:
      if (s.bag_count != kBagSlots - level) return {false, false};
      return {s.correct == level, true};
  }
  return {false, false};
}

namespace {

bool low_pick(State& s) {
  const int x = s.agent_x + kDx[s.agent_dir], y = s.agent_y + kDy[s.agent_dir];
  const int at = object_at(s, x, y);
  if (at < 0 || !(s.objects[at].flags & kPickable)) return false;
  bag_add(s, s.objects[at]);  // a full backpack loses the object
  remove_object(s, at);
  return true;
}

// The tasks' try_drop. Returns whether the drop succeeded.
bool low_drop(State& s, int slot) {
  const int x = s.agent_x + kDx[s.agent_dir], y = s.agent_y + kDy[s.agent_dir];
  const int front = in_grid(x, y) ? object_at(s, x, y) : -1;
  switch (task_of(s)) {
    case Task::Classification: {
      // the release reads the front object's accepted item: a basket is always in front here
      if (slot >= s.bag_count || front < 0 || s.objects[front].role != Role::Basket) return false;
      if (s.objects[front].arg != s.bag[slot].asset) return false;
      bag_remove(s, slot);
      return true;
    }
    case Task::Maze:
    case Task::DecodeMaze:
    case Task::MemoryMaze: {
      // in front of anything but a door the release raises AttributeError; here the drop fails
      if (slot >= s.bag_count || front < 0 || s.objects[front].role != Role::Door) return false;
      if (s.objects[front].arg != s.bag[slot].asset) return false;
      bag_remove(s, slot);
      remove_object(s, front);
      return true;
    }
    default: {  // grid.try_drop: into a free cell in front
      if (slot >= s.bag_count || !in_grid(x, y) || front >= 0) return false;
      Object o = bag_remove(s, slot);
      o.x = static_cast<uint8_t>(x);
      o.y = static_cast<uint8_t>(y);
      append_object(s, o);
      return true;
    }
  }
}

bool run_low(State& s, const Low& low) {
  switch (low.kind) {
    case kMove: {
      s.agent_dir = low.arg;
      const int x = s.agent_x + kDx[low.arg], y = s.agent_y + kDy[low.arg];
      if (!in_grid(x, y) || object_at(s, x, y) >= 0) return false;
      s.agent_x = static_cast<uint8_t>(x);
      s.agent_y = static_cast<uint8_t>(y);
      return true;
    }
    case kRotate:
      s.agent_dir = static_cast<uint8_t>((s.agent_dir + 3) % 4);
      return true;
    case kPick:
      return low_pick(s);
    case kDrop:
      return low_drop(s, low.arg);
  }
  return false;
}

struct StepResult {
  bool step_ok, success, terminated;
};

// task.high_level_step for one option: extract_actions, then the low-level moves with a goal check
// after each, stopping at termination.
StepResult execute(State& s, const Option& o) {
  if (o.verb == Verb::Continue) return {true, false, false};
  s.declared = 0;
  std::vector<Low> lows;
  if (o.verb == Verb::Declare) {
    s.declared = 1;
    lows.push_back({kRotate, 0});
  } else if (o.verb == Verb::Pick || o.verb == Verb::Choose || o.verb == Verb::Obtain || o.verb == Verb::Put ||
             o.verb == Verb::Unlock) {
    const int target = object_labelled(s, o.target);
    if (target < 0) return {false, false, false};  // the release raises on a label no object has
    lows = walk_to(s, s.objects[target].x, s.objects[target].y);
    if (o.verb == Verb::Put || o.verb == Verb::Unlock) {
      lows.push_back({kDrop, o.slot});
    } else {
      lows.push_back({kPick, 0});
    }
  } else {  // Place: the numbered tile leaves the grid before the walk (its cell becomes free)
    const int tile = roman_tile(s, o.target);
    if (tile < 0) return {false, false, false};
    const Object target = s.objects[tile];
    lows = walk_to(s, target.x, target.y);
    remove_object(s, tile);
    lows.push_back({kDrop, o.slot});
    if (o.slot < s.bag_count) {
      const Object& held = s.bag[o.slot];
      if (task_of(s) == Task::Sorting && held.asset == target.arg) s.correct++;
      if (places_pieces(task_of(s)) && (held.flags & kTruePiece) && held.arg == target.arg) s.correct++;
    }
  }
  bool all_ok = true, success = false, terminated = false;
  for (const Low& low : lows) {
    all_ok = run_low(s, low) && all_ok;
    std::tie(success, terminated) = check_goal(s);
    if (terminated) break;
  }
  return {all_ok, success, terminated};
}

bool reachable_target(const State& s, const Option& o) {
  if (o.verb == Verb::Continue || o.verb == Verb::Declare) return true;
  const int target = o.verb == Verb::Place ? roman_tile(s, o.target) : object_labelled(s, o.target);
  return target >= 0 && !astar_path(s, s.objects[target].x, s.objects[target].y).empty();
}

void add_option(State& s, Verb verb, int slot, int target) {
  if (s.option_count < kMaxOptions)
    s.options[s.option_count++] = Option{verb, static_cast<uint8_t>(slot), static_cast<uint8_t>(target)};
}

// Each task's generate_actions, in the release's order before its shuffle.
void list_actions(State& s) {
  s.option_count = 0;
  const Task task = task_of(s);
  if (has_memory_phase(task) && !s.started) {
    add_option(s, Verb::Continue, 0, 0);
    return;
  }
  switch (task) {
    case Task::Classification:
      for (int i = 0; i < s.count; ++i) {
        const Object& o = s.objects[i];
        if (o.flags & kPickable) {
          add_option(s, Verb::Pick, 0, o.label);
        } else {
          for (int slot = 0; slot < s.bag_count; ++slot) add_option(s, Verb::Put, slot, o.label);
        }
      }
      break;
    case Task::Counting:
      for (int i = 0; i < s.count; ++i) add_option(s, Verb::Pick, 0, s.objects[i].label);
      add_option(s, Verb::Declare, 0, s.facts[0]);
      break;
    case Task::Maze:
    case Task::DecodeMaze:
    case Task::MemoryMaze:
      for (int i = 0; i < s.count; ++i) {
        const Object& o = s.objects[i];
        if (o.flags & kPickable) {
          add_option(s, Verb::Obtain, 0, o.label);
        } else if (o.role == Role::Door) {
          for (int slot = 0; slot < s.bag_count; ++slot) add_option(s, Verb::Unlock, slot, o.label);
        }
      }
      break;
    case Task::Selection:
    case Task::Decode:
    case Task::MemoryDecode:
      for (int i = 0; i < s.count; ++i) add_option(s, Verb::Choose, 0, s.objects[i].label);
      break;
    case Task::Placement:
      for (int numeral = 1; numeral <= (s.level == 1 ? 4 : 8); ++numeral) add_option(s, Verb::Place, 0, numeral);
      break;
    case Task::Sorting:
      for (int slot = 0; slot < s.bag_count; ++slot)
        for (int i = 0; i < s.count; ++i)
          if (s.objects[i].role == Role::Roman) add_option(s, Verb::Place, slot, s.objects[i].value);
      break;
    case Task::Filling:
    case Task::Puzzle:
    case Task::MemoryFilling: {
      // the release looks at the first (backpack size) objects of the grid list only; Memory
      // Filling's first list after 'continue' (its backpack still empty) at the first four for four slots
      const int slots = task == Task::MemoryFilling && s.steps == 1 ? kBagSlots : s.bag_count;
      for (int slot = 0; slot < slots; ++slot)
        for (int i = 0; i < slots && i < s.count; ++i)
          if (s.objects[i].role == Role::Roman) add_option(s, Verb::Place, slot, s.objects[i].value);
      break;
    }
  }
  if (s.executable) {
    int kept = 0;
    for (int i = 0; i < s.option_count; ++i)
      if (reachable_target(s, s.options[i])) s.options[kept++] = s.options[i];
    s.option_count = static_cast<uint8_t>(kept);
  }
}

void shuffle_options(State& s) {
  SplitMix64 rng(derive_seed(s.shuffle_seed, s.shuffles++));
  rng.shuffle(s.options.begin(), s.options.begin() + s.option_count);
}

// Classification and Counting shuffle their list once, when the episode is made; the other tasks
// shuffle every list they make.
bool reshuffles(Task t) { return t != Task::Classification && t != Task::Counting; }

// What the release's render() changes, applied after every step: the memory tasks reveal what was
// hidden once 'continue' has been chosen (Memory Maze also turns the diamond into a treasure box),
// drop the side bar (Selection, Memory Filling), and Memory Filling's pieces enter the backpack.
void settle(State& s) {
  if (s.steps == 0) return;
  switch (task_of(s)) {
    case Task::Selection:
    case Task::MemoryDecode:
      for (int i = 0; i < s.count; ++i) s.objects[i].flags &= static_cast<uint8_t>(~kHidden);
      if (task_of(s) == Task::Selection) s.side_bar = 0;
      break;
    case Task::MemoryMaze:
      for (int i = 0; i < s.count; ++i) {
        Object& o = s.objects[i];
        o.flags &= static_cast<uint8_t>(~kHidden);
        if (o.role == Role::Diamond) o.asset = s.facts[0];  // facts[0]: the treasure box's image
      }
      break;
    case Task::MemoryFilling:
      s.side_bar = 0;
      if (s.steps == 1) {
        for (int i = 0; i < s.pending_count; ++i) bag_add(s, s.pending[i]);
        s.pending_count = 0;
        s.pending = {};
      }
      break;
    default:
      break;
  }
}

}  // namespace

void initial_actions(State& s) {
  list_actions(s);
  shuffle_options(s);
}

void apply(State& s, int index) {
  if (s.done) return;
  s.steps++;
  StepResult result{false, false, false};
  if (index >= 0 && index < s.option_count) {
    const Option option = s.options[index];
    if (option.verb == Verb::Continue) s.started = 1;
    result = execute(s, option);
  }
  s.last_step_ok = result.step_ok;
  if (result.step_ok) {
    list_actions(s);
    if (reshuffles(task_of(s))) shuffle_options(s);
  }
  settle(s);
  const bool truncated = s.steps >= s.budget;
  if (result.terminated || truncated) {
    s.done = result.terminated ? 1 : 2;
    s.success = result.success;
  }
}

void waste_step(State& s) {
  if (s.done) return;
  s.steps++;
  s.last_step_ok = 0;
  settle(s);
  if (s.steps >= s.budget) s.done = 2;
}

}  // namespace cogsim::kidgym
