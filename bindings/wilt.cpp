// Bindings for the WILT rule VM. Programs arrive as SSA bytecode from cogsim.wilt._compile;
// points as three float64 arrays. Batch calls release the GIL and spread work over threads.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/parallel.hpp"
#include "common/rng.hpp"
#include "convention.hpp"
#include "wilt/grid.hpp"
#include "wilt/vm.hpp"

namespace py = pybind11;
using namespace cogsim;
using namespace cogsim::wilt;
using cogsim::bindings::require;

namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using ProgramPtr = std::shared_ptr<const Program>;

struct Points {
  Doubles xs, ys, zs;
  size_t n;
};

Points read_points(const Doubles& xs, const Doubles& ys, const Doubles& zs) {
  require(xs.ndim() == 1 && ys.ndim() == 1 && zs.ndim() == 1, "xs, ys, zs must be 1-D arrays");
  const auto n = static_cast<size_t>(xs.shape(0));
  require(static_cast<size_t>(ys.shape(0)) == n && static_cast<size_t>(zs.shape(0)) == n,
          "xs, ys, zs must have the same length");
  return {xs, ys, zs, n};
}

ProgramPtr make_program(const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& code,
                        const std::vector<int32_t>& aux, const std::vector<uint8_t>& const_tags,
                        const std::vector<double>& const_f, const std::vector<int64_t>& const_i, bool python312) {
  require(code.ndim() == 2 && code.shape(1) == 5, "code must be an int32 array of shape (N, 5)");
  require(const_tags.size() == const_f.size() && const_tags.size() == const_i.size(),
          "constant arrays must have the same length");
  auto p = std::make_shared<Program>();
  const int32_t* c = code.data();
  for (py::ssize_t k = 0; k < code.shape(0); ++k, c += 5) {
    p->code.push_back({static_cast<Op>(c[0]), c[1], c[2], c[3], c[4]});
  }
  p->aux = aux;
  for (size_t k = 0; k < const_tags.size(); ++k) p->constants.push_back({const_tags[k], const_f[k], const_i[k]});
  p->python312 = python312;
  prepare(*p);
  return p;
}

py::dict comparison_dict(const Comparison& c) {
  py::dict d;
  d["mismatches"] = c.mismatches;
  d["true_a"] = c.true_a;
  d["true_b"] = c.true_b;
  d["true_both"] = c.true_both;
  d["fallback"] = c.fallback;
  d["first_mismatches"] = c.first_mismatches;
  d["raised_a"] = c.raised_a;
  d["first_raised_a"] = c.first_raised_a;
  return d;
}

py::tuple evaluate_many(const std::vector<ProgramPtr>& programs, const Doubles& xs, const Doubles& ys,
                        const Doubles& zs, unsigned threads) {
  const Points pts = read_points(xs, ys, zs);
  const auto rows = static_cast<py::ssize_t>(programs.size()), cols = static_cast<py::ssize_t>(pts.n);
  py::array_t<bool> truth({rows, cols});
  py::array_t<uint8_t> status({rows, cols});
  auto* t = reinterpret_cast<uint8_t*>(truth.mutable_data());
  auto* s = status.mutable_data();
  {
    py::gil_scoped_release release;
    parallel_for(
        programs.size(), threads,
        [&](size_t r) {
          evaluate(*programs[r], pts.xs.data(), pts.ys.data(), pts.zs.data(), pts.n, t + r * pts.n, s + r * pts.n, 1);
        },
        16);
  }
  return py::make_tuple(truth, status);
}

struct ProgramSet {
  std::vector<ProgramPtr> programs;
};

// A case set converted once (its arrays kept alive here), with its grid part if it has one.
struct CaseSet {
  Doubles xs, ys, zs;
  Cases cases;
};
using CaseSetPtr = std::shared_ptr<const CaseSet>;

// A rule's truth on a case set, packed once for repeated checks against it.
struct ReferenceTruth {
  CaseSetPtr cases;
  Reference packed;
};

}  // namespace

void register_wilt(py::module_& m) {
  py::class_<Program, std::shared_ptr<Program>>(m, "WiltProgram")
      .def_property_readonly("size", [](const Program& p) { return p.code.size(); })
      .def_property_readonly("num_slots", [](const Program& p) { return p.num_slots; });

  m.def(
      "wilt_opcodes", [] { return std::vector<std::string>(std::begin(kOpNames), std::end(kOpNames)); },
      "The VM's opcode names in opcode order (python/cogsim/benchmarks/wilt/_bytecode.py builds its Op enum from "
      "them).");
  m.def("wilt_program", &make_program, py::arg("code"), py::arg("aux"), py::arg("const_tags"), py::arg("const_f"),
        py::arg("const_i"), py::arg("python312"));

  m.def(
      "wilt_evaluate",
      [](const ProgramPtr& program, const Doubles& xs, const Doubles& ys, const Doubles& zs, unsigned threads) {
        const Points pts = read_points(xs, ys, zs);
        py::array_t<bool> truth(static_cast<py::ssize_t>(pts.n));
        py::array_t<uint8_t> status(static_cast<py::ssize_t>(pts.n));
        auto* t = reinterpret_cast<uint8_t*>(truth.mutable_data());
        auto* s = status.mutable_data();
        {
          py::gil_scoped_release release;
          evaluate(*program, pts.xs.data(), pts.ys.data(), pts.zs.data(), pts.n, t, s, threads);
        }
        return py::make_tuple(truth, status);
      },
      py::arg("program"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("threads") = 0);

  // A fixed list of programs (a hypothesis space) converted once, so repeated matrix calls do not
  // pay a Python-to-C++ conversion per rule.
  py::class_<ProgramSet, std::shared_ptr<ProgramSet>>(m, "WiltProgramSet")
      .def(py::init([](const std::vector<ProgramPtr>& programs) {
             auto set = std::make_shared<ProgramSet>();
             set->programs = programs;
             return set;
           }),
           py::arg("programs"))
      .def("__len__", [](const ProgramSet& set) { return set.programs.size(); });

  m.def(
      "wilt_evaluate_set",
      [](const ProgramSet& set, const Doubles& xs, const Doubles& ys, const Doubles& zs, unsigned threads) {
        return evaluate_many(set.programs, xs, ys, zs, threads);
      },
      py::arg("programs"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("threads") = 0);

  m.def(
      "wilt_evaluate_many",
      [](const std::vector<ProgramPtr>& programs, const Doubles& xs, const Doubles& ys, const Doubles& zs,
         unsigned threads) { return evaluate_many(programs, xs, ys, zs, threads); },
      py::arg("programs"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("threads") = 0);

  m.def(
      "wilt_compare",
      [](const ProgramPtr& a, const ProgramPtr& b, const Doubles& xs, const Doubles& ys, const Doubles& zs,
         size_t max_examples, unsigned threads) {
        const Points pts = read_points(xs, ys, zs);
        Comparison c;
        {
          py::gil_scoped_release release;
          c = compare(*a, b.get(), nullptr, pts.xs.data(), pts.ys.data(), pts.zs.data(), pts.n, max_examples, threads);
        }
        return comparison_dict(c);
      },
      py::arg("a"), py::arg("b"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("max_examples") = 5,
      py::arg("threads") = 0);

  m.def(
      "wilt_compare_truth",
      [](const ProgramPtr& a, const py::array_t<bool, py::array::c_style | py::array::forcecast>& truth_b,
         const Doubles& xs, const Doubles& ys, const Doubles& zs, size_t max_examples, unsigned threads) {
        const Points pts = read_points(xs, ys, zs);
        require(truth_b.ndim() == 1 && static_cast<size_t>(truth_b.shape(0)) == pts.n,
                "truth must be a bool array with one value per point");
        const auto* tb = reinterpret_cast<const uint8_t*>(truth_b.data());
        Comparison c;
        {
          py::gil_scoped_release release;
          c = compare(*a, nullptr, tb, pts.xs.data(), pts.ys.data(), pts.zs.data(), pts.n, max_examples, threads);
        }
        return comparison_dict(c);
      },
      py::arg("a"), py::arg("truth"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("max_examples") = 5,
      py::arg("threads") = 0);

  m.def(
      "wilt_compare_pairs",
      [](const std::vector<ProgramPtr>& as, const std::vector<ProgramPtr>& bs, const Doubles& xs, const Doubles& ys,
         const Doubles& zs, unsigned threads) {
        require(as.size() == bs.size(), "guesses and hidden rules must have the same length");
        const Points pts = read_points(xs, ys, zs);
        const auto n = static_cast<py::ssize_t>(as.size());
        py::array_t<int64_t> counts({n, static_cast<py::ssize_t>(6)});
        int64_t* out = counts.mutable_data();
        {
          py::gil_scoped_release release;
          parallel_for(as.size(), threads, [&](size_t k) {
            const Comparison c =
                compare(*as[k], bs[k].get(), nullptr, pts.xs.data(), pts.ys.data(), pts.zs.data(), pts.n, 1, 1);
            int64_t* row = out + 6 * k;
            row[0] = c.mismatches;
            row[1] = c.true_a;
            row[2] = c.true_b;
            row[3] = c.true_both;
            row[4] = c.fallback;
            row[5] = c.first_mismatches.empty() ? -1 : c.first_mismatches[0];
          });
        }
        return counts;
      },
      py::arg("guesses"), py::arg("hidden"), py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("threads") = 0);

  py::class_<CaseSet, std::shared_ptr<CaseSet>>(m, "WiltCases",
                                                "The points of WILT checks, converted once, and their grid part.")
      .def(py::init([](const Doubles& xs, const Doubles& ys, const Doubles& zs, size_t grid_begin,
                       const std::vector<double>& grid_axis) {
             const Points pts = read_points(xs, ys, zs);
             auto set = std::make_shared<CaseSet>(CaseSet{pts.xs, pts.ys, pts.zs, {}});
             set->cases = {set->xs.data(), set->ys.data(), set->zs.data(), pts.n, grid_axis, grid_begin};
             require(grid_axis.size() <= kMaxGridAxis,
                     "grid_axis must hold at most " + std::to_string(kMaxGridAxis) + " values");
             require(grid_axis.empty() || grid_matches(set->cases),
                     "the points from grid_begin must be grid_axis^3 in itertools.product order, bit for bit");
             return set;
           }),
           py::arg("xs"), py::arg("ys"), py::arg("zs"), py::arg("grid_begin") = 0,
           py::arg("grid_axis") = std::vector<double>{})
      .def("__len__", [](const CaseSet& set) { return set.cases.n; })
      .def_property_readonly("grid_points", [](const CaseSet& set) { return set.cases.grid_size(); });

  py::class_<ReferenceTruth, std::shared_ptr<ReferenceTruth>>(m, "WiltReference",
                                                              "A rule's truth on a WiltCases, packed for checks.")
      .def(py::init(
               [](const CaseSetPtr& cases, const py::array_t<bool, py::array::c_style | py::array::forcecast>& truth) {
                 require(truth.ndim() == 1 && static_cast<size_t>(truth.shape(0)) == cases->cases.n,
                         "truth must be a bool array with one value per point");
                 return std::make_shared<ReferenceTruth>(ReferenceTruth{
                     cases, pack_reference(cases->cases, reinterpret_cast<const uint8_t*>(truth.data()))});
               }),
           py::arg("cases"), py::arg("truth"));

  m.def(
      "wilt_check",
      [](const ProgramPtr& a, const ReferenceTruth& reference, size_t max_examples, unsigned threads) {
        Comparison c;
        {
          py::gil_scoped_release release;
          c = check(*a, reference.packed, reference.cases->cases, max_examples, threads);
        }
        return py::make_tuple(c.mismatches, c.true_a, c.true_b, c.true_both, c.fallback, c.raised_a, c.first_mismatches,
                              c.first_raised_a);
      },
      py::arg("a"), py::arg("reference"), py::arg("max_examples") = 5, py::arg("threads") = 0,
      "wilt_compare_truth against a packed reference, the case set's grid part evaluated factored: (mismatches, "
      "true_a, true_b, true_both, fallback, raised_a, first_mismatches, first_raised_a).");

  m.def(
      "wilt_evaluate_grid",
      [](const ProgramPtr& program, const std::vector<double>& axis) {
        require(!axis.empty() && axis.size() <= kMaxGridAxis,
                "axis must hold 1.." + std::to_string(kMaxGridAxis) + " values");
        GridTruth g;
        {
          py::gil_scoped_release release;
          evaluate_grid(*program, axis, g);
        }
        const auto size = static_cast<py::ssize_t>(axis.size());
        py::array_t<bool> truth({size, size, size});
        auto* t = reinterpret_cast<uint8_t*>(truth.mutable_data());
        for (size_t row = 0; row < g.rows.size(); ++row) {
          for (size_t k = 0; k < axis.size(); ++k) t[row * axis.size() + k] = (g.rows[row] >> k) & 1;
        }
        py::object status = py::none();
        if (!g.status.empty()) {
          py::array_t<uint8_t> s({size, size, size});
          std::copy(g.status.begin(), g.status.end(), s.mutable_data());
          status = s;
        }
        return py::make_tuple(truth, status);
      },
      py::arg("program"), py::arg("axis"),
      "Truth (L, L, L) of the program on axis^3 (x, y, z) evaluated factored, and statuses (None: all decided, "
      "none raised).");

  m.def(
      "wilt_uniform_points",
      [](uint64_t seed, size_t n, double lo, double hi) {
        require(lo < hi, "lo must be below hi");
        py::array_t<double> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(3)});
        double* d = out.mutable_data();
        SplitMix64 rng(seed);
        for (size_t k = 0; k < 3 * n; ++k) d[k] = lo + (hi - lo) * rng.uniform();
        return out;
      },
      py::arg("seed"), py::arg("n"), py::arg("lo"), py::arg("hi"));
}
