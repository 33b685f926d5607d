// KidGym's solver: the oracle's search for a shortest successful plan (iterative deepening over the
// engine's transitions, positions that failed at a depth remembered), and whole episodes played by a
// scripted policy.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "common/rng.hpp"
#include "kidgym/kidgym.hpp"

namespace cogsim::kidgym {

namespace {

std::string identity(const State& s) {
  std::string key(reinterpret_cast<const char*>(&s), kWorldBytes);
  std::array<uint32_t, kMaxOptions> codes{};
  for (int i = 0; i < s.option_count; ++i)
    codes[i] = static_cast<uint32_t>(s.options[i].verb) << 16 | s.options[i].slot << 8 | s.options[i].target;
  std::sort(codes.begin(), codes.begin() + s.option_count);
  key.append(reinterpret_cast<const char*>(codes.data()), s.option_count * sizeof(uint32_t));
  return key;
}

// A lower bound on the steps a success still needs.
int lower_bound(const State& s) {
  const int unstarted = has_memory_phase(task_of(s)) && !s.started ? 1 : 0;
  switch (task_of(s)) {
    case Task::Classification: {
      int on_grid = 0;
      for (int i = 0; i < s.count; ++i) on_grid += (s.objects[i].flags & kPickable) != 0;
      return on_grid + s.bag_count;
    }
    case Task::Selection:
      return unstarted + std::max(0, s.level - s.bag_count);
    case Task::Sorting:
      return s.level + 1 - s.correct;
    case Task::Filling:
    case Task::Puzzle:
    case Task::MemoryFilling:
      return unstarted + s.level - s.correct;
    default:
      return unstarted + 1;
  }
}

bool dfs(const State& s, int depth, std::unordered_map<std::string, int>& failed, int* first) {
  if (lower_bound(s) > depth) return false;
  std::string key = identity(s);
  const auto known = failed.find(key);
  if (known != failed.end() && known->second >= depth) return false;
  for (int i = 0; i < s.option_count; ++i) {
    State child = s;
    child.budget = 255;  // the search counts its own depth
    apply(child, i);
    const bool found = child.done ? child.success != 0 : depth > 1 && dfs(child, depth - 1, failed, nullptr);
    if (found) {
      if (first) *first = i;
      return true;
    }
  }
  failed[std::move(key)] = depth;
  return false;
}

int search(const State& start, int* first) {
  if (start.done) return start.success ? 0 : -1;
  const int remaining = start.budget - start.steps;
  std::unordered_map<std::string, int> failed;
  for (int depth = std::max(1, lower_bound(start)); depth <= remaining; ++depth)
    if (dfs(start, depth, failed, first)) return depth;
  return -1;
}

}  // namespace

int oracle_option(const State& s) {
  int first = -1;
  return search(s, &first) > 0 ? first : -1;
}

int oracle_plan_length(const State& s) { return search(s, nullptr); }

Outcome play(State s, int policy, uint64_t policy_seed) {
  SplitMix64 rng(policy_seed);
  while (!s.done) {
    if (policy == 0) {
      const int option = oracle_option(s);
      if (option < 0) {
        waste_step(s);
      } else {
        apply(s, option);
      }
    } else {
      apply(s, s.option_count ? static_cast<int>(rng.below(s.option_count)) : -1);
    }
  }
  return {s.success, s.steps};
}

}  // namespace cogsim::kidgym
