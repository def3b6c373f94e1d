#include "gridlock/predict/traffic.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/histogram.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/topo/dragonfly.hpp"
#include "gridlock/topo/fat_tree.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/torus.hpp"

namespace gridlock::predict {

using net::identity_placement;
using net::make_model;
using net::Model;
using net::ModelKind;
using net::Network;
using net::NetworkParams;
using net::PacketOptions;
using net::Placement;

namespace {

constexpr const char* kPatternChoices =
    "give uniform, randperm, shift:K (K a non-zero whole number), worst-case, hotspot:N or incast:N";
constexpr std::size_t kMaxLoads = 200;
// Packets a node's source queue holds; one generated beyond it is dropped (and the point is
// saturated: its packets would wait at least this many packet-times).
constexpr std::size_t kSourceQueueCap = 1000;
// Batches compared by the convergence rule, and how closely they must agree.
constexpr std::size_t kConvergeBatches = 3;
constexpr double kConvergeTolerance = 0.05;
// Sender-destination pairs sampled for the zero-load latency of random patterns.
constexpr std::uint32_t kZeroLoadSamples = 4096;
// Rng streams: the node phases and Bernoulli draws, random destinations, the permutation, the
// zero-load sample (the packet model's Valiant and UGAL choices take the seed itself, as in
// predict gpcnet, so that its description prints the seed the user gave).
constexpr std::uint64_t kStreamGenerate = 1;
constexpr std::uint64_t kStreamDestination = 2;
constexpr std::uint64_t kStreamPermutation = 3;
constexpr std::uint64_t kStreamZeroLoad = 4;
// Bytes the model holds per packet in flight (its message and packet records, path storage), and
// per queued packet of the generator: for the memory estimate.
constexpr std::uint64_t kModelBytesPerPacket = 256;
constexpr std::uint64_t kQueueBytesPerPacket = 32;

std::uint32_t parse_count(std::string_view text, std::string_view pattern, std::string_view what) {
  const std::uint32_t value = parse_u32(text).value_or(0);
  if (value == 0) {
    throw InputError(
        fmt::format("{} '{}': N must be a whole number of at least 1; {}", what, pattern, kPatternChoices));
  }
  return value;
}

// The nodes of each router, in node order.
std::vector<std::vector<std::uint32_t>> nodes_by_router(const topo::Topology& t) {
  std::vector<std::vector<std::uint32_t>> out(t.routers().size());
  for (const topo::Node& n : t.nodes()) {
    out.at(n.router).push_back(n.id);
  }
  return out;
}

// Node index within its router.
std::vector<std::uint32_t> index_in_router(const std::vector<std::vector<std::uint32_t>>& by_router,
                                           std::uint32_t nodes) {
  std::vector<std::uint32_t> out(nodes, 0);
  for (const auto& list : by_router) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      out[list[i]] = static_cast<std::uint32_t>(i);
    }
  }
  return out;
}

std::vector<std::uint32_t> dragonfly_worst(const topo::Dragonfly& d, std::uint32_t nodes, std::string& text) {
  const auto per_group =
      static_cast<std::uint32_t>(d.options().routers_per_group * d.options().nodes_per_router);
  const auto groups = static_cast<std::uint32_t>(d.options().groups);
  std::vector<std::uint32_t> out(nodes);
  for (std::uint32_t n = 0; n < nodes; ++n) {
    out[n] = ((n / per_group + 1) % groups) * per_group + n % per_group;
  }
  text = fmt::format("worst-case: node j of group i to node j of group i+1 (mod {}), {} nodes per group",
                     groups, per_group);
  return out;
}

std::vector<std::uint32_t> torus_worst(const topo::Torus3D& t, std::uint32_t nodes, std::string& text) {
  const auto by_router = nodes_by_router(t);
  const auto index = index_in_router(by_router, nodes);
  const auto dims = t.options().dims;
  std::array<int, 3> offset{0, 0, 0};
  std::vector<std::string> parts;
  const char* names[] = {"X", "Y", "Z"};
  for (std::size_t d = 0; d < 3; ++d) {
    if (dims.at(d) >= 3) {
      offset.at(d) = (dims.at(d) + 1) / 2 - 1;
      parts.push_back(fmt::format("+{} in {}", offset.at(d), names[d]));
    }
  }
  if (parts.empty()) {
    throw InputError(fmt::format(
        "--pattern worst-case on {}: tornado needs a dimension of 3 or more routers; give a larger torus "
        "or another pattern (shift:K, randperm)",
        t.spec()));
  }
  std::vector<std::uint32_t> out(nodes);
  for (std::uint32_t n = 0; n < nodes; ++n) {
    const auto c = t.coords_of(t.nodes()[n].router);
    const topo::RouterId r =
        t.router_at((c[0] + offset[0]) % dims[0], (c[1] + offset[1]) % dims[1], (c[2] + offset[2]) % dims[2]);
    const auto& there = by_router.at(r);
    if (there.empty()) {
      throw InputError(fmt::format("--pattern worst-case on {}: router {} has no nodes; give another pattern",
                                   t.spec(), t.routers()[r].name));
    }
    out[n] = there[index[n] % there.size()];
  }
  text = fmt::format("worst-case: tornado, {} (node j of a router to node j of the other)",
                     fmt::join(parts, ", "));
  return out;
}

std::vector<std::uint32_t> fat_tree_worst(const topo::FatTree& f, std::uint32_t nodes, std::string& text) {
  if (f.levels() != 2 || f.up_ports().empty()) {
    throw InputError(fmt::format(
        "--pattern worst-case on {}: defined for two-level fat trees (leaves and spines); give a fat tree "
        "M1xM2 or another pattern (shift:K, randperm)",
        f.spec()));
  }
  const auto by_router = nodes_by_router(f);
  const auto m1 = static_cast<std::uint32_t>(by_router.at(0).size());
  const std::uint32_t m2 = nodes / m1;
  const auto w2 = static_cast<std::uint32_t>(f.up_ports().front());
  const std::uint32_t per_key = std::max<std::uint32_t>(1, m1 / w2);
  std::vector<std::uint32_t> out(nodes);
  for (std::uint32_t n = 0; n < nodes; ++n) {
    const std::uint32_t leaf = n / m1;
    const std::uint32_t j = n % m1;
    const std::uint32_t to_leaf = (leaf + 1 + j) % m2;
    const std::uint32_t to_index = std::min(m1 - 1, leaf % w2 + w2 * ((leaf / w2) % per_key));
    std::uint32_t dst = to_leaf * m1 + to_index;
    if (dst == n) {
      dst = (n + m1) % nodes;
    }
    out[n] = dst;
  }
  text = fmt::format(
      "worst-case: node j of leaf L to leaf (L+1+j) mod {}, all of leaf L's destinations with D-mod-k key L "
      "mod {}: a leaf's {} nodes share one up link",
      m2, w2, m1);
  return out;
}

// Fixed points of a permutation swapped with the next position (see Destinations).
void derange(std::vector<std::uint32_t>& perm) {
  const std::size_t n = perm.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (perm[i] == i) {
      std::swap(perm[i], perm[(i + 1) % n]);
    }
  }
}

}  // namespace

TrafficPattern parse_pattern(std::string_view text, std::string_view what) {
  TrafficPattern p;
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  const bool has_arg = colon != std::string_view::npos;
  if (name == "uniform" || name == "randperm" || name == "worst-case") {
    if (has_arg) {
      throw InputError(fmt::format("{} '{}': {} takes no argument; {}", what, text, name, kPatternChoices));
    }
    p.kind = name == "uniform"    ? PatternKind::kUniform
             : name == "randperm" ? PatternKind::kRandperm
                                  : PatternKind::kWorstCase;
    return p;
  }
  if (name == "shift") {
    const std::int64_t k = parse_number<std::int64_t>(arg).value_or(0);
    if (!has_arg || k == 0) {
      throw InputError(fmt::format("{} '{}': shift needs a non-zero whole number K (node i sends to i+K); {}",
                                   what, text, kPatternChoices));
    }
    p.kind = PatternKind::kShift;
    p.shift = k;
    return p;
  }
  if (name == "hotspot" || name == "incast") {
    if (!has_arg) {
      throw InputError(
          fmt::format("{} '{}': {} needs N ({}:N); {}", what, text, name, name, kPatternChoices));
    }
    p.kind = name == "hotspot" ? PatternKind::kHotspot : PatternKind::kIncast;
    p.count = parse_count(arg, text, what);
    return p;
  }
  throw InputError(fmt::format("{} '{}': unknown pattern; {}", what, text, kPatternChoices));
}

std::string to_string(const TrafficPattern& pattern) {
  switch (pattern.kind) {
    case PatternKind::kRandperm:
      return "randperm";
    case PatternKind::kShift:
      return fmt::format("shift:{}", pattern.shift);
    case PatternKind::kWorstCase:
      return "worst-case";
    case PatternKind::kHotspot:
      return fmt::format("hotspot:{}", pattern.count);
    case PatternKind::kIncast:
      return fmt::format("incast:{}", pattern.count);
    case PatternKind::kUniform:
      break;
  }
  return "uniform";
}

Destinations::Destinations(const TrafficPattern& pattern, const topo::Topology& topology, std::uint64_t seed)
    : kind_(pattern.kind), nodes_(static_cast<std::uint32_t>(topology.nodes().size())) {
  const std::uint32_t n = nodes_;
  if (n < 2) {
    throw InputError(fmt::format("--pattern {}: {} has {} node; synthetic traffic needs at least 2",
                                 to_string(pattern), topology.spec(), n));
  }
  sends_.assign(n, 1);
  senders_ = n;
  switch (pattern.kind) {
    case PatternKind::kUniform:
      description_ = "uniform: each packet to a uniformly random other node";
      break;
    case PatternKind::kRandperm: {
      fixed_.resize(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        fixed_[i] = i;
      }
      Rng rng(derive_seed(seed, kStreamPermutation));
      for (std::uint32_t i = n - 1; i > 0; --i) {
        std::swap(fixed_[i], fixed_[uniform_below(rng, std::uint64_t{i} + 1)]);
      }
      derange(fixed_);
      description_ = fmt::format("randperm: a random permutation without fixed points (seed {})", seed);
      break;
    }
    case PatternKind::kShift: {
      const auto k = static_cast<std::uint32_t>(((pattern.shift % n) + n) % n);
      if (k == 0) {
        throw InputError(fmt::format(
            "--pattern shift:{}: K is a multiple of the {} nodes of {}, so every node would send to itself; "
            "give K from 1 to {}",
            pattern.shift, n, topology.spec(), n - 1));
      }
      fixed_.resize(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        fixed_[i] = (i + k) % n;
      }
      description_ = fmt::format("shift: node i to node (i + {}) mod {}", k, n);
      break;
    }
    case PatternKind::kWorstCase:
      if (const auto* d = dynamic_cast<const topo::Dragonfly*>(&topology); d != nullptr) {
        fixed_ = dragonfly_worst(*d, n, description_);
      } else if (const auto* t = dynamic_cast<const topo::Torus3D*>(&topology); t != nullptr) {
        fixed_ = torus_worst(*t, n, description_);
      } else if (const auto* f = dynamic_cast<const topo::FatTree*>(&topology); f != nullptr) {
        fixed_ = fat_tree_worst(*f, n, description_);
      } else {
        throw InputError(
            fmt::format("--pattern worst-case: not defined on {}; give another pattern", topology.spec()));
      }
      break;
    case PatternKind::kHotspot: {
      if (pattern.count > n) {
        throw InputError(fmt::format("--pattern hotspot:{}: {} has {} nodes; give N from 1 to {}",
                                     pattern.count, topology.spec(), n, n));
      }
      const std::uint32_t stride = n / pattern.count;
      for (std::uint32_t i = 0; i < pattern.count; ++i) {
        hot_.push_back(i * stride);
      }
      description_ = fmt::format("hotspot: each packet to one of {} hot nodes (every {}th node from node 0)",
                                 pattern.count, stride);
      break;
    }
    case PatternKind::kIncast: {
      if (pattern.count >= n) {
        throw InputError(
            fmt::format("--pattern incast:{}: {} has {} nodes, one of them the receiver; give N "
                        "from 1 to {}",
                        pattern.count, topology.spec(), n, n - 1));
      }
      sends_.assign(n, 0);
      for (std::uint32_t i = 0; i < pattern.count; ++i) {
        const auto node = static_cast<std::uint32_t>(1 + std::uint64_t{i} * (n - 1) / pattern.count);
        hot_.push_back(node);
        sends_[node] = 1;
      }
      senders_ = pattern.count;
      description_ = fmt::format("incast: {} senders spread over the nodes to node 0", pattern.count);
      break;
    }
  }
}

bool Destinations::sends(std::uint32_t node) const noexcept { return node < nodes_ && sends_[node] != 0; }

std::uint32_t Destinations::destination(std::uint32_t node, Rng& rng) const {
  switch (kind_) {
    case PatternKind::kUniform: {
      const auto d = static_cast<std::uint32_t>(uniform_below(rng, nodes_ - 1));
      return d >= node ? d + 1 : d;
    }
    case PatternKind::kHotspot: {
      const auto self = std::find(hot_.begin(), hot_.end(), node);
      if (self == hot_.end()) {
        return hot_[uniform_below(rng, hot_.size())];
      }
      if (hot_.size() == 1) {
        const auto d = static_cast<std::uint32_t>(uniform_below(rng, nodes_ - 1));
        return d >= node ? d + 1 : d;
      }
      const auto i = static_cast<std::size_t>(uniform_below(rng, hot_.size() - 1));
      const auto mine = static_cast<std::size_t>(self - hot_.begin());
      return hot_[i >= mine ? i + 1 : i];
    }
    case PatternKind::kIncast:
      return 0;
    case PatternKind::kRandperm:
    case PatternKind::kShift:
    case PatternKind::kWorstCase:
      break;
  }
  return fixed_.at(node);
}

std::vector<double> parse_loads(std::string_view text, std::string_view what) {
  const auto bad = [&](std::string_view why) {
    return InputError(fmt::format(
        "{} '{}': {}; give one load (0.5), a list (0.1,0.3,0.5) or a range A:B:STEP (0.1:0.9:0.1), every "
        "load a fraction of the injection bandwidth in (0, 1]",
        what, text, why));
  };
  const auto number = [&](std::string_view part) {
    const std::optional<double> v = parse_double(part);
    if (!v || !std::isfinite(*v)) {
      throw bad(fmt::format("'{}' is not a number", part));
    }
    return *v;
  };
  std::vector<double> loads;
  if (text.find(':') != std::string_view::npos) {
    const std::size_t c1 = text.find(':');
    const std::size_t c2 = text.find(':', c1 + 1);
    if (c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos) {
      throw bad("a range has three parts");
    }
    const double a = number(text.substr(0, c1));
    const double b = number(text.substr(c1 + 1, c2 - c1 - 1));
    const double step = number(text.substr(c2 + 1));
    if (!(step > 0)) {
      throw bad("STEP must be positive");
    }
    if (b < a) {
      throw bad("B is below A");
    }
    const double count = std::floor((b - a) / step + 1e-9) + 1;
    if (count > static_cast<double>(kMaxLoads)) {
      throw bad(fmt::format("{} loads, at most {}", count, kMaxLoads));
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      // Rounded to 1e-9 so that 0.1:0.3:0.1 gives 0.3, not 0.30000000000000004.
      loads.push_back(std::round((a + static_cast<double>(i) * step) * 1e9) / 1e9);
    }
  } else {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find(',', start), text.size());
      loads.push_back(number(text.substr(start, end - start)));
      if (loads.size() > kMaxLoads) {
        throw bad(fmt::format("more than {} loads", kMaxLoads));
      }
      start = end + 1;
    }
  }
  for (const double v : loads) {
    if (!(v > 0) || v > 1) {
      throw bad(fmt::format("load {} is outside (0, 1]", v));
    }
  }
  return loads;
}

std::uint64_t traffic_memory_estimate(const TrafficOptions& options, std::uint64_t nodes,
                                      std::uint64_t links) {
  const std::uint64_t per_node = saturating_add(kSourceQueueCap * kQueueBytesPerPacket,
                                                saturating_mul(kTrafficWindowPackets, kModelBytesPerPacket));
  // The packet model keeps, per link and channel, a ring of slot times (8 bytes per packet slot).
  const std::uint64_t slots =
      options.packet.packet_bytes == 0 ? 1 : options.packet.buffer_bytes / options.packet.packet_bytes + 1;
  const std::uint64_t buffers = saturating_mul(saturating_mul(links, options.packet.vcs), slots * 8 + 32);
  return saturating_add(saturating_mul(nodes, per_node), buffers);
}

std::string traffic_table(const TrafficReport& report) {
  constexpr std::string_view kBar =
      "+----------+----------+--------------+--------------+--------+-------+---------------+";
  std::string out;
  out += fmt::format("{}\n", kBar);
  out += fmt::format("| {:>8} | {:>8} | {:>12} | {:>12} | {:>6} | {:>5} | {:<13} |\n", "Offered", "Accepted",
                     "Lat avg", "Lat 99%", "Hops", "Units", "State");
  out += fmt::format("{}\n", kBar);
  for (const TrafficPoint& p : report.points) {
    const char* state = p.saturated ? "saturated" : p.converged ? "ok" : "not converged";
    out += fmt::format("| {:>8.3f} | {:>8.3f} | {:>12.1f} | {:>12.1f} | {:>6.2f} | {:>5} | {:<13} |\n",
                       p.offered, p.accepted, p.latency_avg_ns, p.latency_p99_ns, p.hops_avg, "ns", state);
  }
  out += fmt::format("{}\n", kBar);
  out += fmt::format(
      "zero-load latency {:.1f} ns ({:.2f} hops); saturation throughput {:.3f} (accepted at offered {:.3f})",
      report.zero_load_latency_ns, report.zero_load_hops, report.saturation_throughput,
      report.saturation_offered);
  if (report.first_saturated_load >= 0) {
    out += fmt::format("; first saturated load {:.3f}", report.first_saturated_load);
  }
  out += "\n";
  return out;
}

namespace {

// One in-flight packet of the generator (a model token indexes these).
struct Flight {
  std::uint64_t gen_ps = 0;
  std::uint32_t next_free = 0;
  bool measured = false;
};

struct Queued {
  std::uint64_t gen_ps;
  std::uint32_t dst;
  bool measured;
};

struct Batch {
  std::uint64_t generated = 0;
  std::uint64_t delivered = 0;  // of those generated in it
  double latency_sum_ps = 0;
};

bool agree(const std::vector<double>& values) {
  double mean = 0;
  for (const double v : values) {
    mean += v;
  }
  mean /= static_cast<double>(values.size());
  return std::all_of(values.begin(), values.end(),
                     [&](double v) { return std::abs(v - mean) <= kConvergeTolerance * mean; });
}

struct RunSetup {
  std::shared_ptr<const Network> network;
  const Destinations* dest = nullptr;
  std::uint64_t packet_time_ps = 0;
  double zero_load_ps = 0;
  std::vector<topo::LinkId> network_links;
};

// One offered load on a fresh model: the Bernoulli generator feeding the nodes' source queues,
// the model's deliveries, and the measurement window cut into batches until they converge. Its
// steps, in the order of run(): the generator's phases, then events in time order (a batch
// boundary, a generation slot, the model's next delivery), then the point.
class LoadRun {
 public:
  LoadRun(const TrafficOptions& options, const RunSetup& setup, double load)
      : options_(options),
        setup_(setup),
        dest_(*setup.dest),
        nodes_(dest_.nodes()),
        period_(setup.packet_time_ps),
        load_(load),
        bytes_(std::uint64_t{options.packet.packet_bytes} + 1),
        batch_ps_(std::uint64_t{options.batch_packet_times} * period_),
        window_start_(std::uint64_t{options.warmup_packet_times} * period_),
        gen_rng_(derive_seed(options.seed, kStreamGenerate)),
        dst_rng_(derive_seed(options.seed, kStreamDestination)),
        queue_(nodes_),
        in_model_(nodes_, 0),
        flights_(static_cast<std::size_t>(nodes_) * kTrafficWindowPackets),
        free_head_(nodes_, 0),
        boundary_(window_start_) {
    PacketOptions packet = options.packet;
    packet.seed = options.seed;
    model_ = make_model(options.model, setup.network, packet);
    sim::LogGOPSParams params;
    params.latency = sim::SimTime{0};
    params.overhead_send = sim::SimTime{0};
    params.overhead_recv = sim::SimTime{0};
    params.gap = sim::SimTime{0};
    params.gap_per_byte = sim::SimTime{0};
    model_->begin(nodes_, params);
    // Senders in the order of their phase within a packet-time.
    for (std::uint32_t n = 0; n < nodes_; ++n) {
      if (dest_.sends(n)) {
        phased_.emplace_back(uniform_below(gen_rng_, period_), n);
      }
    }
    std::sort(phased_.begin(), phased_.end());
    for (std::uint32_t n = 0; n < nodes_; ++n) {
      for (std::uint32_t i = 0; i < kTrafficWindowPackets; ++i) {
        flights_[static_cast<std::size_t>(n) * kTrafficWindowPackets + i].next_free = i + 1;
      }
    }
  }

  TrafficPoint run() {
    const auto wall_start = std::chrono::steady_clock::now();
    while (phase_ != Phase::kDone) {
      const std::uint64_t t_gen = phased_.empty() ? sim::kNetIdle : slot_ * period_ + phased_[cursor_].first;
      const std::uint64_t t_net = model_->next_time();
      if (boundary_ <= t_gen && boundary_ <= t_net) {
        model_now_ = std::max(model_now_, boundary_);
        at_boundary();
      } else if (t_gen <= t_net) {
        model_now_ = std::max(model_now_, t_gen);
        generate(t_gen);
      } else {
        model_now_ = std::max(model_now_, t_net);
        deliver(t_net);
      }
    }
    TrafficPoint p = point();
    p.run_s = seconds_since(wall_start);
    return p;
  }

 private:
  enum class Phase : std::uint8_t { kWarmup, kMeasure, kDrain, kDone };

  // Moves node `n`'s queued packets into the model while its window has room.
  void feed(std::uint32_t n) {
    while (!queue_[n].empty() && in_model_[n] < kTrafficWindowPackets) {
      const Queued q = queue_[n].front();
      queue_[n].pop_front();
      const std::uint32_t slot = free_head_[n];
      Flight& f = flights_[static_cast<std::size_t>(n) * kTrafficWindowPackets + slot];
      free_head_[n] = f.next_free;
      f.gen_ps = q.gen_ps;
      f.measured = q.measured;
      ++in_model_[n];
      model_->inject(model_now_, n, q.dst, bytes_, std::uint64_t{n} * kTrafficWindowPackets + slot);
    }
  }

  [[nodiscard]] double network_bytes() const {
    double sum = 0;
    for (const topo::LinkId l : setup_.network_links) {
      sum += model_->stats().link_bytes[l];
    }
    return sum;
  }

  // Whether the last kConvergeBatches batches agree on accepted throughput and latency.
  [[nodiscard]] bool batches_agree() const {
    const std::size_t nb = batches_.size();
    if (nb < std::max<std::size_t>(options_.min_batches, kConvergeBatches)) {
      return false;
    }
    std::vector<double> accepted;
    for (std::size_t b = nb - kConvergeBatches; b < nb; ++b) {
      accepted.push_back(b < accepted_bins_.size() ? static_cast<double>(accepted_bins_[b]) : 0.0);
    }
    std::vector<double> latency;
    for (std::size_t b = nb; b-- > 0 && latency.size() < kConvergeBatches;) {
      if (batches_[b].delivered == batches_[b].generated && batches_[b].generated > 0) {
        latency.push_back(batches_[b].latency_sum_ps / static_cast<double>(batches_[b].delivered));
      }
    }
    return latency.size() == kConvergeBatches && agree(accepted) && agree(latency);
  }

  // The end of the warm-up, of a batch, or of the drain.
  void at_boundary() {
    if (phase_ == Phase::kWarmup) {
      phase_ = Phase::kMeasure;
      net_bytes_start_ = network_bytes();
      boundary_ = window_start_ + batch_ps_;
      batches_.emplace_back();
      return;
    }
    if (phase_ == Phase::kMeasure) {
      converged_ = batches_agree();
      const bool time_cap = options_.max_time_ps > 0 && boundary_ + batch_ps_ > options_.max_time_ps;
      if (converged_ || batches_.size() >= options_.max_batches || time_cap) {
        window_end_ = boundary_;
        net_bytes_end_ = network_bytes();
        phase_ = measured_outstanding_ == 0 ? Phase::kDone : Phase::kDrain;
        boundary_ = window_end_ + (window_end_ - window_start_);
        return;
      }
      batches_.emplace_back();
      boundary_ += batch_ps_;
      return;
    }
    phase_ = Phase::kDone;  // the drain cap
  }

  // The generation slot of the next sender at `t_gen`: a packet with probability `load`.
  void generate(std::uint64_t t_gen) {
    const std::uint32_t n = phased_[cursor_].second;
    if (gen_rng_.uniform01() < load_) {
      const bool measured = phase_ == Phase::kMeasure;
      if (queue_[n].size() >= kSourceQueueCap) {
        ++dropped_;
      } else {
        queue_[n].push_back(Queued{t_gen, dest_.destination(n, dst_rng_), measured});
        if (measured) {
          ++batches_.back().generated;
          ++measured_outstanding_;
        }
        feed(n);
      }
    }
    if (++cursor_ == phased_.size()) {
      cursor_ = 0;
      ++slot_;
    }
  }

  // The model's deliveries at `t_net`: counted by delivery time for throughput, by generation
  // time for latency; each frees its sender's window slot.
  void deliver(std::uint64_t t_net) {
    out_.clear();
    model_->advance(t_net, out_);
    for (const sim::NetDelivery& d : out_) {
      const auto n = static_cast<std::uint32_t>(d.token / kTrafficWindowPackets);
      const auto s = static_cast<std::uint32_t>(d.token % kTrafficWindowPackets);
      Flight& f = flights_[d.token];
      if (d.time_ps >= window_start_ && (window_end_ == 0 || d.time_ps < window_end_)) {
        // Binned by delivery time; a delivery reported early may fall in a batch not begun yet.
        const auto b = static_cast<std::size_t>((d.time_ps - window_start_) / batch_ps_);
        if (accepted_bins_.size() <= b) {
          accepted_bins_.resize(b + 1, 0);
        }
        ++accepted_bins_[b];
      }
      if (f.measured) {
        const std::uint64_t lat = d.time_ps - f.gen_ps;
        const std::uint64_t b = (f.gen_ps - window_start_) / batch_ps_;
        ++batches_.at(b).delivered;
        batches_.at(b).latency_sum_ps += static_cast<double>(lat);
        latency_ns_.record(static_cast<double>(lat) / 1e3);
        --measured_outstanding_;
      }
      f.next_free = free_head_[n];
      free_head_[n] = s;
      --in_model_[n];
      feed(n);
    }
    if (phase_ == Phase::kDrain && measured_outstanding_ == 0) {
      phase_ = Phase::kDone;
    }
  }

  [[nodiscard]] TrafficPoint point() const {
    std::uint64_t window_deliveries = 0;
    for (std::size_t b = 0; b < std::min(accepted_bins_.size(), batches_.size()); ++b) {
      window_deliveries += accepted_bins_[b];
    }
    TrafficPoint p;
    p.offered = load_;
    const double window_pt = static_cast<double>(window_end_ - window_start_) / static_cast<double>(period_);
    p.accepted = static_cast<double>(window_deliveries) / (static_cast<double>(dest_.senders()) * window_pt);
    p.batches = static_cast<std::uint32_t>(batches_.size());
    for (const Batch& b : batches_) {
      p.packets += b.generated;
    }
    p.delivered = latency_ns_.count();
    if (p.delivered > 0) {
      p.latency_avg_ns = latency_ns_.mean();
      p.latency_p99_ns = latency_ns_.quantile(0.99);
    }
    if (window_deliveries > 0) {
      p.hops_avg = (net_bytes_end_ - net_bytes_start_) / static_cast<double>(options_.packet.packet_bytes) /
                   static_cast<double>(window_deliveries);
    }
    p.converged = converged_;
    p.saturated = dropped_ > 0 || p.delivered < p.packets || p.accepted < kSaturationAcceptedShare * load_ ||
                  p.latency_avg_ns > kSaturationLatencyFactor * setup_.zero_load_ps / 1e3;
    return p;
  }

  const TrafficOptions& options_;
  const RunSetup& setup_;
  const Destinations& dest_;
  std::uint32_t nodes_;
  std::uint64_t period_;
  double load_;
  std::uint64_t bytes_;
  std::uint64_t batch_ps_;
  std::uint64_t window_start_;
  std::unique_ptr<Model> model_;
  // The generator: senders by phase, their source queues and the packets they have in the model.
  Rng gen_rng_;
  Rng dst_rng_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> phased_;
  std::vector<std::deque<Queued>> queue_;
  std::vector<std::uint32_t> in_model_;
  std::vector<Flight> flights_;
  std::vector<std::uint32_t> free_head_;
  std::uint64_t slot_ = 0;
  std::size_t cursor_ = 0;
  std::uint64_t model_now_ = 0;
  std::vector<sim::NetDelivery> out_;
  // The measurement.
  Phase phase_ = Phase::kWarmup;
  std::uint64_t boundary_;  // next phase or batch boundary
  std::uint64_t window_end_ = 0;
  std::vector<Batch> batches_;
  LogHistogram latency_ns_;
  std::uint64_t measured_outstanding_ = 0;
  std::uint64_t dropped_ = 0;
  double net_bytes_start_ = 0;
  double net_bytes_end_ = 0;
  std::vector<std::uint64_t> accepted_bins_;  // deliveries per batch of the window, by time
  bool converged_ = false;
};

TrafficPoint run_load(const TrafficOptions& options, const RunSetup& setup, double load) {
  return LoadRun(options, setup, load).run();
}

}  // namespace

TrafficReport run_traffic(const TrafficOptions& options) {
  if (options.loads.empty()) {
    throw InputError("--load: no load given; give e.g. 0.5 or 0.1:0.9:0.1");
  }
  if (options.batch_packet_times == 0 || options.max_batches < options.min_batches ||
      options.min_batches == 0) {
    throw InputError("predict traffic: batches need a length of at least 1 packet-time and 1 <= min <= max");
  }
  std::shared_ptr<const topo::Topology> topology = topo::make_topology(options.network_spec);
  const auto nodes = static_cast<std::uint32_t>(topology->nodes().size());
  Placement placement = identity_placement(*topology, nodes, 1);
  RunSetup setup;
  setup.network =
      std::make_shared<const Network>(topology, std::move(placement), NetworkParams{options.hop_latency_ps});
  if (options.model == ModelKind::kPacket) {
    validate(options.packet, *setup.network);
  }
  if (options.packet.packet_bytes == 0) {
    throw InputError("--packet-size 0: give at least 1 byte (e.g. 2048)");
  }
  const Destinations dest(options.pattern, *topology, options.seed);
  setup.dest = &dest;
  const double inject = setup.network->capacity_bytes_per_ps(topology->injection_link(0));
  setup.packet_time_ps =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(options.packet.packet_bytes / inject)));
  for (const topo::Link& l : topology->links()) {
    if (l.kind == topo::LinkKind::kNetwork) {
      setup.network_links.push_back(l.id);
    }
  }
  if (options.max_time_ps > 0) {
    const std::uint64_t least = (std::uint64_t{options.warmup_packet_times} +
                                 std::uint64_t{options.min_batches} * options.batch_packet_times) *
                                setup.packet_time_ps;
    if (options.max_time_ps < least) {
      throw InputError(fmt::format(
          "--max-time {}: shorter than the warm-up and {} measurement batches ({} at {} per packet); give at "
          "least {}",
          format_time_ps(options.max_time_ps), options.min_batches, format_time_ps(least),
          format_time_ps(setup.packet_time_ps), format_time_ps(least)));
    }
  }

  // Zero-load latency: the packet's serialisation on the slowest link of its path plus the hops'
  // latency (virtual cut-through), averaged over the senders' minimal paths (sampled for random
  // destinations).
  TrafficReport report;
  {
    Rng rng(derive_seed(options.seed, kStreamZeroLoad));
    // Global links get the packet model's --global-extra-latency (topo::Dragonfly::is_global()).
    const auto* dragonfly = dynamic_cast<const topo::Dragonfly*>(&setup.network->topology());
    const std::vector<topo::Link>& links = setup.network->topology().links();
    std::vector<topo::LinkId> path;
    double sum_ps = 0;
    double sum_hops = 0;
    std::uint32_t samples = 0;
    for (std::uint32_t i = 0; i < std::max(nodes, kZeroLoadSamples) && samples < kZeroLoadSamples; ++i) {
      const std::uint32_t src = i % nodes;
      if (!dest.sends(src)) {
        continue;
      }
      setup.network->path_into(src, dest.destination(src, rng), path);
      double slowest = 0;
      double globals = 0;
      for (const topo::LinkId l : path) {
        slowest = std::max(slowest, 1.0 / setup.network->capacity_bytes_per_ps(l));
        globals += dragonfly != nullptr && dragonfly->is_global(links[l]) ? 1 : 0;
      }
      const auto hops = static_cast<double>(Network::hops(path));
      sum_hops += hops;
      // The packet model's link latencies: hops, the global links' extra, the two terminal links.
      sum_ps += slowest * options.packet.packet_bytes + hops * static_cast<double>(options.hop_latency_ps) +
                globals * static_cast<double>(options.packet.global_extra_latency_ps) +
                2.0 * static_cast<double>(options.packet.terminal_latency_ps);
      ++samples;
    }
    setup.zero_load_ps = sum_ps / samples;
    report.zero_load_hops = sum_hops / samples;
  }
  report.zero_load_latency_ns = setup.zero_load_ps / 1e3;
  report.network = topology->spec();
  report.pattern = to_string(options.pattern);
  report.pattern_description = dest.description();
  report.nodes = nodes;
  report.senders = dest.senders();
  report.injection_bytes_per_s = inject * 1e12;
  report.packet_time_ps = setup.packet_time_ps;
  {
    PacketOptions packet = options.packet;
    packet.seed = options.seed;
    report.model = make_model(options.model, setup.network, packet)->describe();
  }
  for (const double load : options.loads) {
    TrafficPoint p = run_load(options, setup, load);
    if (options.progress) {
      options.progress(
          fmt::format("load {:.3f}: accepted {:.3f}, latency {:.1f} ns avg, {} packets{}{}, {:.1f} s", load,
                      p.accepted, p.latency_avg_ns, p.packets, p.converged ? "" : ", not converged",
                      p.saturated ? ", saturated" : "", p.run_s));
    }
    report.points.push_back(p);
  }
  const auto highest =
      std::max_element(report.points.begin(), report.points.end(),
                       [](const TrafficPoint& a, const TrafficPoint& b) { return a.offered < b.offered; });
  report.saturation_throughput = highest->accepted;
  report.saturation_offered = highest->offered;
  for (const TrafficPoint& p : report.points) {
    if (p.saturated && (report.first_saturated_load < 0 || p.offered < report.first_saturated_load)) {
      report.first_saturated_load = p.offered;
    }
  }
  return report;
}

}  // namespace gridlock::predict
