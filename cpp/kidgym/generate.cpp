// KidGym's episode generators: the release's (each task's generate_scene_and_goal, the grid's
// gen_random_id / gen_random_pos / gen_ruled_pos and the tasks' check_grid), drawing from a seeded
// SplitMix64 where the release draws from Python's unseeded `random`, with the same distributions:
// the same pools, counts and order of draws, and a rejected layout redrawn from the start, as the
// release's generate_game loop does.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "common/rng.hpp"
#include "kidgym/kidgym.hpp"

namespace cogsim::kidgym {

namespace {

constexpr int kMaxAttempts = 100000;
constexpr uint8_t kAgentCode = 9;  // 'A' in the release's layouts
constexpr uint8_t kNoRule = 255;   // an object placed anywhere (no position_id)

// The rules gen_ruled_pos reads for Placement (level 1, levels 2-3) and for Filling, Puzzle and
// Memory Filling, in the release's [i][j] order (cell x = i, y = j); 5 is Placement's centre.
constexpr uint8_t kPlacementRule1[25] = {0, 0,          0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 5,
                                         1, kAgentCode, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
constexpr uint8_t kPlacementRule23[25] = {0, 0,          0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 5,
                                          1, kAgentCode, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
constexpr uint8_t kFigureRule[25] = {0, 0, 0, 0, 0, 0,          1, 3, 0, 0, 0, 2, 4,
                                     0, 0, 0, 0, 0, kAgentCode, 0, 0, 0, 0, 0, 0};

// Placement's target as an offset (dx, dy) from the centre, by orientation (the release's order
// north, south, west, east, northwest, northeast, southwest, southeast): levels 1-2 the opposite
// cell, level 3 one step clockwise or anticlockwise from it.
constexpr int kOpposite[8][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
constexpr int kTurned[8][2][2] = {
    {{-1, 1}, {1, 1}}, {{1, -1}, {-1, -1}}, {{1, 1}, {1, -1}}, {{-1, -1}, {-1, 1}},
    {{0, 1}, {1, 0}},  {{-1, 0}, {0, 1}},   {{1, 0}, {0, -1}}, {{0, -1}, {-1, 0}},
};

// Thrown where the release's draw would raise (too few items left to choose from); the episode is redrawn.
struct Retry {};

struct Placed {
  Object object;
  uint8_t rule;  // the release's position_id, kNoRule for none
};

struct Builder {
  SplitMix64& rng;
  State& s;
  std::vector<Placed> objects;  // in the release's order of add_obj
  const uint8_t* rule = nullptr;

  // utils.RandomChoose: `count` distinct entries of `pool` not in `exclude`, in random order.
  std::vector<uint8_t> choose(const std::vector<uint8_t>& pool, int count, const std::vector<uint8_t>& exclude = {}) {
    std::vector<uint8_t> available;
    for (uint8_t e : pool)
      if (std::find(exclude.begin(), exclude.end(), e) == exclude.end()) available.push_back(e);
    if (static_cast<int>(available.size()) < count) throw Retry{};
    rng.shuffle(available.begin(), available.end());
    available.resize(count);
    return available;
  }

  int below(int bound) { return static_cast<int>(rng.below(static_cast<uint64_t>(bound))); }

  void add(uint8_t asset, Role role, uint8_t flags = 0, uint8_t arg = 0, uint8_t value = 0, uint8_t rule_id = kNoRule) {
    objects.push_back({Object{asset, kNoLabel, 0, 0, role, flags, arg, value}, rule_id});
  }

  void to_bag(uint8_t asset, Role role, uint8_t flags = 0, uint8_t arg = 0) {
    s.bag[s.bag_count++] = Object{asset, kNoLabel, 0, 0, role, flags, arg, 0};
  }
};

// grid.gen_random_id: the object list shuffled, labels 0, 1, ... in that order to all but walls.
void label_objects(Builder& b) {
  b.rng.shuffle(b.objects.begin(), b.objects.end());
  uint8_t label = 0;
  for (Placed& p : b.objects)
    if (p.object.role != Role::Wall) p.object.label = label++;
}

// grid.gen_random_pos and gen_ruled_pos: distinct cells, uniform among those the rule allows.
void place_objects(Builder& b) {
  std::vector<int> free(kSide * kSide);
  std::iota(free.begin(), free.end(), 0);  // cell index = x * 5 + y, the release's (i, j) order
  b.rng.shuffle(free.begin(), free.end());
  const auto take = [&](size_t at) {
    const int cell = free[at];
    free.erase(free.begin() + static_cast<long>(at));
    return cell;
  };
  const auto set_cell = [](Object& o, int cell) {
    o.x = static_cast<uint8_t>(cell / kSide);
    o.y = static_cast<uint8_t>(cell % kSide);
  };
  if (b.rule == nullptr) {
    const int agent = take(free.size() - 1);
    b.s.agent_x = static_cast<uint8_t>(agent / kSide);
    b.s.agent_y = static_cast<uint8_t>(agent % kSide);
    for (Placed& p : b.objects) set_cell(p.object, take(free.size() - 1));
    return;
  }
  for (Placed& p : b.objects) {
    if (p.rule == kNoRule) continue;
    std::vector<size_t> allowed;
    for (size_t i = 0; i < free.size(); ++i)
      if (b.rule[free[i]] == p.rule) allowed.push_back(i);
    if (allowed.empty()) throw std::invalid_argument("kidgym release: a layout has fewer cells than its objects need");
    set_cell(p.object, take(allowed[b.rng.below(allowed.size())]));
  }
  for (Placed& p : b.objects)
    if (p.rule == kNoRule) set_cell(p.object, take(free.size() - 1));
  for (int cell = 0; cell < kSide * kSide; ++cell) {
    if (b.rule[cell] == kAgentCode) {
      b.s.agent_x = static_cast<uint8_t>(cell / kSide);
      b.s.agent_y = static_cast<uint8_t>(cell % kSide);
      return;
    }
  }
  b.s.agent_x = static_cast<uint8_t>(free.back() / kSide);
  b.s.agent_y = static_cast<uint8_t>(free.back() % kSide);
}

// The release's neighbour orders: its bfs functions look right, left, down, up (in (x, y) cells);
// Maze.check_grid's wall check looks up, down, left, right.
constexpr int kRightLeftDownUp[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
constexpr int kUpDownLeftRight[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

// A breadth-first fill of the grid from (x, y), marked seen, in the given neighbour order: each
// neighbour inside the grid and not seen yet is marked seen and handed to reach(nx, ny), and the fill
// goes on from it where reach says so.
template <typename Reach>
void fill_from(int x, int y, const int (&order)[4][2], bool (&seen)[kSide][kSide], Reach&& reach) {
  int queue[kSide * kSide][2], head = 0, tail = 0;
  queue[tail][0] = x;
  queue[tail++][1] = y;
  seen[x][y] = true;
  while (head < tail) {
    const int cx = queue[head][0], cy = queue[head++][1];
    for (const auto& d : order) {
      const int nx = cx + d[0], ny = cy + d[1];
      if (nx < 0 || nx >= kSide || ny < 0 || ny >= kSide || seen[nx][ny]) continue;
      seen[nx][ny] = true;
      if (reach(nx, ny)) {
        queue[tail][0] = nx;
        queue[tail++][1] = ny;
      }
    }
  }
}

// task.check_grid: every object touches the part of the grid the agent can walk.
bool every_object_touched(const State& s) {
  bool occupied[kSide][kSide] = {}, seen[kSide][kSide] = {};
  for (int i = 0; i < s.count; ++i) occupied[s.objects[i].x][s.objects[i].y] = true;
  int touched = 0;
  fill_from(s.agent_x, s.agent_y, kRightLeftDownUp, seen, [&](int x, int y) {
    touched += occupied[x][y];
    return !occupied[x][y];
  });
  return touched == s.count;
}

// Maze.check_grid, on the grid of codes the release builds: 0 wall, 1 floor, 2 key, 3 door, 4 diamond.
struct MazeCheck {
  const State& s;
  int grid[kSide][kSide];

  // Its bfs: floor cells spread from the agent; keys, doors and the diamond next to them are noted.
  void explore(std::vector<int>& keys, std::vector<int>& doors, int& diamond) const {
    bool seen[kSide][kSide] = {};
    fill_from(s.agent_x, s.agent_y, kRightLeftDownUp, seen, [&](int x, int y) {
      const int code = grid[x][y];
      if (code == 2) keys.push_back(x * kSide + y);
      if (code == 3) doors.push_back(x * kSide + y);
      if (code == 4) diamond++;
      return code == 1;
    });
  }

  // Every group of walls touches the border of the grid.
  bool walls_reach_border() const {
    bool seen[kSide][kSide] = {};
    const auto on_border = [](int x, int y) { return x == 0 || x == kSide - 1 || y == 0 || y == kSide - 1; };
    for (int x = 0; x < kSide; ++x) {
      for (int y = 0; y < kSide; ++y) {
        if (grid[x][y] != 0 || seen[x][y]) continue;
        bool border = on_border(x, y);
        fill_from(x, y, kUpDownLeftRight, seen, [&](int nx, int ny) {
          const bool wall = grid[nx][ny] == 0;
          border = border || (wall && on_border(nx, ny));
          return wall;
        });
        if (!border) return false;
      }
    }
    return true;
  }

  // Every cell that is not a wall is connected to the agent's.
  bool open_cells_connected() const {
    bool seen[kSide][kSide] = {};
    int count = 1, open = 0;
    for (const auto& column : grid)
      for (int code : column) open += code != 0;
    fill_from(s.agent_x, s.agent_y, kRightLeftDownUp, seen, [&](int x, int y) {
      count += grid[x][y] != 0;
      return grid[x][y] != 0;
    });
    return count == open;
  }

  // Round by round, exactly one reachable key opens a reachable door, no key alone uncovers the
  // diamond, and after the last round the diamond can be reached.
  bool passes() {
    for (auto& column : grid) std::fill(std::begin(column), std::end(column), 1);
    for (int i = 0; i < s.count; ++i) {
      const Object& o = s.objects[i];
      grid[o.x][o.y] = o.role == Role::Key ? 2 : o.role == Role::Diamond ? 4 : o.role == Role::Door ? 3 : 0;
    }
    if (!walls_reach_border() || !open_cells_connected()) return false;
    for (int round = 0; round < s.level; ++round) {
      std::vector<int> keys, doors;
      int diamond = 0;
      explore(keys, doors, diamond);
      if (diamond == 1 || keys.empty()) return false;
      int pairs = 0, key_cell = -1, door_cell = -1;
      for (int i = 0; i < s.count; ++i) {
        const Object& key = s.objects[i];
        const int cell = key.x * kSide + key.y;
        if (std::find(keys.begin(), keys.end(), cell) == keys.end()) continue;
        grid[key.x][key.y] = 1;
        std::vector<int> more_keys, open_doors;
        int uncovered = 0;
        explore(more_keys, open_doors, uncovered);
        if (uncovered == 1) return false;
        for (int j = 0; j < s.count; ++j) {
          const Object& door = s.objects[j];
          const int door_at = door.x * kSide + door.y;
          if (door.role == Role::Door && door.arg == key.asset &&
              std::find(open_doors.begin(), open_doors.end(), door_at) != open_doors.end()) {
            pairs++;
            key_cell = cell;
            door_cell = door_at;
          }
        }
        grid[key.x][key.y] = 2;
      }
      if (pairs != 1) return false;
      grid[key_cell / kSide][key_cell % kSide] = 1;
      grid[door_cell / kSide][door_cell % kSide] = 1;
    }
    std::vector<int> keys, doors;
    int diamond = 0;
    explore(keys, doors, diamond);
    return diamond != 0;
  }
};

void gen_classification(Builder& b, const Catalog& c) {
  const int type = b.below(4);
  const auto items = b.choose(c.resources[type], 2);
  const auto colours = b.choose(std::vector<uint8_t>(c.baskets.begin(), c.baskets.end()), 2);
  b.s.background = static_cast<uint8_t>(type);
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < b.s.level; ++k) b.add(items[i], Role::Item, kPickable);
    b.add(colours[i], Role::Basket, 0, items[i]);
  }
  b.s.facts = {items[0], items[1], colours[0], colours[1]};
}

void gen_counting(Builder& b, const Catalog& c) {
  const int type = b.below(2);  // fruit, food
  const auto& piles = c.counting_piles[type];
  const int item = b.below(static_cast<int>(piles.size() / 3));
  const int level = b.s.level;
  const int wanted = level + b.below(2 * level + 1);  // randint(level, 3 level)
  b.s.background = static_cast<uint8_t>(1 + type);
  for (int k = 0; k < level; ++k)
    for (int j = 0; j < 3; ++j) b.add(piles[3 * item + j], Role::Item, kPickable, 0, static_cast<uint8_t>(j + 1));
  b.s.facts = {static_cast<uint8_t>(wanted), piles[3 * item]};
}

void gen_selection(Builder& b, const Catalog& c) {
  const int type = b.below(4), level = b.s.level;
  const auto remembered = b.choose(c.resources[type], level);
  const auto others = b.choose(c.resources[type], level + 2, remembered);
  b.s.background = static_cast<uint8_t>(type);
  b.s.side_bar = 1;
  for (uint8_t item : remembered) b.add(item, Role::Item, kPickable | kMemorized | kHidden);
  for (uint8_t item : others) b.add(item, Role::Item, kPickable | kHidden);
  b.s.facts[0] = static_cast<uint8_t>(type);
  for (int i = 0; i < level; ++i) b.s.facts[1 + i] = remembered[i];
}

void gen_placement(Builder& b, const Catalog& c) {
  const int type = b.below(4), level = b.s.level;
  const int numerals = level == 1 ? 4 : 8;
  const int orientation = b.below(numerals);
  for (int i = 0; i < numerals; ++i) b.add(c.roman[i], Role::Roman, 0, 0, static_cast<uint8_t>(i + 1), 1);
  const uint8_t centre = b.choose(c.resources[type], 1)[0];
  b.add(centre, Role::Center, 0, 0, 0, 5);
  const int item_type = b.below(4);
  const uint8_t item = b.choose(c.resources[item_type], 1, {centre})[0];
  b.to_bag(item, Role::Item, kPickable | kPlaced);
  const int clock = b.below(2);  // clockwise, anticlockwise
  b.s.background = static_cast<uint8_t>(type);
  b.s.show_labels = 0;
  const int* offset = level == 3 ? kTurned[orientation][clock] : kOpposite[orientation];
  b.s.target_x = static_cast<uint8_t>(2 + offset[0]);
  b.s.target_y = static_cast<uint8_t>(2 + offset[1]);
  b.s.facts = {static_cast<uint8_t>(orientation), static_cast<uint8_t>(clock), centre, item};
  b.rule = level == 1 ? kPlacementRule1 : kPlacementRule23;
}

void gen_sorting(Builder& b, const Catalog& c) {
  const auto& entries = c.sorting[b.s.level - 1];
  const int index = b.below(static_cast<int>(entries.size()));
  const auto& entry = entries[index];
  b.s.background = 0;
  b.s.show_labels = 0;
  for (size_t i = 1; i < entry.size(); ++i) b.add(c.roman[i - 1], Role::Roman, 0, entry[i], static_cast<uint8_t>(i));
  for (size_t i = 1; i < entry.size(); ++i) b.to_bag(entry[i], Role::Item);
  b.s.facts = {entry[0], static_cast<uint8_t>(index)};
}

void gen_decode(Builder& b, const Catalog& c, bool memory) {
  const int level = b.s.level;
  const int first_type = b.below(4), second_type = b.below(4);
  const auto sources = b.choose(c.resources[first_type], level);
  const auto partners = b.choose(c.resources[second_type], level, sources);
  const int asked = b.below(level);
  const uint8_t hidden = memory ? kHidden : 0;
  b.s.background = 4;
  b.s.side_bar = 1;
  b.add(partners[asked], Role::Item, kPickable | kPartner | hidden);
  std::vector<uint8_t> exclude{sources[asked], partners[asked]};
  for (int k = 0; k < 2 * level + 1; ++k) {
    const int type = b.below(4);
    const uint8_t item = b.choose(c.resources[type], 1, exclude)[0];
    b.add(item, Role::Item, kPickable | hidden);
    exclude.push_back(item);
  }
  b.s.facts[0] = static_cast<uint8_t>(first_type);
  b.s.facts[1] = static_cast<uint8_t>(second_type);
  b.s.facts[2] = static_cast<uint8_t>(asked);
  for (int k = 0; k < level; ++k) {
    b.s.facts[3 + 2 * k] = sources[k];
    b.s.facts[4 + 2 * k] = partners[k];
  }
}

// Filling and Memory Filling: an animal picture with `level` quarters missing (numbered tiles in
// quarter order), the missing pieces and decoys from every animal quarter but the missing ones.
void gen_filling(Builder& b, const Catalog& c, bool memory) {
  const int level = b.s.level;
  const auto& picture = c.animal_pieces[b.below(static_cast<int>(c.animal_pieces.size()))];
  std::vector<uint8_t> quarters{0, 1, 2, 3};
  b.rng.shuffle(quarters.begin(), quarters.end());  // random.sample(range(4), level)
  quarters.resize(level);
  b.s.background = 5;
  b.s.show_labels = 0;
  b.s.side_bar = 1;
  std::vector<Object> pieces;
  std::vector<uint8_t> missing;
  int numeral = 0;
  for (int q = 0; q < 4; ++q) {
    const Object piece{picture[q], kNoLabel, 0, 0, Role::Piece, kTruePiece, static_cast<uint8_t>(q + 1), 0};
    if (std::find(quarters.begin(), quarters.end(), q) != quarters.end()) {
      pieces.push_back(piece);
      missing.push_back(picture[q]);
      b.add(c.roman[numeral], Role::Roman, 0, static_cast<uint8_t>(q + 1), static_cast<uint8_t>(numeral + 1),
            static_cast<uint8_t>(q + 1));
      numeral++;
    } else {
      b.add(picture[q], Role::Piece, kTruePiece, static_cast<uint8_t>(q + 1), 0, static_cast<uint8_t>(q + 1));
    }
  }
  for (uint8_t decoy : b.choose(c.all_pieces, 4 - level, missing))
    pieces.push_back(Object{decoy, kNoLabel, 0, 0, Role::Piece, 0, 0, 0});
  b.rng.shuffle(pieces.begin(), pieces.end());
  for (const Object& p : pieces) {
    if (memory) {
      b.s.pending[b.s.pending_count++] = p;
    } else {
      b.s.bag[b.s.bag_count++] = p;
    }
  }
  std::copy(picture.begin(), picture.end(), b.s.facts.begin());
  b.rule = kFigureRule;
}

// Puzzle: the four jigsaw pieces in a random arrangement, `level` of them missing; all four start
// in the backpack in random order.
void gen_puzzle(Builder& b, const Catalog& c) {
  const int level = b.s.level;
  std::array<uint8_t, 4> arrangement = c.puzzle;
  b.rng.shuffle(arrangement.begin(), arrangement.end());
  std::vector<uint8_t> quarters{0, 1, 2, 3};
  b.rng.shuffle(quarters.begin(), quarters.end());
  quarters.resize(level);
  b.s.background = 5;
  b.s.show_labels = 0;
  b.s.side_bar = 1;
  std::vector<Object> pieces;
  int numeral = 0;
  for (int q = 0; q < 4; ++q) {
    const Object piece{arrangement[q], kNoLabel, 0, 0, Role::Piece, kTruePiece, static_cast<uint8_t>(q + 1), 0};
    pieces.push_back(piece);
    if (std::find(quarters.begin(), quarters.end(), q) != quarters.end()) {
      b.add(c.roman[numeral], Role::Roman, 0, static_cast<uint8_t>(q + 1), static_cast<uint8_t>(numeral + 1),
            static_cast<uint8_t>(q + 1));
      numeral++;
    } else {
      b.add(arrangement[q], Role::Piece, kTruePiece, static_cast<uint8_t>(q + 1), 0, static_cast<uint8_t>(q + 1));
    }
  }
  b.rng.shuffle(pieces.begin(), pieces.end());
  for (const Object& p : pieces) b.s.bag[b.s.bag_count++] = p;
  std::copy(arrangement.begin(), arrangement.end(), b.s.facts.begin());
  b.rule = kFigureRule;
}

// Maze, Decode Maze, Memory Maze on the layout the seed plays: keys and doors on the layout's key
// and door cells, the diamond (Memory Maze: and two treasure boxes) on theirs, walls on the rest.
void gen_maze(Builder& b, const Catalog& c, const uint8_t* layout) {
  const Task task = static_cast<Task>(b.s.task);
  const int level = b.s.level;
  b.s.background = 6;
  if (task == Task::DecodeMaze) {
    // keys blue, red, yellow open doors yellow, blue, red; the table starts at a random one of
    // four offsets (0 and 3 are the same), and level 1 adds the key of the door's own colour
    const int offset = b.below(4);
    int j = 0;
    for (int i = 0; i < level; ++i) {
      j = (i + offset) % 3;
      b.add(c.keys[j], Role::Key, kPickable, 0, 0, 2);
      b.add(c.doors[(j + 2) % 3], Role::Door, 0, c.keys[j], 0, 3);
      b.s.facts[2 * i] = c.keys[j];
      b.s.facts[2 * i + 1] = c.doors[(j + 2) % 3];
    }
    if (level == 1) b.add(c.keys[(j + 2) % 3], Role::Key, kPickable, 0, 0, 2);
    b.s.side_bar = 1;
  } else {
    for (int i = 0; i < level; ++i) {
      b.add(c.keys[i], Role::Key, kPickable, 0, 0, 2);
      b.add(c.doors[i], Role::Door, 0, c.keys[i], 0, 3);
    }
  }
  b.add(c.diamond, Role::Diamond, kPickable, 0, 0, 4);
  if (task == Task::MemoryMaze) {
    for (int i = 0; i < 2; ++i) b.add(c.treasure, Role::Treasure, kPickable | kHidden, 0, 0, 6);
    b.s.facts[0] = c.treasure;
  }
  for (int cell = 0; cell < kSide * kSide; ++cell)
    if (layout[cell] == 0) b.add(c.wall, Role::Wall, 0, 0, 0, 0);
  b.rule = layout;
}

// Whether Maze's check accepts the layout with some assignment of its keys to its key cells and of
// its doors to its door cells. It accepts none on some layouts (Maze_L2 12, 14, 22, 31, 35, 39, 51,
// 83; Maze_L3 3, 24, 28, 31, 46, 48, 50, 72, 80, 97: a key stands behind another key), where the
// release's generate_game never returns; cogsim plays those with any assignment.
bool some_assignment_accepted(const Catalog& c, int level, const uint8_t* layout) {
  State s{};
  s.task = static_cast<uint8_t>(Task::Maze);
  s.level = static_cast<uint8_t>(level);
  std::vector<int> key_cells, door_cells;
  for (int cell = 0; cell < kSide * kSide; ++cell) {
    const auto at = [&](int x, int y, Object o) {
      o.x = static_cast<uint8_t>(x);
      o.y = static_cast<uint8_t>(y);
      s.objects[s.count++] = o;
    };
    const int x = cell / kSide, y = cell % kSide;
    if (layout[cell] == 0) at(x, y, Object{c.wall, kNoLabel, 0, 0, Role::Wall, 0, 0, 0});
    if (layout[cell] == 4) at(x, y, Object{c.diamond, kNoLabel, 0, 0, Role::Diamond, kPickable, 0, 0});
    if (layout[cell] == kAgentCode) {
      s.agent_x = static_cast<uint8_t>(x);
      s.agent_y = static_cast<uint8_t>(y);
    }
    if (layout[cell] == 2) key_cells.push_back(cell);
    if (layout[cell] == 3) door_cells.push_back(cell);
  }
  const int fixed = s.count;
  std::sort(key_cells.begin(), key_cells.end());
  do {
    std::sort(door_cells.begin(), door_cells.end());
    do {
      s.count = static_cast<uint8_t>(fixed);
      for (int i = 0; i < level; ++i) {
        s.objects[s.count++] = Object{c.keys[i],
                                      kNoLabel,
                                      static_cast<uint8_t>(key_cells[i] / kSide),
                                      static_cast<uint8_t>(key_cells[i] % kSide),
                                      Role::Key,
                                      kPickable,
                                      0,
                                      0};
        s.objects[s.count++] = Object{c.doors[i],
                                      kNoLabel,
                                      static_cast<uint8_t>(door_cells[i] / kSide),
                                      static_cast<uint8_t>(door_cells[i] % kSide),
                                      Role::Door,
                                      0,
                                      c.keys[i],
                                      0};
      }
      if (MazeCheck{s, {}}.passes()) return true;
    } while (std::next_permutation(door_cells.begin(), door_cells.end()));
  } while (std::next_permutation(key_cells.begin(), key_cells.end()));
  return false;
}

bool layout_accepted(const State& s, bool maze_checked) {
  switch (static_cast<Task>(s.task)) {
    case Task::Maze:
      return !maze_checked || MazeCheck{s, {}}.passes();
    case Task::DecodeMaze:
    case Task::MemoryMaze:
    case Task::Placement:
    case Task::Puzzle:
      return true;  // their check_grid accepts every layout
    default:
      return every_object_touched(s);
  }
}

State blank(Task task, int level, int budget, bool executable, uint64_t shuffle_seed) {
  State s{};
  s.task = static_cast<uint8_t>(task);
  s.level = static_cast<uint8_t>(level);
  s.budget = static_cast<uint8_t>(budget);
  s.show_labels = 1;
  s.executable = executable ? 1 : 0;
  s.shuffle_seed = shuffle_seed;
  return s;
}

}  // namespace

void validate(const Catalog& c) {
  for (int t = 0; t < 4; ++t)
    if (c.resources[t].size() < 8)
      throw std::invalid_argument("kidgym release catalog: every category needs >= 8 items");
  for (const auto& piles : c.counting_piles)
    if (piles.empty() || piles.size() % 3 != 0)
      throw std::invalid_argument("kidgym release catalog: counting piles come in threes");
  if (c.animal_pieces.empty() || c.all_pieces.size() < 4)
    throw std::invalid_argument("kidgym release catalog: Filling needs pictures and pieces");
  for (int level = 0; level < 3; ++level) {
    if (c.sorting[level].empty()) throw std::invalid_argument("kidgym release catalog: Sorting needs entries");
    for (const auto& entry : c.sorting[level])
      if (static_cast<int>(entry.size()) != level + 3)
        throw std::invalid_argument("kidgym release catalog: a Sorting entry is (rule, level + 1 animals)");
    for (int maze = 0; maze < 3; ++maze)
      if (c.layouts[maze][level].size() != kLayouts)
        throw std::invalid_argument("kidgym release catalog: every maze task and level needs 100 layouts");
  }
}

State generate(Task task, int level, uint64_t seed, const Catalog& catalog, int budget, bool executable) {
  if (static_cast<int>(task) >= kNumTasks) throw std::invalid_argument("kidgym: unknown task id");
  if (level < 1 || level > 3)
    throw std::invalid_argument("kidgym: level must be 1, 2 or 3, got " + std::to_string(level));
  if (budget == 0) budget = default_budget(task, level);
  if (budget < 1 || budget > kMaxBudget)
    throw std::invalid_argument("kidgym: max_steps must be in 1.." + std::to_string(kMaxBudget) + ", got " +
                                std::to_string(budget));
  SplitMix64 rng(derive_seed(seed, 0x4B1D0000u + 16 * static_cast<uint64_t>(task) + level));
  const int maze = maze_index(task);
  const int layout = static_cast<int>(seed % kLayouts);
  const bool maze_checked =
      task != Task::Maze || some_assignment_accepted(catalog, level, catalog.layouts[0][level - 1][layout].data());
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    State s = blank(task, level, budget, executable, rng.next());
    Builder b{rng, s, {}, nullptr};
    try {
      switch (task) {
        case Task::Classification:
          gen_classification(b, catalog);
          break;
        case Task::Counting:
          gen_counting(b, catalog);
          break;
        case Task::Selection:
          gen_selection(b, catalog);
          break;
        case Task::Placement:
          gen_placement(b, catalog);
          break;
        case Task::Sorting:
          gen_sorting(b, catalog);
          break;
        case Task::Decode:
        case Task::MemoryDecode:
          gen_decode(b, catalog, task == Task::MemoryDecode);
          break;
        case Task::Filling:
        case Task::MemoryFilling:
          gen_filling(b, catalog, task == Task::MemoryFilling);
          break;
        case Task::Puzzle:
          gen_puzzle(b, catalog);
          break;
        case Task::Maze:
        case Task::DecodeMaze:
        case Task::MemoryMaze:
          gen_maze(b, catalog, catalog.layouts[maze][level - 1][layout].data());
          s.layout = static_cast<uint8_t>(layout + 1);
          break;
      }
      label_objects(b);
      place_objects(b);
    } catch (const Retry&) {
      continue;
    }
    if (b.objects.size() > static_cast<size_t>(kMaxObjects))
      throw std::invalid_argument("kidgym release: more objects than the grid holds");
    for (const Placed& p : b.objects) s.objects[s.count++] = p.object;
    if (!layout_accepted(s, maze_checked)) continue;
    initial_actions(s);
    return s;
  }
  throw std::runtime_error("kidgym release: no layout accepted");
}

}  // namespace cogsim::kidgym
