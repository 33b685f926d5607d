// Bindings for KidGym's engine (cpp/kidgym/kidgym.hpp): the catalog of the release's images as ids,
// episode states with array views, batched generation and whole-episode play, the tasks, budgets and verbs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/parallel.hpp"
#include "common/rng.hpp"
#include "convention.hpp"
#include "kidgym/kidgym.hpp"

namespace py = pybind11;
using namespace cogsim;
using namespace cogsim::kidgym;
using cogsim::bindings::require;

namespace {

Task task_of_id(int task) {
  require(task >= 0 && task < kNumTasks,
          "task id must be in 0.." + std::to_string(kNumTasks - 1) + ", got " + std::to_string(task));
  return static_cast<Task>(task);
}

void require_level(int level) {
  require(level >= 1 && level <= 3, "level must be 1, 2 or 3, got " + std::to_string(level));
}

py::array_t<uint8_t> object_rows(const Object* objects, int count) {
  py::array_t<uint8_t> out({count, 8});
  if (count) std::memcpy(out.mutable_data(), objects, sizeof(Object) * count);
  return out;
}

// Rows of (asset, label, x, y, role, flags, arg, value) into objects; returns how many.
int read_rows(const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& rows, Object* out, int limit,
              const char* name) {
  require(rows.ndim() == 2 && rows.shape(1) == 8, std::string(name) + " must be a uint8 array of shape (n, 8)");
  require(rows.shape(0) <= limit, std::string(name) + " holds at most " + std::to_string(limit) + " rows");
  const auto* data = rows.data();
  for (py::ssize_t i = 0; i < rows.shape(0); ++i) {
    require(data[8 * i + 4] <= static_cast<uint8_t>(Role::Center), std::string(name) + ": unknown role");
    require(data[8 * i + 2] < kSide && data[8 * i + 3] < kSide, std::string(name) + ": cells are 0..4");
  }
  if (rows.shape(0)) std::memcpy(out, data, sizeof(Object) * rows.shape(0));
  return static_cast<int>(rows.shape(0));
}

py::list option_tuples(const State& s) {
  py::list out;
  for (int i = 0; i < s.option_count; ++i)
    out.append(py::make_tuple(static_cast<int>(s.options[i].verb), s.options[i].slot, s.options[i].target));
  return out;
}

}  // namespace

void register_kidgym(py::module_& m) {
  py::class_<Catalog>(m, "KidCatalog")
      .def(
          py::init([](std::array<std::vector<uint8_t>, 4> resources, std::array<std::vector<uint8_t>, 2> counting_piles,
                      std::vector<std::array<uint8_t, 4>> animal_pieces, std::vector<uint8_t> all_pieces,
                      std::array<uint8_t, 4> baskets, std::array<uint8_t, 3> keys, std::array<uint8_t, 3> doors,
                      std::array<uint8_t, 4> puzzle, std::array<uint8_t, 8> roman, uint8_t diamond, uint8_t wall,
                      uint8_t treasure, std::array<std::vector<std::vector<uint8_t>>, 3> sorting,
                      std::array<std::array<std::vector<std::array<uint8_t, 25>>, 3>, 3> layouts) {
            Catalog c;
            c.resources = std::move(resources);
            c.counting_piles = std::move(counting_piles);
            c.animal_pieces = std::move(animal_pieces);
            c.all_pieces = std::move(all_pieces);
            c.baskets = baskets;
            c.keys = keys;
            c.doors = doors;
            c.puzzle = puzzle;
            c.roman = roman;
            c.diamond = diamond;
            c.wall = wall;
            c.treasure = treasure;
            c.sorting = std::move(sorting);
            c.layouts = std::move(layouts);
            validate(c);
            return c;
          }),
          py::arg("resources"), py::arg("counting_piles"), py::arg("animal_pieces"), py::arg("all_pieces"),
          py::arg("baskets"), py::arg("keys"), py::arg("doors"), py::arg("puzzle"), py::arg("roman"),
          py::arg("diamond"), py::arg("wall"), py::arg("treasure"), py::arg("sorting"), py::arg("layouts"));

  py::class_<State>(m, "KidState")
      .def("copy", [](const State& s) { return State(s); })
      .def_property_readonly("task", [](const State& s) { return static_cast<int>(s.task); })
      .def_property_readonly("level", [](const State& s) { return static_cast<int>(s.level); })
      .def_property_readonly("steps", [](const State& s) { return static_cast<int>(s.steps); })
      .def_property_readonly("budget", [](const State& s) { return static_cast<int>(s.budget); })
      .def_property_readonly("done", [](const State& s) { return s.done != 0; })
      .def_property_readonly("truncated", [](const State& s) { return s.done == 2; })
      .def_property_readonly("success", [](const State& s) { return s.success != 0; })
      .def_property_readonly("started", [](const State& s) { return s.started != 0; })
      .def_property_readonly("side_bar", [](const State& s) { return s.side_bar != 0; })
      .def_property_readonly("show_labels", [](const State& s) { return s.show_labels != 0; })
      .def_property_readonly("background", [](const State& s) { return static_cast<int>(s.background); })
      .def_property_readonly("layout", [](const State& s) { return static_cast<int>(s.layout); })
      .def_property_readonly("correct", [](const State& s) { return static_cast<int>(s.correct); })
      .def_property_readonly("last_step_ok", [](const State& s) { return s.last_step_ok != 0; })
      .def_property_readonly("executable", [](const State& s) { return s.executable != 0; })
      .def_property_readonly("target", [](const State& s) { return py::make_tuple(s.target_x, s.target_y); })
      .def_property_readonly(
          "agent", [](const State& s) { return py::make_tuple(s.agent_x, s.agent_y, s.agent_dir); },
          "(x, y, direction): direction 0 down, 1 right, 2 up, 3 left")
      .def_property_readonly("facts", [](const State& s) { return std::vector<int>(s.facts.begin(), s.facts.end()); })
      .def_property_readonly(
          "objects", [](const State& s) { return object_rows(s.objects.data(), s.count); },
          "uint8 (n, 8): asset, label, x, y, role, flags, arg, value per object, in the release's list order")
      .def_property_readonly(
          "bag", [](const State& s) { return object_rows(s.bag.data(), s.bag_count); }, "uint8 (n, 8), slots A..")
      .def_property_readonly("pending", [](const State& s) { return object_rows(s.pending.data(), s.pending_count); })
      .def("options", &option_tuples, "the action list shown, as (verb, slot, target), in its order")
      .def(
          "apply",
          [](State& s, int index) {
            require(
                index >= 0 && index < s.option_count,
                "option index must be in 0.." + std::to_string(s.option_count - 1) + ", got " + std::to_string(index));
            apply(s, index);
          },
          py::arg("index"), "apply option `index` of the list shown")
      .def("waste_step", [](State& s) { waste_step(s); })
      .def("oracle_option",
           [](const State& s) -> py::object {
             int option;
             {
               py::gil_scoped_release release;
               option = oracle_option(s);
             }
             return option < 0 ? py::none() : py::cast(option);
           })
      .def("oracle_plan_length",
           [](const State& s) {
             py::gil_scoped_release release;
             return oracle_plan_length(s);
           })
      .def("check_goal", [](const State& s) { return check_goal(s); })
      .def(
          "astar_path", [](const State& s, int x, int y) { return astar_path(s, x, y); }, py::arg("x"), py::arg("y"),
          "the release's A* path from the agent to (x, y) as cells (x, y); empty if none")
      .def("to_bytes", [](const State& s) { return py::bytes(reinterpret_cast<const char*>(&s), kWorldBytes); });

  m.def(
      "kidgym_state",
      [](int task, int level, int budget, int steps,
         const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& objects,
         const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& bag,
         const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& pending,
         std::tuple<int, int, int> agent, std::vector<int> facts, std::vector<std::tuple<int, int, int>> options,
         bool show_labels, bool side_bar, bool started, int correct, std::tuple<int, int> target, int background,
         int layout, bool executable, uint64_t shuffle_seed) {
        require_level(level);
        State s{};
        s.task = static_cast<uint8_t>(task_of_id(task));
        s.level = static_cast<uint8_t>(level);
        require(budget >= 1 && budget <= kMaxBudget && steps >= 0 && steps < budget,
                "budget must be in 1..60 and steps below it");
        s.budget = static_cast<uint8_t>(budget);
        s.steps = static_cast<uint8_t>(steps);
        s.count = static_cast<uint8_t>(read_rows(objects, s.objects.data(), kMaxObjects, "objects"));
        s.bag_count = static_cast<uint8_t>(read_rows(bag, s.bag.data(), kBagSlots, "bag"));
        s.pending_count = static_cast<uint8_t>(read_rows(pending, s.pending.data(), kBagSlots, "pending"));
        const auto [x, y, dir] = agent;
        require(x >= 0 && x < kSide && y >= 0 && y < kSide && dir >= 0 && dir < 4,
                "agent must be (x, y, direction) with x, y in 0..4 and direction in 0..3");
        s.agent_x = static_cast<uint8_t>(x);
        s.agent_y = static_cast<uint8_t>(y);
        s.agent_dir = static_cast<uint8_t>(dir);
        require(facts.size() <= kFactBytes, "facts holds at most 16 values");
        for (size_t i = 0; i < facts.size(); ++i) {
          require(facts[i] >= 0 && facts[i] <= 255, "facts are bytes (0..255)");
          s.facts[i] = static_cast<uint8_t>(facts[i]);
        }
        require(options.size() <= kMaxOptions, "at most 32 options");
        for (const auto& [verb, slot, target] : options) {
          require(verb >= 0 && verb <= static_cast<int>(Verb::Declare) && slot >= 0 && slot < kBagSlots &&
                      target >= 0 && target <= 255,
                  "options are (verb 0..7, slot 0..3, target 0..255)");
          s.options[s.option_count++] =
              Option{static_cast<Verb>(verb), static_cast<uint8_t>(slot), static_cast<uint8_t>(target)};
        }
        s.show_labels = show_labels;
        s.side_bar = side_bar;
        s.started = started;
        s.correct = static_cast<uint8_t>(correct);
        s.target_x = static_cast<uint8_t>(std::get<0>(target));
        s.target_y = static_cast<uint8_t>(std::get<1>(target));
        s.background = static_cast<uint8_t>(background);
        s.layout = static_cast<uint8_t>(layout);
        s.executable = executable;
        s.shuffle_seed = shuffle_seed;
        return s;
      },
      py::arg("task"), py::arg("level"), py::arg("budget"), py::arg("steps"), py::arg("objects"), py::arg("bag"),
      py::arg("pending"), py::arg("agent"), py::arg("facts"), py::arg("options"), py::arg("show_labels"),
      py::arg("side_bar"), py::arg("started"), py::arg("correct"), py::arg("target"), py::arg("background"),
      py::arg("layout"), py::arg("executable") = false, py::arg("shuffle_seed") = 0,
      "A state built field by field (to replay a scene recorded from the release).");

  m.def(
      "kidgym_generate",
      [](int task, int level, const std::vector<uint64_t>& seeds, const Catalog& catalog, int budget, bool executable,
         unsigned threads) {
        const Task t = task_of_id(task);
        require_level(level);
        std::vector<State> states(seeds.size());
        {
          py::gil_scoped_release release;
          parallel_for(
              seeds.size(), threads,
              [&](size_t i) { states[i] = generate(t, level, seeds[i], catalog, budget, executable); }, 16);
        }
        return states;
      },
      py::arg("task"), py::arg("level"), py::arg("seeds"), py::arg("catalog"), py::arg("budget") = 0,
      py::arg("executable") = false, py::arg("threads") = 0,
      "Episodes as the release draws them, one per seed (mazes play layout seed % 100 + 1); batched, GIL released.");

  m.def(
      "kidgym_play",
      [](int task, int level, const std::vector<uint64_t>& seeds, const Catalog& catalog, const std::string& policy,
         uint64_t policy_seed, int budget, bool executable, unsigned threads) {
        const Task t = task_of_id(task);
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
                const Outcome o = play(generate(t, level, seeds[i], catalog, budget, executable), policy_id,
                                       derive_seed(policy_seed, seeds[i]));
                success_data[i] = o.success;
                steps_data[i] = o.steps;
              },
              16);
        }
        return py::make_tuple(success, steps);
      },
      py::arg("task"), py::arg("level"), py::arg("seeds"), py::arg("catalog"), py::arg("policy"),
      py::arg("policy_seed") = 0, py::arg("budget") = 0, py::arg("executable") = false, py::arg("threads") = 0,
      "Generate and play whole release episodes with a scripted policy; returns (success, steps) uint8 arrays.");

  m.def("kidgym_task_names", [] {
    std::vector<std::string> names;
    for (int t = 0; t < kNumTasks; ++t) names.emplace_back(task_name(static_cast<Task>(t)));
    return names;
  });
  m.def(
      "kidgym_default_budget",
      [](int task, int level) {
        const Task t = task_of_id(task);
        require_level(level);
        return default_budget(t, level);
      },
      py::arg("task"), py::arg("level"), "The release's registered step budget of a task at a level (its max_steps).");
  m.def("kidgym_verbs", [] { return std::vector<std::string>(std::begin(kVerbNames), std::end(kVerbNames)); });
  m.def("kidgym_roles", [] { return std::vector<std::string>(std::begin(kRoleNames), std::end(kRoleNames)); });
}
