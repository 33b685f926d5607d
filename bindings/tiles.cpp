// Bindings for frames of opaque tiles over a base (cpp/render/tiles.hpp): the release look of the
// card boards, composed without the GIL and over threads for a batch.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "convention.hpp"
#include "render/tiles.hpp"

namespace py = pybind11;
using cogsim::bindings::require;

namespace {

using Pixels = py::array_t<uint8_t, py::array::c_style>;
using Ints = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

void paste_tiles(const Pixels& bases, const Ints& base_ids, const Pixels& tiles, const Ints& placements, Pixels& out,
                 unsigned threads) {
  require(bases.ndim() == 4 && bases.shape(3) == 3 && bases.shape(0) > 0, "bases must be a (B, H, W, 3) uint8 array");
  require(tiles.ndim() == 4 && tiles.shape(3) == 3 && tiles.shape(0) > 0, "tiles must be a (T, h, w, 3) uint8 array");
  require(out.ndim() == 4 && out.writeable() && out.shape(1) == bases.shape(1) && out.shape(2) == bases.shape(2) &&
              out.shape(3) == 3,
          "out must be a writeable (N, H, W, 3) uint8 array of the bases' frame size");
  const py::ssize_t count = out.shape(0);
  require(base_ids.ndim() == 1 && base_ids.shape(0) == count, "base_ids must hold one base index per frame of out");
  require(placements.ndim() == 3 && placements.shape(0) == count && placements.shape(2) == 3,
          "placements must be an (N, K, 3) int32 array of (tile, x, y) per frame (tile -1: none)");
  require(bases.shape(1) <= 16384 && bases.shape(2) <= 16384 && tiles.shape(1) > 0 && tiles.shape(2) > 0,
          "frames must be at most 16384 px per side and tiles at least 1 px");
  const cogsim::render::TileFrames layout{bases.data(),
                                          static_cast<int32_t>(bases.shape(0)),
                                          static_cast<int32_t>(bases.shape(2)),
                                          static_cast<int32_t>(bases.shape(1)),
                                          tiles.data(),
                                          static_cast<int32_t>(tiles.shape(0)),
                                          static_cast<int32_t>(tiles.shape(2)),
                                          static_cast<int32_t>(tiles.shape(1))};
  std::vector<uint8_t*> frames(static_cast<size_t>(count));
  uint8_t* data = out.mutable_data();
  for (py::ssize_t i = 0; i < count; ++i) frames[static_cast<size_t>(i)] = data + i * out.strides(0);
  const auto* placed = reinterpret_cast<const cogsim::render::TilePlacement*>(placements.data());
  py::gil_scoped_release release;
  cogsim::render::paste_tiles(layout, base_ids.data(), placed, static_cast<size_t>(placements.shape(1)), frames.data(),
                              frames.size(), threads);
}

}  // namespace

void register_tiles(py::module_& m) {
  m.def("paste_tiles", &paste_tiles, py::arg("bases").noconvert(), py::arg("base_ids"), py::arg("tiles").noconvert(),
        py::arg("placements"), py::arg("out").noconvert(), py::arg("threads") = 0,
        "Writes out[i] = bases[base_ids[i]] with tiles[t] pasted at (x, y) for each (t, x, y) of placements[i] "
        "(t = -1: none). Tiles must lie inside the frame.");
}
