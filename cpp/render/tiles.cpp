#include "render/tiles.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/parallel.hpp"

namespace cogsim::render {
namespace {

void check(const TileFrames& layout, const int32_t* base_ids, const TilePlacement* placements, size_t per_frame,
           size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (base_ids[i] < 0 || base_ids[i] >= layout.base_count) {
      throw std::invalid_argument("frame " + std::to_string(i) + ": base id " + std::to_string(base_ids[i]) +
                                  " is not in [0, " + std::to_string(layout.base_count) + ")");
    }
    for (size_t k = 0; k < per_frame; ++k) {
      const TilePlacement& p = placements[i * per_frame + k];
      if (p.tile == -1) continue;
      if (p.tile < 0 || p.tile >= layout.tile_count) {
        throw std::invalid_argument("frame " + std::to_string(i) + ": tile " + std::to_string(p.tile) +
                                    " is not in [0, " + std::to_string(layout.tile_count) + ") nor -1");
      }
      if (p.x < 0 || p.y < 0 || p.x > layout.width - layout.tile_width || p.y > layout.height - layout.tile_height) {
        throw std::invalid_argument("frame " + std::to_string(i) + ": a tile at (" + std::to_string(p.x) + ", " +
                                    std::to_string(p.y) + ") does not lie inside the frame");
      }
    }
  }
}

void paste_frame(const TileFrames& layout, const uint8_t* base, const TilePlacement* placements, size_t per_frame,
                 uint8_t* frame) {
  std::vector<TilePlacement> order;
  order.reserve(per_frame);
  for (size_t k = 0; k < per_frame; ++k) {
    if (placements[k].tile >= 0) order.push_back(placements[k]);
  }
  // Rows are swept top to bottom over the placements sorted by top row (stable: equal rows keep their order).
  std::stable_sort(order.begin(), order.end(),
                   [](const TilePlacement& a, const TilePlacement& b) { return a.y < b.y; });
  const size_t row_bytes = static_cast<size_t>(layout.width) * 3;
  const size_t tile_row = static_cast<size_t>(layout.tile_width) * 3;
  const size_t tile_bytes = tile_row * static_cast<size_t>(layout.tile_height);
  size_t first = 0;  // placements before it end above the current row
  for (int32_t y = 0; y < layout.height; ++y) {
    uint8_t* out = frame + static_cast<size_t>(y) * row_bytes;
    std::memcpy(out, base + static_cast<size_t>(y) * row_bytes, row_bytes);
    while (first < order.size() && order[first].y + layout.tile_height <= y) ++first;
    for (size_t k = first; k < order.size() && order[k].y <= y; ++k) {
      const TilePlacement& p = order[k];
      if (y >= p.y + layout.tile_height) continue;
      const uint8_t* tile = layout.tiles + static_cast<size_t>(p.tile) * tile_bytes;
      std::memcpy(out + static_cast<size_t>(p.x) * 3, tile + static_cast<size_t>(y - p.y) * tile_row, tile_row);
    }
  }
}

}  // namespace

void paste_tiles(const TileFrames& layout, const int32_t* base_ids, const TilePlacement* placements, size_t per_frame,
                 uint8_t* const* frames, size_t count, unsigned threads) {
  check(layout, base_ids, placements, per_frame, count);
  const size_t base_bytes = static_cast<size_t>(layout.width) * static_cast<size_t>(layout.height) * 3;
  parallel_for(count, threads, [&](size_t i) {
    paste_frame(layout, layout.bases + static_cast<size_t>(base_ids[i]) * base_bytes, placements + i * per_frame,
                per_frame, frames[i]);
  });
}

}  // namespace cogsim::render
