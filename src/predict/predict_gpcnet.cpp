#include "gridlock/predict/predict_gpcnet.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/histogram.hpp"
#include "gridlock/core/internal_error.hpp"
#include "gridlock/core/memory.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/stats.hpp"
#include "gridlock/core/wall_clock.hpp"
#include "gridlock/gpcnet/suite.hpp"
#include "gridlock/net/factory.hpp"
#include "gridlock/net/report_json.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/params_json.hpp"
#include "gridlock/sim/schedule.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::predict {

using net::check_packet_sizes;
using net::estimate_model_bytes;
using net::explicit_placement;
using net::make_model;
using net::Model;
using net::ModelKind;
using net::Network;
using net::NetworkParams;
using net::PacketOptions;
using net::Placement;

namespace {

using gpcnet::CongestorType;

constexpr double kMiB = 1024.0 * 1024.0;
// GPCNeT's default sizes (gridlock::gpcnet), which gridlock-bench runs too.
constexpr std::uint64_t kLatencyBytes = gpcnet::kDefaultLatencyBytes;
constexpr std::uint64_t kBandwidthBytes = gpcnet::kDefaultBandwidthBytes;
constexpr std::uint64_t kBandwidthOutstanding = gpcnet::kDefaultBandwidthOutstanding;
constexpr std::uint64_t kAllreduceBytes = gpcnet::kDefaultAllreduceBytes;
constexpr std::uint64_t kCongestorBytes = gpcnet::kDefaultCongestorBytes;
// Timed iterations per block: GPCNeT's for BW+Sync and the allreduce (list-initialised: a default
// that did not fit 32 bits would not compile); the latency canary's 50 (GPCNeT: 200) keep the
// default study short.
constexpr std::uint32_t kLatencyIterations = 50;
constexpr std::uint32_t kBandwidthIterations{gpcnet::kDefaultBandwidthLoop.iterations};
constexpr std::uint32_t kAllreduceIterations{gpcnet::kDefaultAllreduceLoop.iterations};
// One-sided control messages (a put's completion ack, a get's request): one NIC packet.
constexpr std::uint64_t kControlBytes = 8;

// Tags: a ring message sent to the left neighbour carries kTagLeft, to the right kTagRight, so a
// rank whose two neighbours are one rank (a ring of 2) still tells the two apart.
constexpr std::uint32_t kTagLeft = 1;
constexpr std::uint32_t kTagRight = 2;
constexpr std::uint32_t kTagCollective = 100;  // .. +5 (sim::emit_collective)
constexpr std::uint32_t kTagAllToAll = 1000;   // + step
constexpr std::uint32_t kTagIncast = 200;
constexpr std::uint32_t kTagCredit = 201;
constexpr std::uint32_t kTagPut = 300;
constexpr std::uint32_t kTagPutAck = 301;
constexpr std::uint32_t kTagGetRequest = 400;
constexpr std::uint32_t kTagGetData = 401;

// Congestor iterations of the calibration run that measures each congestor's iteration time.
constexpr std::uint64_t kCalibrationIterations = 8;
// Congestor iterations (at the calibrated rate) before the canaries start: GPCNeT's warm-up.
constexpr double kWarmupIterations = 4;
// A loaded run stops, as a defect, when its canaries have not finished after this many times their
// isolated time (past the warm-up): the congestors repeat until the canaries finish, so a canary
// that never finished would keep them running for ever.
constexpr std::uint64_t kLoadedTimeLimitFactor = 10'000;

void require_all(sim::ScheduleBuilder& b, std::uint32_t op, const std::vector<std::uint32_t>& after) {
  for (const auto a : after) {
    b.add_requires(op, a);
  }
}

// One canary rank's program; returns its markers.
std::vector<std::uint32_t> build_canary_rank(sim::ScheduleBuilder& b, const std::vector<std::uint32_t>& slice,
                                             std::uint32_t position, const ScheduleShape& shape) {
  std::vector<std::uint32_t> markers;
  std::vector<std::uint32_t> prev;
  if (shape.canary_delay.ps > 0) {
    prev.push_back(b.calc(shape.canary_delay));
  }
  const auto n = static_cast<std::uint64_t>(slice.size());
  const CanaryLoop& loop = shape.loop;
  // 64 bits: warm-up + iterations of 32 bits each cannot wrap (a wrapped count built an empty
  // loop whose missing markers were then read).
  const std::uint64_t per_block = std::uint64_t{loop.warmup} + loop.iterations;
  for (std::uint32_t ring = 0; ring < loop.rings; ++ring) {
    const auto nb = random_ring_neighbours(n, position, shape.ring_seed, ring);
    const std::uint32_t left = slice[nb.left];
    const std::uint32_t right = slice[nb.right];
    for (std::uint64_t it = 0; it < per_block; ++it) {
      std::vector<std::uint32_t> last;
      if (shape.kind == CanaryKind::kAllreduce) {
        sim::CollectiveStep step;
        step.kind = "allreduce";
        step.algo = "recdoub";
        step.size_bytes = kAllreduceBytes;
        last = sim::emit_collective(b, step, slice, position, kTagCollective, prev);
      } else {
        const bool bw = shape.kind == CanaryKind::kBandwidth;
        const std::uint64_t bytes = bw ? kBandwidthBytes : kLatencyBytes;
        const std::uint64_t rounds = bw ? kBandwidthOutstanding : 1;
        for (std::uint64_t k = 0; k < rounds; ++k) {
          const std::uint32_t ops[] = {b.recv(bytes, left, kTagRight), b.recv(bytes, right, kTagLeft),
                                       b.send(bytes, left, kTagLeft), b.send(bytes, right, kTagRight)};
          for (const auto op : ops) {
            require_all(b, op, prev);
            last.push_back(op);
          }
        }
        if (bw) {
          sim::CollectiveStep barrier;
          barrier.kind = "barrier";
          last = sim::emit_collective(b, barrier, slice, position, kTagCollective, last);
        }
      }
      const std::uint32_t marker = b.calc(sim::SimTime{0});
      require_all(b, marker, last);
      markers.push_back(marker);
      prev.assign(1, marker);
    }
  }
  return markers;
}

// One congestor rank's program (paper §3.2; docs/predict.md says how each maps to LogGOPS).
// `repeating`: the program is one iteration that repeats part by part (sim::ScheduleBuilder::
// set_repeating), so its parts must be joined wherever the unrolled program's next iteration joins them.
void build_congestor_rank(sim::ScheduleBuilder& b, CongestorType type,
                          const std::vector<std::uint32_t>& slice, std::uint32_t position,
                          std::uint64_t iterations, bool rma_by_nic, bool repeating) {
  const auto n = static_cast<std::uint32_t>(slice.size());
  const std::uint32_t root = slice[0];
  std::vector<std::uint32_t> prev;
  switch (type) {
    case CongestorType::kAllToAll:
      // Pairwise exchange: step k sends to position + k and receives from position - k, as
      // MPI_Sendrecv; the next step starts when both are done.
      for (std::uint64_t it = 0; it < iterations; ++it) {
        for (std::uint32_t k = 1; k < n; ++k) {
          const std::uint32_t s = b.send(kCongestorBytes, slice[(position + k) % n], kTagAllToAll + k);
          const std::uint32_t r = b.recv(kCongestorBytes, slice[(position + n - k) % n], kTagAllToAll + k);
          require_all(b, s, prev);
          require_all(b, r, prev);
          prev = {s, r};
        }
        if (repeating && n == 2) {
          // One step of a send and a receive without dependencies would be two parts repeating
          // apart (the send running ahead without bound); unrolled, the next step requires both.
          const std::uint32_t join = b.calc(sim::SimTime{0});
          require_all(b, join, prev);
        }
      }
      return;
    case CongestorType::kP2pIncast:
      // The root posts one receive per sender and waits for all; a credit back to each sender is
      // the eager flow control that keeps a sender to one message in flight (LogGOPS sends
      // complete locally, so without it the senders would run ahead without bound).
      for (std::uint64_t it = 0; it < iterations; ++it) {
        if (position == 0) {
          std::vector<std::uint32_t> recvs;
          for (std::uint32_t s = 1; s < n; ++s) {
            const std::uint32_t r = b.recv(kCongestorBytes, slice[s], kTagIncast);
            require_all(b, r, prev);
            recvs.push_back(r);
          }
          prev.clear();
          for (std::uint32_t s = 1; s < n; ++s) {
            const std::uint32_t c = b.send(1, slice[s], kTagCredit);
            require_all(b, c, recvs);
            prev.push_back(c);
          }
        } else {
          const std::uint32_t s = b.send(kCongestorBytes, root, kTagIncast);
          require_all(b, s, prev);
          const std::uint32_t c = b.recv(1, root, kTagCredit);
          b.add_requires(c, s);
          prev = {c};
        }
      }
      return;
    case CongestorType::kRmaIncast:
    case CongestorType::kRmaBcast: {
      // One-sided operations as message pairs: a put is the data to the root and an ack back
      // (MPI_Win_flush waits for it); a get is a request to the root and the data back. The
      // root answers each origin in turn, origin by origin independently; with rma_by_nic the
      // answers run on the CPUs standing for its NIC (kRmaNicAgents), not on the rank's CPU.
      const bool put = type == CongestorType::kRmaIncast;
      const std::uint64_t to_root = put ? kCongestorBytes : kControlBytes;
      const std::uint64_t from_root = put ? kControlBytes : kCongestorBytes;
      const std::uint32_t tag_to = put ? kTagPut : kTagGetRequest;
      const std::uint32_t tag_from = put ? kTagPutAck : kTagGetData;
      if (position == 0) {
        std::vector<std::uint32_t> last(n, std::numeric_limits<std::uint32_t>::max());
        for (std::uint64_t it = 0; it < iterations; ++it) {
          for (std::uint32_t s = 1; s < n; ++s) {
            const auto agent =
                rma_by_nic ? static_cast<std::uint8_t>(1 + (s - 1) % kRmaNicAgents) : std::uint8_t{0};
            const std::uint32_t r = b.recv(to_root, slice[s], tag_to, agent);
            if (last[s] != std::numeric_limits<std::uint32_t>::max()) {
              b.add_requires(r, last[s]);
            }
            const std::uint32_t a = b.send(from_root, slice[s], tag_from, agent);
            b.add_requires(a, r);
            last[s] = a;
          }
        }
      } else {
        for (std::uint64_t it = 0; it < iterations; ++it) {
          const std::uint32_t s = b.send(to_root, root, tag_to);
          require_all(b, s, prev);
          const std::uint32_t r = b.recv(from_root, root, tag_from);
          b.add_requires(r, s);
          prev = {r};
        }
      }
      return;
    }
    case CongestorType::kAllreduce:
      break;
  }
  throw InputError(
      fmt::format("congestor {} is not simulated by gridlock predict gpcnet", gpcnet::congestor_key(type)));
}

std::unique_ptr<Model> make_network_model(const GpcnetOptions& options,
                                          std::shared_ptr<const Network> network) {
  PacketOptions packet = options.packet;
  packet.seed = options.seed;
  return make_model(options.model, std::move(network), packet);
}

// One canary sample: a latency (half the ring exchange's time) or an allreduce time in us, or a
// BW+Sync bandwidth in MiB/s per rank, of `iterations` iterations that took `dt_ps`.
double canary_value(CanaryKind kind, std::uint64_t dt_ps, double iterations) {
  const double bytes_per_iteration =
      2.0 * static_cast<double>(kBandwidthOutstanding) * static_cast<double>(kBandwidthBytes);
  const double seconds = static_cast<double>(dt_ps) * 1e-12;
  switch (kind) {
    case CanaryKind::kLatency:
      return sim::us_from_ps(dt_ps) / iterations / 2.0;
    case CanaryKind::kBandwidth:
      return bytes_per_iteration * iterations / seconds / kMiB;
    case CanaryKind::kAllreduce:
      break;
  }
  return sim::us_from_ps(dt_ps) / iterations;
}

std::string time_text(std::uint64_t ps) { return fmt::format("{:.1f} us", sim::us_from_ps(ps)); }

// A simulation's canary iteration ends and finish times.
struct RunResult {
  std::vector<std::vector<std::uint64_t>> marker_ps;  // per canary rank, per marker
  std::uint64_t canary_end_ps = 0;
  std::vector<sim::SimTime> finish;
  std::vector<std::uint64_t> repeat_cycles;  // per rank, with repeating congestors
  std::uint64_t stopped_ps = 0;              // with repeating congestors: when the run stopped
  std::uint64_t messages = 0;
  double wall_s = 0;
  // Markers (per canary rank, from the first) that every canary rank completed and that the
  // figures use: all of them, or those up to where a stopping rule ended the run.
  std::uint64_t complete_markers = 0;
  gpcnet::StoppingRule stopping;  // how a stopping rule ended the run (inactive without one)
};

// What a run needs for a stopping rule (null: the run goes to its end).
struct RuleSpec {
  CanaryKind kind = CanaryKind::kLatency;
  CanaryLoop loop;
  double target = 0;          // half-width over the estimate
  std::uint64_t cap = 0;      // most timed iterations per rank
  std::uint64_t fixed = 0;    // timed iterations per rank of the fixed count
  std::uint64_t minimum = 0;  // timed iterations per rank before the rule is evaluated
};

// The stopping rule of one canary run (--precision, docs/predict.md "Stopping rules").
//
// Samples: a timed iteration's time on each canary rank, converted as the tables convert it.
// The ranks of one iteration are not independent (they wait for each other in the ring or the
// collective), so the mean over the ranks of each iteration is one sample of the mean, and the
// series of those iteration means, itself autocorrelated under congestion, gets a batch-means t
// interval (confidence_interval_mean). The tail (p99 for latencies, p1 for bandwidths, as the
// tables) gets the distribution-free order-statistic interval over the pooled samples of all
// ranks (confidence_interval_quantile), widened by their design effect (design_effect, the ranks
// of an iteration as one cluster): 10 iterations of 58 ranks that move together count as the 10
// samples they are worth, not 580.
//
// The rule is evaluated from `minimum` timed iterations on (every ring block of the fixed count
// begun with kGpcnetPrecisionMinIterations timed iterations, or all of its: the first iterations
// on a new ring, whose ranks arrive from the last one at different times, belong to the
// population the fixed count measures and make the isolated latency's p99), then whenever every
// rank has about 10% more timed iterations than at the last evaluation: each evaluation reads
// every sample, so evaluating after each iteration would be quadratic; the run overshoots the
// point where the rule is first met by at most 10%.
class PrecisionTracker {
 public:
  PrecisionTracker(const RuleSpec& rule, const std::vector<std::vector<std::uint64_t>>& marker_ps)
      : kind_(rule.kind),
        loop_(rule.loop),
        target_(rule.target),
        cap_(rule.cap),
        minimum_(std::min(rule.minimum, rule.cap)),
        marker_ps_(marker_ps),
        done_(marker_ps.size(), 0),
        at_min_(marker_ps.size()) {
    result_.active = true;
    result_.target = rule.target;
    result_.cap = rule.cap;
    result_.fixed = rule.fixed;
  }

  // Canary rank `c` completed its marker `index` (they complete in order); returns true when the
  // run can stop.
  bool on_marker(std::size_t c, std::uint64_t index) {
    done_[c] = index + 1;
    if (index != min_ || finished_ || --at_min_ > 0) {
      return finished_;
    }
    // The last rank at the fewest markers moved on: every rank has min_ + 1 now.
    ++min_;
    at_min_ = static_cast<std::size_t>(std::count(done_.begin(), done_.end(), min_));
    const std::uint64_t timed = timed_of(min_);
    if (timed >= cap_) {
      finish(min_);
    } else if (timed >= minimum_ && timed >= next_check_) {
      next_check_ = std::max(timed + 1, timed + timed / 10);
      if (evaluate(min_)) {
        finish(min_);
      }
    }
    return finished_;
  }

  // The markers the figures use, and the rule's record (evaluated now if the run ended first).
  std::pair<std::uint64_t, gpcnet::StoppingRule> result() {
    if (!finished_) {
      finish(min_);
    }
    return {used_, result_};
  }

 private:
  // Timed iterations in the first `markers` markers of a rank.
  [[nodiscard]] std::uint64_t timed_of(std::uint64_t markers) const noexcept {
    const std::uint64_t per_block = std::uint64_t{loop_.warmup} + loop_.iterations;
    const std::uint64_t rest = markers % per_block;
    return markers / per_block * loop_.iterations + (rest > loop_.warmup ? rest - loop_.warmup : 0);
  }

  // The intervals over the first `markers` markers of every rank; true when both are met.
  bool evaluate(std::uint64_t markers) {
    const std::uint64_t per_block = std::uint64_t{loop_.warmup} + loop_.iterations;
    std::vector<double> means;
    std::vector<double> pooled;
    pooled.reserve(static_cast<std::size_t>(timed_of(markers)) * marker_ps_.size());
    for (std::uint64_t m = 0; m < markers; ++m) {
      if (m % per_block < loop_.warmup) {
        continue;
      }
      double sum = 0;
      for (const auto& marks : marker_ps_) {
        const double v = canary_value(kind_, marks[m] - marks[m - 1], 1.0);
        pooled.push_back(v);
        sum += v;
      }
      means.push_back(sum / static_cast<double>(marker_ps_.size()));
    }
    const double q = canary_info(kind_).better == Better::kLower ? 0.99 : 0.01;
    result_.iterations = means.size();
    result_.mean_half_width = confidence_interval_mean(means).relative_half_width();
    // `pooled` holds the iterations one after the other, the ranks of each together.
    const double design = design_effect(pooled, marker_ps_.size());
    result_.tail_half_width = confidence_interval_quantile(pooled, q, design).relative_half_width();
    result_.met = result_.mean_half_width <= target_ && result_.tail_half_width <= target_;
    return result_.met;
  }

  void finish(std::uint64_t markers) {
    if (result_.iterations != timed_of(markers) || markers == 0) {
      evaluate(markers);
    }
    used_ = markers;
    finished_ = true;
  }

  CanaryKind kind_;
  CanaryLoop loop_;
  double target_;
  std::uint64_t cap_;
  std::uint64_t minimum_;  // timed iterations before the first evaluation
  const std::vector<std::vector<std::uint64_t>>& marker_ps_;
  std::vector<std::uint64_t> done_;  // markers completed, per canary rank
  std::uint64_t min_ = 0;            // markers every rank completed
  std::size_t at_min_;               // ranks with exactly min_ markers completed
  std::uint64_t next_check_ = 0;     // timed iterations at the next evaluation
  std::uint64_t used_ = 0;
  bool finished_ = false;
  gpcnet::StoppingRule result_;
};

// Events between two progress lines of one run (about 10 s of a packet-model run).
constexpr std::uint64_t kProgressEvents = std::uint64_t{1} << 25U;

// `what` names the run in progress lines; `time_limit_ps`: the repeating congestors' time limit
// (sim::SimOptions::repeat_time_limit). `rule`: the canaries' stopping rule (null: none), which
// ends the run through SimOptions::stop_flag.
RunResult run_schedule(const GpcnetSchedule& built, const std::shared_ptr<const Network>& network,
                       const GpcnetOptions& options, std::string_view what, std::uint64_t time_limit_ps = 0,
                       const RuleSpec* rule = nullptr) {
  RunResult out;
  const std::uint32_t ranks = built.schedule.num_ranks();
  std::vector<std::int64_t> canary_index(ranks, -1);
  for (std::size_t c = 0; c < built.canary_ranks.size(); ++c) {
    canary_index[built.canary_ranks[c]] = static_cast<std::int64_t>(c);
  }
  out.marker_ps.resize(built.canary_ranks.size());
  for (std::size_t c = 0; c < built.markers.size(); ++c) {
    out.marker_ps[c].assign(built.markers[c].size(), 0);
  }
  auto model = make_network_model(options, network);
  sim::SimOptions so;
  so.params = options.params;
  so.network = model.get();
  so.repeat_time_limit = sim::SimTime{time_limit_ps};
  if (options.progress) {
    // A loaded run of a large job simulates for minutes: say how far its canaries are.
    so.progress_every_events = kProgressEvents;
    // With repeating congestors only the canaries' operations count (sim::SimProgress).
    const char* whose = built.schedule.has_repeating() ? "canaries'" : "run's";
    so.progress = [&options, what, whose](const sim::SimProgress& p) {
      options.progress(fmt::format(
          "{}: {} simulated, {:.1f}% of the {} operations done, {} events", what, time_text(p.now.ps),
          p.ops_total == 0 ? 100.0
                           : 100.0 * static_cast<double>(p.ops_completed) / static_cast<double>(p.ops_total),
          whose, p.events));
    };
  }
  std::unique_ptr<PrecisionTracker> tracker;
  bool stop = false;
  if (rule != nullptr) {
    tracker = std::make_unique<PrecisionTracker>(*rule, out.marker_ps);
    so.stop_flag = &stop;
  }
  so.on_op_done = [&](std::uint32_t rank, std::uint32_t op, sim::SimTime end) {
    const std::int64_t c = canary_index[rank];
    if (c < 0) {
      return;
    }
    const auto& marks = built.markers[static_cast<std::size_t>(c)];
    const auto it = std::lower_bound(marks.begin(), marks.end(), op);
    if (it != marks.end() && *it == op) {
      const auto index = static_cast<std::size_t>(it - marks.begin());
      out.marker_ps[static_cast<std::size_t>(c)][index] = end.ps;
      out.canary_end_ps = std::max(out.canary_end_ps, end.ps);
      if (tracker && tracker->on_marker(static_cast<std::size_t>(c), index)) {
        stop = true;
      }
    }
  };
  const sim::SimResult result = sim::simulate(built.schedule, so);
  if (!result.complete) {
    // gridlock generates the schedule: one that cannot finish is our defect, not the user's.
    throw InternalError(fmt::format(
        "gridlock predict gpcnet: a simulation of a generated schedule did not finish{}:\n{}",
        result.time_limit_reached ? fmt::format(" within {} simulated", time_text(time_limit_ps)) : "",
        sim::stuck_report(result)));
  }
  out.complete_markers = built.markers.empty() ? 0 : built.markers.front().size();
  if (tracker) {
    std::tie(out.complete_markers, out.stopping) = tracker->result();
  }
  out.finish = result.finish;
  out.repeat_cycles = result.repeat_cycles;
  out.stopped_ps = result.stopped_at.ps;
  out.messages = result.messages;
  out.wall_s = result.wall_seconds;
  return out;
}

std::uint64_t smallest_fitting_network(double canary_fraction) {
  for (std::uint64_t n = 2; n < 100000; ++n) {
    try {
      const gpcnet::RoleLayout probe(n, 1, canary_fraction, gpcnet_congestors());
      return n;
    } catch (const InputError&) {
      continue;
    }
  }
  return 0;
}

// Per-iteration samples and block figures of one canary run: the markers every rank completed
// (all of them, or those before a stopping rule ended the run; a block the stop cut counts with
// its timed iterations done).
gpcnet::CanaryResult collect(CanaryKind kind, const CanaryLoop& loop, const RunResult& run) {
  const CanaryInfo info = canary_info(kind);
  gpcnet::CanaryResult c;
  c.key = info.key;
  c.title = info.title;
  c.units = info.units;
  c.better = info.better;
  const std::uint64_t per_block = std::uint64_t{loop.warmup} + loop.iterations;
  const std::uint64_t markers = run.complete_markers;
  double sum_rank_means = 0;
  c.bulk_min = std::numeric_limits<double>::infinity();
  c.bulk_max = -std::numeric_limits<double>::infinity();
  for (const auto& marks : run.marker_ps) {
    double rank_sum = 0;
    std::uint32_t blocks = 0;
    for (std::uint32_t blk = 0; blk < loop.rings; ++blk) {
      const std::uint64_t first = blk * per_block + loop.warmup;
      if (first >= markers) {
        break;
      }
      const std::uint64_t count = std::min<std::uint64_t>(loop.iterations, markers - first);
      for (std::uint64_t i = 0; i < count; ++i) {
        c.histogram.record(canary_value(kind, marks[first + i] - marks[first + i - 1], 1.0));
      }
      const std::uint64_t block_ps = marks[first + count - 1] - marks[first - 1];
      rank_sum += canary_value(kind, block_ps, static_cast<double>(count));
      ++blocks;
    }
    const double rank_mean = rank_sum / blocks;
    sum_rank_means += rank_mean;
    c.bulk_min = std::min(c.bulk_min, rank_mean);
    c.bulk_max = std::max(c.bulk_max, rank_mean);
  }
  c.fine = summarize(c.histogram);
  c.ranks = run.marker_ps.size();
  c.bulk_mean = run.marker_ps.empty() ? std::nan("") : sum_rank_means / static_cast<double>(c.ranks);
  c.blocks_completed = std::min<std::uint64_t>(loop.rings, markers / per_block);
  c.blocks_planned = loop.rings;
  c.stopping = run.stopping;
  c.elapsed_s = run.wall_s;
  return c;
}

// Bytes one congestor rank sends per iteration.
std::uint64_t congestor_bytes_per_iteration(CongestorType type, std::uint32_t position, std::uint32_t n) {
  switch (type) {
    case CongestorType::kAllToAll:
      return kCongestorBytes * (n - 1);
    case CongestorType::kP2pIncast:
    case CongestorType::kRmaIncast:
      return position == 0 ? 0 : kCongestorBytes;
    case CongestorType::kRmaBcast:
      return position == 0 ? kCongestorBytes * (n - 1) : 0;
    case CongestorType::kAllreduce:
      break;
  }
  return 0;
}

// Upper bound of the operations one rank runs for a collective on `n` ranks (recursive doubling
// or dissemination: a send and a receive per round, ceil(log2 n) rounds, two more rounds for a
// count that is not a power of two).
std::uint64_t collective_ops(std::uint64_t n) {
  std::uint64_t rounds = 0;
  while ((std::uint64_t{1} << rounds) < n && rounds < 63) {
    ++rounds;
  }
  return 4 * (rounds + 2);
}

// The memory budget of one simulation run: the schedule's operations and the model's state.
void reserve_run(const GpcnetOptions& options, const GpcnetLayout& layout, const ScheduleShape& shape,
                 std::uint64_t model_bytes, std::string_view what) {
  MemoryBudget budget(options.max_memory_bytes == 0 ? default_max_memory_bytes() : options.max_memory_bytes);
  budget.reserve(model_bytes, "the network model");
  const std::uint64_t ops = estimate_gpcnet_ops(layout, shape);
  budget.reserve(saturating_mul(ops, kGpcnetBytesPerOp),
                 fmt::format("the {} run ({} operations on {} ranks)", what, ops, layout.ranks()),
                 options.precision_percent > 0
                     ? "give a smaller --max-iterations (the canaries are built for the cap), fewer "
                       "--ranks-per-node or a smaller --network"
                     : "give fewer --iterations or --rings, fewer --ranks-per-node or a smaller --network");
}

}  // namespace

namespace {

// The loop of the fixed count (no --precision).
CanaryLoop fixed_loop(const GpcnetOptions& options, CanaryKind kind) noexcept {
  CanaryLoop loop;
  switch (kind) {
    case CanaryKind::kLatency:
      loop = CanaryLoop{options.rings, 1, kLatencyIterations};
      break;
    case CanaryKind::kBandwidth:
      loop = CanaryLoop{options.rings, 1, kBandwidthIterations};
      break;
    case CanaryKind::kAllreduce:
      loop = CanaryLoop{1, 1, kAllreduceIterations};
      break;
  }
  if (options.iterations > 0) {
    loop.iterations = options.iterations;
  }
  return loop;
}

}  // namespace

std::uint64_t precision_cap(const GpcnetOptions& options, CanaryKind kind) noexcept {
  if (options.precision_percent <= 0) {
    return 0;
  }
  if (options.max_iterations > 0) {
    return options.max_iterations;
  }
  const CanaryLoop fixed = fixed_loop(options, kind);
  const std::uint64_t count = std::uint64_t{fixed.rings} * fixed.iterations;
  return std::min(saturating_mul(kGpcnetPrecisionCapFactor, count), kMaxGpcnetMaxIterations);
}

CanaryLoop canary_loop(const GpcnetOptions& options, CanaryKind kind) noexcept {
  CanaryLoop loop = fixed_loop(options, kind);
  const std::uint64_t cap = precision_cap(options, kind);
  if (cap > 0) {
    // Blocks of the fixed count's length, each on a random ring of its own, until the cap: a run
    // that stops early has sampled as many rings as its length allows, not one ring only.
    // cap <= kMaxGpcnetMaxIterations: the count fits 32 bits.
    loop.rings = static_cast<std::uint32_t>((cap + loop.iterations - 1) / loop.iterations);
  }
  return loop;
}

void check_gpcnet_options(const GpcnetOptions& options) {
  if (options.iterations > kMaxGpcnetIterations) {
    throw InputError(
        fmt::format("--iterations {}: at most {} timed iterations per ring block (GPCNeT runs 50 "
                    "to 200; 0: the per-kernel defaults)",
                    options.iterations, kMaxGpcnetIterations));
  }
  if (options.rings == 0 || options.rings > kMaxGpcnetRings) {
    throw InputError(
        fmt::format("--rings {}: give 1 to {} random rings (GPCNeT: 30)", options.rings, kMaxGpcnetRings));
  }
  if (options.ranks_per_node == 0 || options.ranks_per_node > kMaxGpcnetRanksPerNode) {
    throw InputError(
        fmt::format("--ranks-per-node {}: give 1 to {}", options.ranks_per_node, kMaxGpcnetRanksPerNode));
  }
  const double p = options.precision_percent;
  if (p != 0 && !(p >= kMinGpcnetPrecisionPercent && p <= kMaxGpcnetPrecisionPercent)) {
    throw InputError(
        fmt::format("--precision {}%: give {}% to {}% (the half-width of the 95% confidence "
                    "intervals over the estimate, e.g. 5 or 5%)",
                    p, kMinGpcnetPrecisionPercent, kMaxGpcnetPrecisionPercent));
  }
  if (options.max_iterations > 0 && p == 0) {
    throw InputError(
        "--max-iterations caps a stopping rule: give --precision P too (or --iterations for a "
        "fixed count)");
  }
  if (p != 0 && options.max_iterations > 0 &&
      (options.max_iterations < kGpcnetPrecisionMinIterations ||
       options.max_iterations > kMaxGpcnetMaxIterations)) {
    throw InputError(fmt::format("--max-iterations {}: give {} to {} timed iterations per canary rank",
                                 options.max_iterations, kGpcnetPrecisionMinIterations,
                                 kMaxGpcnetMaxIterations));
  }
}

double parse_gpcnet_precision(const std::string& text) {
  std::string_view number = text;
  if (!number.empty() && number.back() == '%') {
    number.remove_suffix(1);
  }
  double value = 0;
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, value);
  if (number.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    throw InputError(fmt::format("--precision '{}': not a percentage: give {} to {}, e.g. 5 or 5%", text,
                                 kMinGpcnetPrecisionPercent, kMaxGpcnetPrecisionPercent));
  }
  if (!(value >= kMinGpcnetPrecisionPercent && value <= kMaxGpcnetPrecisionPercent)) {
    throw InputError(
        fmt::format("--precision {}: give {}% to {}% (the half-width of the 95% confidence "
                    "intervals over the estimate, e.g. 5 or 5%)",
                    text, kMinGpcnetPrecisionPercent, kMaxGpcnetPrecisionPercent));
  }
  return value;
}

std::uint64_t estimate_gpcnet_ops(const GpcnetLayout& layout, const ScheduleShape& shape) noexcept {
  std::uint64_t ops = 0;
  if (shape.canaries && !layout.slices.empty()) {
    const CanaryLoop& loop = shape.loop;
    for (const auto& slice : layout.slices[0]) {
      const std::uint64_t n = slice.size();
      std::uint64_t per_iteration = 1;  // the marker
      switch (shape.kind) {
        case CanaryKind::kLatency:
          per_iteration += 4;
          break;
        case CanaryKind::kBandwidth:
          per_iteration += std::uint64_t{4} * kBandwidthOutstanding + collective_ops(n);
          break;
        case CanaryKind::kAllreduce:
          per_iteration += collective_ops(n);
          break;
      }
      const std::uint64_t iterations =
          saturating_mul(loop.rings, std::uint64_t{loop.warmup} + loop.iterations);
      ops = saturating_add(ops,
                           saturating_mul(n, saturating_add(1, saturating_mul(iterations, per_iteration))));
    }
  }
  const auto types = gpcnet_congestors();
  for (std::size_t t = 0; t < shape.congestor_iterations.size() && t < types.size(); ++t) {
    if (t + 1 >= layout.slices.size()) {
      break;
    }
    for (const auto& slice : layout.slices[t + 1]) {
      const std::uint64_t n = slice.size();
      // All-to-all: a send and a receive to every other rank; the incasts and the broadcast: a
      // message and its answer between the root and every other rank.
      const std::uint64_t per_iteration =
          types[t] == CongestorType::kAllToAll ? saturating_mul(2 * n, n) : saturating_mul(4, n);
      const std::uint64_t iterations = shape.congestors_repeat
                                           ? std::min<std::uint64_t>(1, shape.congestor_iterations[t])
                                           : shape.congestor_iterations[t];
      ops = saturating_add(ops, saturating_mul(per_iteration, iterations));
    }
  }
  return ops;
}

CanaryInfo canary_info(CanaryKind kind) {
  gpcnet::Canary id = gpcnet::Canary::kMultipleAllreduce;
  std::uint64_t bytes = kAllreduceBytes;
  switch (kind) {
    case CanaryKind::kLatency:
      id = gpcnet::Canary::kRrTwoSidedLat;
      bytes = kLatencyBytes;
      break;
    case CanaryKind::kBandwidth:
      id = gpcnet::Canary::kRrTwoSidedBwSync;
      bytes = kBandwidthBytes;
      break;
    case CanaryKind::kAllreduce:
      break;
  }
  const gpcnet::CanaryTest& test = gpcnet::canary_test(id);
  return {std::string(test.key), gpcnet::canary_title(id, bytes), std::string(test.units), test.better};
}

std::vector<gpcnet::CongestorType> gpcnet_congestors() { return gpcnet::default_congestors(); }

GpcnetLayout make_gpcnet_layout(std::uint32_t nodes, std::uint32_t ranks_per_node, std::uint64_t seed,
                                double canary_fraction) {
  if (ranks_per_node == 0) {
    throw InputError("--ranks-per-node 0: at least one rank per node is needed");
  }
  if (static_cast<std::uint64_t>(nodes) * ranks_per_node > sim::kMaxRanks) {
    throw InputError(fmt::format("{} nodes x {} ranks per node exceed the simulator's {} ranks", nodes,
                                 ranks_per_node, sim::kMaxRanks));
  }
  auto roles = [&] {
    try {
      return gpcnet::RoleLayout(nodes, seed, canary_fraction, gpcnet_congestors());
    } catch (const InputError&) {
      throw InputError(fmt::format(
          "the job has {} nodes, too few for GPCNeT's roles: {}% canary nodes and 4 congestor types "
          "need at least 2 nodes each ({} nodes in all); give more --nodes or a larger --network",
          nodes, canary_fraction * 100, smallest_fitting_network(canary_fraction)));
    }
  }();
  GpcnetLayout layout{nodes, ranks_per_node, std::move(roles), {}};
  for (int g = 0; g < layout.roles.group_count(); ++g) {
    const auto group_nodes = layout.roles.nodes_of(g);
    std::vector<std::vector<std::uint32_t>> slices(ranks_per_node);
    for (std::uint32_t j = 0; j < ranks_per_node; ++j) {
      for (const auto node : group_nodes) {
        slices[j].push_back(static_cast<std::uint32_t>(node) * ranks_per_node + j);
      }
    }
    layout.slices.push_back(std::move(slices));
  }
  return layout;
}

GpcnetSchedule build_gpcnet_schedule(const GpcnetLayout& layout, const ScheduleShape& shape) {
  GpcnetSchedule out;
  sim::ScheduleBuilder b(layout.ranks());
  if (shape.canaries) {
    for (const auto& slice : layout.slices[0]) {
      for (std::uint32_t pos = 0; pos < slice.size(); ++pos) {
        b.begin_rank(slice[pos]);
        out.markers.push_back(build_canary_rank(b, slice, pos, shape));
        out.canary_ranks.push_back(slice[pos]);
        b.end_rank();
      }
    }
  }
  const auto types = gpcnet_congestors();
  for (std::size_t t = 0; t < shape.congestor_iterations.size() && t < types.size(); ++t) {
    if (shape.congestor_iterations[t] == 0) {
      continue;
    }
    const std::uint64_t iterations = shape.congestors_repeat ? 1 : shape.congestor_iterations[t];
    for (const auto& slice : layout.slices[t + 1]) {
      for (std::uint32_t pos = 0; pos < slice.size(); ++pos) {
        b.begin_rank(slice[pos]);
        build_congestor_rank(b, types[t], slice, pos, iterations, shape.rma_by_nic, shape.congestors_repeat);
        out.congestor_ranks.push_back(slice[pos]);
        b.end_rank();
        if (shape.congestors_repeat) {
          b.set_repeating(slice[pos]);
        }
      }
    }
  }
  out.schedule = b.finish();
  return out;
}

namespace {

// The steps of predict_gpcnet(): size the prediction, build the network, calibrate the
// congestors, run each canary isolated and loaded, write the context.

// Calls the options' progress callback, if any, with one line.
void say(const GpcnetOptions& options, const std::string& line) {
  if (options.progress) {
    options.progress(line);
  }
}

// Refuses a prediction the memory budget cannot hold, sized from the spec's formulas before the
// topology is built (torus:1000x1000x1000 is a few bytes of option and gigabytes of graph).
void reserve_prediction(const GpcnetOptions& options) {
  const ModelKind kind = options.model;
  const topo::TopologySummary summary = topo::topology_info(options.network_spec);
  const std::uint64_t job_nodes = options.nodes.empty() ? summary.nodes : options.nodes.size();
  if (job_nodes > sim::kMaxRanks / options.ranks_per_node) {
    throw InputError(fmt::format("--network {}: {} nodes x {} ranks per node exceed the simulator's {} ranks",
                                 options.network_spec, job_nodes, options.ranks_per_node, sim::kMaxRanks));
  }
  // The layout and the placement: about 64 B per rank.
  constexpr std::uint64_t kLayoutBytesPerRank = 64;
  const std::uint64_t links = saturating_add(summary.network_links, summary.terminal_links);
  MemoryBudget budget(options.max_memory_bytes == 0 ? default_max_memory_bytes() : options.max_memory_bytes);
  // Packet sizes first: a buffer of a billion packets is a wrong option, not a memory question.
  if (kind == ModelKind::kPacket) {
    check_packet_sizes(options.packet);
  }
  budget.reserve(
      topo::estimate_topology_size(options.network_spec).bytes,
      fmt::format("the network {} ({} nodes, {} links)", options.network_spec, summary.nodes, links),
      "give a smaller --network");
  budget.reserve(
      saturating_add(saturating_mul(saturating_mul(job_nodes, options.ranks_per_node), kLayoutBytesPerRank),
                     estimate_model_bytes(kind, links, job_nodes * options.ranks_per_node, options.packet)),
      fmt::format("{} ranks and the {} model's state", job_nodes * options.ranks_per_node, to_string(kind)),
      "give fewer --ranks-per-node or a smaller --network");
}

// The job's nodes: job node i is topology node job[i] (every node of the topology unless the
// options name some; those must be distinct nodes of it).
std::vector<topo::NodeId> job_nodes(const GpcnetOptions& options, const topo::Topology& topology) {
  std::vector<topo::NodeId> job = options.nodes;
  if (job.empty()) {
    job.resize(topology.nodes().size());
    for (std::size_t i = 0; i < job.size(); ++i) {
      job[i] = static_cast<topo::NodeId>(i);
    }
    return job;
  }
  std::vector<bool> seen(topology.nodes().size(), false);
  for (const auto node : job) {
    if (node >= seen.size() || seen[node]) {
      throw InputError(fmt::format("the job's nodes: node {} is {} of {}: give distinct nodes 0 to {}", node,
                                   node >= seen.size() ? "not a node" : "given twice", topology.spec(),
                                   seen.size() - 1));
    }
    seen[node] = true;
  }
  return job;
}

// What every run of a prediction shares: the topology, the job's nodes, the roles and the
// network their ranks are placed on.
struct GpcnetSetup {
  std::shared_ptr<const topo::Topology> topology;
  std::vector<topo::NodeId> job;  // job node i is topology node job[i]
  GpcnetLayout layout;
  std::shared_ptr<const Network> network;
  std::uint64_t model_bytes = 0;  // the model's state, reserved for each run
  std::uint64_t ring_seed = 0;    // base seed of the random rings
};

// Builds the topology, the layout and the network; bad packet options are refused here, before
// any run.
GpcnetSetup build_setup(const GpcnetOptions& options) {
  std::shared_ptr<const topo::Topology> topology = topo::make_topology(options.network_spec);
  std::vector<topo::NodeId> job = job_nodes(options, *topology);
  const auto nodes = static_cast<std::uint32_t>(job.size());
  GpcnetLayout layout =
      make_gpcnet_layout(nodes, options.ranks_per_node, options.seed, options.canary_fraction);
  std::vector<topo::NodeId> node_of_rank(layout.ranks());
  for (std::uint32_t r = 0; r < layout.ranks(); ++r) {
    node_of_rank[r] = job[r / options.ranks_per_node];
  }
  Placement placement = explicit_placement(
      *topology, layout.ranks(), std::move(node_of_rank),
      fmt::format("{} of {} nodes ({}), {} rank{} per node", nodes, topology->nodes().size(),
                  options.allocation, options.ranks_per_node, options.ranks_per_node == 1 ? "" : "s"));
  auto network =
      std::make_shared<const Network>(topology, std::move(placement), NetworkParams{options.hop_latency_ps});
  if (options.model == ModelKind::kPacket) {
    // Bad packet options (too few virtual channels, Valiant off a dragonfly) before any work.
    validate(options.packet, *network);
  }
  const std::uint64_t model_bytes =
      estimate_model_bytes(options.model, topology->links().size(), layout.ranks(), options.packet);
  return GpcnetSetup{std::move(topology), std::move(job), std::move(layout),
                     std::move(network),  model_bytes,    derive_seed(options.seed, gpcnet::kRingStream)};
}

// The report's roles (node names per group) and the canaries' first random ring.
void put_roles(gpcnet::Report& report, const GpcnetSetup& setup) {
  const GpcnetLayout& layout = setup.layout;
  const std::vector<topo::Node>& names = setup.topology->nodes();
  for (int g = 0; g < layout.roles.group_count(); ++g) {
    std::vector<std::string> group;
    for (const auto node : layout.roles.nodes_of(g)) {
      group.push_back(names[setup.job[node]].name);
    }
    report.roles.emplace_back(layout.roles.group_name(g), std::move(group));
  }
  const auto& canary_nodes = layout.roles.nodes_of(0);
  const auto ring = random_ring_order(canary_nodes.size(), setup.ring_seed, 0);
  for (std::uint64_t i = 0; i < canary_nodes.size(); ++i) {
    report.canary_ring0.push_back(names[setup.job[canary_nodes[ring.at(i)]]].name);
  }
}

// Per congestor type (gpcnet_congestors() order), the iteration time of its fastest rank in `run`
// of `iterations[t]` iterations (the calibration's progress line). At least 1 ps.
std::vector<double> congestor_paces(const GpcnetLayout& layout, const RunResult& run,
                                    const std::vector<std::uint64_t>& iterations) {
  std::vector<double> pace(iterations.size(), 0);
  for (std::size_t t = 0; t < iterations.size(); ++t) {
    std::uint64_t end = std::numeric_limits<std::uint64_t>::max();
    for (const auto& slice : layout.slices[t + 1]) {
      for (const auto r : slice) {
        end = std::min(end, run.finish[r].ps);
      }
    }
    pace[t] = std::max(1.0, static_cast<double>(end) / static_cast<double>(iterations[t]));
  }
  return pace;
}

// The calibration: the congestors alone for a few iterations.
struct Calibration {
  std::vector<double> iteration_ps;  // per congestor type, its fastest rank's iteration time
  std::uint64_t warmup_ps = 0;       // the congestors' warm-up before the canaries start
};

// Runs the congestors alone for kCalibrationIterations: the slowest one's iteration time sets the
// warm-up, and each one's is reported.
Calibration calibrate(const GpcnetOptions& options, const GpcnetSetup& setup) {
  const auto types = gpcnet_congestors();
  ScheduleShape shape;
  shape.rma_by_nic = options.rma_by_nic;
  shape.canaries = false;
  shape.congestor_iterations.assign(types.size(), kCalibrationIterations);
  reserve_run(options, setup.layout, shape, setup.model_bytes, "calibration");
  const auto built = build_gpcnet_schedule(setup.layout, shape);
  const RunResult run = run_schedule(built, setup.network, options, "calibration");
  Calibration out;
  out.iteration_ps = congestor_paces(setup.layout, run, shape.congestor_iterations);
  double slowest_iteration = 1;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::uint64_t last = 0;
    for (const auto& slice : setup.layout.slices[t + 1]) {
      for (const auto r : slice) {
        last = std::max(last, run.finish[r].ps);
      }
    }
    slowest_iteration = std::max(slowest_iteration, static_cast<double>(last) / kCalibrationIterations);
  }
  std::string line = "calibration: congestor iteration";
  for (std::size_t t = 0; t < types.size(); ++t) {
    line += fmt::format("{} {} {}", t == 0 ? "" : ",", gpcnet::congestor_key(types[t]),
                        time_text(static_cast<std::uint64_t>(out.iteration_ps[t])));
  }
  say(options, line);
  out.warmup_ps = static_cast<std::uint64_t>(std::ceil(kWarmupIterations * slowest_iteration));
  return out;
}

// A loaded run's canary result with the congestors' iterations, bytes and rates: the iterations
// each repeating congestor rank completed until the canaries finished, over that time.
gpcnet::CanaryResult loaded_result(CanaryKind canary, const ScheduleShape& shape, const RunResult& run,
                                   const GpcnetLayout& layout) {
  const auto types = gpcnet_congestors();
  gpcnet::CanaryResult result = collect(canary, shape.loop, run);
  for (std::size_t t = 0; t < types.size(); ++t) {
    gpcnet::CongestorResult cr;
    cr.type = types[t];
    double rate_sum = 0;
    for (const auto& slice : layout.slices[t + 1]) {
      const auto n = static_cast<std::uint32_t>(slice.size());
      for (std::uint32_t pos = 0; pos < n; ++pos) {
        const std::uint64_t iterations = run.repeat_cycles.at(slice[pos]);
        const std::uint64_t bytes =
            saturating_mul(congestor_bytes_per_iteration(types[t], pos, n), iterations);
        cr.ranks += 1;
        cr.iterations = saturating_add(cr.iterations, iterations);
        cr.bytes = saturating_add(cr.bytes, bytes);
        const double seconds = static_cast<double>(run.stopped_ps) * 1e-12;
        rate_sum += seconds > 0 ? static_cast<double>(bytes) / seconds / kMiB : 0.0;
      }
    }
    cr.mib_per_s_total = rate_sum;
    cr.mib_per_s_per_rank = cr.ranks == 0 ? 0 : rate_sum / static_cast<double>(cr.ranks);
    result.congestors.push_back(cr);
  }
  return result;
}

// An achieved half-width over the estimate: "+-1.23%", or why there is none.
std::string width_text(double width) {
  return std::isfinite(width) ? fmt::format("+-{:.2f}%", width * 100) : std::string("no 95% interval yet");
}

// ", 120 timed iterations per rank (rule met: mean +-1.20%, tail +-4.10%)" for a progress line;
// empty without a rule.
std::string stopping_text(const gpcnet::StoppingRule& s) {
  if (!s.active) {
    return "";
  }
  return fmt::format(", {} timed iterations per rank ({}: mean {}, tail {})", s.iterations,
                     s.met ? "rule met" : "cap hit", width_text(s.mean_half_width),
                     width_text(s.tail_half_width));
}

// The report's note for a canary run that hit the cap of its stopping rule (empty if none).
std::string cap_note(const gpcnet::CanaryResult& c, std::string_view phase) {
  const gpcnet::StoppingRule& s = c.stopping;
  if (!s.active || s.met) {
    return "";
  }
  return fmt::format(
      "{} {}: --precision {}% not reached within the cap of {} timed iterations per rank (achieved: mean "
      "{}, tail {}); give a larger --max-iterations or a looser --precision",
      c.key, phase, s.target * 100, s.cap, width_text(s.mean_half_width), width_text(s.tail_half_width));
}

// One canary's isolated and loaded phases.
struct CanaryRuns {
  gpcnet::CanaryResult isolated;
  gpcnet::CanaryResult loaded;
  Json sizing;                 // the canary's row of the context's congestor_sizing
  std::uint64_t messages = 0;  // messages simulated, isolated and loaded
};

// Runs `canary` alone, then beside the congestors: the canaries start after the congestors'
// warm-up, and the congestors, each built as one iteration that repeats, keep their patterns
// running until the last canary iteration ends (one loaded run, its memory that of one iteration).
CanaryRuns run_canary(const GpcnetOptions& options, const GpcnetSetup& setup, const Calibration& calibration,
                      CanaryKind canary) {
  const std::string key = canary_info(canary).key;
  CanaryRuns out;
  ScheduleShape shape;
  shape.rma_by_nic = options.rma_by_nic;
  shape.kind = canary;
  shape.loop = canary_loop(options, canary);
  shape.ring_seed = setup.ring_seed;
  RuleSpec spec;
  const RuleSpec* rule = nullptr;
  if (options.precision_percent > 0) {
    const CanaryLoop fixed = fixed_loop(options, canary);
    // Every ring block of the fixed count begun with kGpcnetPrecisionMinIterations timed
    // iterations (or all of its), and at least that many in all, before the rule is evaluated
    // (PrecisionTracker).
    const std::uint64_t minimum =
        std::max(kGpcnetPrecisionMinIterations,
                 std::uint64_t{fixed.rings - 1} * fixed.iterations +
                     std::min<std::uint64_t>(fixed.iterations, kGpcnetPrecisionMinIterations));
    spec = RuleSpec{canary,
                    shape.loop,
                    options.precision_percent / 100,
                    precision_cap(options, canary),
                    std::uint64_t{fixed.rings} * fixed.iterations,
                    minimum};
    rule = &spec;
  }
  reserve_run(options, setup.layout, shape, setup.model_bytes, fmt::format("{} isolated", key));
  const RunResult iso = run_schedule(build_gpcnet_schedule(setup.layout, shape), setup.network, options,
                                     key + " isolated", 0, rule);
  out.messages += iso.messages;
  out.isolated = collect(canary, shape.loop, iso);
  say(options,
      fmt::format("{} isolated: {} simulated, {} messages, {:.1f} s{}", key, time_text(iso.canary_end_ps),
                  iso.messages, iso.wall_s, stopping_text(iso.stopping)));

  shape.canary_delay = sim::SimTime{calibration.warmup_ps};
  shape.congestors_repeat = true;
  const auto types = gpcnet_congestors();
  shape.congestor_iterations.assign(types.size(), 1);
  reserve_run(options, setup.layout, shape, setup.model_bytes, fmt::format("{} loaded", key));
  const std::uint64_t limit_ps =
      saturating_add(calibration.warmup_ps,
                     saturating_mul(kLoadedTimeLimitFactor, std::max<std::uint64_t>(iso.canary_end_ps, 1)));
  const auto built = build_gpcnet_schedule(setup.layout, shape);
  const RunResult run = run_schedule(built, setup.network, options, key + " loaded", limit_ps, rule);
  out.messages += run.messages;
  say(options,
      fmt::format("{} loaded: {} simulated, {} messages, {:.1f} s{}", key, time_text(run.canary_end_ps),
                  run.messages, run.wall_s, stopping_text(run.stopping)));
  out.loaded = loaded_result(canary, shape, run, setup.layout);
  out.sizing["canary"] = key;
  out.sizing["isolated_end_us"] = sim::us_from_ps(iso.canary_end_ps);
  out.sizing["loaded_end_us"] = sim::us_from_ps(run.canary_end_ps);
  // Per congestor type, the fewest iterations one of its ranks completed before the canaries ended.
  std::vector<std::uint64_t> fewest;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
    for (const auto& slice : setup.layout.slices[t + 1]) {
      for (const auto r : slice) {
        least = std::min(least, run.repeat_cycles.at(r));
      }
    }
    fewest.push_back(least == std::numeric_limits<std::uint64_t>::max() ? 0 : least);
  }
  out.sizing["congestor_iterations"] = fewest;
  out.sizing["congestors"] = "repeat until the canaries end";
  return out;
}

// The report's context block: the network, the model, the job, the parameters and how the
// congestors were sized.
Json gpcnet_context(const GpcnetOptions& options, const GpcnetSetup& setup, const Calibration& calibration,
                    Json sizing, std::uint64_t messages) {
  const ModelKind kind = options.model;
  const topo::Topology& topology = *setup.topology;
  Json context = base_context("gridlock predict gpcnet", schemas::kBench);
  context["mode"] = "load";
  context["simulated"] = true;
  context["network"] = topology.spec();
  context["net_model"] = to_string(kind);
  if (kind == ModelKind::kPacket) {
    context["packet"] = net::packet_options_json(options.packet);
  }
  context["model"] = fmt::format("{} model on {}", to_string(kind), topology.spec());
  context["nodes"] = static_cast<std::uint32_t>(setup.job.size());
  context["network_nodes"] = topology.nodes().size();
  context["allocation"] = options.allocation;
  context["ranks"] = setup.layout.ranks();
  context["ranks_per_node"] = options.ranks_per_node;
  context["seed"] = options.seed;
  context["seed_source"] = "option";
  Json params = sim::params_json(options.params);
  params["hop_latency_ps"] = options.hop_latency_ps;
  params["canary_fraction"] = options.canary_fraction;
  params["rma_target"] = options.rma_by_nic ? "nic" : "cpu";
  params["rings"] = options.rings;
  params["iterations"] = options.iterations;
  if (options.precision_percent > 0) {
    // Only with --precision: the fixed-count context stays as it was.
    params["precision_percent"] = options.precision_percent;
    params["max_iterations"] = options.max_iterations;
  }
  for (const CanaryKind canary : kCanaryKinds) {
    const CanaryLoop loop = canary_loop(options, canary);
    params["loops"][canary_info(canary).key] = {
        {"rings", loop.rings}, {"warmup", loop.warmup}, {"iterations", loop.iterations}};
  }
  context["parameters"] = params;
  context["congestor_warmup_us"] = sim::us_from_ps(calibration.warmup_ps);
  context["congestor_sizing"] = std::move(sizing);
  context["messages_simulated"] = messages;
  return context;
}

}  // namespace

gpcnet::Report predict_gpcnet(const GpcnetOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  check_gpcnet_options(options);
  reserve_prediction(options);
  const GpcnetSetup setup = build_setup(options);

  gpcnet::Report report;
  report.mode = gpcnet::Mode::kLoad;
  report.average = gpcnet::Average::kBlocks;
  put_roles(report, setup);
  const Calibration calibration = calibrate(options, setup);

  gpcnet::PhaseResult isolated{"isolated", {}, {}};
  gpcnet::PhaseResult loaded{"loaded", gpcnet_congestors(), {}};
  Json sizing = Json::array();
  std::uint64_t total_messages = 0;
  for (const CanaryKind canary : kCanaryKinds) {
    CanaryRuns runs = run_canary(options, setup, calibration, canary);
    for (const std::string& note : {cap_note(runs.isolated, "isolated"), cap_note(runs.loaded, "loaded")}) {
      if (!note.empty()) {
        report.notes.push_back(note);
      }
    }
    isolated.canaries.push_back(std::move(runs.isolated));
    loaded.canaries.push_back(std::move(runs.loaded));
    sizing.push_back(std::move(runs.sizing));
    total_messages += runs.messages;
  }
  report.phases = {std::move(isolated), std::move(loaded)};
  report.context = gpcnet_context(options, setup, calibration, std::move(sizing), total_messages);
  report.context["run_s"] = seconds_since(wall_start);
  return report;
}

}  // namespace gridlock::predict
