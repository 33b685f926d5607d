// KidGym transitions: high-level actions, their enumeration, and the shortest-plan oracle.
//
// A high-level action walks the agent to the nearest free cell beside its target (shortest path
// over empty cells) and then interacts. It is executable exactly when such a cell is reachable and
// the backpack holds what the action names; `enumerate` lists every such action and nothing else.
#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/rng.hpp"
#include "kidgym/state.hpp"

namespace cogsim::kidgym {

namespace {

constexpr int kDr[4] = {-1, 0, 1, 0};  // north, east, south, west
constexpr int kDc[4] = {0, 1, 0, -1};

int neighbour(int cell, int dir) {
  const int r = cell / kSide + kDr[dir], c = cell % kSide + kDc[dir];
  return (r < 0 || r >= kSide || c < 0 || c >= kSide) ? -1 : r * kSide + c;
}

std::array<int, kCells> distances(const State& s) {
  std::array<int, kCells> dist;
  dist.fill(-1);
  std::array<int, kCells> queue;
  int head = 0, tail = 0;
  dist[s.agent] = 0;
  queue[tail++] = s.agent;
  while (head < tail) {
    const int cell = queue[head++];
    for (int d = 0; d < 4; ++d) {
      const int next = neighbour(cell, d);
      if (next >= 0 && dist[next] < 0 && s.cells[next].kind == Kind::Empty) {
        dist[next] = dist[cell] + 1;
        queue[tail++] = next;
      }
    }
  }
  return dist;
}

// The free cell beside `target` the agent walks to (nearest; ties north, east, south, west), or -1.
int approach_cell(const std::array<int, kCells>& dist, int target) {
  int best = -1;
  for (int d = 0; d < 4; ++d) {
    const int next = neighbour(target, d);
    if (next >= 0 && dist[next] >= 0 && (best < 0 || dist[next] < dist[best])) best = next;
  }
  return best;
}

int find_label(const State& s, uint8_t label, Kind kind) {
  for (int i = 0; i < kCells; ++i) {
    if (s.cells[i].kind == kind && s.cells[i].label == label) return i;
  }
  return -1;
}

int find_target(const State& s, uint8_t numeral) {
  for (int i = 0; i < kCells; ++i) {
    if (s.cells[i].kind == Kind::Target && s.cells[i].label == numeral) return i;
  }
  return -1;
}

int bag_count(const State& s) {
  int n = 0;
  for (int i = 0; i < kMaxBag; ++i) n += s.bag[i].kind != Kind::Empty;
  return n;
}

bool bag_full(const State& s) { return bag_count(s) >= s.bag_capacity; }

void bag_add(State& s, Kind kind, uint8_t category, uint8_t type, uint8_t extra = 0) {
  const int n = bag_count(s);
  s.bag[n] = Slot{kind, category, type, extra};
}

// Removes slot `slot`; later items move up one slot, so the backpack stays packed from A.
void bag_remove(State& s, int slot) {
  for (int i = slot; i + 1 < kMaxBag; ++i) s.bag[i] = s.bag[i + 1];
  s.bag[kMaxBag - 1] = Slot{Kind::Empty, 0, 0, 0};
}

void clear_cell(State& s, int cell) { s.cells[cell] = Cell{Kind::Empty, 0, 0, kNone, 0, 0, 0, 0}; }

void finish(State& s, bool success) {
  s.done = 1;
  s.success = success ? 1 : 0;
}

bool is_memory(Task t) {
  return t == Task::Selection || t == Task::MemoryMaze || t == Task::MemoryDecode || t == Task::MemoryFilling;
}

int bag_total(const State& s) {
  int total = 0;
  for (const Slot& slot : s.bag) total += slot.kind == Kind::Item ? slot.extra : 0;
  return total;
}

bool keys_open(const State& s, uint8_t key_colour, uint8_t door_colour) {
  if (static_cast<Task>(s.task) == Task::DecodeMaze) return s.goal[key_colour] == door_colour;
  return key_colour == door_colour;
}

// Actions on labelled cells of one kind: one per reachable cell.
template <typename Emit>
void for_reachable(const State& s, const std::array<int, kCells>& dist, Kind kind, Emit emit) {
  for (int i = 0; i < kCells; ++i) {
    if (s.cells[i].kind == kind && approach_cell(dist, i) >= 0) emit(i);
  }
}

void enumerate_bag_onto(const State& s, const std::array<int, kCells>& dist, Kind bag_kind, Kind target_kind, Verb verb,
                        std::vector<Action>& out) {
  for (int slot = 0; slot < kMaxBag; ++slot) {
    if (s.bag[slot].kind != bag_kind) continue;
    for_reachable(s, dist, target_kind, [&](int i) {
      if (target_kind == Kind::Target && s.cells[i].placed) return;
      out.push_back({verb, static_cast<uint8_t>(slot), s.cells[i].label});
    });
  }
}

}  // namespace

int default_budget(Task task, int level) {
  // The release registers Decode Maze with one step of slack over its fewest (4/6/8 for 3/5/7), and
  // Decode with `level` steps for its one choice (1/2/3).
  if (task == Task::DecodeMaze) return fewest_steps(task, level) + 1;
  if (task == Task::Decode) return level;
  return fewest_steps(task, level);
}

int fewest_steps(Task task, int level) {
  switch (task) {
    case Task::Classification:
      return 4 * level;
    case Task::Maze:
      return 2 * level + 1;
    case Task::Selection:
      return level + 1;
    case Task::Placement:
      return 1;
    case Task::Sorting:
      return level + 1;
    case Task::DecodeMaze:
      return 2 * level + 1;
    case Task::MemoryMaze:
      return 2 * level + 2;
    case Task::MemoryDecode:
      return level + 1;
    case Task::Counting:
      return 5;
    case Task::Filling:
      return level;
    case Task::Puzzle:
      return level;
    case Task::MemoryFilling:
      return level + 1;
    case Task::Decode:
      return 1;
  }
  return 0;
}

bool exact_budget(Task task) { return task != Task::Counting && task != Task::MemoryDecode && task != Task::Decode; }

const char* task_name(Task task) {
  static const char* names[] = {"classification", "maze",           "selection",     "placement", "sorting",
                                "decode_maze",    "memory_maze",    "memory_decode", "counting",  "filling",
                                "puzzle",         "memory_filling", "decode"};
  return names[static_cast<int>(task)];
}

std::array<bool, kCells> reachable(const State& s) {
  const auto dist = distances(s);
  std::array<bool, kCells> out{};
  for (int i = 0; i < kCells; ++i) out[i] = dist[i] >= 0;
  return out;
}

bool finished(const State& s) { return s.done != 0; }

std::vector<Action> enumerate(const State& s) {
  std::vector<Action> out;
  if (s.done) return out;
  const Task task = static_cast<Task>(s.task);
  if (is_memory(task) && s.phase == 0) {
    out.push_back({Verb::Continue, 0, 0});
    return out;
  }
  const auto dist = distances(s);
  const auto emit_label = [&](Verb verb) { return [&, verb](int i) { out.push_back({verb, s.cells[i].label, 0}); }; };
  switch (task) {
    case Task::Classification:
      if (!bag_full(s)) for_reachable(s, dist, Kind::Item, emit_label(Verb::Pick));
      enumerate_bag_onto(s, dist, Kind::Item, Kind::Basket, Verb::Put, out);
      break;
    case Task::Maze:
    case Task::DecodeMaze:
    case Task::MemoryMaze:
      if (!bag_full(s)) for_reachable(s, dist, Kind::Key, emit_label(Verb::Obtain));
      for_reachable(s, dist, task == Task::MemoryMaze ? Kind::Chest : Kind::Diamond, emit_label(Verb::Obtain));
      enumerate_bag_onto(s, dist, Kind::Key, Kind::Door, Verb::Unlock, out);
      break;
    case Task::Selection:
    case Task::MemoryDecode:
    case Task::Decode:
      if (!bag_full(s)) for_reachable(s, dist, Kind::Item, emit_label(Verb::Choose));
      break;
    case Task::Placement:
    case Task::Sorting:
      enumerate_bag_onto(s, dist, Kind::Item, Kind::Target, Verb::Place, out);
      break;
    case Task::Counting:
      if (!bag_full(s)) for_reachable(s, dist, Kind::Item, emit_label(Verb::Pick));
      out.push_back({Verb::Declare, s.goal[0], 0});
      break;
    case Task::Filling:
    case Task::Puzzle:
    case Task::MemoryFilling:
      enumerate_bag_onto(s, dist, Kind::Piece, Kind::Target, Verb::Place, out);
      break;
  }
  return out;
}

std::vector<Action> options(const State& s) {
  auto list = enumerate(s);
  SplitMix64 rng(derive_seed(s.shuffle_seed, s.steps));
  rng.shuffle(list.begin(), list.end());
  return list;
}

namespace {

// Walks to the target cell and returns it, or -1 if the action's target is not reachable.
int walk_to(State& s, Kind kind, uint8_t label) {
  const int cell = kind == Kind::Target ? find_target(s, label) : find_label(s, label, kind);
  if (cell < 0) return -1;
  const int stand = approach_cell(distances(s), cell);
  if (stand < 0) return -1;
  s.agent = static_cast<uint8_t>(stand);
  return cell;
}

bool valid_slot(const State& s, int slot, Kind kind) { return slot < kMaxBag && s.bag[slot].kind == kind; }

bool apply_pick(State& s, const Action& a) {
  if (bag_full(s)) return false;
  const int cell = walk_to(s, Kind::Item, a.a);
  if (cell < 0) return false;
  bag_add(s, Kind::Item, s.cells[cell].aux, s.cells[cell].type, s.cells[cell].extra);
  clear_cell(s, cell);
  // Counting: a full backpack short of the number can no longer succeed
  if (static_cast<Task>(s.task) == Task::Counting && bag_full(s) && bag_total(s) < s.goal[0]) finish(s, false);
  return true;
}

bool apply_declare(State& s, const Action& a) {
  if (a.a != s.goal[0]) return false;
  finish(s, bag_total(s) == s.goal[0]);
  return true;
}

// Filling, Puzzle, Memory Filling: a target's `type` is the quarter it expects; goal[0..1] the picture.
bool apply_place_piece(State& s, const Action& a) {
  if (!valid_slot(s, a.a, Kind::Piece)) return false;
  const int cell = find_target(s, a.b);
  if (cell < 0 || s.cells[cell].placed) return false;
  if (walk_to(s, Kind::Target, a.b) < 0) return false;
  const Slot piece = s.bag[a.a];
  Cell& target = s.cells[cell];
  target.placed = static_cast<uint8_t>(1 + piece.type);
  target.placed_category = piece.category;
  target.extra = piece.extra;
  bag_remove(s, a.a);
  if (piece.category == s.goal[0] && piece.type == s.goal[1] && piece.extra == target.type) s.progress++;
  bool free_target = false;
  for (const Cell& c : s.cells) free_target = free_target || (c.kind == Kind::Target && !c.placed);
  if (!free_target) finish(s, s.progress == s.level);
  return true;
}

bool apply_put(State& s, const Action& a) {
  if (!valid_slot(s, a.a, Kind::Item)) return false;
  const int cell = walk_to(s, Kind::Basket, a.b);
  if (cell < 0) return false;
  if (s.cells[cell].aux == s.bag[a.a].type) {  // the wrong basket refuses the item
    bag_remove(s, a.a);
    s.progress++;
  }
  bool any_left = bag_count(s) > 0;
  for (const Cell& c : s.cells) any_left = any_left || c.kind == Kind::Item;
  if (!any_left) finish(s, true);
  return true;
}

bool apply_obtain(State& s, const Action& a) {
  const Task task = static_cast<Task>(s.task);
  for (Kind kind : {Kind::Key, Kind::Diamond, Kind::Chest}) {
    if (find_label(s, a.a, kind) < 0) continue;
    if (kind == Kind::Key && bag_full(s)) return false;
    if (kind == Kind::Diamond && task == Task::MemoryMaze) return false;
    if (kind == Kind::Chest && task != Task::MemoryMaze) return false;
    const int cell = walk_to(s, kind, a.a);
    if (cell < 0) return false;
    if (kind == Kind::Key) {
      bag_add(s, Kind::Key, 0, s.cells[cell].type);
      clear_cell(s, cell);
    } else if (kind == Kind::Diamond) {
      clear_cell(s, cell);
      finish(s, true);
    } else {
      const bool diamond = s.cells[cell].aux & 1;
      clear_cell(s, cell);
      finish(s, diamond);
    }
    return true;
  }
  return false;
}

bool apply_unlock(State& s, const Action& a) {
  if (!valid_slot(s, a.a, Kind::Key)) return false;
  const int cell = walk_to(s, Kind::Door, a.b);
  if (cell < 0) return false;
  if (keys_open(s, s.bag[a.a].type, s.cells[cell].type)) {
    bag_remove(s, a.a);
    clear_cell(s, cell);
    s.progress++;
  }
  return true;
}

bool apply_choose(State& s, const Action& a) {
  if (bag_full(s)) return false;
  const int cell = walk_to(s, Kind::Item, a.a);
  if (cell < 0) return false;
  const Cell chosen = s.cells[cell];
  bag_add(s, Kind::Item, chosen.aux, chosen.type);
  clear_cell(s, cell);
  const int level = s.level;
  bool correct = false;
  if (static_cast<Task>(s.task) == Task::Selection) {
    // goal: [category, remembered item ids...]; an item counts once (it leaves the scene when chosen)
    for (int i = 0; i < level; ++i) correct = correct || (s.goal[1 + i] == chosen.type && s.goal[0] == chosen.aux);
  } else {
    // goal: pairs (source category, source id, target category, target id) x level, then the asked pair
    const int pair = s.goal[12];
    correct = s.goal[4 * pair + 2] == chosen.aux && s.goal[4 * pair + 3] == chosen.type;
  }
  const int choices = static_cast<Task>(s.task) == Task::Selection ? level : 1;
  if (!correct) {
    finish(s, false);
  } else if (++s.progress == choices) {
    finish(s, true);
  }
  return true;
}

bool apply_place(State& s, const Action& a) {
  if (!valid_slot(s, a.a, Kind::Item)) return false;
  const int cell = find_target(s, a.b);
  if (cell < 0 || s.cells[cell].placed) return false;
  if (walk_to(s, Kind::Target, a.b) < 0) return false;
  const Slot item = s.bag[a.a];
  s.cells[cell].placed = static_cast<uint8_t>(1 + item.type);
  s.cells[cell].placed_category = item.category;
  bag_remove(s, a.a);
  if (static_cast<Task>(s.task) == Task::Placement) {
    finish(s, cell == s.goal[2]);
    return true;
  }
  // Sorting: goal[1 + i] is the animal ranked at numeral i + 1
  if (s.goal[a.b] == item.type) s.progress++;
  if (bag_count(s) == 0) finish(s, s.progress == s.level + 1);
  return true;
}

}  // namespace

void waste_step(State& s) {
  if (s.done) return;
  if (++s.steps >= s.budget) s.done = 2;
}

bool apply(State& s, const Action& a) {
  if (s.done) return false;
  const auto allowed = enumerate(s);
  if (std::find(allowed.begin(), allowed.end(), a) == allowed.end()) {
    waste_step(s);
    return false;
  }
  switch (a.verb) {
    case Verb::Continue:
      s.phase = 1;
      break;
    case Verb::Pick:
      apply_pick(s, a);
      break;
    case Verb::Put:
      apply_put(s, a);
      break;
    case Verb::Obtain:
      apply_obtain(s, a);
      break;
    case Verb::Unlock:
      apply_unlock(s, a);
      break;
    case Verb::Choose:
      apply_choose(s, a);
      break;
    case Verb::Place:
      if (s.bag[a.a].kind == Kind::Piece) {
        apply_place_piece(s, a);
      } else {
        apply_place(s, a);
      }
      break;
    case Verb::Declare:
      apply_declare(s, a);
      break;
  }
  if (++s.steps >= s.budget && !s.done) s.done = 2;
  return true;
}

namespace {

std::string identity(const State& s) { return std::string(reinterpret_cast<const char*>(&s), kIdentityBytes); }

constexpr int kImpossible = 1 << 20;

// Admissible lower bound on the actions a successful finish still needs (never more than the truth).
int lower_bound(const State& s) {
  int grid_items = 0;
  for (const Cell& c : s.cells) grid_items += c.kind == Kind::Item;
  const int bag = bag_count(s);
  const int unstarted = is_memory(static_cast<Task>(s.task)) && s.phase == 0 ? 1 : 0;
  switch (static_cast<Task>(s.task)) {
    case Task::Classification:
      return 2 * grid_items + bag;  // every item is picked and put
    case Task::Selection:
      return unstarted + (s.level - s.progress);  // one correct choice each
    case Task::MemoryDecode:
    case Task::Decode:
      return unstarted + (1 - s.progress);
    case Task::Sorting:
      return (s.level + 1 - s.progress > bag) ? kImpossible : bag;  // every animal is placed
    case Task::MemoryMaze:
      return unstarted + 1;
    case Task::Filling:
    case Task::Puzzle:
    case Task::MemoryFilling:
      return unstarted + (s.level - s.progress);  // one correct piece each
    default:
      return 1;
  }
}

// Depth-first search for a success within `depth` actions; `failed` remembers, per state, the
// largest depth already known to fail.
bool dfs(const State& s, int depth, std::unordered_map<std::string, int>& failed, Action* first_out) {
  if (lower_bound(s) > depth) return false;
  std::string key = identity(s);
  const auto known = failed.find(key);
  if (known != failed.end() && known->second >= depth) return false;
  for (const Action& action : enumerate(s)) {
    State child = s;
    apply(child, action);
    const bool found = child.done ? child.success != 0 : dfs(child, depth - 1, failed, nullptr);
    if (found) {
      if (first_out) *first_out = action;
      return true;
    }
  }
  failed[std::move(key)] = depth;
  return false;
}

// Iterative deepening from the lower bound: the first depth with a plan is the fewest steps.
int search(const State& start, Action* first_out) {
  if (start.done) return start.success ? 0 : -1;
  const int remaining = start.budget - start.steps;
  std::unordered_map<std::string, int> failed;
  for (int depth = std::max(1, lower_bound(start)); depth <= remaining; ++depth) {
    if (dfs(start, depth, failed, first_out)) return depth;
  }
  return -1;
}

}  // namespace

bool oracle_action(const State& s, Action& out) { return search(s, &out) > 0; }

int oracle_plan_length(const State& s) { return search(s, nullptr); }

Outcome play(State s, int policy, uint64_t policy_seed) {
  SplitMix64 rng(policy_seed);
  while (!s.done) {
    if (policy == 0) {
      Action a;
      if (!oracle_action(s, a)) {
        waste_step(s);
        continue;
      }
      apply(s, a);
    } else {
      const auto list = options(s);
      apply(s, list[rng.below(list.size())]);
    }
  }
  return {s.success, s.steps};
}

}  // namespace cogsim::kidgym
