#include "gridlock/core/rng.hpp"

#include <bit>
#include <stdexcept>

namespace gridlock {
namespace {
// -Wpedantic rejects __int128 unless it is marked as an extension.
__extension__ using Uint128 = unsigned __int128;
}  // namespace

std::uint64_t uniform_below(Rng& rng, std::uint64_t bound) noexcept {
  // Lemire, "Fast Random Integer Generation in an Interval" (2019): multiply-shift with a
  // rejection step that removes the bias of the plain multiply.
  std::uint64_t x = rng();
  auto m = static_cast<Uint128>(x) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      x = rng();
      m = static_cast<Uint128>(x) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64U);
}

RandomPermutation::RandomPermutation(std::uint64_t n, std::uint64_t seed) noexcept : n_(n) {
  // The Feistel domain is 2^(2*half_bits) >= n, at most 4n, so cycle walking takes fewer than
  // four steps on average.
  unsigned bits = n <= 1 ? 2U : static_cast<unsigned>(std::bit_width(n - 1));
  bits += bits % 2U;
  half_bits_ = bits / 2U;
  half_mask_ = (std::uint64_t{1} << half_bits_) - 1U;
  for (int r = 0; r < kRounds; ++r) {
    keys_[static_cast<std::size_t>(r)] = derive_seed(seed, static_cast<std::uint64_t>(r));
  }
}

std::uint64_t RandomPermutation::round_fn(std::uint64_t half, int round) const noexcept {
  return mix64(half ^ keys_[static_cast<std::size_t>(round)]) & half_mask_;
}

std::uint64_t RandomPermutation::encrypt(std::uint64_t x) const noexcept {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (int r = 0; r < kRounds; ++r) {
    const std::uint64_t next = left ^ round_fn(right, r);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::uint64_t RandomPermutation::decrypt(std::uint64_t x) const noexcept {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (int r = kRounds - 1; r >= 0; --r) {
    const std::uint64_t previous = right ^ round_fn(left, r);
    right = left;
    left = previous;
  }
  return (left << half_bits_) | right;
}

std::uint64_t RandomPermutation::at(std::uint64_t i) const noexcept {
  // Cycle walking: re-encrypt until the value falls inside [0, n); a permutation of the larger
  // domain restricted this way is a permutation of [0, n).
  std::uint64_t x = encrypt(i);
  while (x >= n_) {
    x = encrypt(x);
  }
  return x;
}

std::uint64_t RandomPermutation::index_of(std::uint64_t v) const noexcept {
  std::uint64_t x = decrypt(v);
  while (x >= n_) {
    x = decrypt(x);
  }
  return x;
}

RandomPermutation random_ring_order(std::uint64_t size, std::uint64_t seed,
                                    std::uint64_t ring_index) noexcept {
  return {size, derive_seed(seed, ring_index)};
}

RingNeighbours random_ring_neighbours(std::uint64_t size, std::uint64_t member, std::uint64_t seed,
                                      std::uint64_t ring_index) {
  if (size < 2 || member >= size) {
    throw std::invalid_argument("random_ring_neighbours: need size >= 2 and member < size");
  }
  const RandomPermutation order = random_ring_order(size, seed, ring_index);
  const std::uint64_t position = order.index_of(member);
  return RingNeighbours{order.at((position + size - 1) % size), order.at((position + 1) % size)};
}

}  // namespace gridlock
