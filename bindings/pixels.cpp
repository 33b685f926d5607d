// Pixel repacking for the renderer's read-back: the GL driver reads RGBA at memory speed, but
// packing to RGB costs it (and NumPy's strided copy) 10-40x more than this loop.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>

#include "convention.hpp"

namespace py = pybind11;
using cogsim::bindings::require;

namespace {

using U8Array = py::array_t<uint8_t, py::array::c_style>;

uint32_t load32(const uint8_t* bytes) {
  uint32_t word;
  std::memcpy(&word, bytes, 4);
  return word;
}

void store32(uint8_t* bytes, uint32_t word) { std::memcpy(bytes, &word, 4); }

// Copies the RGB of one tile row: `width` RGBA pixels to `width` RGB pixels. Four pixels at a time
// as three little-endian words (a byte-wise copy is 3x slower).
void drop_alpha(const uint8_t* rgba, uint8_t* rgb, py::ssize_t width) {
  py::ssize_t x = 0;
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
    for (; x + 4 <= width; x += 4) {
      const uint32_t p0 = load32(rgba + 4 * x), p1 = load32(rgba + 4 * x + 4);
      const uint32_t p2 = load32(rgba + 4 * x + 8), p3 = load32(rgba + 4 * x + 12);
      store32(rgb + 3 * x, (p0 & 0xFFFFFFu) | (p1 << 24));
      store32(rgb + 3 * x + 4, ((p1 >> 8) & 0xFFFFu) | (p2 << 16));
      store32(rgb + 3 * x + 8, ((p2 >> 16) & 0xFFu) | (p3 << 8));
    }
  }
  for (; x < width; ++x) std::memcpy(rgb + 3 * x, rgba + 4 * x, 3);
}

// Frames out[i] = tile i (row-major) of the RGBA image, without its alpha channel.
void rgb_tiles(const U8Array& image, U8Array& out) {
  require(image.ndim() == 3 && image.shape(2) == 4, "image must be an (H, W, 4) uint8 array");
  require(out.ndim() == 4 && out.shape(3) == 3 && out.writeable(), "out must be a writeable (N, h, w, 3) uint8 array");
  const py::ssize_t count = out.shape(0), height = out.shape(1), width = out.shape(2);
  require(height > 0 && width > 0 && image.shape(0) % height == 0 && image.shape(1) % width == 0,
          "image must be a whole number of out's tiles high and wide");
  const py::ssize_t columns = image.shape(1) / width, rows = image.shape(0) / height;
  require(count <= rows * columns, "out must have at most as many frames as the image has tiles");
  const uint8_t* source = image.data();
  uint8_t* target = out.mutable_data();
  const py::ssize_t image_stride = image.shape(1) * 4;
  py::gil_scoped_release release;
  for (py::ssize_t i = 0; i < count; ++i) {
    const uint8_t* tile = source + (i / columns) * height * image_stride + (i % columns) * width * 4;
    uint8_t* frame = target + i * height * width * 3;
    for (py::ssize_t y = 0; y < height; ++y) {
      drop_alpha(tile + y * image_stride, frame + y * width * 3, width);
    }
  }
}

}  // namespace

void register_pixels(py::module_& m) {
  m.def("rgb_tiles", &rgb_tiles, py::arg("image").noconvert(), py::arg("out").noconvert(),
        "Writes tile i (row-major, out's frame size) of an RGBA (H, W, 4) image into out[i] as RGB.");
}
