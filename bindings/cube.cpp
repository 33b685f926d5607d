// Bindings for the cube engine. States cross the boundary as uint8 arrays of shape (N, 40)
// (cp, co, ep, eo); batch calls release the GIL and spread items over threads.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/parallel.hpp"
#include "convention.hpp"
#include "cube/coset_search.hpp"
#include "cube/coset_table.hpp"
#include "cube/cubie.hpp"
#include "cube/generate.hpp"
#include "cube/oracle.hpp"

namespace py = pybind11;
using namespace cogsim;
using namespace cogsim::cube;
using cogsim::bindings::item_errors;
using cogsim::bindings::require;

namespace {

using StateArray = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

std::vector<CubieCube> read_states(const StateArray& array, bool check) {
  require(array.ndim() == 2 && array.shape(1) == kPackedSize,
          "cube states must be a uint8 array of shape (N, 40), got shape with ndim=" + std::to_string(array.ndim()));
  const auto n = static_cast<size_t>(array.shape(0));
  std::vector<CubieCube> states(n);
  const uint8_t* data = array.data();
  for (size_t i = 0; i < n; ++i) {
    states[i] = unpack(data + i * kPackedSize);
    if (check) item_errors("state " + std::to_string(i), [&] { validate(states[i]); });
  }
  return states;
}

// `width` int32 values per state (width 0: one value, shape (N,)), written by fill(state, row) on all
// cores with the GIL released.
template <typename Fill>
py::array_t<int32_t> per_state(const StateArray& array, py::ssize_t width, Fill&& fill) {
  const std::vector<CubieCube> states = read_states(array, true);
  const auto count = static_cast<py::ssize_t>(states.size());
  py::array_t<int32_t> out = width == 0 ? py::array_t<int32_t>(count) : py::array_t<int32_t>({count, width});
  int32_t* data = out.mutable_data();
  const size_t stride = width == 0 ? 1 : static_cast<size_t>(width);
  py::gil_scoped_release release;
  parallel_for(states.size(), 0, [&](size_t i) { fill(states[i], data + i * stride); }, 1024);
  return out;
}

StateArray write_states(const std::vector<CubieCube>& states) {
  StateArray out({static_cast<py::ssize_t>(states.size()), static_cast<py::ssize_t>(kPackedSize)});
  uint8_t* data = out.mutable_data();
  for (size_t i = 0; i < states.size(); ++i) pack(states[i], data + i * kPackedSize);
  return out;
}

// Parses every text into a state, large batches on all cores without the GIL; an error names the
// first bad item's index (found again in order, so the message does not depend on thread timing).
template <typename Parse>
StateArray parse_each(const std::vector<std::string>& texts, const std::string& what, Parse parse, size_t first = 0) {
  std::vector<CubieCube> states(texts.size());
  constexpr size_t kParallelFrom = 2048;
  if (texts.size() >= kParallelFrom) {
    bool parsed = true;
    {
      py::gil_scoped_release release;
      try {
        parallel_for(texts.size(), 0, [&](size_t i) { states[i] = parse(texts[i]); }, 512);
      } catch (const std::invalid_argument&) {
        parsed = false;
      }
    }
    if (parsed) return write_states(states);
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    states[i] = item_errors(what + " " + std::to_string(first + i), [&] { return parse(texts[i]); });
  }
  return write_states(states);
}

py::bytes state_bytes(const CubieCube& c) {
  uint8_t buffer[kPackedSize];
  pack(c, buffer);
  return py::bytes(reinterpret_cast<const char*>(buffer), kPackedSize);
}

CubieCube bytes_state(const py::bytes& b) {
  const std::string s = b;
  require(s.size() == kPackedSize, "a packed cube state has 40 bytes, got " + std::to_string(s.size()));
  CubieCube c = unpack(reinterpret_cast<const uint8_t*>(s.data()));
  validate(c);
  return c;
}

// Progress messages come from worker threads without the GIL; take it to call into Python.
// The phase-1 table option: "off", "plain" or "sorted"; True and False for "plain" and "off".
Phase1Kind phase1_kind(const py::object& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? Phase1Kind::kPlain : Phase1Kind::kOff;
  if (py::isinstance<py::str>(value)) {
    const std::string name = value.cast<std::string>();
    if (name == "off") return Phase1Kind::kOff;
    if (name == "plain") return Phase1Kind::kPlain;
    if (name == "sorted") return Phase1Kind::kSorted;
  }
  throw py::value_error("phase1 must be 'off', 'plain' or 'sorted' (or a bool), got " +
                        py::repr(value).cast<std::string>());
}

const char* phase1_name(Phase1Kind kind) {
  switch (kind) {
    case Phase1Kind::kPlain:
      return "plain";
    case Phase1Kind::kSorted:
      return "sorted";
    default:
      return "off";
  }
}

Progress python_progress(const py::object& callback) {
  if (callback.is_none()) return {};
  auto shared = std::make_shared<py::object>(callback);
  return [shared](const std::string& message) {
    py::gil_scoped_acquire gil;
    (*shared)(message);
  };
}

// Build progress (done, total, stage) from a worker thread.
BuildProgress python_build_progress(const py::object& callback) {
  if (callback.is_none()) return {};
  auto shared = std::make_shared<py::object>(callback);
  return [shared](uint64_t done, uint64_t total, const std::string& stage) {
    py::gil_scoped_acquire gil;
    (*shared)(done, total, stage);
  };
}

py::dict coset_info(const CosetSolver& solver) {
  const CosetTable& table = solver.table();
  py::dict d;
  d["name"] = table.shape().table_name();
  d["size"] = table.shape().name;
  d["path"] = table.path();
  d["bytes"] = table.bytes();
  d["base"] = table.shape().base;
  d["built"] = table.built();
  d["build_seconds"] = table.build_seconds();
  d["vectorised"] = solver.vectorised();
  return d;
}

// One optimal solution per state, passed to answer(i, moves); with `mark`, a state over max_nodes
// gets answer(i, nullopt). Many states: one thread each; fewer states than threads: each searched
// in turn with all of them.
template <typename Answer>
void solve_each(const CosetSolver& solver, const std::vector<CubieCube>& states, uint64_t max_nodes, unsigned threads,
                bool mark, uint64_t* nodes, Answer&& answer) {
  const unsigned pool = threads == 0 ? default_threads() : threads;
  const bool across_states = states.size() >= pool;
  py::gil_scoped_release release;
  parallel_for(states.size(), across_states ? pool : 1, [&](size_t i) {
    SearchStats stats;
    try {
      answer(i, std::optional<std::vector<int>>(solver.solve(states[i], max_nodes, &stats, across_states ? 1 : pool)));
    } catch (const SearchLimitExceeded&) {
      if (!mark) {
        throw SearchLimitExceeded("state " + std::to_string(i) +
                                  ": search exceeded max_nodes=" + std::to_string(max_nodes) + "; raise max_nodes");
      }
      answer(i, std::optional<std::vector<int>>());
      stats.nodes = max_nodes;
    }
    nodes[i] = stats.nodes;
  });
}

py::dict table_info(const PatternDatabase& db) {
  py::dict d;
  d["name"] = db.name();
  d["path"] = db.path();
  d["entries"] = db.entries();
  d["bytes"] = db.bytes();
  d["built"] = db.built();
  d["build_seconds"] = db.build_seconds();
  return d;
}

}  // namespace

void register_cube(py::module_& m) {
  py::register_exception<SearchLimitExceeded>(m, "SearchLimitError", PyExc_RuntimeError);
  py::register_exception<TableMemoryError>(m, "TableMemoryError", PyExc_MemoryError);

  m.def("cube_move_names", [] {
    std::vector<std::string> names;
    for (int i = 0; i < kMoves; ++i) names.push_back(move_name(i));
    return names;
  });
  m.def("cube_parse_moves", [](const std::string& text) { return parse_moves(text); }, py::arg("text"));
  m.def("cube_format_moves", [](const std::vector<int>& moves) {
    for (int mv : moves) {
      if (mv < 0 || mv >= kMoves) throw py::value_error("move index must be in 0..17, got " + std::to_string(mv));
    }
    return format_moves(moves);
  });
  m.def("cube_solved", [] { return state_bytes(CubieCube::solved()); });
  m.def("cube_apply", [](const py::bytes& state, const std::string& moves) {
    return state_bytes(apply_moves(bytes_state(state), parse_moves(moves)));
  });
  m.def("cube_multiply",
        [](const py::bytes& a, const py::bytes& b) { return state_bytes(bytes_state(a) * bytes_state(b)); });
  m.def("cube_inverse", [](const py::bytes& state) { return state_bytes(bytes_state(state).inverse()); });
  m.def("cube_to_facelets", [](const py::bytes& state) { return to_facelets(bytes_state(state)); });
  m.def("cube_from_facelets", [](const std::string& facelets) { return state_bytes(from_facelets(facelets)); });
  m.def("cube_validate", [](const py::bytes& state) { bytes_state(state); });
  m.def("cube_random_state", [](uint64_t seed) { return state_bytes(random_state(seed)); }, py::arg("seed"));

  m.def(
      "cube_states_from_moves",
      [](const std::vector<std::string>& sequences) {
        return parse_each(sequences, "move string",
                          [](const std::string& s) { return apply_moves(CubieCube::solved(), parse_moves(s)); });
      },
      py::arg("sequences"));
  m.def(
      "cube_states_from_facelets",
      [](const std::vector<std::string>& facelets) {
        return parse_each(facelets, "facelet string", [](const std::string& s) { return from_facelets(s); });
      },
      py::arg("facelets"));
  m.def(
      "cube_states_from_text",
      [](const std::vector<std::string>& texts, const std::string& item, size_t first) {
        return parse_each(texts, item, [](const std::string& s) { return state_from_text(s); }, first);
      },
      py::arg("texts"), py::arg("item") = "state", py::arg("first") = 0,
      "States from 54-letter facelet strings or move strings, each recognised on its own; an error names\n"
      "the bad text as '<item> <first + index>'.");
  m.def(
      "cube_neighbours",
      [](const StateArray& array) {
        const std::vector<CubieCube> states = read_states(array, true);
        std::vector<CubieCube> out(states.size() * kMoves);
        for (size_t i = 0; i < states.size(); ++i) {
          for (int mv = 0; mv < kMoves; ++mv) out[i * kMoves + mv] = states[i] * move_cube(mv);
        }
        return write_states(out);
      },
      py::arg("states"), "States after each of the 18 moves: shape (N * 18, 40), move-major within a state.");

  py::class_<Oracle, std::shared_ptr<Oracle>>(m, "CubeOracle")
      .def(py::init([](const std::string& cache_dir, int edge_size, int perimeter_depth, unsigned threads,
                       const py::object& progress, bool shell_filter, const py::object& phase1) {
             OracleConfig config{cache_dir, edge_size, perimeter_depth, shell_filter, threads, phase1_kind(phase1)};
             Progress report = python_progress(progress);
             py::gil_scoped_release release;
             return std::make_shared<Oracle>(config, report);
           }),
           py::arg("cache_dir"), py::arg("edge_size") = 6, py::arg("perimeter_depth") = 6, py::arg("threads") = 0,
           py::arg("progress") = py::none(), py::arg("shell_filter") = true, py::arg("phase1") = "off")
      .def(
          "distances",
          [](const Oracle& oracle, const StateArray& array, uint64_t max_nodes, unsigned threads,
             const std::string& on_limit) {
            require(on_limit == "raise" || on_limit == "mark",
                    "on_limit must be 'raise' or 'mark', got '" + on_limit + "'");
            const bool mark = on_limit == "mark";
            const std::vector<CubieCube> states = read_states(array, true);
            py::array_t<int32_t> distances(static_cast<py::ssize_t>(states.size()));
            py::array_t<uint64_t> nodes(static_cast<py::ssize_t>(states.size()));
            int32_t* d = distances.mutable_data();
            uint64_t* n = nodes.mutable_data();
            {
              py::gil_scoped_release release;
              parallel_for(states.size(), threads, [&](size_t i) {
                SearchStats stats;
                try {
                  d[i] = oracle.distance(states[i], max_nodes, &stats);
                } catch (const SearchLimitExceeded& e) {
                  if (!mark) throw SearchLimitExceeded("state " + std::to_string(i) + ": " + e.what());
                  d[i] = -1;
                  stats.nodes = max_nodes;
                }
                n[i] = stats.nodes;
              });
            }
            return py::make_tuple(distances, nodes);
          },
          py::arg("states"), py::arg("max_nodes"), py::arg("threads") = 0, py::arg("on_limit") = "raise",
          "Optimal distances and search nodes per state. A state over max_nodes raises SearchLimitError,\n"
          "or with on_limit='mark' gets distance -1 (and max_nodes as its node count).")
      .def(
          "heuristics",
          [](const Oracle& oracle, const StateArray& array) {
            return per_state(array, 0, [&](const CubieCube& c, int32_t* out) { *out = oracle.heuristic(c); });
          },
          py::arg("states"), "The database lower bound of each state (the max over every table; no perimeter).")
      .def(
          "phase1_bounds",
          [](const Oracle& oracle, const StateArray& array) {
            require(!oracle.phase1_table().empty(),
                    "phase1_bounds needs an oracle configured with phase1='plain' or 'sorted'");
            return per_state(array, kAxes, [&](const CubieCube& c, int32_t* out) {
              const auto b = oracle.phase1_bounds(c);
              std::copy(b.begin(), b.end(), out);
            });
          },
          py::arg("states"), "Phase-1 distance of each state seen along the U-D, R-L and F-B axes: shape (N, 3).")
      .def(
          "solve",
          [](const Oracle& oracle, const py::bytes& state, uint64_t max_nodes) {
            const CubieCube cube = bytes_state(state);
            py::gil_scoped_release release;
            return oracle.solve(cube, max_nodes);
          },
          py::arg("state"), py::arg("max_nodes"))
      .def(
          "solutions",
          [](const Oracle& oracle, const StateArray& array, uint64_t max_nodes, unsigned threads,
             const std::string& on_limit) {
            require(on_limit == "raise" || on_limit == "mark",
                    "on_limit must be 'raise' or 'mark', got '" + on_limit + "'");
            const bool mark = on_limit == "mark";
            const std::vector<CubieCube> states = read_states(array, true);
            std::vector<std::optional<std::vector<int>>> out(states.size());
            {
              py::gil_scoped_release release;
              parallel_for(states.size(), threads, [&](size_t i) {
                try {
                  out[i] = oracle.solve(states[i], max_nodes);
                } catch (const SearchLimitExceeded& e) {
                  if (!mark) throw SearchLimitExceeded("state " + std::to_string(i) + ": " + e.what());
                }
              });
            }
            return out;
          },
          py::arg("states"), py::arg("max_nodes"), py::arg("threads") = 0, py::arg("on_limit") = "raise",
          "One optimal solution (move indices) per state; with on_limit='mark', None for a state over max_nodes.")
      .def(
          "scrambles",
          [](const Oracle& oracle, const std::vector<int>& depths, const std::vector<uint64_t>& seeds,
             uint64_t max_nodes, unsigned threads) {
            require(depths.size() == seeds.size(), "depths and seeds must have the same length");
            for (int depth : depths) {
              if (depth < 0 || depth > 20) {
                throw py::value_error("scramble depth must be in 0..20, got " + std::to_string(depth));
              }
            }
            std::vector<std::vector<int>> out(depths.size());
            {
              py::gil_scoped_release release;
              parallel_for(depths.size(), threads,
                           [&](size_t i) { out[i] = scramble(oracle, depths[i], seeds[i], max_nodes); });
            }
            return out;
          },
          py::arg("depths"), py::arg("seeds"), py::arg("max_nodes"), py::arg("threads") = 0)
      .def("info",
           [](const Oracle& oracle) {
             py::dict d;
             d["edge_size"] = oracle.config().edge_size;
             d["perimeter_depth"] = oracle.config().perimeter_depth;
             d["phase1"] = phase1_name(oracle.config().phase1);
             d["cache_dir"] = oracle.config().cache_dir;
             py::list tables;
             tables.append(table_info(oracle.corners()));
             tables.append(table_info(oracle.edges_a()));
             tables.append(table_info(oracle.edges_b()));
             if (!oracle.phase1_table().empty()) tables.append(table_info(oracle.phase1_table()));
             d["tables"] = tables;
             d["perimeter_states"] = oracle.perimeter().size();
             d["perimeter_bytes"] = oracle.perimeter().bytes();
             d["perimeter_seconds"] = oracle.perimeter_seconds();
             d["perimeter_built"] = oracle.perimeter_built();
             d["shell_filter_bytes"] = oracle.shell().enabled() ? oracle.shell().bytes() : 0;
             return d;
           })
      .def("histograms", [](const Oracle& oracle) {
        py::dict d;
        for (const PatternDatabase* db :
             {&oracle.corners(), &oracle.edges_a(), &oracle.edges_b(), &oracle.phase1_table()}) {
          if (db->empty()) continue;
          py::gil_scoped_release release;
          auto h = db->histogram();
          py::gil_scoped_acquire acquire;
          d[py::str(db->name())] = std::vector<uint64_t>(h.begin(), h.end());
        }
        return d;
      });

  m.def("cube_coset_sizes", [] {
    py::list sizes;
    for (const std::string& name : coset_shape_names()) {
      const CosetShape shape = coset_shape(name);
      py::dict d;
      d["size"] = name;
      d["name"] = shape.table_name();
      d["file"] = shape.table_name() + ".v" + std::to_string(kCosetTableVersion) + ".table";
      d["bytes"] = shape.bytes();
      d["base"] = shape.base;
      sizes.append(d);
    }
    return sizes;
  });
  m.def(
      "cube_phase1_table",
      [](const std::string& kind) {
        require(kind == "plain" || kind == "sorted", "kind must be 'plain' or 'sorted', got '" + kind + "'");
        const Phase1Kind which = kind == "sorted" ? Phase1Kind::kSorted : Phase1Kind::kPlain;
        uint64_t entries = 0;
        {
          py::gil_scoped_release release;
          entries = phase1(which).entries();
        }
        const std::string name = PatternDatabase::phase1_name(which);
        py::dict d;
        d["name"] = name;
        d["file"] = PatternDatabase::file_name(name);
        d["bytes"] = (entries + 1) / 2;  // what a build holds, and the mapping's size
        return d;
      },
      py::arg("kind"),
      "The phase-1 table of `kind` ('plain' or 'sorted'): its name, its file name in the cache and its\n"
      "size in bytes (the memory its build holds, and its mapping).");
  m.def(
      "cube_coset_build",
      [](const std::string& size, const std::string& path, unsigned threads, const py::object& progress,
         double checkpoint_seconds) {
        const CosetShape shape = coset_shape(size);
        BuildProgress report = python_build_progress(progress);
        bool built = false;
        double seconds = 0;
        {
          py::gil_scoped_release release;
          const CosetTable table = CosetTable::build(shape, path, threads, report, checkpoint_seconds);
          built = table.built();
          seconds = table.build_seconds();
        }
        py::dict d;
        d["built"] = built;
        d["build_seconds"] = seconds;
        return d;
      },
      py::arg("size"), py::arg("path"), py::arg("threads") = 0, py::arg("progress") = py::none(),
      py::arg("checkpoint_seconds") = 60.0,
      "Builds the coset table of `size` into `path` (resuming a killed build's checkpoint), unless a\n"
      "valid one is there; says whether it built and how long it took. progress(done, total, stage) is\n"
      "called from the building threads.");

  py::class_<CosetSolver, std::shared_ptr<CosetSolver>>(m, "CosetSolver")
      .def(py::init([](const std::string& size, const std::string& path) {
             const CosetShape shape = coset_shape(size);
             std::string why;
             std::shared_ptr<CosetTable> table;
             {
               py::gil_scoped_release release;
               table = std::make_shared<CosetTable>(CosetTable::load(shape, path, &why));
             }
             if (table->empty()) throw py::value_error("the " + size + " cube table at " + path + " is " + why);
             return std::make_shared<CosetSolver>(table);
           }),
           py::arg("size"), py::arg("path"), "Maps and checks the coset table of `size` at `path`.")
      .def_static(
          "in_memory",
          [](const std::string& size, unsigned threads, const py::object& progress) {
            const CosetShape shape = coset_shape(size);
            BuildProgress report = python_build_progress(progress);
            py::gil_scoped_release release;
            auto table = std::make_shared<CosetTable>(CosetTable::build_in_memory(shape, threads, report));
            return std::make_shared<CosetSolver>(table);
          },
          py::arg("size"), py::arg("threads") = 0, py::arg("progress") = py::none(),
          "Builds the coset table of `size` in memory only (the small one takes seconds).")
      .def(
          "distances",
          [](const CosetSolver& solver, const StateArray& array, uint64_t max_nodes, unsigned threads,
             const std::string& on_limit) {
            require(on_limit == "raise" || on_limit == "mark",
                    "on_limit must be 'raise' or 'mark', got '" + on_limit + "'");
            const std::vector<CubieCube> states = read_states(array, true);
            py::array_t<int32_t> distances(static_cast<py::ssize_t>(states.size()));
            py::array_t<uint64_t> nodes(static_cast<py::ssize_t>(states.size()));
            int32_t* d = distances.mutable_data();
            solve_each(solver, states, max_nodes, threads, on_limit == "mark", nodes.mutable_data(),
                       [&](size_t i, const std::optional<std::vector<int>>& moves) {
                         d[i] = moves ? static_cast<int32_t>(moves->size()) : -1;
                       });
            return py::make_tuple(distances, nodes);
          },
          py::arg("states"), py::arg("max_nodes"), py::arg("threads") = 0, py::arg("on_limit") = "raise",
          "Optimal distances and search nodes per state, as CubeOracle.distances.")
      .def(
          "solutions",
          [](const CosetSolver& solver, const StateArray& array, uint64_t max_nodes, unsigned threads,
             const std::string& on_limit) {
            require(on_limit == "raise" || on_limit == "mark",
                    "on_limit must be 'raise' or 'mark', got '" + on_limit + "'");
            const std::vector<CubieCube> states = read_states(array, true);
            std::vector<std::optional<std::vector<int>>> out(states.size());
            py::array_t<uint64_t> nodes(static_cast<py::ssize_t>(states.size()));
            solve_each(solver, states, max_nodes, threads, on_limit == "mark", nodes.mutable_data(),
                       [&](size_t i, std::optional<std::vector<int>> moves) { out[i] = std::move(moves); });
            return py::make_tuple(out, nodes);
          },
          py::arg("states"), py::arg("max_nodes"), py::arg("threads") = 0, py::arg("on_limit") = "raise",
          "One optimal solution (move indices) per state and the search nodes of each; with on_limit='mark',\n"
          "None for a state over max_nodes.")
      .def(
          "entries",
          [](const CosetSolver& solver, const StateArray& array) {
            return per_state(array, 2 * kAxes, [&](const CubieCube& c, int32_t* out) {
              const auto e = solver.entries(c);
              std::copy(e.begin(), e.end(), out);
            });
          },
          py::arg("states"),
          "The six table entries of each state, shape (N, 6): the state seen along axes 0-2, then its inverse.")
      .def(
          "bounds",
          [](const CosetSolver& solver, const StateArray& array) {
            return per_state(array, 0, [&](const CubieCube& c, int32_t* out) { *out = solver.bound(c); });
          },
          py::arg("states"), "The lower bound the search starts from, per state.")
      .def("code_counts",
           [](const CosetSolver& solver) {
             std::array<uint64_t, 4> counts;
             {
               py::gil_scoped_release release;
               counts = solver.table().code_counts();
             }
             return std::vector<uint64_t>(counts.begin(), counts.end());
           })
      .def(
          "time_random_reads",
          [](const CosetSolver& solver, uint64_t reads) {
            require(reads > 0, "reads must be positive");
            py::gil_scoped_release release;
            const CosetTable::ReadTimes t = solver.table().time_random_reads(reads);
            return std::make_pair(t.dependent_ns, t.batched_ns);
          },
          py::arg("reads") = 2000000,
          "Nanoseconds per read of a random stripe of the table, one read waiting for the other and 16\n"
          "prefetched at a time: the memory latency the search meets on this machine.")
      .def("use_portable_search", &CosetSolver::use_portable_search,
           "Searches with the portable build of the search from now on, even where the CPU has SSSE3.")
      .def("info", [](const CosetSolver& solver) { return coset_info(solver); });
}
