// Bindings for RNG-Bench (Matching Pairs and the 3D Maze). Batches cross the boundary as dicts of
// numpy arrays that the core updates in place (no copies); batch calls release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/parallel.hpp"
#include "convention.hpp"
#include "maze/maze.hpp"
#include "pairs/pairs.hpp"

namespace py = pybind11;
using namespace cogsim;
using cogsim::bindings::item_errors;
using cogsim::bindings::require;

namespace {

// The buffer of field `name` of a batch dict: it must exist, have dtype T, be C-contiguous and
// writeable (the core updates it in place), and hold `length` items (any length if negative).
template <typename T>
T* field(const py::dict& batch, const char* name, py::ssize_t length) {
  if (!batch.contains(name)) throw py::value_error(std::string("batch is missing the field '") + name + "'");
  py::array array = py::reinterpret_borrow<py::array>(batch[name]);
  if (!py::isinstance<py::array>(batch[name]) || !py::dtype::of<T>().is(array.dtype()) ||
      !(array.flags() & py::array::c_style) || !array.writeable()) {
    throw py::value_error(std::string("batch field '") + name + "' must be a writeable C-contiguous " +
                          std::string(py::str(py::dtype::of<T>())) + " array");
  }
  if (length >= 0 && array.size() != length) {
    throw py::value_error(std::string("batch field '") + name + "' must hold " + std::to_string(length) +
                          " items, got " + std::to_string(array.size()));
  }
  return static_cast<T*>(array.mutable_data());
}

template <typename T>
py::ssize_t length_of(const py::dict& batch, const char* name) {
  field<T>(batch, name, -1);
  return py::reinterpret_borrow<py::array>(batch[name]).size();
}

using U8Array = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;
using I32Array = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

// -- maze ---------------------------------------------------------------------------------------

const uint8_t* square_walls(const U8Array& walls, int& n) {
  require(walls.ndim() == 2 && walls.shape(0) == walls.shape(1), "walls must be an (n, n) uint8 array");
  n = static_cast<int>(walls.shape(0));
  return walls.data();
}

maze::Walkers walkers(const py::dict& batch, py::ssize_t& count) {
  count = length_of<int32_t>(batch, "row");
  const auto mazes_cells = length_of<uint8_t>(batch, "walls");
  maze::Walkers w{field<uint8_t>(batch, "walls", mazes_cells),   field<int64_t>(batch, "offset", count),
                  field<int32_t>(batch, "size", count),          field<int32_t>(batch, "goal_row", count),
                  field<int32_t>(batch, "goal_col", count),      field<int32_t>(batch, "row", count),
                  field<int32_t>(batch, "col", count),           field<int32_t>(batch, "heading", count),
                  field<int32_t>(batch, "steps", count),         field<int32_t>(batch, "collisions", count),
                  field<int32_t>(batch, "visited_count", count), field<uint8_t>(batch, "visited", mazes_cells),
                  field<uint8_t>(batch, "done", count)};
  // The stepper trusts poses and offsets, so check them once per call (cheap next to the steps).
  for (py::ssize_t i = 0; i < count; ++i) {
    const int n = w.size[i];
    if (n < maze::kMinSize || n > maze::kMaxSize || w.offset[i] < 0 || w.offset[i] + int64_t{n} * n > mazes_cells ||
        w.row[i] < 0 || w.row[i] >= n || w.col[i] < 0 || w.col[i] >= n || w.heading[i] < 0 || w.heading[i] > 3) {
      throw py::value_error("walker " + std::to_string(i) + " has a size, offset or pose outside its maze");
    }
  }
  return w;
}

void register_maze(py::module_& m) {
  m.def(
      "maze_generate",
      [](const I32Array& sizes, const py::array_t<uint64_t, py::array::c_style | py::array::forcecast>& seeds,
         double loop_rate, unsigned threads) {
        require(sizes.ndim() == 1 && seeds.ndim() == 1 && sizes.size() == seeds.size(),
                "sizes and seeds must be 1-D arrays of one length");
        const auto count = static_cast<size_t>(sizes.size());
        std::vector<maze::Maze> mazes(count);
        std::vector<int32_t> optimal(count), cells(count);
        const int32_t* size = sizes.data();
        const uint64_t* seed = seeds.data();
        for (size_t i = 0; i < count; ++i)  // checks size and loop rate before any thread starts
          item_errors("maze " + std::to_string(i), [&] { return maze::extra_opening_count(size[i], loop_rate); });
        {
          py::gil_scoped_release release;
          parallel_for(count, threads, [&](size_t i) {
            mazes[i] = maze::generate(size[i], seed[i], loop_rate);
            const int n = size[i];
            const uint8_t* walls = mazes[i].walls.data();
            optimal[i] =
                static_cast<int32_t>(maze::shortest_actions(walls, n, 0, 0, maze::kStartHeading, n - 1, n - 1).size());
            cells[i] = maze::shortest_cells(walls, n, 0, 0, n - 1, n - 1);
          });
        }
        py::list walls, extra;
        for (auto& maze : mazes) {
          U8Array array({maze.size, maze.size});
          std::copy(maze.walls.begin(), maze.walls.end(), array.mutable_data());
          walls.append(array);
          extra.append(maze.extra_openings);
        }
        return py::make_tuple(walls, extra, I32Array(count, optimal.data()), I32Array(count, cells.data()));
      },
      py::arg("sizes"), py::arg("seeds"), py::arg("loop_rate"), py::arg("threads") = 0,
      "Generates mazes; returns (walls list, extra openings, L* in actions, shortest path in cells).");
  m.def(
      "maze_extra_openings", [](int n, double loop_rate) { return maze::extra_opening_count(n, loop_rate); },
      py::arg("n"), py::arg("loop_rate"));
  m.def(
      "maze_shortest_actions",
      [](const U8Array& walls, int row, int col, int heading, int goal_row, int goal_col) {
        int n = 0;
        const uint8_t* data = square_walls(walls, n);
        auto actions = maze::shortest_actions(data, n, row, col, heading, goal_row, goal_col);
        return U8Array(static_cast<py::ssize_t>(actions.size()), actions.data());
      },
      py::arg("walls"), py::arg("row"), py::arg("col"), py::arg("heading"), py::arg("goal_row"), py::arg("goal_col"));
  m.def(
      "maze_shortest_cells",
      [](const U8Array& walls, int from_row, int from_col, int to_row, int to_col) {
        int n = 0;
        const uint8_t* data = square_walls(walls, n);
        return maze::shortest_cells(data, n, from_row, from_col, to_row, to_col);
      },
      py::arg("walls"), py::arg("from_row"), py::arg("from_col"), py::arg("to_row"), py::arg("to_col"));
  m.def(
      "maze_reachable_cells",
      [](const U8Array& walls) {
        int n = 0;
        const uint8_t* data = square_walls(walls, n);
        return maze::reachable_cells(data, n);
      },
      py::arg("walls"));
  m.def(
      "maze_step",
      [](const py::dict& batch, const U8Array& actions, unsigned threads, bool want_outcomes) {
        py::ssize_t count = 0;
        const maze::Walkers w = walkers(batch, count);
        require(actions.ndim() == 2 && actions.shape(1) == count,
                "actions must be a (rounds, " + std::to_string(count) + ") uint8 array");
        const auto rounds = static_cast<size_t>(actions.shape(0));
        py::array_t<uint8_t> outcomes(want_outcomes ? std::vector<py::ssize_t>{actions.shape(0), count}
                                                    : std::vector<py::ssize_t>{0, count});
        uint8_t* out = want_outcomes ? outcomes.mutable_data() : nullptr;
        {
          py::gil_scoped_release release;
          maze::step_batch(w, static_cast<size_t>(count), actions.data(), rounds, out, threads);
        }
        return outcomes;
      },
      py::arg("batch"), py::arg("actions"), py::arg("threads") = 0, py::arg("outcomes") = true,
      "Applies actions[t, i] to walker i for every round t, in place; returns outcome codes (t, i).");
}

// -- pairs ----------------------------------------------------------------------------------------

pairs::Games games(const py::dict& batch, py::ssize_t& count) {
  count = length_of<int32_t>(batch, "pending");
  const auto cards_total = length_of<int16_t>(batch, "identities");
  pairs::Games g{field<int16_t>(batch, "identities", cards_total), field<int32_t>(batch, "partner", cards_total),
                 field<int64_t>(batch, "offset", count),           field<int32_t>(batch, "cards", count),
                 field<int32_t>(batch, "players", count),          field<uint8_t>(batch, "state", cards_total),
                 field<uint8_t>(batch, "seen", cards_total),       field<int32_t>(batch, "pending", count),
                 field<int32_t>(batch, "player", count),           field<int32_t>(batch, "scores", 2 * count),
                 field<int32_t>(batch, "remaining", count)};
  for (py::ssize_t i = 0; i < count; ++i) {
    if (g.cards[i] < 2 || g.cards[i] % 2 || g.offset[i] < 0 || g.offset[i] + g.cards[i] > cards_total ||
        g.players[i] < 1 || g.players[i] > 2 || g.player[i] < 0 || g.player[i] >= g.players[i] || g.pending[i] < -1 ||
        g.pending[i] >= g.cards[i]) {
      throw py::value_error("game " + std::to_string(i) + " has cards, offset, players or pending out of range");
    }
    // The policy trusts partners, so check that they pair cards of one identity within the game.
    for (int32_t k = 0; k < g.cards[i]; ++k) {
      const int64_t card = g.offset[i] + k;
      const int32_t other = g.partner[card];
      if (other < 0 || other >= g.cards[i] || other == k || g.partner[g.offset[i] + other] != k ||
          g.identities[g.offset[i] + other] != g.identities[card]) {
        throw py::value_error("game " + std::to_string(i) + " has an inconsistent partner table at card " +
                              std::to_string(k));
      }
    }
  }
  return g;
}

// Runs a per-game core routine (games, count, int32 out, threads) without the GIL; one int32 per game.
template <class Routine>
py::array_t<int32_t> per_game(const py::dict& batch, unsigned threads, Routine routine) {
  py::ssize_t count = 0;
  const pairs::Games g = games(batch, count);
  py::array_t<int32_t> result(count);
  int32_t* out = result.mutable_data();
  {
    py::gil_scoped_release release;
    routine(g, static_cast<size_t>(count), out, threads);
  }
  return result;
}

void register_pairs(py::module_& m) {
  m.def(
      "pairs_deal",
      [](int rows, int cols, uint64_t seed) {
        auto ids = pairs::deal(rows, cols, seed);
        py::array_t<int16_t> out({rows, cols});
        std::copy(ids.begin(), ids.end(), out.mutable_data());
        return out;
      },
      py::arg("rows"), py::arg("cols"), py::arg("seed"));
  m.def(
      "pairs_flip",
      [](const py::dict& batch, const I32Array& cards, unsigned threads) {
        py::ssize_t count = 0;
        const pairs::Games g = games(batch, count);
        require(cards.ndim() == 1 && cards.size() == count, "cards must hold one flip per game");
        py::array_t<uint8_t> outcomes(count);
        uint8_t* out = outcomes.mutable_data();
        {
          py::gil_scoped_release release;
          pairs::flip_batch(g, static_cast<size_t>(count), cards.data(), out, threads);
        }
        return outcomes;
      },
      py::arg("batch"), py::arg("cards"), py::arg("threads") = 0,
      "Flips cards[i] in game i, in place; returns outcome codes (0 invalid, 1 first, 2 match, 3 mismatch, 4 over).");
  m.def(
      "pairs_optimal",
      [](const py::dict& batch, unsigned threads) { return per_game(batch, threads, pairs::optimal_batch); },
      py::arg("batch"), py::arg("threads") = 0, "The perfect-memory policy's next flip per game (-1 when over).");
  m.def(
      "pairs_play_optimal",
      [](const py::dict& batch, unsigned threads) { return per_game(batch, threads, pairs::play_optimal); },
      py::arg("batch"), py::arg("threads") = 0,
      "Plays every game to the end with the optimal policy; returns responses used.");
}

}  // namespace

void register_rng(py::module_& m) {
  register_maze(m);
  register_pairs(m);
}
