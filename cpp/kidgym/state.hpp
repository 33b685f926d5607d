// KidGym grid state: a 5 x 5 play area, an agent, a backpack, and the hidden goal of the task.
//
// The state is plain bytes (no pointers, fully zero-initialised), so it copies with memcpy, hashes
// over its bytes and crosses to Python as a flat array. Semantic names (item kinds, colours, rules)
// live in the Python catalogs; the core only sees their ids.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cogsim::kidgym {

inline constexpr int kSide = 5;
inline constexpr int kCells = kSide * kSide;
inline constexpr int kMaxBag = 7;  // slots A..G drawn by the renderer
inline constexpr int kGoalBytes = 24;
inline constexpr uint8_t kNone = 255;

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

enum class Kind : uint8_t {
  Empty = 0,
  Item = 1,    // type: item id within category aux
  Basket = 2,  // type: colour id; aux: item id it accepts
  Key = 3,     // type: colour id
  Door = 4,    // type: colour id
  Diamond = 5,
  Chest = 6,  // aux: 1 if the diamond is inside
  Wall = 7,
  Target = 8,  // label: roman numeral; placed: 0 or 1 + item id, placed_category
  Center = 9,  // the reference item of Placement (aux: category, type: item id)
  Piece = 10,  // a quarter of a picture in place (aux: category, type: picture id, extra: quarter 0-3)
};
// Their names, in enum order (cogsim._core.kidgym_kinds()).
inline constexpr const char* kKindNames[] = {"empty", "item", "basket", "key",    "door", "diamond",
                                             "chest", "wall", "target", "center", "piece"};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) == static_cast<size_t>(Kind::Piece) + 1);

// One play-area cell. Every object blocks the agent; only Empty cells are walked on.
// Pictures (Filling, Puzzle): `category` kPictureFigures means an abstract puzzle figure.
struct Cell {
  Kind kind;
  uint8_t type;
  uint8_t aux;
  uint8_t label;   // number label (kNone when unlabelled) or roman numeral of a target
  uint8_t placed;  // targets: 1 + item id placed there, 0 when free
  uint8_t placed_category;
  uint8_t extra;  // Counting items: pile size; pieces: quarter; targets: quarter placed (Filling)
  uint8_t pad;
};

struct Slot {
  Kind kind;  // Empty: free slot
  uint8_t category;
  uint8_t type;
  uint8_t extra;  // Counting: pile size; pieces: quarter 0-3 (top-left, top-right, bottom-left, bottom-right)
};

enum class Verb : uint8_t {
  Pick = 0,      // a = label                       "pick up the item with label a"
  Put = 1,       // a = slot, b = basket label      "put the item from backpack A into the basket with label b"
  Obtain = 2,    // a = label                       "obtain item with label a"
  Unlock = 3,    // a = slot, b = door label        "use the key in backpack A to unlock door with label b"
  Continue = 4,  //                                 "continue"
  Choose = 5,    // a = label                       "choose <category> with label a"
  Place = 6,    // a = slot, b = roman numeral     "place ... from backpack A at grid <numeral>" / "... into the grid at
                // position <numeral>"
  Declare = 7,  // a = number                      "I have already collected <a> <item>(s)"
};

// The verbs' names, in enum order: the bindings' kidgym_verbs() and through it the Python side.
inline constexpr const char* kVerbNames[] = {"pick",     "put",    "obtain", "unlock",
                                             "continue", "choose", "place",  "declare"};
static_assert(sizeof(kVerbNames) / sizeof(kVerbNames[0]) == static_cast<size_t>(Verb::Declare) + 1);

struct Action {
  Verb verb;
  uint8_t a;
  uint8_t b;
  bool operator==(const Action&) const = default;
};

// The part of the state that identifies a position in the episode (hashed by the oracle search)
// comes first; step counters and the option-shuffle seed follow `kIdentityBytes`.
struct State {
  std::array<Cell, kCells> cells;
  std::array<Slot, kMaxBag> bag;
  std::array<uint8_t, kGoalBytes> goal;
  uint8_t task;
  uint8_t level;
  uint8_t agent;     // cell index, row-major
  uint8_t phase;     // memory tasks: 0 while the thing to remember is shown, 1 after 'continue'
  uint8_t progress;  // task-specific count of correct moves so far
  uint8_t done;      // 1 once terminated (success or failure)
  uint8_t success;
  uint8_t category;  // item category of the episode (scene theme), kNone for mixed
  uint8_t scene;     // scene id from the catalog
  uint8_t bag_capacity;
  // --- not part of the identity ---
  uint8_t steps;
  uint8_t budget;
  uint8_t pad[2];
  uint64_t shuffle_seed;
};
inline constexpr size_t kIdentityBytes = offsetof(State, steps);
static_assert(sizeof(Cell) == 8 && sizeof(Slot) == 4);
inline constexpr uint8_t kPictureFigures = 4;  // picture category id of the abstract puzzle figures

// Catalog sizes and tables the generators draw from (the names stay in Python).
struct Catalog {
  std::array<uint8_t, 4> category_sizes{};                                   // animals, fruits, foods, toys
  std::vector<std::vector<uint8_t>> category_scenes = {{0}, {0}, {0}, {0}};  // scene ids per category
  uint8_t maze_scene = 0;
  uint8_t mixed_scene = 0;
  uint8_t basket_colours = 4;
  uint8_t key_colours = 4;
  std::vector<float> animal_values;     // Sorting: per animal id, the real-world quantity ranked (<= 0: unusable)
  std::vector<uint8_t> rule_ascending;  // Sorting: per rule, 1 if position I holds the smallest value
  uint8_t selection_extra = 2;          // Selection: distractors = level + selection_extra
  uint8_t decode_extra = 1;     // Decode, Memory Decode: distractors = 2 level + decode_extra (the release's 2L+1)
  uint8_t memory_chests = 3;    // Memory Maze: chests in the scene (one holds the diamond)
  uint8_t maze_decoy_keys = 1;  // mazes: extra keys of a colour no key in use has (0 or 1)
  uint8_t puzzle_figures = 0;   // Puzzle: abstract figures in the catalog (each 4 tiles); at least 8,
                                // no default: Python's catalog names them
  std::vector<uint8_t> counting_categories = {1, 2};  // Counting: categories piles are drawn from (fruits, foods)
};

// Task-level parameters: the release's step budgets. All tasks but Counting, Decode and Memory Decode
// must be solved in exactly their budget (every step must be right); Counting allows up to 5 steps,
// and the one choice of Decode (budget = level) and of Memory Decode (after 'continue', budget
// level + 1) leaves slack, as in the release.
// The release's registered step budget of a task at a level (its max_steps).
int default_budget(Task task, int level);
// The length of the plan generation aims for: the fewest steps that solve the task (the budget,
// except where the release gives slack: Counting, Decode, Memory Decode and Decode Maze).
int fewest_steps(Task task, int level);
// The largest step budget an episode may be given (max_steps).
constexpr int kMaxBudget = 60;
bool exact_budget(Task task);
const char* task_name(Task task);

void validate_catalog(const Catalog& catalog);

// Generates episode `seed` of task/level; budget 0 means the paper's budget. Throws
// std::invalid_argument on a bad task/level/catalog, std::runtime_error if no solvable layout
// was found (never observed; the limit guards against bad catalogs).
State generate(Task task, int level, uint64_t seed, const Catalog& catalog, int budget = 0);

// Every executable high-level action, in canonical order (the env shuffles them for display).
std::vector<Action> enumerate(const State& s);
// The options in the order shown to the agent at this step (a seeded shuffle of `enumerate`).
std::vector<Action> options(const State& s);

// Applies an executable action; returns false (and changes nothing but the step count) for an
// action the state does not allow. Steps past the budget truncate the episode.
bool apply(State& s, const Action& a);
// Spends a step without an effect (an answer that named no option).
void waste_step(State& s);
bool finished(const State& s);

// First action of a shortest successful plan from `s`, or nothing if none fits the budget.
bool oracle_action(const State& s, Action& out);
// Length of a shortest successful plan (-1 if none within the budget).
int oracle_plan_length(const State& s);

// Whole episodes played by a scripted policy inside the core: 0 = oracle, 1 = uniform random option.
struct Outcome {
  uint8_t success;
  uint8_t steps;
};
Outcome play(State s, int policy, uint64_t policy_seed);

// Cells the agent can reach (BFS over Empty cells from the agent).
std::array<bool, kCells> reachable(const State& s);

}  // namespace cogsim::kidgym
