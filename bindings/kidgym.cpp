// Bindings for the KidGym engine: episode states as opaque objects with array views, batched
// generation and whole-episode simulation (GIL released, spread over threads).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/parallel.hpp"
#include "common/rng.hpp"
#include "convention.hpp"
#include "kidgym/state.hpp"

namespace py = pybind11;
using namespace cogsim;
using namespace cogsim::kidgym;
using cogsim::bindings::require;

namespace {

using ActionTuple = std::tuple<int, int, int>;

ActionTuple to_tuple(const Action& a) { return {static_cast<int>(a.verb), a.a, a.b}; }

Action from_tuple(const ActionTuple& t) {
  const auto [verb, a, b] = t;
  require(
      verb >= 0 && verb <= static_cast<int>(Verb::Declare),
      "action verb must be in 0.." + std::to_string(static_cast<int>(Verb::Declare)) + ", got " + std::to_string(verb));
  require(a >= 0 && a <= 255 && b >= 0 && b <= 255, "action arguments must be in 0..255");
  return {static_cast<Verb>(verb), static_cast<uint8_t>(a), static_cast<uint8_t>(b)};
}

std::vector<ActionTuple> to_tuples(const std::vector<Action>& actions) {
  std::vector<ActionTuple> out;
  out.reserve(actions.size());
  for (const Action& a : actions) out.push_back(to_tuple(a));
  return out;
}

Task task_of(int task) {
  require(task >= 0 && task < kNumTasks,
          "task id must be in 0.." + std::to_string(kNumTasks - 1) + ", got " + std::to_string(task));
  return static_cast<Task>(task);
}

void require_level(int level) {
  require(level >= 1 && level <= 3, "level must be 1, 2 or 3, got " + std::to_string(level));
}

}  // namespace

void register_kidgym(py::module_& m) {
  // The options a catalog may leave out take the core's defaults (cpp/kidgym/state.hpp: Catalog).
  const Catalog kCatalogDefaults;
  py::class_<Catalog>(m, "KidCatalog")
      .def(py::init([](std::array<uint8_t, 4> category_sizes, std::vector<std::vector<uint8_t>> category_scenes,
                       uint8_t maze_scene, uint8_t mixed_scene, uint8_t basket_colours, uint8_t key_colours,
                       std::vector<float> animal_values, std::vector<uint8_t> rule_ascending, uint8_t puzzle_figures,
                       uint8_t selection_extra, uint8_t decode_extra, uint8_t memory_chests, uint8_t maze_decoy_keys,
                       std::vector<uint8_t> counting_categories) {
             Catalog c;
             c.category_sizes = category_sizes;
             c.category_scenes = std::move(category_scenes);
             require(c.category_scenes.size() == 4, "category_scenes must list scene ids for the 4 categories");
             c.maze_scene = maze_scene;
             c.mixed_scene = mixed_scene;
             c.basket_colours = basket_colours;
             c.key_colours = key_colours;
             c.animal_values = std::move(animal_values);
             c.rule_ascending = std::move(rule_ascending);
             c.selection_extra = selection_extra;
             c.decode_extra = decode_extra;
             c.memory_chests = memory_chests;
             c.maze_decoy_keys = maze_decoy_keys;
             c.puzzle_figures = puzzle_figures;
             c.counting_categories = std::move(counting_categories);
             validate_catalog(c);
             return c;
           }),
           py::arg("category_sizes"), py::arg("category_scenes"), py::arg("maze_scene"), py::arg("mixed_scene"),
           py::arg("basket_colours"), py::arg("key_colours"), py::arg("animal_values"), py::arg("rule_ascending"),
           py::arg("puzzle_figures"), py::arg("selection_extra") = kCatalogDefaults.selection_extra,
           py::arg("decode_extra") = kCatalogDefaults.decode_extra,
           py::arg("memory_chests") = kCatalogDefaults.memory_chests,
           py::arg("maze_decoy_keys") = kCatalogDefaults.maze_decoy_keys,
           py::arg("counting_categories") = kCatalogDefaults.counting_categories);

  py::class_<State>(m, "KidState")
      .def("copy", [](const State& s) { return State(s); })
      .def_property_readonly("task", [](const State& s) { return static_cast<int>(s.task); })
      .def_property_readonly("level", [](const State& s) { return static_cast<int>(s.level); })
      .def_property_readonly("agent", [](const State& s) { return py::make_tuple(s.agent / kSide, s.agent % kSide); })
      .def_property_readonly("phase", [](const State& s) { return static_cast<int>(s.phase); })
      .def_property_readonly("progress", [](const State& s) { return static_cast<int>(s.progress); })
      .def_property_readonly("done", [](const State& s) { return s.done != 0; })
      .def_property_readonly("truncated", [](const State& s) { return s.done == 2; })
      .def_property_readonly("success", [](const State& s) { return s.success != 0; })
      .def_property_readonly("category",
                             [](const State& s) { return s.category == kNone ? -1 : static_cast<int>(s.category); })
      .def_property_readonly("scene", [](const State& s) { return static_cast<int>(s.scene); })
      .def_property_readonly("steps", [](const State& s) { return static_cast<int>(s.steps); })
      .def_property_readonly("budget", [](const State& s) { return static_cast<int>(s.budget); })
      .def_property_readonly("bag_capacity", [](const State& s) { return static_cast<int>(s.bag_capacity); })
      .def_property_readonly("goal", [](const State& s) { return std::vector<int>(s.goal.begin(), s.goal.end()); })
      .def_property_readonly(
          "cells",
          [](const State& s) {
            py::array_t<uint8_t> out({kSide, kSide, static_cast<int>(sizeof(Cell))});
            std::memcpy(out.mutable_data(), s.cells.data(), sizeof(s.cells));
            return out;
          },
          "uint8 (5, 5, 8): kind, type, aux, label, placed, placed_category, extra, pad per play-area cell")
      .def_property_readonly(
          "bag",
          [](const State& s) {
            std::vector<std::tuple<int, int, int, int>> out;
            for (const Slot& slot : s.bag) {
              if (slot.kind == Kind::Empty) break;
              out.emplace_back(static_cast<int>(slot.kind), slot.category, slot.type, slot.extra);
            }
            return out;
          },
          "(kind, category, type, extra) per filled slot, from slot A")
      .def_property_readonly("reachable",
                             [](const State& s) {
                               const auto r = reachable(s);
                               py::array_t<bool> out({kSide, kSide});
                               std::copy(r.begin(), r.end(), out.mutable_data());
                               return out;
                             })
      .def(
          "enumerate", [](const State& s) { return to_tuples(enumerate(s)); },
          "every executable action, canonical order")
      .def(
          "options", [](const State& s) { return to_tuples(options(s)); },
          "the executable actions in the shuffled order shown")
      .def(
          "apply", [](State& s, const ActionTuple& a) { return apply(s, from_tuple(a)); }, py::arg("action"),
          "apply an action; False (a wasted step) if it is not executable")
      .def("waste_step", [](State& s) { waste_step(s); })
      .def("oracle_action",
           [](const State& s) -> py::object {
             Action a;
             if (!oracle_action(s, a)) return py::none();
             return py::cast(to_tuple(a));
           })
      .def("oracle_plan_length", [](const State& s) { return oracle_plan_length(s); })
      .def("to_bytes", [](const State& s) { return py::bytes(reinterpret_cast<const char*>(&s), sizeof(State)); });

  m.def("kidgym_task_names", [] {
    std::vector<std::string> names;
    for (int t = 0; t < kNumTasks; ++t) names.emplace_back(task_name(static_cast<Task>(t)));
    return names;
  });
  m.def(
      "kidgym_default_budget",
      [](int task, int level) {
        require_level(level);
        return default_budget(task_of(task), level);
      },
      py::arg("task"), py::arg("level"));
  m.def(
      "kidgym_budget_range",
      [](int task, int level) {
        require_level(level);
        return std::make_pair(fewest_steps(task_of(task), level), kMaxBudget);
      },
      py::arg("task"), py::arg("level"), "The step budgets (max_steps) an episode of the task at the level may have.");
  m.def("kidgym_verbs", [] { return std::vector<std::string>(std::begin(kVerbNames), std::end(kVerbNames)); });
  m.def("kidgym_kinds", [] { return std::vector<std::string>(std::begin(kKindNames), std::end(kKindNames)); });

  m.def(
      "kidgym_generate",
      [](int task, int level, const std::vector<uint64_t>& seeds, const Catalog& catalog, int budget,
         unsigned threads) {
        const Task t = task_of(task);
        require_level(level);
        std::vector<State> states(seeds.size());
        {
          py::gil_scoped_release release;
          parallel_for(
              seeds.size(), threads, [&](size_t i) { states[i] = generate(t, level, seeds[i], catalog, budget); }, 16);
        }
        return states;
      },
      py::arg("task"), py::arg("level"), py::arg("seeds"), py::arg("catalog"), py::arg("budget") = 0,
      py::arg("threads") = 0,
      "Generate one episode per seed (batched, GIL released). budget 0: the paper's step budget.");

  m.def(
      "kidgym_play",
      [](int task, int level, const std::vector<uint64_t>& seeds, const Catalog& catalog, const std::string& policy,
         uint64_t policy_seed, int budget, unsigned threads) {
        const Task t = task_of(task);
        require_level(level);
        require(policy == "oracle" || policy == "random", "policy must be 'oracle' or 'random', got '" + policy + "'");
        const int policy_id = policy == "oracle" ? 0 : 1;
        py::array_t<uint8_t> success(seeds.size()), steps(seeds.size());
        auto* success_data = success.mutable_data();
        auto* steps_data = steps.mutable_data();
        {
          py::gil_scoped_release release;
          parallel_for(
              seeds.size(), threads,
              [&](size_t i) {
                const Outcome o =
                    play(generate(t, level, seeds[i], catalog, budget), policy_id, derive_seed(policy_seed, seeds[i]));
                success_data[i] = o.success;
                steps_data[i] = o.steps;
              },
              16);
        }
        return py::make_tuple(success, steps);
      },
      py::arg("task"), py::arg("level"), py::arg("seeds"), py::arg("catalog"), py::arg("policy"),
      py::arg("policy_seed") = 0, py::arg("budget") = 0, py::arg("threads") = 0,
      "Generate and play whole episodes in the core with a scripted policy; returns (success, steps) uint8 arrays.");
}
