// Bindings for the released RNG-Bench maze's frames (cpp/maze/raycast.hpp, release_frames.hpp):
// block grids, poses and stamp placements in, RGB frames out, the GIL released while a batch is
// drawn over threads.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "convention.hpp"
#include "maze/raycast.hpp"
#include "maze/release_frames.hpp"

namespace py = pybind11;
using cogsim::bindings::require;
using cogsim::maze::ReleaseFrames;

namespace {

using U8 = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;
using I32 = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;
using I64 = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
using Out = py::array_t<uint8_t, py::array::c_style>;

constexpr int kViewColumns = 8;  // scene, row, col, heading, vision_range, goal_walls, goal_row, goal_col

int32_t add_stamp(ReleaseFrames& frames, const U8& rgb, const U8& mask) {
  require(rgb.ndim() == 3 && rgb.shape(2) == 3, "rgb must be an (H, W, 3) uint8 array");
  require(mask.ndim() == 2 && mask.shape(0) == rgb.shape(0) && mask.shape(1) == rgb.shape(1),
          "mask must be an (H, W) array of the stamp's size");
  require(rgb.shape(0) <= 4096 && rgb.shape(1) <= 4096, "a stamp is at most 4096 px a side");
  return frames.add_stamp(rgb.data(), mask.data(), static_cast<int32_t>(rgb.shape(1)),
                          static_cast<int32_t>(rgb.shape(0)));
}

void draw(const ReleaseFrames& frames, const std::vector<U8>& grids, const I32& views, const I64& op_ends,
          const I32& ops, Out& out, unsigned threads) {
  require(out.ndim() == 4 && out.shape(3) == 3 && out.writeable(), "out must be a writeable (N, H, W, 3) uint8 array");
  const py::ssize_t count = out.shape(0);
  require(out.shape(1) > 0 && out.shape(2) > 0 && out.shape(1) <= 8192 && out.shape(2) <= 8192,
          "frames must be 1..8192 px a side");
  require(views.ndim() == 2 && views.shape(0) == count && views.shape(1) == kViewColumns,
          "views must be an (N, 8) int32 array: scene, row, col, heading, vision_range, goal_walls, goal_row, "
          "goal_col");
  require(op_ends.ndim() == 1 && op_ends.shape(0) == count, "op_ends must hold one end of ops per frame");
  require(ops.ndim() == 2 && ops.shape(1) == 3, "ops must be an (M, 3) int32 array: stamp, x, y");
  cogsim::maze::SceneGrids scenes;
  for (const U8& grid : grids) {
    require(grid.ndim() == 2 && grid.shape(0) == grid.shape(1) && grid.shape(0) >= 3 && grid.shape(0) <= 1025,
            "every grid must be a square (S, S) uint8 block grid, 3 <= S <= 1025");
    scenes.grids.push_back(grid.data());
    scenes.sides.push_back(static_cast<int32_t>(grid.shape(0)));
  }
  std::vector<cogsim::maze::ReleaseFrameSpec> specs(count);
  const int32_t* v = views.data();
  const int64_t* ends = op_ends.data();
  int64_t first = 0;
  for (py::ssize_t i = 0; i < count; ++i, v += kViewColumns) {
    if (ends[i] < first || ends[i] > ops.shape(0)) throw py::value_error("op_ends must rise and stay within ops");
    specs[i] = {
        v[0], v[1], v[2], v[3], v[4], v[5] != 0, v[6], v[7], static_cast<size_t>(first), static_cast<size_t>(ends[i])};
    first = ends[i];
  }
  std::vector<cogsim::maze::StampOp> placed(ops.shape(0));
  const int32_t* o = ops.data();
  for (auto& op : placed) {
    op = {o[0], o[1], o[2]};
    o += 3;
  }
  std::vector<uint8_t*> targets(count);
  for (py::ssize_t i = 0; i < count; ++i) targets[i] = out.mutable_data() + i * out.strides(0);
  const auto height = static_cast<int32_t>(out.shape(1)), width = static_cast<int32_t>(out.shape(2));
  py::gil_scoped_release release;
  frames.draw(scenes, specs, placed, targets, width, height, threads);
}

}  // namespace

void register_maze_look(py::module_& m) {
  m.def(
      "maze_release_camera",
      [](int heading) {
        require(heading >= 0 && heading <= 3, "heading must be 0..3 (north, east, south, west)");
        const auto c = cogsim::maze::release_camera(heading);
        return py::make_tuple(c.dir_x, c.dir_y, c.plane_x, c.plane_y);
      },
      py::arg("heading"), "The released maze's camera for a heading: (dir_x, dir_y, plane_x, plane_y).");
  py::class_<ReleaseFrames>(m, "MazeReleaseFrames",
                            "Frames of the released RNG-Bench maze: raycast views and opaque stamps "
                            "(cpp/maze/release_frames.hpp).")
      .def(py::init<>())
      .def_property_readonly("stamp_count", &ReleaseFrames::stamp_count)
      .def("add_stamp", &add_stamp, py::arg("rgb"), py::arg("mask"),
           "Adds a stamp: rgb (H, W, 3) shown where mask (H, W) is nonzero; returns its id.")
      .def("draw", &draw, py::arg("grids"), py::arg("views"), py::arg("op_ends"), py::arg("ops"),
           py::arg("out").noconvert(), py::arg("threads") = 0,
           "Draws out[i]: the 3D view of views[i] (scene -1: none, black), then the stamps "
           "ops[op_ends[i-1]:op_ends[i]] in order.");
}
