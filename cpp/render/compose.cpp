#include "render/compose.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/parallel.hpp"

namespace cogsim::render {
namespace {

constexpr double kMaxCoordinate = 32768.0;  // |x| beyond this leaves float32's 1/256 px steps

// [lo, hi) of the pixels an item spanning [a, b] (either order) may touch, from an even column.
struct Extent {
  int32_t shift, lo, hi;
};

enum PixelKind : uint8_t { kClear, kOpaque, kBlended };
constexpr int32_t kShortRun = 8;  // shorter opaque or clear stretches are blended with their neighbours

// The runs of one stamp row from its pixel kinds: opaque stretches copied, clear ones skipped, and
// short ones of either folded into the blended runs around them (blending gives the same pixels).
template <typename Run>
void add_runs(std::vector<uint8_t>& kinds, std::vector<Run>& runs) {
  const auto width = static_cast<int32_t>(kinds.size());
  for (int32_t x = 0; x < width;) {  // fold short opaque and inner clear stretches into blending
    int32_t end = x;
    while (end < width && kinds[end] == kinds[x]) ++end;
    const bool inner = x > 0 && end < width;
    if (end - x < kShortRun && (kinds[x] == kOpaque || (kinds[x] == kClear && inner))) {
      std::fill(kinds.begin() + x, kinds.begin() + end, kBlended);
    }
    x = end;
  }
  for (int32_t x = 0; x < width;) {
    int32_t end = x;
    while (end < width && kinds[end] == kinds[x]) ++end;
    if (kinds[x] != kClear) runs.push_back({x, end, kinds[x] == kOpaque});
    x = end;
  }
}

Extent extent(float a, float b) {
  const double lo = std::min(a, b), hi = std::max(a, b);
  const auto shift = static_cast<int32_t>(2.0 * std::floor(lo / 2.0));
  return {shift, shift, static_cast<int32_t>(std::ceil(hi))};
}

}  // namespace

Placement place(const float* row, int32_t width, int32_t height) {
  for (int k = 0; k < 4; ++k) {
    if (!(std::fabs(row[k]) <= kMaxCoordinate)) {
      throw std::invalid_argument("draw item rect must be finite numbers within +-32768 px, got " +
                                  std::to_string(row[k]));
    }
  }
  const Extent x = extent(row[0], row[2]), y = extent(row[1], row[3]);
  Placement p;
  p.dx = x.shift;
  p.dy = y.shift;
  p.window = {std::max(x.lo, 0), std::max(y.lo, 0), std::min(x.hi, width), std::min(y.hi, height)};
  return p;
}

size_t Compositor::KeyHash::operator()(const Key& key) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  for (const uint32_t word : key.bits) {
    h ^= word;
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h ^ (h >> 29));
}

Compositor::Key Compositor::key_of(const float* row, const Placement& p) {
  Key key{};
  const float moved[4] = {row[0] - static_cast<float>(p.dx), row[1] - static_cast<float>(p.dy),
                          row[2] - static_cast<float>(p.dx), row[3] - static_cast<float>(p.dy)};
  std::memcpy(key.bits.data(), moved, sizeof(moved));
  std::memcpy(key.bits.data() + 4, row + 4, sizeof(float) * 15);  // uv, colour, colour2, kind, p0, p1
  const int32_t window[4] = {p.window.x0 - p.dx, p.window.y0 - p.dy, p.window.x1 - p.dx, p.window.y1 - p.dy};
  std::memcpy(key.bits.data() + 19, window, sizeof(window));
  return key;
}

size_t Compositor::size_of(const Stamp& stamp) {
  return stamp.colour.size() + stamp.keep.size() + sizeof(Run) * stamp.runs.size() +
         sizeof(uint32_t) * stamp.row_runs.size() + sizeof(Stamp) + sizeof(Key);
}

int32_t Compositor::add_base(const uint8_t* rgba, int32_t width, int32_t height) {
  Base base{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
  const size_t pixels = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < pixels; ++i) std::memcpy(&base.rgb[3 * i], rgba + 4 * i, 3);
  std::lock_guard<std::mutex> lock(mutex_);
  bases_.push_back(std::move(base));
  return static_cast<int32_t>(bases_.size() - 1);
}

void Compositor::add_stamp(const float* row, int32_t width, int32_t height, const uint8_t* rgba) {
  const Placement p = place(row, width, height);
  if (p.window.empty()) return;
  Stamp stamp;
  stamp.width = p.window.width();
  stamp.height = p.window.height();
  const size_t pixels = static_cast<size_t>(stamp.width) * stamp.height;
  stamp.colour.resize(3 * pixels);
  stamp.keep.resize(3 * pixels);
  std::vector<uint8_t> kinds(stamp.width);
  stamp.row_runs.push_back(0);
  for (int32_t y = 0; y < stamp.height; ++y) {
    for (int32_t x = 0; x < stamp.width; ++x) {
      const size_t i = static_cast<size_t>(y) * stamp.width + x;
      const uint8_t* px = rgba + 4 * i;
      for (int c = 0; c < 3; ++c) {
        stamp.colour[3 * i + c] = px[c];
        stamp.keep[3 * i + c] = static_cast<uint8_t>(255 - px[3]);
      }
      // Zero colour over alpha 0 leaves a pixel as it was (the blend's product is exact for 255);
      // alpha 255 replaces it with the colour (the product is 0).
      kinds[x] = (px[0] | px[1] | px[2] | px[3]) == 0 ? kClear : px[3] == 255 ? kOpaque : kBlended;
    }
    add_runs(kinds, stamp.runs);
    stamp.row_runs.push_back(static_cast<uint32_t>(stamp.runs.size()));
  }
  const Key key = key_of(row, p);
  std::lock_guard<std::mutex> lock(mutex_);
  stamp.used = generation_;
  if (const auto old = stamps_.find(key); old != stamps_.end()) bytes_ -= size_of(old->second);
  bytes_ += size_of(stamp);
  stamps_.insert_or_assign(key, std::move(stamp));
  if (bytes_ > max_bytes_) evict_unused();
}

void Compositor::evict_unused() {
  for (auto it = stamps_.begin(); it != stamps_.end();) {
    if (it->second.used < generation_) {
      bytes_ -= size_of(it->second);
      it = stamps_.erase(it);
    } else {
      ++it;
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(COGSIM_NO_CLONES)
__attribute__((target_clones("avx2", "default")))
#endif
void blend(uint8_t* __restrict dst, const uint8_t* __restrict colour, const uint8_t* __restrict keep, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    const uint16_t product = static_cast<uint16_t>(dst[i] * keep[i]);
    const auto scaled = static_cast<uint16_t>((product + (product >> 8) + 128) >> 8);
    const uint16_t sum = static_cast<uint16_t>(colour[i] + scaled);
    dst[i] = static_cast<uint8_t>(sum > 255 ? 255 : sum);
  }
}

std::vector<int64_t> Compositor::compose(const float* rows, size_t n_rows, const std::vector<uint8_t*>& frames,
                                         int32_t width, int32_t height, const int32_t* base_ids, unsigned threads) {
  const size_t count = frames.size();
  std::lock_guard<std::mutex> lock(mutex_);
  ++generation_;
  struct Placed {
    const Stamp* stamp;
    Placement placement;
  };
  std::vector<Placed> placed(n_rows, Placed{nullptr, {}});
  std::vector<size_t> first_row(count + 1, 0);  // frame i's rows are [first_row[i], first_row[i + 1])
  std::vector<int64_t> missing;
  std::unordered_map<Key, size_t, KeyHash> asked;
  size_t frame = 0;
  for (size_t r = 0; r < n_rows; ++r) {
    const float* row = rows + r * kRowFloats;
    const float f = row[kFrameColumn];
    if (!(f >= static_cast<float>(frame) && f < static_cast<float>(count) && f == std::floor(f))) {
      throw std::invalid_argument("draw items must come in frame order, frames being whole numbers in 0.." +
                                  std::to_string(count - 1) + "; item " + std::to_string(r) + " has frame " +
                                  std::to_string(f));
    }
    for (; frame < static_cast<size_t>(f); ++frame) first_row[frame + 1] = r;
    const Placement p = place(row, width, height);
    if (p.window.empty()) continue;
    const Key key = key_of(row, p);
    const auto found = stamps_.find(key);
    if (found == stamps_.end()) {
      if (asked.emplace(key, r).second) missing.push_back(static_cast<int64_t>(r));
      continue;
    }
    found->second.used = generation_;
    placed[r] = {&found->second, p};
  }
  for (; frame < count; ++frame) first_row[frame + 1] = n_rows;
  for (size_t i = 0; i < count; ++i) {
    const int32_t id = base_ids[i];
    if (id < -1 || id >= static_cast<int32_t>(bases_.size())) {
      throw std::invalid_argument("frame " + std::to_string(i) + ": unknown base id " + std::to_string(id));
    }
    if (id >= 0 && (bases_[id].width != width || bases_[id].height != height)) {
      throw std::invalid_argument("frame " + std::to_string(i) + ": its base is not the frame's size");
    }
  }
  if (!missing.empty()) return missing;
  const size_t frame_bytes = static_cast<size_t>(width) * height * 3;
  parallel_for(count, threads, [&](size_t i) {
    uint8_t* image = frames[i];
    if (base_ids[i] >= 0) {
      std::memcpy(image, bases_[base_ids[i]].rgb.data(), frame_bytes);
    } else {
      std::memset(image, 0, frame_bytes);
    }
    for (size_t r = first_row[i]; r < first_row[i + 1]; ++r) {
      const Stamp* stamp = placed[r].stamp;
      if (!stamp) continue;
      const Window& w = placed[r].placement.window;
      for (int32_t y = 0; y < stamp->height; ++y) {
        uint8_t* line = image + ((static_cast<size_t>(w.y0) + y) * width + w.x0) * 3;
        const size_t row_start = static_cast<size_t>(y) * stamp->width * 3;
        for (uint32_t k = stamp->row_runs[y]; k < stamp->row_runs[y + 1]; ++k) {
          const Run& run = stamp->runs[k];
          const size_t at = row_start + 3 * static_cast<size_t>(run.first);
          const size_t bytes = 3 * static_cast<size_t>(run.last - run.first);
          if (run.opaque) {
            std::memcpy(line + 3 * run.first, stamp->colour.data() + at, bytes);
          } else {
            blend(line + 3 * run.first, stamp->colour.data() + at, stamp->keep.data() + at, bytes);
          }
        }
      }
    }
  });
  return missing;
}

}  // namespace cogsim::render
