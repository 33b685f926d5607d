// Bindings for the CPU compositor of 2D frames (cpp/render/compose.hpp): the renderer's draw
// items in, RGB frames out, the GIL released while frames are composed (over threads for a batch).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "convention.hpp"
#include "render/compose.hpp"

namespace py = pybind11;
using cogsim::bindings::require;
using cogsim::render::Compositor;

namespace {

using Rows = py::array_t<float, py::array::c_style>;
using Pixels = py::array_t<uint8_t, py::array::c_style>;
using Ids = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

void require_rows(const Rows& rows) {
  require(rows.ndim() == 2 && rows.shape(1) == cogsim::render::kRowFloats,
          "rows must be a float32 array of shape (N, 20), as Canvas.instances() gives");
}

void require_size(int32_t width, int32_t height) {
  require(width > 0 && height > 0 && width <= 16384 && height <= 16384, "frame size must be 1..16384 px per side");
}

}  // namespace

void register_compose(py::module_& m) {
  py::class_<Compositor>(m, "Compositor",
                         "Composes 2D frames from stamps of draw items (render._compose); see cpp/render/compose.hpp.")
      .def(py::init<size_t>(), py::arg("max_bytes"))
      .def_property_readonly("stamp_count", &Compositor::stamp_count)
      .def_property_readonly("stamp_bytes", &Compositor::stamp_bytes)
      .def(
          "add_base",
          [](Compositor& c, const Pixels& rgba) {
            require(rgba.ndim() == 3 && rgba.shape(2) == 4, "a base must be an (H, W, 4) uint8 array");
            require_size(static_cast<int32_t>(rgba.shape(1)), static_cast<int32_t>(rgba.shape(0)));
            return c.add_base(rgba.data(), static_cast<int32_t>(rgba.shape(1)), static_cast<int32_t>(rgba.shape(0)));
          },
          py::arg("rgba").noconvert())
      .def(
          "placement",
          [](const Compositor&, const Rows& row, int32_t width, int32_t height) {
            require(row.ndim() == 1 && row.shape(0) == cogsim::render::kRowFloats, "row must be 20 float32 values");
            require_size(width, height);
            const auto p = cogsim::render::place(row.data(), width, height);
            return py::make_tuple(p.window.x0, p.window.y0, p.window.x1, p.window.y1);
          },
          py::arg("row").noconvert(), py::arg("width"), py::arg("height"),
          "The frame pixels (x0, y0, x1, y1) whose stamp a row needs (empty if it draws nothing there).")
      .def(
          "add_stamp",
          [](Compositor& c, const Rows& row, int32_t width, int32_t height, const Pixels& rgba) {
            require(row.ndim() == 1 && row.shape(0) == cogsim::render::kRowFloats, "row must be 20 float32 values");
            require_size(width, height);
            const auto w = cogsim::render::place(row.data(), width, height).window;
            require(rgba.ndim() == 3 && rgba.shape(2) == 4 && rgba.shape(0) == std::max(w.height(), 0) &&
                        rgba.shape(1) == std::max(w.width(), 0),
                    "stamp pixels must be (window height, window width, 4) uint8");
            c.add_stamp(row.data(), width, height, rgba.data());
          },
          py::arg("row").noconvert(), py::arg("width"), py::arg("height"), py::arg("rgba").noconvert())
      .def(
          "compose",
          [](Compositor& c, const Rows& rows, const Ids& base_ids, const std::vector<Pixels>& outs, unsigned threads) {
            require_rows(rows);
            require(!outs.empty(), "outs must hold at least one (N, H, W, 3) array");
            std::vector<uint8_t*> frames;
            int32_t width = 0, height = 0;
            for (Pixels out : outs) {
              require(out.ndim() == 4 && out.shape(3) == 3 && out.writeable(),
                      "every out must be a writeable (N, H, W, 3) uint8 array");
              if (frames.empty()) {
                height = static_cast<int32_t>(out.shape(1));
                width = static_cast<int32_t>(out.shape(2));
              }
              require(out.shape(1) == height && out.shape(2) == width, "every out must have the same frame size");
              uint8_t* data = out.mutable_data();
              for (py::ssize_t i = 0; i < out.shape(0); ++i) frames.push_back(data + i * out.strides(0));
            }
            require_size(width, height);
            require(!frames.empty(), "outs must hold at least one frame");
            require(base_ids.ndim() == 1 && static_cast<size_t>(base_ids.shape(0)) == frames.size(),
                    "base_ids must hold one base id (or -1) per frame");
            std::vector<int64_t> missing;
            {
              py::gil_scoped_release release;
              missing = c.compose(rows.data(), static_cast<size_t>(rows.shape(0)), frames, width, height,
                                  base_ids.data(), threads);
            }
            return missing;
          },
          py::arg("rows").noconvert(), py::arg("base_ids"), py::arg("outs").noconvert(), py::arg("threads") = 0,
          "Composes the frames of outs (arrays of frames, in order); returns the rows whose stamps are missing "
          "(then no frame is written).");
}
