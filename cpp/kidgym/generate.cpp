// KidGym episode generators: random layouts from the catalogs, kept only when every object is
// reachable and the shortest successful plan takes exactly the task's step budget (so no layout
// offers a shortcut past a door, and the oracle's plan is the paper's fewest-steps solution).
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "common/rng.hpp"
#include "kidgym/state.hpp"

namespace cogsim::kidgym {

namespace {

constexpr int kMaxAttempts = 10000;

// Thrown by a generator whose random layout cannot be completed; `generate` draws another.
struct Retry {};

struct Builder {
  SplitMix64& rng;
  State& s;

  int random_empty_cell() {
    int free[kCells], n = 0;
    for (int i = 0; i < kCells; ++i) {
      if (s.cells[i].kind == Kind::Empty && i != s.agent) free[n++] = i;
    }
    if (n == 0) throw Retry{};
    return free[rng.below(n)];
  }

  void put(int cell, Kind kind, uint8_t type, uint8_t aux = 0, uint8_t extra = 0) {
    s.cells[cell] = Cell{kind, type, aux, kNone, 0, 0, extra, 0};
  }

  // Distinct values in [0, bound), in random order.
  std::vector<uint8_t> distinct(int count, int bound) {
    if (count > bound)
      throw std::invalid_argument("kidgym catalog: need " + std::to_string(count) + " distinct entries, have " +
                                  std::to_string(bound));
    std::vector<uint8_t> all(bound);
    std::iota(all.begin(), all.end(), 0);
    rng.shuffle(all.begin(), all.end());
    all.resize(count);
    return all;
  }

  // Number labels 0..n-1 in random order over the cells of the given kinds.
  void label(std::initializer_list<Kind> kinds) {
    std::vector<int> cells;
    for (int i = 0; i < kCells; ++i) {
      if (std::find(kinds.begin(), kinds.end(), s.cells[i].kind) != kinds.end()) cells.push_back(i);
    }
    auto labels = distinct(static_cast<int>(cells.size()), static_cast<int>(cells.size()));
    for (size_t i = 0; i < cells.size(); ++i) s.cells[cells[i]].label = labels[i];
  }

  void themed_scene(const Catalog& catalog, uint8_t category) {
    const auto& scenes = catalog.category_scenes[category];
    s.category = category;
    s.scene = scenes[rng.below(scenes.size())];
  }
};

State blank(Task task, int level, int budget, uint64_t shuffle_seed) {
  State s{};
  for (Cell& c : s.cells) c = Cell{Kind::Empty, 0, 0, kNone, 0, 0, 0, 0};
  s.task = static_cast<uint8_t>(task);
  s.level = static_cast<uint8_t>(level);
  s.budget = static_cast<uint8_t>(budget);
  s.bag_capacity = 4;
  s.category = kNone;
  s.shuffle_seed = shuffle_seed;
  return s;
}

void gen_classification(Builder& b, const Catalog& catalog) {
  const uint8_t category = static_cast<uint8_t>(b.rng.below(4));
  b.themed_scene(catalog, category);
  const auto items = b.distinct(2, catalog.category_sizes[category]);
  const auto colours = b.distinct(2, catalog.basket_colours);
  b.s.agent = static_cast<uint8_t>(b.rng.below(kCells));
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < b.s.level; ++i) b.put(b.random_empty_cell(), Kind::Item, items[k], category);
    b.put(b.random_empty_cell(), Kind::Basket, colours[k], items[k]);
    b.s.goal[2 * k] = items[k];
    b.s.goal[2 * k + 1] = colours[k];
  }
  b.label({Kind::Item, Kind::Basket});
}

// A self-avoiding random walk of at least `min_length` cells, as cell indices from its start.
std::vector<int> random_corridor(SplitMix64& rng, int min_length) {
  static constexpr int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
  for (;;) {
    std::vector<int> path{static_cast<int>(rng.below(kCells))};
    std::array<bool, kCells> used{};
    used[path[0]] = true;
    for (;;) {
      const int r = path.back() / kSide, c = path.back() % kSide;
      int moves[4], n = 0;
      for (int d = 0; d < 4; ++d) {
        const int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nr >= kSide || nc < 0 || nc >= kSide) continue;
        const int next = nr * kSide + nc;
        if (used[next]) continue;
        // stay a corridor: the new cell may touch the path only at the current end
        int touching = 0;
        for (int e = 0; e < 4; ++e) {
          const int tr = nr + dr[e], tc = nc + dc[e];
          if (tr >= 0 && tr < kSide && tc >= 0 && tc < kSide && used[tr * kSide + tc]) touching++;
        }
        if (touching == 1) moves[n++] = next;
      }
      if (n == 0) break;
      const int next = moves[rng.below(n)];
      used[next] = true;
      path.push_back(next);
    }
    if (static_cast<int>(path.size()) >= min_length) return path;
  }
}

// Maze layout shared by Maze, Decode Maze and Memory Maze: a corridor from the agent to the
// diamond with `level` doors on it. Key k lies anywhere before door k, on the corridor or in a
// niche beside it, so several keys can be in reach at once; decoy keys (colours no door has) lie
// anywhere before the last door. Cells off the corridor are walls or open floor; the plan check in
// `generate` rejects any layout where open floor or a taken key's niche bypasses a door.
// Returns the corridor.
std::vector<int> gen_maze_layout(Builder& b, const Catalog& catalog, const std::vector<uint8_t>& key_colours,
                                 const std::vector<uint8_t>& door_colours, const std::vector<uint8_t>& decoy_colours) {
  const int doors = b.s.level;
  const auto path = random_corridor(b.rng, doors + 3 + static_cast<int>(b.rng.below(4)));
  b.s.scene = catalog.maze_scene;
  std::array<int, kCells> corridor_index;
  corridor_index.fill(-1);
  for (size_t i = 0; i < path.size(); ++i) corridor_index[path[i]] = static_cast<int>(i);
  const bool open_floor = b.rng.below(2) == 0;
  for (int i = 0; i < kCells; ++i) {
    if (corridor_index[i] < 0 && !(open_floor && b.rng.below(4) == 0)) b.put(i, Kind::Wall, 0);
  }
  // door positions: distinct corridor indices strictly between the agent and the diamond
  std::vector<int> inner(path.size() - 2);
  std::iota(inner.begin(), inner.end(), 1);
  b.rng.shuffle(inner.begin(), inner.end());
  inner.resize(doors);
  std::sort(inner.begin(), inner.end());
  for (int k = 0; k < doors; ++k) b.put(path[inner[k]], Kind::Door, door_colours[k]);
  b.s.agent = static_cast<uint8_t>(path.front());
  b.put(path.back(), Kind::Diamond, 0);
  // a free cell before corridor index `limit`: on the corridor, or a cell beside such a corridor cell
  const auto cell_before = [&](int limit) {
    std::vector<int> candidates;
    for (int i = 0; i < kCells; ++i) {
      if (i == b.s.agent || (b.s.cells[i].kind != Kind::Empty && b.s.cells[i].kind != Kind::Wall)) continue;
      const int index = corridor_index[i];
      bool before = index > 0 && index < limit;
      for (int d = 0; d < 4 && index < 0 && !before; ++d) {
        const int r = i / kSide + (d == 0 ? -1 : d == 2 ? 1 : 0), c = i % kSide + (d == 1 ? 1 : d == 3 ? -1 : 0);
        if (r < 0 || r >= kSide || c < 0 || c >= kSide) continue;
        const int touched = corridor_index[r * kSide + c];
        before = touched >= 0 && touched < limit;
      }
      if (before) candidates.push_back(i);
    }
    if (candidates.empty()) throw Retry{};
    return candidates[b.rng.below(candidates.size())];
  };
  for (int k = 0; k < doors; ++k) b.put(cell_before(inner[k]), Kind::Key, key_colours[k]);
  for (uint8_t colour : decoy_colours) b.put(cell_before(inner[doors - 1]), Kind::Key, colour);
  return path;
}

// Key colours for the doors, then `decoys` further colours no door has.
std::vector<uint8_t> decoy_colours(Builder& b, const std::vector<uint8_t>& used, int decoys, int colours) {
  std::vector<uint8_t> free;
  for (int c = 0; c < colours; ++c)
    if (std::find(used.begin(), used.end(), c) == used.end()) free.push_back(static_cast<uint8_t>(c));
  b.rng.shuffle(free.begin(), free.end());
  free.resize(std::min<size_t>(free.size(), decoys));
  return free;
}

void gen_maze(Builder& b, const Catalog& catalog) {
  const auto colours = b.distinct(b.s.level, catalog.key_colours);
  gen_maze_layout(b, catalog, colours, colours,
                  decoy_colours(b, colours, catalog.maze_decoy_keys, catalog.key_colours));
  b.label({Kind::Key, Kind::Door, Kind::Diamond});
}

void gen_decode_maze(Builder& b, const Catalog& catalog) {
  // goal[key colour] = the door colour it opens (never its own colour); kNone for unused keys
  std::fill(b.s.goal.begin(), b.s.goal.end(), kNone);
  const auto keys = b.distinct(b.s.level, catalog.key_colours);
  std::vector<uint8_t> doors;
  do {
    doors = b.distinct(b.s.level, catalog.key_colours);
  } while ([&] {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == doors[i]) return true;
    return false;
  }());
  for (size_t i = 0; i < keys.size(); ++i) b.s.goal[keys[i]] = doors[i];
  // decoys: colours of no key in use (a decoy may share a door's colour: the trap the hint resolves).
  // With one door the release always adds that trap: a key of the door's own colour, which fails.
  auto decoys = decoy_colours(b, keys, catalog.maze_decoy_keys, catalog.key_colours);
  if (b.s.level == 1 && std::find(decoys.begin(), decoys.end(), doors[0]) == decoys.end()) decoys.push_back(doors[0]);
  gen_maze_layout(b, catalog, keys, doors, decoys);
  b.label({Kind::Key, Kind::Door, Kind::Diamond});
}

void gen_memory_maze(Builder& b, const Catalog& catalog) {
  const auto colours = b.distinct(b.s.level, catalog.key_colours);
  const auto path = gen_maze_layout(b, catalog, colours, colours,
                                    decoy_colours(b, colours, catalog.maze_decoy_keys, catalog.key_colours));
  std::array<bool, kCells> on_path{};
  for (int cell : path) on_path[cell] = true;
  const int diamond = path.back();
  b.s.goal[0] = static_cast<uint8_t>(diamond);
  b.put(diamond, Kind::Chest, 0, 1);
  // decoy chests beside the corridor; aux bit 2 remembers a wall (drawn as wall before 'continue')
  std::vector<int> beside;
  for (int i = 0; i < kCells; ++i) {
    if (on_path[i]) continue;
    for (int d = 0; d < 4; ++d) {
      const int r = i / kSide + (d == 0 ? -1 : d == 2 ? 1 : 0), c = i % kSide + (d == 1 ? 1 : d == 3 ? -1 : 0);
      if (r >= 0 && r < kSide && c >= 0 && c < kSide && on_path[r * kSide + c]) {
        beside.push_back(i);
        break;
      }
    }
  }
  b.rng.shuffle(beside.begin(), beside.end());
  const int decoys = std::min<int>(catalog.memory_chests - 1, beside.size());
  for (int i = 0; i < decoys; ++i) {
    const bool wall = b.s.cells[beside[i]].kind == Kind::Wall;
    b.put(beside[i], Kind::Chest, 0, wall ? 2 : 0);
  }
  b.label({Kind::Key, Kind::Door, Kind::Chest});
}

void gen_selection(Builder& b, const Catalog& catalog) {
  const uint8_t category = static_cast<uint8_t>(b.rng.below(4));
  b.themed_scene(catalog, category);
  const int level = b.s.level;
  const auto items = b.distinct(2 * level + catalog.selection_extra, catalog.category_sizes[category]);
  b.s.goal[0] = category;
  for (int i = 0; i < level; ++i) b.s.goal[1 + i] = items[i];
  b.s.agent = static_cast<uint8_t>(b.rng.below(kCells));
  for (uint8_t item : items) b.put(b.random_empty_cell(), Kind::Item, item, category);
  b.label({Kind::Item});
}

// Decode and Memory Decode, as the KidGym release plays them: `level` pairs (the code table), the
// source of one pair asked, and its partner offered among 2 level + decode_extra distractors that
// belong to no pair. One choice decides the episode. Memory Decode shows the table first and hides
// it after 'continue'; Decode shows table and target together.
void gen_decode(Builder& b, const Catalog& catalog) {
  const int level = b.s.level;
  b.s.scene = catalog.mixed_scene;
  // all items distinct across categories: draw (category, id) pairs without repeats
  std::vector<std::pair<uint8_t, uint8_t>> pool;
  for (uint8_t c = 0; c < 4; ++c)
    for (uint8_t i = 0; i < catalog.category_sizes[c]; ++i) pool.push_back({c, i});
  const int needed = 4 * level + catalog.decode_extra;
  if (static_cast<int>(pool.size()) < needed)
    throw std::invalid_argument(std::string("kidgym catalog: too few items for ") +
                                task_name(static_cast<Task>(b.s.task)));
  b.rng.shuffle(pool.begin(), pool.end());
  for (int k = 0; k < level; ++k) {
    b.s.goal[4 * k] = pool[2 * k].first;
    b.s.goal[4 * k + 1] = pool[2 * k].second;
    b.s.goal[4 * k + 2] = pool[2 * k + 1].first;
    b.s.goal[4 * k + 3] = pool[2 * k + 1].second;
  }
  const int asked = static_cast<int>(b.rng.below(level));
  b.s.goal[12] = static_cast<uint8_t>(asked);
  b.s.agent = static_cast<uint8_t>(b.rng.below(kCells));
  b.put(b.random_empty_cell(), Kind::Item, pool[2 * asked + 1].second, pool[2 * asked + 1].first);
  for (int k = 2 * level; k < needed; ++k) b.put(b.random_empty_cell(), Kind::Item, pool[k].second, pool[k].first);
  b.label({Kind::Item});
}

void gen_sorting(Builder& b, const Catalog& catalog) {
  const int count = b.s.level + 1;
  if (catalog.rule_ascending.empty()) throw std::invalid_argument("kidgym catalog: rule_ascending is empty");
  std::vector<uint8_t> usable;
  for (size_t i = 0; i < catalog.animal_values.size(); ++i)
    if (catalog.animal_values[i] > 0) usable.push_back(static_cast<uint8_t>(i));
  if (static_cast<int>(usable.size()) < count)
    throw std::invalid_argument("kidgym catalog: too few animals with values");
  const uint8_t rule = static_cast<uint8_t>(b.rng.below(catalog.rule_ascending.size()));
  std::vector<uint8_t> animals;
  for (;;) {  // values at least 1.5x apart, so the ranking is unambiguous
    b.rng.shuffle(usable.begin(), usable.end());
    animals.assign(usable.begin(), usable.begin() + count);
    std::sort(animals.begin(), animals.end(),
              [&](uint8_t x, uint8_t y) { return catalog.animal_values[x] < catalog.animal_values[y]; });
    bool separated = true;
    for (int i = 0; i + 1 < count; ++i)
      separated = separated && catalog.animal_values[animals[i + 1]] >= 1.5f * catalog.animal_values[animals[i]];
    if (separated) break;
  }
  if (!catalog.rule_ascending[rule]) std::reverse(animals.begin(), animals.end());
  b.s.goal[0] = rule;
  for (int i = 0; i < count; ++i) b.s.goal[1 + i] = animals[i];
  b.s.category = 0;
  b.s.scene = catalog.category_scenes[0][b.rng.below(catalog.category_scenes[0].size())];
  std::vector<uint8_t> bag(animals);
  b.rng.shuffle(bag.begin(), bag.end());
  for (int i = 0; i < count; ++i) b.s.bag[i] = Slot{Kind::Item, 0, bag[i], 0};
  b.s.agent = static_cast<uint8_t>(b.rng.below(kCells));
  for (int i = 0; i < count; ++i) {
    const int cell = b.random_empty_cell();
    b.put(cell, Kind::Target, 0);
    b.s.cells[cell].label = static_cast<uint8_t>(i + 1);
  }
}

// Compass directions clockwise from north: N NE E SE S SW W NW, as (row, col) offsets.
constexpr int kCompassDr[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
constexpr int kCompassDc[8] = {0, 1, 1, 1, 0, -1, -1, -1};

void gen_placement(Builder& b, const Catalog& catalog) {
  const int level = b.s.level;
  const int centre = 2 * kSide + 2;
  const uint8_t centre_category = static_cast<uint8_t>(b.rng.below(4));
  b.themed_scene(catalog, centre_category);
  b.put(centre, Kind::Center, static_cast<uint8_t>(b.rng.below(catalog.category_sizes[centre_category])),
        centre_category);
  uint8_t item_category, item;
  do {
    item_category = static_cast<uint8_t>(b.rng.below(4));
    item = static_cast<uint8_t>(b.rng.below(catalog.category_sizes[item_category]));
  } while (item_category == centre_category && item == b.s.cells[centre].type);
  b.s.bag[0] = Slot{Kind::Item, item_category, item, 0};
  const int places = level == 1 ? 4 : 8;
  const auto numerals = b.distinct(places, places);
  for (int p = 0; p < places; ++p) {
    const int dir = level == 1 ? 2 * p : p;
    const int cell = centre + kCompassDr[dir] * kSide + kCompassDc[dir];
    b.put(cell, Kind::Target, 0);
    b.s.cells[cell].label = static_cast<uint8_t>(numerals[p] + 1);
  }
  const uint8_t stated = static_cast<uint8_t>(level == 1 ? 2 * b.rng.below(4) : b.rng.below(8));
  const uint8_t rotation = level == 3 ? static_cast<uint8_t>(1 + b.rng.below(2)) : 0;  // 1 clockwise, 2 anticlockwise
  int target_dir = (stated + 4) % 8;
  if (rotation == 1) target_dir = (target_dir + 1) % 8;
  if (rotation == 2) target_dir = (target_dir + 7) % 8;
  b.s.goal[0] = stated;
  b.s.goal[1] = rotation;
  b.s.goal[2] = static_cast<uint8_t>(centre + kCompassDr[target_dir] * kSide + kCompassDc[target_dir]);
  // the agent starts on the outer ring
  int outer[16], n = 0;
  for (int i = 0; i < kCells; ++i) {
    const int r = i / kSide, c = i % kSide;
    if (r == 0 || r == kSide - 1 || c == 0 || c == kSide - 1) outer[n++] = i;
  }
  b.s.agent = static_cast<uint8_t>(outer[b.rng.below(n)]);
}

// Counting: `level` piles of each size 1, 2, 3 of one item; collect N in [level, 3 level] and declare it.
void gen_counting(Builder& b, const Catalog& catalog) {
  const int level = b.s.level;
  const uint8_t category = catalog.counting_categories[b.rng.below(catalog.counting_categories.size())];
  b.themed_scene(catalog, category);
  const uint8_t item = static_cast<uint8_t>(b.rng.below(catalog.category_sizes[category]));
  b.s.goal[0] = static_cast<uint8_t>(level + b.rng.below(2 * level + 1));
  b.s.goal[1] = category;
  b.s.goal[2] = item;
  b.s.agent = static_cast<uint8_t>(b.rng.below(kCells));
  for (uint8_t size = 1; size <= 3; ++size) {
    for (int k = 0; k < level; ++k) b.put(b.random_empty_cell(), Kind::Item, item, category, size);
  }
  b.label({Kind::Item});
}

// Filling, Puzzle, Memory Filling: a 2 x 2 picture near the centre with `level` quarters missing
// (targets numbered I, II, ...); the backpack holds the missing quarters and decoys up to 4 pieces:
// other quarters of the same picture or the missing quarters of other pictures.
void gen_filling(Builder& b, const Catalog& catalog, bool figures) {
  const int level = b.s.level;
  uint8_t category;
  int pictures;
  if (figures) {
    category = kPictureFigures;
    pictures = catalog.puzzle_figures;
    b.s.scene = catalog.mixed_scene;
  } else {
    category = static_cast<uint8_t>(b.rng.below(4));
    pictures = catalog.category_sizes[category];
    b.themed_scene(catalog, category);
  }
  const uint8_t picture = static_cast<uint8_t>(b.rng.below(pictures));
  b.s.goal[0] = category;
  b.s.goal[1] = picture;
  const int top = 1 + static_cast<int>(b.rng.below(2)), left = 1 + static_cast<int>(b.rng.below(2));
  const auto missing = b.distinct(level, 4);
  const auto numerals = b.distinct(level, level);
  for (uint8_t quarter = 0; quarter < 4; ++quarter) {
    const int cell = (top + quarter / 2) * kSide + left + quarter % 2;
    const auto hole = std::find(missing.begin(), missing.end(), quarter);
    if (hole == missing.end()) {
      b.put(cell, Kind::Piece, picture, category, quarter);
    } else {
      b.put(cell, Kind::Target, quarter);
      b.s.cells[cell].label = static_cast<uint8_t>(numerals[hole - missing.begin()] + 1);
    }
  }
  std::vector<Slot> pieces;
  for (uint8_t quarter : missing) pieces.push_back(Slot{Kind::Piece, category, picture, quarter});
  while (pieces.size() < 4) {
    Slot decoy{Kind::Piece, category, picture, static_cast<uint8_t>(b.rng.below(4))};
    if (b.rng.below(2) == 0) {  // another picture's piece in a missing place
      decoy.type = static_cast<uint8_t>(b.rng.below(pictures));
      decoy.extra = missing[b.rng.below(missing.size())];
    }
    const bool repeat = std::any_of(pieces.begin(), pieces.end(),
                                    [&](const Slot& p) { return p.type == decoy.type && p.extra == decoy.extra; });
    if (!repeat) pieces.push_back(decoy);
  }
  b.rng.shuffle(pieces.begin(), pieces.end());
  for (size_t i = 0; i < pieces.size(); ++i) b.s.bag[i] = pieces[i];
  b.s.agent = static_cast<uint8_t>(b.random_empty_cell());
}

bool every_object_reachable(const State& s) {
  if (s.cells[s.agent].kind != Kind::Empty) return false;
  const auto open = reachable(s);
  for (int i = 0; i < kCells; ++i) {
    const Kind k = s.cells[i].kind;
    if (k == Kind::Empty || k == Kind::Wall || k == Kind::Center || k == Kind::Piece) continue;
    const Task task = static_cast<Task>(s.task);
    const bool maze = task == Task::Maze || task == Task::DecodeMaze || task == Task::MemoryMaze;
    if (maze) continue;  // behind doors by design; the plan check below covers mazes
    bool touched = false;
    const int r = i / kSide, c = i % kSide;
    if (r > 0) touched |= open[i - kSide];
    if (r < kSide - 1) touched |= open[i + kSide];
    if (c > 0) touched |= open[i - 1];
    if (c < kSide - 1) touched |= open[i + 1];
    if (!touched) return false;
  }
  return true;
}

}  // namespace

void validate_catalog(const Catalog& catalog) {
  for (int c = 0; c < 4; ++c) {
    if (catalog.category_sizes[c] < 10)
      throw std::invalid_argument("kidgym catalog: category_sizes[" + std::to_string(c) + "] must be >= 10");
    if (catalog.category_scenes[c].empty())
      throw std::invalid_argument("kidgym catalog: category_scenes[" + std::to_string(c) + "] is empty");
  }
  if (catalog.basket_colours < 2) throw std::invalid_argument("kidgym catalog: basket_colours must be >= 2");
  if (catalog.key_colours < 4) throw std::invalid_argument("kidgym catalog: key_colours must be >= 4");
  if (catalog.animal_values.size() > catalog.category_sizes[0])
    throw std::invalid_argument("kidgym catalog: more animal_values than animals");
  if (catalog.selection_extra > 4 || catalog.decode_extra > 6)
    throw std::invalid_argument("kidgym catalog: selection_extra <= 4 and decode_extra <= 6");
  if (catalog.puzzle_figures < 8) throw std::invalid_argument("kidgym catalog: puzzle_figures must be >= 8");
  if (catalog.counting_categories.empty()) throw std::invalid_argument("kidgym catalog: counting_categories is empty");
  for (uint8_t c : catalog.counting_categories)
    if (c > 3) throw std::invalid_argument("kidgym catalog: counting_categories must be category ids 0..3");
  if (catalog.maze_decoy_keys > 1) throw std::invalid_argument("kidgym catalog: maze_decoy_keys must be 0 or 1");
  if (catalog.memory_chests < 2 || catalog.memory_chests > 5)
    throw std::invalid_argument("kidgym catalog: memory_chests must be in 2..5");
}

State generate(Task task, int level, uint64_t seed, const Catalog& catalog, int budget) {
  if (static_cast<int>(task) >= kNumTasks) throw std::invalid_argument("kidgym: unknown task id");
  if (level < 1 || level > 3)
    throw std::invalid_argument("kidgym: level must be 1, 2 or 3, got " + std::to_string(level));
  const int fewest = fewest_steps(task, level);
  if (budget == 0) budget = default_budget(task, level);
  if (budget < fewest || budget > kMaxBudget)
    throw std::invalid_argument("kidgym: max_steps must be in " + std::to_string(fewest) + ".." +
                                std::to_string(kMaxBudget) + " for this task and level, got " + std::to_string(budget));
  SplitMix64 rng(derive_seed(seed, 16 * static_cast<uint64_t>(task) + level));
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    State s = blank(task, level, fewest, rng.next());
    Builder b{rng, s};
    try {
      switch (task) {
        case Task::Classification:
          gen_classification(b, catalog);
          break;
        case Task::Maze:
          gen_maze(b, catalog);
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
        case Task::DecodeMaze:
          gen_decode_maze(b, catalog);
          break;
        case Task::MemoryMaze:
          gen_memory_maze(b, catalog);
          break;
        case Task::MemoryDecode:
        case Task::Decode:
          gen_decode(b, catalog);
          break;
        case Task::Counting:
          gen_counting(b, catalog);
          break;
        case Task::Filling:
          gen_filling(b, catalog, false);
          break;
        case Task::Puzzle:
          gen_filling(b, catalog, true);
          break;
        case Task::MemoryFilling:
          gen_filling(b, catalog, false);
          break;
      }
    } catch (const Retry&) {
      continue;
    }
    // the check runs with the paper's budget, so the shortest plan must use all of it
    const int plan = every_object_reachable(s) ? oracle_plan_length(s) : -1;
    if (plan == fewest || (!exact_budget(task) && plan > 0)) {
      s.budget = static_cast<uint8_t>(budget);
      return s;
    }
  }
  throw std::runtime_error(std::string("kidgym: no solvable layout found for ") + task_name(task));
}

}  // namespace cogsim::kidgym
