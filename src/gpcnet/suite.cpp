#include "gridlock/gpcnet/suite.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace gridlock::gpcnet {
namespace {

constexpr std::string_view kUsec = "usec";
constexpr std::string_view kMiBPerRank = "MiB/s/rank";

// GPCNeT's names (network_test.c, network_load_test.c); network-mode order.
constexpr std::array<CanaryTest, 8> kCanaries{{
    {Canary::kRrTwoSidedLat, "rr_two_sided_lat", "RR Two-sided Lat", kUsec, Better::kLower,
     CanaryClass::kLatency, RingKind::kRandom, true},
    {Canary::kRrGetLat, "rr_get_lat", "RR Get Lat", kUsec, Better::kLower, CanaryClass::kLatency,
     RingKind::kRandom, false},
    {Canary::kRrTwoSidedBw, "rr_two_sided_bw", "RR Two-sided BW", kMiBPerRank, Better::kHigher,
     CanaryClass::kBandwidth, RingKind::kRandom, false},
    {Canary::kRrPutBw, "rr_put_bw", "RR Put BW", kMiBPerRank, Better::kHigher, CanaryClass::kBandwidth,
     RingKind::kRandom, false},
    {Canary::kRrTwoSidedBwSync, "rr_two_sided_bw_sync", "RR Two-sided BW+Sync", kMiBPerRank, Better::kHigher,
     CanaryClass::kBandwidth, RingKind::kRandom, true},
    {Canary::kNatTwoSidedBw, "nat_two_sided_bw", "Nat Two-sided BW", kMiBPerRank, Better::kHigher,
     CanaryClass::kBandwidth, RingKind::kNatural, false},
    {Canary::kMultipleAllreduce, "multiple_allreduce", "Multiple Allreduce", kUsec, Better::kLower,
     CanaryClass::kAllreduce, RingKind::kNone, true},
    {Canary::kMultipleAlltoall, "multiple_alltoall", "Multiple Alltoall", kMiBPerRank, Better::kHigher,
     CanaryClass::kAlltoall, RingKind::kNone, false},
}};

constexpr std::array<CongestorTest, 5> kCongestors{{
    {CongestorType::kAllToAll, "a2a", "All-to-all"},
    {CongestorType::kP2pIncast, "p2p-incast", "P2P Incast"},
    {CongestorType::kRmaIncast, "rma-incast", "RMA Incast"},
    {CongestorType::kRmaBcast, "rma-bcast", "RMA Bcast"},
    {CongestorType::kAllreduce, "allreduce", "Allreduce"},
}};

std::uint64_t class_bytes(CanaryClass size_class, const Options& o) noexcept {
  switch (size_class) {
    case CanaryClass::kLatency:
      return o.latency_bytes;
    case CanaryClass::kBandwidth:
      return o.bandwidth_bytes;
    case CanaryClass::kAllreduce:
      return o.allreduce_bytes;
    case CanaryClass::kAlltoall:
      break;
  }
  return o.alltoall_bytes;
}

LoopCounts class_loop(CanaryClass size_class, const Options& o) noexcept {
  switch (size_class) {
    case CanaryClass::kLatency:
      return o.latency;
    case CanaryClass::kBandwidth:
      return o.bandwidth;
    case CanaryClass::kAllreduce:
      return o.allreduce;
    case CanaryClass::kAlltoall:
      break;
  }
  return o.alltoall;
}

}  // namespace

std::span<const CanaryTest> canary_tests() noexcept { return kCanaries; }

const CanaryTest& canary_test(Canary id) noexcept {
  // The table lists every Canary once, in declaration order.
  return kCanaries.at(static_cast<std::size_t>(id));
}

std::string canary_title(Canary id, std::uint64_t bytes) {
  return fmt::format("{} ({} B)", canary_test(id).name, bytes);
}

std::vector<CanarySpec> canary_specs(const Options& options) {
  std::vector<CanarySpec> specs;
  for (const CanaryTest& test : kCanaries) {
    if (options.mode == Mode::kLoad && !test.in_load_mode) {
      continue;
    }
    LoopCounts loop = class_loop(test.size_class, options);
    if (test.rings == RingKind::kNatural) {
      loop.rings = 1;  // the natural ring is the same every time
    }
    specs.push_back({test.id, std::string(test.key),
                     canary_title(test.id, class_bytes(test.size_class, options)), std::string(test.units),
                     test.better, loop, test.rings});
  }
  return specs;
}

std::span<const CongestorTest> congestor_tests() noexcept { return kCongestors; }

std::vector<CongestorType> default_congestors() {
  return {CongestorType::kAllToAll, CongestorType::kP2pIncast, CongestorType::kRmaIncast,
          CongestorType::kRmaBcast};
}

}  // namespace gridlock::gpcnet
