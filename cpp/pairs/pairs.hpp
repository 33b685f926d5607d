// Matching Pairs (RNG-Bench): deals, one card flip per response, and the perfect-memory policy.
//
// A board of R x C cards (R * C even) holds identities 0..P-1 (P = R * C / 2), each exactly twice.
// A turn is two responses, one flip each: the first flip turns a card face up; the second either
// matches it (both are removed, the player scores and keeps the turn) or not (both turn back and,
// in a duel, the other player moves). Every flip is seen by every player.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cogsim::pairs {

inline constexpr int kMaxSide = 16;
enum CardState : uint8_t { kFaceDown = 0, kFaceUp = 1, kRemoved = 2 };
enum FlipOutcome : uint8_t { kInvalid = 0, kFirstFlip = 1, kMatch = 2, kMismatch = 3, kGameOver = 4 };

// Identities in row-major order, a uniform shuffle (SplitMix64 Fisher-Yates) of 0,0,1,1,...
std::vector<int16_t> deal(int rows, int cols, uint64_t seed);

// Structure-of-arrays view of B games (numpy buffers on the Python side). Game i's cards start
// at offset[i] in identities, state and seen; scores holds two counters per game.
struct Games {
  const int16_t* identities;
  const int32_t* partner;  // index of the other card of the same identity
  const int64_t* offset;
  const int32_t* cards;
  const int32_t* players;  // 1 (single) or 2 (duel)
  uint8_t* state;
  uint8_t* seen;       // card has been face up at least once (what perfect memory knows)
  int32_t* pending;    // the first flip of the current turn, -1 if none
  int32_t* player;     // whose turn it is
  int32_t* scores;     // pairs matched per player, [2 * i + p]
  int32_t* remaining;  // pairs still on the board
};

// Flips card `card` of game i. Invalid: out of range, removed, or the card already face up.
FlipOutcome flip(const Games& g, size_t i, int32_t card);

// The perfect-memory policy (the best known single-player strategy): complete a known pair if one
// is on the board; else, on a first flip, turn the first never-seen card; on a second flip, turn the
// first card's partner if it was seen, else the first never-seen card. Cards are scanned in
// row-major order. It never flips a seen card unless that flip makes a match.
int32_t optimal_flip(const Games& g, size_t i);

void flip_batch(const Games& g, size_t count, const int32_t* cards, uint8_t* outcomes, unsigned threads);
void optimal_batch(const Games& g, size_t count, int32_t* cards, unsigned threads);

// Plays every game to the end with the optimal policy for both flips of every turn; writes the
// responses used per game. Returns nothing else: scores and state are updated in place.
void play_optimal(const Games& g, size_t count, int32_t* responses, unsigned threads);

}  // namespace cogsim::pairs
