// Bindings for frames made of a template and flat-colour rectangles (cpp/render/rect_frames.hpp),
// the GIL released while frames are painted (over threads for a batch).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "convention.hpp"
#include "render/rect_frames.hpp"

namespace py = pybind11;
using cogsim::bindings::require;

namespace {

using Pixels = py::array_t<uint8_t, py::array::c_style>;
using Rects = py::array_t<int32_t, py::array::c_style>;

void paint_rect_frames(const Pixels& frame_template, const Rects& rects, const Pixels& palette, const Pixels& colours,
                       Pixels& out, unsigned threads) {
  require(frame_template.ndim() == 3 && frame_template.shape(2) == 3 && frame_template.shape(0) > 0 &&
              frame_template.shape(1) > 0 && frame_template.shape(0) <= 16384 && frame_template.shape(1) <= 16384,
          "template must be an (H, W, 3) uint8 array, 1..16384 px per side");
  require(rects.ndim() == 2 && rects.shape(1) == 5, "rects must be an (R, 5) int32 array of (slot, y0, y1, x0, x1)");
  require(palette.ndim() == 2 && palette.shape(1) == 3 && palette.shape(0) >= 1 && palette.shape(0) <= 256,
          "palette must be a (P, 3) uint8 array with 1..256 colours");
  require(colours.ndim() == 2 && colours.shape(1) >= 1, "colours must be an (N, S) uint8 array of palette indices");
  const py::ssize_t n = colours.shape(0), height = frame_template.shape(0), width = frame_template.shape(1);
  require(out.ndim() == 4 && out.writeable() && out.shape(0) == n && out.shape(1) == height && out.shape(2) == width &&
              out.shape(3) == 3,
          "out must be a writeable (N, H, W, 3) uint8 array: one frame of the template's size per row of colours");
  cogsim::render::RectFrames spec{
      frame_template.data(), static_cast<int32_t>(width),           static_cast<int32_t>(height), {},
      palette.data(),        static_cast<int32_t>(colours.shape(1))};
  const int32_t* r = rects.data();
  for (py::ssize_t k = 0; k < rects.shape(0); ++k, r += 5) spec.rects.push_back({r[0], r[1], r[2], r[3], r[4]});
  cogsim::render::check_rects(spec);
  const uint8_t* ids = colours.data();
  const py::ssize_t count = colours.size();
  const auto colours_in_palette = static_cast<uint8_t>(palette.shape(0) - 1);
  for (py::ssize_t i = 0; i < count; ++i) {
    if (ids[i] > colours_in_palette) {
      throw py::value_error("colours must be palette indices 0.." + std::to_string(colours_in_palette) + ", got " +
                            std::to_string(ids[i]) + " in frame " + std::to_string(i / colours.shape(1)));
    }
  }
  uint8_t* target = out.mutable_data();
  py::gil_scoped_release release;
  cogsim::render::paint_rect_frames(spec, ids, static_cast<size_t>(n), target, threads);
}

}  // namespace

void register_rect_frames(py::module_& m) {
  m.def("paint_rect_frames", &paint_rect_frames, py::arg("template").noconvert(), py::arg("rects").noconvert(),
        py::arg("palette").noconvert(), py::arg("colours").noconvert(), py::arg("out").noconvert(),
        py::arg("threads") = 0,
        "Writes out[i] = template with each rect (slot, y0, y1, x0, x1) filled in palette[colours[i, slot]], "
        "rects in order; over threads (0: all cores), the GIL released.");
}
