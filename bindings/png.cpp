// Bindings for PNG encoding of RGB and RGBA frames (cpp/render/png.hpp): a batch encoded over threads, the
// GIL released; and the digest that finds a frame seen before (cpp/render/digest.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "common/parallel.hpp"
#include "convention.hpp"
#include "render/digest.hpp"
#include "render/png.hpp"

namespace py = pybind11;
using cogsim::bindings::require;

namespace {

using Pixels = py::array_t<uint8_t, py::array::c_style>;

py::list encode_png(const Pixels& frames, unsigned threads) {
  require(frames.ndim() == 4 && (frames.shape(3) == 3 || frames.shape(3) == 4) && frames.shape(1) > 0 &&
              frames.shape(2) > 0 && frames.shape(1) <= 65535 && frames.shape(2) <= 65535,
          "frames must be an (N, H, W, 3) or (N, H, W, 4) uint8 array, 1..65535 px per side");
  const size_t n = static_cast<size_t>(frames.shape(0));
  const auto height = static_cast<int32_t>(frames.shape(1)), width = static_cast<int32_t>(frames.shape(2));
  const auto channels = static_cast<int32_t>(frames.shape(3));
  const size_t frame_bytes = static_cast<size_t>(width) * height * channels;
  const uint8_t* pixels = frames.data();
  std::vector<std::vector<uint8_t>> encoded(n);
  {
    py::gil_scoped_release release;
    cogsim::parallel_for(n, threads, [&](size_t i) {
      encoded[i] = cogsim::render::encode_png(pixels + i * frame_bytes, width, height, channels);
    });
  }
  py::list out;
  for (const auto& png : encoded) out.append(py::bytes(reinterpret_cast<const char*>(png.data()), png.size()));
  return out;
}

// One frame's PNG, its bands first compared with those of the frame shown before it in the same place
// (an episode's previous frame), and this frame's bands for the next one.
py::tuple encode_png_after(const Pixels& frame, const std::optional<cogsim::render::SharedPngBands>& previous,
                           const std::optional<std::vector<std::pair<int32_t, int32_t>>>& changed_rows) {
  require(frame.ndim() == 3 && (frame.shape(2) == 3 || frame.shape(2) == 4) && frame.shape(0) > 0 &&
              frame.shape(1) > 0 && frame.shape(0) <= 65535 && frame.shape(1) <= 65535,
          "frame must be an (H, W, 3) or (H, W, 4) uint8 array, 1..65535 px per side");
  const auto height = static_cast<int32_t>(frame.shape(0)), width = static_cast<int32_t>(frame.shape(1));
  const auto channels = static_cast<int32_t>(frame.shape(2));
  cogsim::render::SharedPngBands kept;
  std::vector<uint8_t> png;
  {
    py::gil_scoped_release release;
    png = cogsim::render::encode_png_after(frame.data(), width, height, channels, previous ? previous->get() : nullptr,
                                           &kept, changed_rows ? &*changed_rows : nullptr);
  }
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(png.data()), png.size()), kept);
}

// Rows apart in the sample a frame's digest is taken over. A frame found again by its digest is
// compared whole, so the sample only decides how often two frames are compared: an env's frames
// differ from one another in a sprite, a tile or a line of text, all taller than this.
constexpr size_t kDigestRowStride = 8;

uint64_t frame_digest(const Pixels& frame) {
  require(frame.ndim() == 3, "frame must be an (H, W, C) uint8 array");
  uint64_t digest = 0;
  for (py::ssize_t axis = 0; axis < 3; ++axis)
    digest = digest * 0x100000001B3ull + static_cast<uint64_t>(frame.shape(axis));
  const uint8_t* bytes = frame.data();
  const auto rows = static_cast<size_t>(frame.shape(0));
  const auto row_bytes = static_cast<size_t>(frame.shape(1) * frame.shape(2));
  py::gil_scoped_release release;
  for (size_t y = 0; y < rows; y += kDigestRowStride)
    digest = cogsim::render::digest64(bytes + y * row_bytes, row_bytes, digest);
  return digest;
}

}  // namespace

void register_png(py::module_& m) {
  py::class_<cogsim::render::PngBands, cogsim::render::SharedPngBands>(
      m, "PngBands", "A frame's encoded bands, for encode_png_after of the frame shown after it (opaque).");
  m.def("encode_png_after", &encode_png_after, py::arg("frame").noconvert(), py::arg("previous") = py::none(),
        py::arg("changed_rows") = py::none(),
        "(PNG file, its bands) of one frame (H, W, 3 or 4): the bytes of encode_png, each band first compared "
        "with the one in the same place of `previous` (the bands of the frame shown before it) before the cache "
        "is asked; with changed_rows ([(start, end), ...]: where the frame can differ from the one `previous` was "
        "made of) the bands outside them are taken without reading them; the GIL released.");
  m.def("encode_png", &encode_png, py::arg("frames").noconvert(), py::arg("threads") = 0,
        "The PNG files (8-bit RGB or RGBA) of frames (N, H, W, 3 or 4), the same bytes on every machine; over "
        "threads (0: all cores), the GIL released.");
  m.def("clear_png_band_cache", &cogsim::render::clear_png_band_cache,
        "Empties the encoder's cache of bands seen before (the bytes never depend on it, only the time).");
  m.def(
      "png_band_cache_stats",
      [] {
        const auto stats = cogsim::render::png_band_cache_stats();
        py::dict out;
        out["hits"] = stats.hits;
        out["misses"] = stats.misses;
        out["bytes"] = stats.bytes;
        out["bands"] = stats.bands;
        return out;
      },
      "The encoder's cache of bands since it was last emptied: hits, misses, and the bytes and bands it holds.");
  m.def("frame_digest", &frame_digest, py::arg("frame").noconvert(),
        "A 64-bit digest of a frame's shape and every eighth row for finding repeated frames in one process "
        "(compare the frames before taking them as equal), the GIL released.");
}
