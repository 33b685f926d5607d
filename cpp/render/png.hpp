// PNG encoding of RGB and RGBA frames, fast on the frames cogsim draws (flat areas, repeated rows)
// and on the photo-like pictures of the releases.
//
// Every row but the first is Up-filtered (its difference from the row above), so a row that repeats
// the one above is all zeros and an area of one colour is a run. The zlib stream is one deflate
// block of literals and matches at distance 1 (a byte repeated) or one pixel (3 or 4 bytes), taken
// greedily (the longer at the first position where one of 3 bytes or more starts), in Huffman codes
// built for the frame (ties broken by symbol number). The search for the next match compares 16
// bytes a step (SSE2; 8 without), literals are written three to a flush of a 64-bit bit buffer,
// and the Adler-32 and CRC-32 are computed 32 and 8 bytes a step; every path gives the same bytes.
// No compression library is involved, so the bytes are the same on every machine, and any PNG
// decoder gives back the frame's pixels exactly. Without LZ77 matches at other distances it
// compresses noisy frames less than zlib does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cogsim::render {

// The PNG file (8-bit RGB or RGBA, no interlace) of width x height pixels of `channels` (3 or 4)
// bytes each, row-major.
std::vector<uint8_t> encode_png(const uint8_t* pixels, int32_t width, int32_t height, int32_t channels = 3);

}  // namespace cogsim::render
