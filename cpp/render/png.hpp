// PNG encoding of RGB and RGBA frames, fast on the frames cogsim draws (flat areas, repeated rows)
// and on the photo-like pictures of the releases.
//
// Every row but the first is Up-filtered (its difference from the row above), so a row that repeats
// the one above is all zeros and an area of one colour is a run. The rows are cut into bands (16
// rows, or a multiple of 16 holding about 16 KiB), each one deflate block ending on a byte boundary
// (an empty stored block after it, as zlib's sync flush), its literals and matches within the band:
// at distance 1 (a byte repeated) or one pixel (3 or 4 bytes), taken greedily (the longer at the
// first position where one of 3 bytes or more starts), in Huffman codes built for the band (ties
// broken by symbol number). A band's bytes so depend only on its rows and the row above, and a band
// seen before in the process (a game's background, an empty row of the grid) is copied from a
// bounded cache instead of compressed again, or, for the next frame of a scene, taken from the
// frame before when its rows are equal (compared in place, no digest or lookup). The search for the
// next match compares 16 bytes a step (SSE2; 8 without), literals are written three to a flush of a
// 64-bit bit buffer, and the Adler-32 and CRC-32 are computed 32 and 8 bytes a step, a cached
// band's kept with it and combined (zlib's *_combine), so a frame made of cached bands is neither
// read twice nor copied into a growing buffer; every path gives the same bytes, whatever the cache
// holds. No compression library is involved, so the bytes are the same on every machine, and any
// PNG decoder gives back the frame's pixels exactly. Without LZ77 matches at other distances it
// compresses noisy frames less than zlib does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cogsim::render {

// The PNG file (8-bit RGB or RGBA, no interlace) of width x height pixels of `channels` (3 or 4)
// bytes each, row-major.
std::vector<uint8_t> encode_png(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels = 3);

// The encoded bands of a frame, kept so that the next frame of the same scene can take those of its
// bands whose rows (and the row above) are equal, compared directly instead of looked up in the
// cache by their digest; nothing else reads them.
struct PngBand;  // one band's rows, deflate block and checksums (png.cpp)
struct PngBands {
  std::vector<std::shared_ptr<const PngBand>> of;
};
using SharedPngBands = std::shared_ptr<PngBands>;

// encode_png, each band first compared with the band in the same place of `previous` (may be null:
// none) before the cache is asked; `kept` (may be null) receives this frame's bands. The bytes are
// those of encode_png: only the time depends on `previous`.
// `changed` (may be null: not known) lists the rows [start, end) outside which the frame is known to
// equal the one `previous` was made of: a band outside them (its row above included) is then taken
// without reading its rows. A wrong list gives a wrong PNG: it must come from what was drawn.
std::vector<uint8_t> encode_png_after(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels,
                                      const PngBands* previous, SharedPngBands* kept,
                                      const std::vector<std::pair<int32_t, int32_t>>* changed = nullptr);

// Empties the cache of encoded bands (the bytes of a frame never depend on it; tests show that).
void clear_png_band_cache();

// What the cache of encoded bands did since it was last emptied, and what it holds.
struct PngBandCacheStats {
  uint64_t hits, misses;
  size_t bytes, bands;
};
PngBandCacheStats png_band_cache_stats();

}  // namespace cogsim::render
