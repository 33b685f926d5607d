#include "pairs/pairs.hpp"

#include <stdexcept>
#include <string>

#include "common/parallel.hpp"
#include "common/rng.hpp"

namespace cogsim::pairs {

std::vector<int16_t> deal(int rows, int cols, uint64_t seed) {
  if (rows < 1 || rows > kMaxSide || cols < 1 || cols > kMaxSide) {
    throw std::invalid_argument("rows and cols must be in [1, " + std::to_string(kMaxSide) + "], got " +
                                std::to_string(rows) + "x" + std::to_string(cols));
  }
  if ((rows * cols) % 2 != 0) {
    throw std::invalid_argument("rows * cols must be even (pairs), got " + std::to_string(rows) + "x" +
                                std::to_string(cols));
  }
  std::vector<int16_t> identities(static_cast<size_t>(rows) * cols);
  for (size_t k = 0; k < identities.size(); ++k) identities[k] = static_cast<int16_t>(k / 2);
  SplitMix64 rng(seed);
  rng.shuffle(identities.begin(), identities.end());
  return identities;
}

namespace {

int32_t partner_of(const Games& g, size_t i, int32_t card) { return g.partner[g.offset[i] + card]; }

int32_t first_unseen(const Games& g, size_t i, int32_t except) {
  const int64_t base = g.offset[i];
  for (int32_t k = 0; k < g.cards[i]; ++k) {
    if (k != except && !g.seen[base + k] && g.state[base + k] == kFaceDown) return k;
  }
  return -1;
}

// A face-down card whose partner is also face down and both have been seen, or -1.
int32_t known_pair(const Games& g, size_t i) {
  const int64_t base = g.offset[i];
  for (int32_t k = 0; k < g.cards[i]; ++k) {
    if (!g.seen[base + k] || g.state[base + k] != kFaceDown) continue;
    const int32_t other = partner_of(g, i, k);
    if (g.seen[base + other] && g.state[base + other] == kFaceDown) return k;
  }
  return -1;
}

}  // namespace

FlipOutcome flip(const Games& g, size_t i, int32_t card) {
  if (g.remaining[i] == 0) return kGameOver;
  if (card < 0 || card >= g.cards[i]) return kInvalid;
  const int64_t base = g.offset[i];
  if (g.state[base + card] != kFaceDown) return kInvalid;
  g.seen[base + card] = 1;
  const int32_t first = g.pending[i];
  if (first < 0) {
    g.state[base + card] = kFaceUp;
    g.pending[i] = card;
    return kFirstFlip;
  }
  g.pending[i] = -1;
  if (g.identities[base + first] == g.identities[base + card]) {
    g.state[base + first] = g.state[base + card] = kRemoved;
    g.scores[2 * i + g.player[i]] += 1;
    g.remaining[i] -= 1;
    return kMatch;
  }
  g.state[base + first] = kFaceDown;
  g.player[i] = (g.player[i] + 1) % g.players[i];
  return kMismatch;
}

int32_t optimal_flip(const Games& g, size_t i) {
  if (g.remaining[i] == 0) return -1;
  const int32_t first = g.pending[i];
  if (first < 0) {
    const int32_t pair = known_pair(g, i);
    return pair >= 0 ? pair : first_unseen(g, i, -1);
  }
  const int32_t partner = partner_of(g, i, first);
  if (g.seen[g.offset[i] + partner]) return partner;
  return first_unseen(g, i, first);
}

void flip_batch(const Games& g, size_t count, const int32_t* cards, uint8_t* outcomes, unsigned threads) {
  parallel_for(count, threads, [&](size_t i) { outcomes[i] = flip(g, i, cards[i]); }, 1024);
}

void optimal_batch(const Games& g, size_t count, int32_t* cards, unsigned threads) {
  parallel_for(count, threads, [&](size_t i) { cards[i] = optimal_flip(g, i); }, 1024);
}

void play_optimal(const Games& g, size_t count, int32_t* responses, unsigned threads) {
  parallel_for(
      count, threads,
      [&](size_t i) {
        int32_t used = 0;
        while (g.remaining[i] > 0) {
          if (flip(g, i, optimal_flip(g, i)) == kInvalid) {
            throw std::logic_error("the optimal policy chose an invalid flip");
          }
          ++used;
        }
        responses[i] = used;
      },
      64);
}

}  // namespace cogsim::pairs
