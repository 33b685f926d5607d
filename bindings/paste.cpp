// Bindings for Pillow-exact RGBA pastes (cpp/render/paste.hpp): frames composed from a list of
// source images by copy and blend operations, the GIL released, frames spread over threads.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/parallel.hpp"
#include "convention.hpp"
#include "render/paste.hpp"

namespace py = pybind11;
using cogsim::bindings::require;
using cogsim::render::RgbaView;

namespace {

using Pixels = py::array_t<uint8_t, py::array::c_style>;
using Ops = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

constexpr int kCopy = 0;
constexpr int kBlend = 1;

}  // namespace

void register_paste(py::module_& m) {
  m.def(
      "paste_frames",
      [](Pixels out, const std::vector<Pixels>& sources, const Ops& ops, unsigned threads) {
        require(out.ndim() == 4 && out.shape(3) == 4 && out.writeable(),
                "out must be a writeable (N, H, W, 4) uint8 array");
        require(ops.ndim() == 2 && ops.shape(1) == 5,
                "ops must be an int32 array of shape (M, 5): frame, kind, source, x, y");
        const int frames = static_cast<int>(out.shape(0)), height = static_cast<int>(out.shape(1)),
                  width = static_cast<int>(out.shape(2));
        std::vector<RgbaView> views;
        views.reserve(sources.size());
        for (const Pixels& s : sources) {
          require(s.ndim() == 3 && s.shape(2) == 4, "every source must be an (H, W, 4) uint8 array");
          views.push_back({s.data(), static_cast<int>(s.shape(1)), static_cast<int>(s.shape(0)),
                           static_cast<size_t>(s.shape(1)) * 4});
        }
        const auto* op = ops.data();
        const py::ssize_t count = ops.shape(0);
        std::vector<std::vector<py::ssize_t>> per_frame(frames);
        for (py::ssize_t i = 0; i < count; ++i) {
          const int32_t frame = op[5 * i], kind = op[5 * i + 1], source = op[5 * i + 2], x = op[5 * i + 3],
                        y = op[5 * i + 4];
          require(frame >= 0 && frame < frames, "op " + std::to_string(i) + ": frame out of range");
          require(kind == kCopy || kind == kBlend, "op " + std::to_string(i) + ": kind must be 0 (copy) or 1 (blend)");
          require(source >= 0 && source < static_cast<int32_t>(views.size()),
                  "op " + std::to_string(i) + ": source out of range");
          const RgbaView& v = views[source];
          require(x >= 0 && y >= 0 && x + v.width <= width && y + v.height <= height,
                  "op " + std::to_string(i) + ": the source does not fit inside the frame there");
          per_frame[frame].push_back(i);
        }
        // The rows a frame's first op copies over whole (a background as wide as the frame) need no fill.
        const auto rows_covered_by_first_op = [&](size_t f) -> std::pair<int, int> {
          if (per_frame[f].empty()) return {0, 0};
          const py::ssize_t i = per_frame[f].front();
          const RgbaView& v = views[op[5 * i + 2]];
          if (op[5 * i + 1] != kCopy || op[5 * i + 3] != 0 || v.width != width) return {0, 0};
          return {op[5 * i + 4], op[5 * i + 4] + v.height};
        };
        uint8_t* pixels = out.mutable_data();
        const size_t frame_bytes = static_cast<size_t>(width) * height * 4, stride = static_cast<size_t>(width) * 4;
        {
          py::gil_scoped_release release;
          cogsim::parallel_for(
              static_cast<size_t>(frames), threads,
              [&](size_t f) {
                uint8_t* frame = pixels + f * frame_bytes;
                const auto [top, bottom] = rows_covered_by_first_op(f);
                std::memset(frame, 255, static_cast<size_t>(top) * stride);
                std::memset(frame + static_cast<size_t>(bottom) * stride, 255,
                            static_cast<size_t>(height - bottom) * stride);
                for (py::ssize_t i : per_frame[f]) {
                  const RgbaView& v = views[op[5 * i + 2]];
                  if (op[5 * i + 1] == kCopy) {
                    cogsim::render::paste_copy(frame, stride, v, op[5 * i + 3], op[5 * i + 4]);
                  } else {
                    cogsim::render::paste_blend(frame, stride, v, op[5 * i + 3], op[5 * i + 4]);
                  }
                }
              },
              1);
        }
      },
      py::arg("out").noconvert(), py::arg("sources"), py::arg("ops"), py::arg("threads") = 0,
      "Fill each frame of `out` with 255, then run its ops in order: copy (0) or Pillow's paste through the "
      "source's alpha (1) of sources[source] at (x, y).");
}
