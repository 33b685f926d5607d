// Frames made of opaque tiles over a fixed base: the release look of RNG-Bench's card boards, where
// every card is an opaque 64 x 64 picture (its face, back or empty slot already flattened onto white,
// as the release's renderer flattens it) pasted over felt and labels that depend only on the board size.
// Each output pixel is written once, row by row: the base row, then the tile rows that cross it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cogsim::render {

// One tile placement: tile index (-1: none), left and top pixel in the frame.
struct TilePlacement {
  int32_t tile, x, y;
};

struct TileFrames {
  const uint8_t* bases;  // B bases, each height x width x 3
  int32_t base_count, width, height;
  const uint8_t* tiles;  // T tiles, each tile_height x tile_width x 3
  int32_t tile_count, tile_width, tile_height;
};

// Writes frames[i] (height x width x 3) = bases[base_ids[i]] with the placements[i * per_frame ...] tiles
// pasted (card boards never overlap tiles; where tiles do overlap, the one whose top row is lower, then the
// later one, ends on top). Throws std::invalid_argument (before writing anything) for a base id or tile
// index out of range or a tile that does not lie wholly inside the frame.
void paste_tiles(const TileFrames& layout, const int32_t* base_ids, const TilePlacement* placements, size_t per_frame,
                 uint8_t* const* frames, size_t count, unsigned threads);

}  // namespace cogsim::render
