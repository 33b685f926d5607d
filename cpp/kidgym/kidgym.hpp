// KidGym's engine (the game of BoBo-Ye/KidGym 083cf1f): the release's world of objects, its generators,
// its high-level actions and the low-level moves they expand to, and the oracle's search.
//
// The release keeps a list of objects (each with an image, a number label, a cell and a few task
// attributes), an agent with a cell, a facing direction and a 4-slot backpack, and per task the
// counters its goal check reads. A high-level action walks the agent along the release's A* path to
// its target, turns it to face the target and picks or drops there; the goal is checked after every
// low-level move. Every part that decides what the model sees or what an answer does is kept: the
// object order (which sets the labels and the order of some action lists), the facing direction
// (a pick or a drop acts on the cell in front, also when the target was out of reach), the action
// list (regenerated only after a high-level action all of whose moves succeeded), and the changes the
// release's drawing makes to the state (memory tasks reveal or rename objects on the first frame
// after 'continue', Memory Filling fills the backpack there).
//
// Where the release draws from Python's unseeded `random`, the generators draw from a seeded
// SplitMix64 with the same distribution. Names (images, colours, rules) stay in Python
// (cogsim.benchmarks.kidgym.catalog); the core sees asset ids.
//
// Files: generate.cpp (the generators), engine.cpp (the transitions: actions, moves, goal checks,
// action lists), solver.cpp (the oracle's search and whole episodes played by a scripted policy).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cogsim::kidgym {

enum class Task : uint8_t {
  Classification = 0,
  Maze = 1,
  Selection = 2,
  Placement = 3,
  Sorting = 4,
  DecodeMaze = 5,
  MemoryMaze = 6,
  MemoryDecode = 7,
  Counting = 8,
  Filling = 9,
  Puzzle = 10,
  MemoryFilling = 11,
  Decode = 12,  // the release's thirteenth family (DE), not one of the paper's twelve
};
inline constexpr int kNumTasks = 13;
const char* task_name(Task task);

// The release's registered step budget of a task at a level (its max_steps), and the largest budget
// an episode may be given.
int default_budget(Task task, int level);
inline constexpr int kMaxBudget = 60;

// The high-level verbs: an option is (verb, slot, target).
enum class Verb : uint8_t {
  Pick = 0,      // target = label                "pick up the item with label a"
  Put = 1,       // slot, target = basket label   "put the item from backpack A into the basket with label b"
  Obtain = 2,    // target = label                "obtain item with label a"
  Unlock = 3,    // slot, target = door label     "use the key in backpack A to unlock door with label b"
  Continue = 4,  //                               "continue"
  Choose = 5,    // target = label                "choose <category> with label a"
  Place = 6,     // slot, target = roman numeral  "place ... from backpack A at grid <numeral>"
  Declare = 7,   // target = number               "I have already collected <a> <item>(s)"
};
// The verbs' names, in enum order: the bindings' kidgym_verbs() and through it the Python side.
inline constexpr const char* kVerbNames[] = {"pick",     "put",    "obtain", "unlock",
                                             "continue", "choose", "place",  "declare"};
static_assert(sizeof(kVerbNames) / sizeof(kVerbNames[0]) == static_cast<size_t>(Verb::Declare) + 1);

// A whole episode's outcome.
struct Outcome {
  uint8_t success;
  uint8_t steps;
};

inline constexpr int kSide = 5;
inline constexpr int kMaxObjects = 25;
inline constexpr int kBagSlots = 4;
inline constexpr int kMaxOptions = 32;
inline constexpr int kLayouts = 100;  // fixed layouts per maze task and level
inline constexpr uint8_t kNoLabel = 255;

// What an object is to the rules (its image is `asset`).
enum class Role : uint8_t {
  Item = 0,      // a pickable item (Classification, Counting, Selection, Decode) or Placement's item
  Basket = 1,    // arg: the item asset it accepts
  Key = 2,       //
  Door = 3,      // arg: the key asset that opens it
  Diamond = 4,   // the maze's goal (Memory Maze: the treasure box that holds the diamond)
  Treasure = 5,  // Memory Maze's empty treasure boxes
  Wall = 6,      //
  Roman = 7,     // a numbered target tile; arg: its quarter 1-4 (Filling, Puzzle), or Sorting's animal asset
  Piece = 8,     // a quarter of a picture; arg: the quarter 1-4 it belongs to (flag kTrue), else a decoy
  Center = 9,    // Placement's reference item
};
inline constexpr const char* kRoleNames[] = {"item",     "basket", "key",   "door",  "diamond",
                                             "treasure", "wall",   "roman", "piece", "center"};

// Object flags.
inline constexpr uint8_t kPickable = 1;    // the release's c_pk
inline constexpr uint8_t kHidden = 2;      // visible=False: not drawn while labels are shown
inline constexpr uint8_t kMemorized = 4;   // Selection: one of the items to remember
inline constexpr uint8_t kPartner = 8;     // Decode, Memory Decode: the target's partner
inline constexpr uint8_t kTruePiece = 16;  // a piece with a quarter of its own (correct_id)
inline constexpr uint8_t kPlaced = 32;     // Placement's item (the one the goal asks to place)

struct Object {
  uint8_t asset;
  uint8_t label;  // the number badge (the release's obj.id), kNoLabel for none
  uint8_t x;      // column
  uint8_t y;      // row
  Role role;
  uint8_t flags;
  uint8_t arg;
  uint8_t value;  // Counting: items in the pile (1-3)
};
static_assert(sizeof(Object) == 8);

struct Option {
  Verb verb;       // pick, put, obtain, unlock, continue, choose, place, declare
  uint8_t slot;    // backpack slot 0-3 (put, unlock, place)
  uint8_t target;  // the label, or the roman numeral 1-8 (place), or the declared number
  bool operator==(const Option&) const = default;
};

// Per-task facts kept for the goal text and the side bar (`facts`), by task:
//   Classification  [item 1, item 2, basket 1, basket 2] (assets)
//   Counting        [number, base asset of the piles (value 1)]
//   Selection       [category 0-3, item 1, item 2, item 3]
//   Placement       [orientation 0-7, clock direction 0-1, centre asset, item asset]
//   Sorting         [rule 0-7, entry index low byte, high byte]
//   Decode, Memory Decode   [category 1, category 2, target index, source 1, partner 1, source 2, partner 2, ...]
//   Decode Maze     [key 1, door 1, key 2, door 2, key 3, door 3] (assets; the side bar's table)
//   Filling, Memory Filling, Puzzle  [piece assets of the picture, quarters 1-4]
//   Memory Maze     [treasure box asset] (the diamond's box is drawn as one after 'continue')
//   mazes           the layout number 1-100 is `layout`
inline constexpr int kFactBytes = 16;

struct State {
  // --- the world: what a position in the episode is (the oracle's search hashes these bytes) ---
  std::array<Object, kMaxObjects> objects;  // the release's grid.objs, in its order
  std::array<Object, kBagSlots> bag;        // slots A-D, packed from A
  std::array<Object, kBagSlots> pending;    // Memory Filling: pieces that arrive on the first frame after 'continue'
  std::array<uint8_t, kFactBytes> facts;
  uint8_t count;
  uint8_t bag_count;
  uint8_t pending_count;
  uint8_t task;
  uint8_t level;
  uint8_t agent_x;
  uint8_t agent_y;
  uint8_t agent_dir;    // 0 down, 1 right, 2 up, 3 left (the release's numbering)
  uint8_t background;   // 0 animal (farm) 1 fruit (shop) 2 food (canteen) 3 toy (toy_house) 4 mixed (park)
                        // 5 figure (gallery) 6 maze
  uint8_t show_labels;  // the release's grid.show_id
  uint8_t side_bar;     // 1 while the frame has the 128 px side bar
  uint8_t started;      // memory tasks: 1 after 'continue'
  uint8_t correct;      // Sorting, Filling, Puzzle, Memory Filling: correct placements counted so far
  uint8_t declared;     // Counting: 'I have already collected' was the last action
  uint8_t target_x;     // Placement: the cell the item must go to
  uint8_t target_y;
  uint8_t layout;      // mazes: the layout played (1-100), else 0
  uint8_t executable;  // 1: the action list keeps only actions whose target the agent can reach
  uint8_t pad[6];
  // --- the action list shown (compared as a set by the search) ---
  std::array<Option, kMaxOptions> options;
  uint8_t option_count;
  // --- counters ---
  uint8_t steps;
  uint8_t budget;
  uint8_t done;  // 0 running, 1 terminated, 2 truncated
  uint8_t success;
  uint8_t last_step_ok;  // every low-level move of the last high-level action succeeded
  uint8_t pad2[2];
  uint32_t shuffles;  // action-list shuffles so far; each draws from derive_seed(shuffle_seed, shuffles)
  uint32_t pad3;
  uint64_t shuffle_seed;
};
// The bytes that identify a position for the oracle's search.
inline constexpr size_t kWorldBytes = offsetof(State, options);

// The release's images and pools as asset ids (the Python catalog names them).
struct Catalog {
  std::array<std::vector<uint8_t>, 4> resources;       // animal, fruit, food, toy
  std::array<std::vector<uint8_t>, 2> counting_piles;  // fruit, food: per counting item its piles of 1, 2, 3
  std::vector<std::array<uint8_t, 4>> animal_pieces;   // Filling's pictures, quarters 1-4
  std::vector<uint8_t> all_pieces;                     // every animal quarter (Filling's decoys)
  std::array<uint8_t, 4> baskets{};                    // blue, green, red, yellow
  std::array<uint8_t, 3> keys{};                       // blue, red, yellow
  std::array<uint8_t, 3> doors{};                      // blue, red, yellow
  std::array<uint8_t, 4> puzzle{};                     // Puzzle's four pieces
  std::array<uint8_t, 8> roman{};                      // I .. VIII
  uint8_t diamond = 0;
  uint8_t wall = 0;
  uint8_t treasure = 0;
  // Sorting: per level the release's list of (rule, animals in answer order) entries.
  std::array<std::vector<std::vector<uint8_t>>, 3> sorting;
  // Maze, Decode Maze, Memory Maze x level: layouts 1-100, each 25 codes in the release's [i][j]
  // order (cell x = i, y = j): 0 wall, 1 floor, 2 key, 3 door, 4 diamond, 6 treasure box, 9 agent.
  std::array<std::array<std::vector<std::array<uint8_t, 25>>, 3>, 3> layouts;
};
void validate(const Catalog& catalog);

// Which maze task a layout table belongs to (index into Catalog::layouts), or -1.
int maze_index(Task task);

inline Task task_of(const State& s) { return static_cast<Task>(s.task); }
// Selection, Memory Decode, Memory Maze and Memory Filling show what to remember until 'continue'.
bool has_memory_phase(Task task);

// Episode `seed`: mazes play layout seed % 100 + 1. `executable` keeps only reachable actions.
State generate(Task task, int level, uint64_t seed, const Catalog& catalog, int budget, bool executable);

// The first action list of an episode (every task shuffles it).
void initial_actions(State& s);

// Applies option `index` of the list shown (a step; the release counts every answer as one).
void apply(State& s, int index);
// An answer that named no option: a step without effect.
void waste_step(State& s);

// First option index of a shortest successful plan from `s`, or -1.
int oracle_option(const State& s);
// Length of a shortest successful plan within the remaining budget, or -1.
int oracle_plan_length(const State& s);
// Whole episodes played inside the core: policy 0 = oracle, 1 = uniform random option.
Outcome play(State s, int policy, uint64_t policy_seed);

// The release's A* path (its tie-breaking exactly) from the agent to cell (x, y), as cells
// (x, y) from the agent's; empty when the target cannot be reached.
std::vector<std::pair<int, int>> astar_path(const State& s, int x, int y);

// The release's goal check (task_success, terminated) for the state as it stands.
std::pair<bool, bool> check_goal(const State& s);

}  // namespace cogsim::kidgym
