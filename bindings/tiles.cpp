// Bindings for frames of opaque tiles over a base (cpp/render/tiles.hpp): the release look of the
// card boards, composed without the GIL and over threads for a batch; the frames may be any (H, W, 3) arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "convention.hpp"
#include "render/tiles.hpp"

namespace py = pybind11;
using cogsim::bindings::require;

namespace {

using Pixels = py::array_t<uint8_t, py::array::c_style>;
using Ints = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

void paste_tiles(const Pixels& bases, const Ints& base_ids, const Pixels& tiles, const Ints& placements,
                 const std::vector<Pixels>& outs, unsigned threads) {
  require(bases.ndim() == 4 && bases.shape(3) == 3 && bases.shape(0) > 0, "bases must be a (B, H, W, 3) uint8 array");
  require(tiles.ndim() == 4 && tiles.shape(3) == 3 && tiles.shape(0) > 0, "tiles must be a (T, h, w, 3) uint8 array");
  require(bases.shape(1) <= 16384 && bases.shape(2) <= 16384 && tiles.shape(1) > 0 && tiles.shape(2) > 0,
          "frames must be at most 16384 px per side and tiles at least 1 px");
  const auto count = static_cast<py::ssize_t>(outs.size());
  std::vector<uint8_t*> frames;
  frames.reserve(outs.size());
  for (Pixels out : outs) {
    require(out.ndim() == 3 && out.writeable() && out.shape(0) == bases.shape(1) && out.shape(1) == bases.shape(2) &&
                out.shape(2) == 3,
            "every out must be a writeable (H, W, 3) uint8 array of the bases' frame size");
    frames.push_back(out.mutable_data());
  }
  require(base_ids.ndim() == 1 && base_ids.shape(0) == count, "base_ids must hold one base index per out");
  require(placements.ndim() == 3 && placements.shape(0) == count && placements.shape(2) == 3,
          "placements must be an (N, K, 3) int32 array of (tile, x, y) per out (tile -1: none)");
  const cogsim::render::TileFrames layout{bases.data(),
                                          static_cast<int32_t>(bases.shape(0)),
                                          static_cast<int32_t>(bases.shape(2)),
                                          static_cast<int32_t>(bases.shape(1)),
                                          tiles.data(),
                                          static_cast<int32_t>(tiles.shape(0)),
                                          static_cast<int32_t>(tiles.shape(2)),
                                          static_cast<int32_t>(tiles.shape(1))};
  const auto* placed = reinterpret_cast<const cogsim::render::TilePlacement*>(placements.data());
  py::gil_scoped_release release;
  cogsim::render::paste_tiles(layout, base_ids.data(), placed, static_cast<size_t>(placements.shape(1)), frames.data(),
                              frames.size(), threads);
}

}  // namespace

void register_tiles(py::module_& m) {
  m.def("paste_tiles", &paste_tiles, py::arg("bases").noconvert(), py::arg("base_ids"), py::arg("tiles").noconvert(),
        py::arg("placements"), py::arg("outs").noconvert(), py::arg("threads") = 0,
        "Writes outs[i] = bases[base_ids[i]] with tiles[t] pasted at (x, y) for each (t, x, y) of placements[i] "
        "(t = -1: none). Tiles must lie inside the frame.");
}
