#pragma once
/// @file
/// Seeded random numbers that give bit-identical streams on every platform and compiler.
///
/// The standard library's distributions are implementation-defined, so gridlock never uses
/// them for anything that must be reproducible: `uniform_below` and `shuffle` are defined here.
/// Nothing in this header keeps process-global state (SimGrid SMPI runs all ranks in one process).

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

namespace gridlock {

/// SplitMix64 finaliser: a bijective 64-bit mixing function (Steele, Lea, Flood 2014).
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

/// Derives an independent seed for sub-stream `stream` of `seed` (e.g. ring number, replica).
[[nodiscard]] constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) noexcept {
  return mix64(mix64(seed) ^ mix64(stream + 0x632be59bd9b4e019ULL));
}

/// xoshiro256** 1.0 (Blackman, Vigna): fast, 256-bit state, satisfies UniformRandomBitGenerator.
class Rng {
 public:
  using result_type = std::uint64_t;  ///< Type of one output.

  /// Seeds the state by running SplitMix64 from `seed`, as the algorithm's authors recommend.
  explicit constexpr Rng(std::uint64_t seed) noexcept {
    std::uint64_t x = seed;
    for (auto& word : state_) {
      word = mix64(x);
      x += 0x9e3779b97f4a7c15ULL;
    }
  }

  /// Smallest value `operator()` returns.
  [[nodiscard]] static constexpr result_type min() noexcept { return 0; }
  /// Largest value `operator()` returns.
  [[nodiscard]] static constexpr result_type max() noexcept {
    return std::numeric_limits<result_type>::max();
  }

  /// Next 64 random bits.
  constexpr result_type operator()() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17U;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  constexpr double uniform01() noexcept { return static_cast<double>((*this)() >> 11U) * 0x1.0p-53; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, unsigned k) noexcept {
    return (x << k) | (x >> (64U - k));
  }
  std::array<std::uint64_t, 4> state_{};
};

/// Unbiased uniform integer in [0, bound) (Lemire's nearly-divisionless method). `bound` > 0.
[[nodiscard]] std::uint64_t uniform_below(Rng& rng, std::uint64_t bound) noexcept;

/// Fisher–Yates shuffle with `uniform_below`: identical result on every platform.
template <typename T>
void shuffle(std::span<T> items, Rng& rng) noexcept {
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(items[i - 1], items[j]);
  }
}

/// A seeded pseudo-random permutation of [0, n) evaluated in O(1) memory and expected O(1) time.
///
/// A balanced Feistel network over the smallest power-of-four domain >= n, with cycle walking
/// to stay inside [0, n). Every rank can compute `at(i)` and `index_of(v)` for its own `i`
/// without materialising the permutation, so node shuffles and random rings cost O(1) memory
/// per rank however many ranks there are.
class RandomPermutation {
 public:
  /// Permutation of [0, n) determined by `seed`. `n` may be 0 or 1 (trivial permutations).
  RandomPermutation(std::uint64_t n, std::uint64_t seed) noexcept;

  /// Number of elements.
  [[nodiscard]] std::uint64_t size() const noexcept { return n_; }
  /// The element at position `i` (i < size()).
  [[nodiscard]] std::uint64_t at(std::uint64_t i) const noexcept;
  /// The position of element `v` (v < size()); inverse of `at`.
  [[nodiscard]] std::uint64_t index_of(std::uint64_t v) const noexcept;

 private:
  static constexpr int kRounds = 6;
  [[nodiscard]] std::uint64_t encrypt(std::uint64_t x) const noexcept;
  [[nodiscard]] std::uint64_t decrypt(std::uint64_t x) const noexcept;
  [[nodiscard]] std::uint64_t round_fn(std::uint64_t half, int round) const noexcept;

  std::uint64_t n_;
  unsigned half_bits_ = 0;
  std::uint64_t half_mask_ = 0;
  std::array<std::uint64_t, kRounds> keys_{};
};

/// Left and right neighbours of one member of a random ring.
struct RingNeighbours {
  std::uint64_t left;   ///< Member before this one on the ring.
  std::uint64_t right;  ///< Member after this one on the ring.
};

/// The visiting order of random ring `ring_index` over `size` members for base `seed`:
/// `at(i)` is the i-th member on the ring. random_ring_neighbours() reads the same order.
[[nodiscard]] RandomPermutation random_ring_order(std::uint64_t size, std::uint64_t seed,
                                                  std::uint64_t ring_index) noexcept;

/// Neighbours of `member` on ring number `ring_index` over `size` members, for base `seed`.
/// The ring visits the members in the order of a RandomPermutation derived from
/// (seed, ring_index), so it is always one single cycle and every member computes the same
/// ring independently. For size 2 both neighbours are the other member; size must be >= 2.
[[nodiscard]] RingNeighbours random_ring_neighbours(std::uint64_t size, std::uint64_t member,
                                                    std::uint64_t seed, std::uint64_t ring_index);

}  // namespace gridlock
