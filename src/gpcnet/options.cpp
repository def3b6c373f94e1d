#include "gridlock/gpcnet/options.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/nics.hpp"
#include "gridlock/gpcnet/suite.hpp"

namespace gridlock::gpcnet {
namespace {

std::string valid_congestor_keys() {
  std::string keys;
  for (const auto& n : congestor_tests()) {
    keys += keys.empty() ? "" : ",";
    keys += n.key;
  }
  return keys;
}

void require(bool ok, std::string_view option, std::string_view rule, const std::string& value) {
  if (!ok) {
    throw InputError(fmt::format("invalid {} {}: {}", option, value, rule));
  }
}

void validate_loop(const LoopCounts& loop, std::string_view name) {
  require(loop.measurements >= 1, fmt::format("--{}-measurements", name), "must be >= 1",
          std::to_string(loop.measurements));
  require(loop.rings >= 1, fmt::format("--{}-rings", name), "must be >= 1", std::to_string(loop.rings));
  require(loop.iterations >= 1, fmt::format("--{}-iterations", name), "must be >= 1",
          std::to_string(loop.iterations));
}

// A split launch's options: a role and a rendezvous directory together, in load mode, with one
// loaded phase (the congestor job runs one set of congestors from start to stop).
void validate_split(const Options& o) {
  const bool split = o.role != SplitRole::kBoth;
  // A split launch's congestor job runs as a congest run (split_congestor_options()).
  require(!split || o.mode != Mode::kNetwork, "--role", "splits a load run only",
          std::string(split_role_key(o.role)));
  require(!split || !o.rendezvous_dir.empty(), "--role",
          "needs --rendezvous DIR, a directory both jobs see (the jobs talk through files in it)",
          std::string(split_role_key(o.role)));
  require(split || o.rendezvous_dir.empty(), "--rendezvous",
          "needs --role canaries or --role congestors (one job each)", o.rendezvous_dir);
  require(!split || !o.each_congestor, "--each-congestor",
          "needs canaries and congestors in one job (a congestor job runs its congestors together from start "
          "to stop): drop it, or run one congestor job per type",
          "given");
  require(o.role != SplitRole::kCongestors || o.csv_dir.empty(), "--csv-dir",
          "holds the canaries' histograms: give it to the canary job (the congestor job has none)",
          o.csv_dir);
  require(std::isfinite(o.rendezvous_timeout_s) && o.rendezvous_timeout_s > 0.0 &&
              o.rendezvous_timeout_s <= kMaxRunSeconds,
          "--rendezvous-timeout", "must be > 0 and at most a week (168h)",
          fmt::format("{}", o.rendezvous_timeout_s));
}

}  // namespace

std::string_view congestor_key(CongestorType type) noexcept {
  for (const auto& n : congestor_tests()) {
    if (n.type == type) {
      return n.key;
    }
  }
  return "unknown";
}

std::string_view congestor_title(CongestorType type) noexcept {
  for (const auto& n : congestor_tests()) {
    if (n.type == type) {
      return n.title;
    }
  }
  return "unknown";
}

std::vector<CongestorType> parse_congestor_list(std::string_view text) {
  std::vector<CongestorType> result;
  for (const std::string_view item : split(text, ',')) {
    const auto tests = congestor_tests();
    const auto found =
        std::find_if(tests.begin(), tests.end(), [&](const CongestorTest& n) { return n.key == item; });
    if (found == tests.end()) {
      throw InputError(fmt::format("invalid --congestors '{}': unknown congestor '{}' (valid: {})", text,
                                   item, valid_congestor_keys()));
    }
    if (std::find(result.begin(), result.end(), found->type) != result.end()) {
      throw InputError(fmt::format("invalid --congestors '{}': '{}' is listed twice", text, item));
    }
    result.push_back(found->type);
  }
  return result;
}

void apply_quick_profile(Options& options) noexcept {
  options.quick = true;
  options.latency = {4, 3, 20, 5};
  options.bandwidth = {2, 2, 2, 1};
  options.allreduce = {4, 1, 20, 1};
  options.alltoall = {2, 1, 4, 1};
  options.congestor_warmup = 2;
  options.congestor_check = 4;
  options.test_timeout_s = std::min(options.test_timeout_s, 5.0);
}

void validate(const Options& o) {
  validate_loop(o.latency, "latency");
  validate_loop(o.bandwidth, "bandwidth");
  validate_loop(o.allreduce, "allreduce");
  validate_loop(o.alltoall, "alltoall");
  require(o.latency_bytes >= 1, "--latency-size", "must be at least 1 byte", std::to_string(o.latency_bytes));
  require(o.bandwidth_bytes >= 1, "--bandwidth-size", "must be at least 1 byte",
          std::to_string(o.bandwidth_bytes));
  require(o.bandwidth_outstanding >= 1 && o.bandwidth_outstanding <= 1024, "--bandwidth-outstanding",
          "must be between 1 and 1024", std::to_string(o.bandwidth_outstanding));
  require(o.allreduce_bytes >= 8 && o.allreduce_bytes % 8 == 0, "--allreduce-size",
          "must be a positive multiple of 8 bytes (doubles)", std::to_string(o.allreduce_bytes));
  require(o.alltoall_bytes >= 1, "--alltoall-size", "must be at least 1 byte",
          std::to_string(o.alltoall_bytes));
  require(o.congestor_bytes >= 1, "--congestor-size", "must be at least 1 byte",
          std::to_string(o.congestor_bytes));
  require(o.allreduce_congestor_bytes >= 8 && o.allreduce_congestor_bytes % 8 == 0,
          "--allreduce-congestor-size", "must be a positive multiple of 8 bytes",
          std::to_string(o.allreduce_congestor_bytes));
  // Sizes feed int counts of MPI calls; keep every buffer well inside INT_MAX elements.
  constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 30U;
  for (const auto& [name, bytes] :
       {std::pair<std::string_view, std::uint64_t>{"--latency-size", o.latency_bytes},
        {"--bandwidth-size", o.bandwidth_bytes},
        {"--allreduce-size", o.allreduce_bytes},
        {"--alltoall-size", o.alltoall_bytes},
        {"--congestor-size", o.congestor_bytes},
        {"--allreduce-congestor-size", o.allreduce_congestor_bytes}}) {
    require(bytes <= kMaxBytes, name, "must be at most 1 GiB", std::to_string(bytes));
  }
  require(o.congestor_check >= 1, "--congestor-check", "must be >= 1", std::to_string(o.congestor_check));
  require(std::isfinite(o.canary_fraction) && o.canary_fraction > 0.0 && o.canary_fraction < 1.0,
          "--canary-fraction", "must be strictly between 0 and 1", fmt::format("{}", o.canary_fraction));
  require(o.mode == Mode::kNetwork || !o.congestors.empty(), "--congestors", "needs at least one congestor",
          "''");
  require(std::isfinite(o.test_timeout_s) && o.test_timeout_s > 0.0, "--test-timeout", "must be > 0",
          fmt::format("{}", o.test_timeout_s));
  require(std::isfinite(o.deadline_s) && o.deadline_s >= 0.0, "--deadline", "must be >= 0 (0 = none)",
          fmt::format("{}", o.deadline_s));
  require(o.virtual_nodes == 0 || o.ranks_per_node == 0, "--virtual-nodes",
          "cannot be combined with --ranks-per-node (give one of them)", std::to_string(o.virtual_nodes));
  require(o.nics_per_node <= kMaxNicsPerNode, "--nics-per-node",
          fmt::format("must be 1 to {}", kMaxNicsPerNode), std::to_string(o.nics_per_node));
  require(o.virtual_nics <= kMaxNicsPerNode, "--virtual-nics",
          fmt::format("must be 1 to {}", kMaxNicsPerNode), std::to_string(o.virtual_nics));
  require(o.nics_per_node == 0 || o.virtual_nics == 0, "--nics-per-node",
          "cannot be combined with --virtual-nics (give one of them)", std::to_string(o.nics_per_node));
  validate_split(o);
}

std::string_view split_role_key(SplitRole role) noexcept {
  switch (role) {
    case SplitRole::kCanaries:
      return "canaries";
    case SplitRole::kCongestors:
      return "congestors";
    case SplitRole::kBoth:
      break;
  }
  return "both";
}

std::string_view mode_key(Mode mode) noexcept {
  switch (mode) {
    case Mode::kNetwork:
      return "network";
    case Mode::kCongest:
      return "congest";
    case Mode::kLoad:
      break;
  }
  return "load";
}

std::string_view average_key(Average value) noexcept {
  return value == Average::kBlocks ? "blocks" : "samples";
}

std::string_view recv_buffers_key(RecvBuffers value) noexcept {
  return value == RecvBuffers::kShared ? "shared" : "separate";
}

std::string_view idle_wait_key(IdleWait value) noexcept {
  switch (value) {
    case IdleWait::kBarrier:
      return "barrier";
    case IdleWait::kSleep:
      return "sleep";
    case IdleWait::kPoll:
      return "poll";
  }
  return "barrier";
}

void check_at_most(std::uint64_t value, std::uint64_t most, const std::string& option) {
  if (value > most) {
    throw InputError(fmt::format("{} {}: give at most {}", option, value, most));
  }
}

namespace {

void check_loop_bounds(const LoopCounts& loop, const char* name) {
  check_at_most(loop.measurements, kMaxLoopMeasurements, fmt::format("--{}-measurements", name));
  check_at_most(loop.rings, kMaxLoopRings, fmt::format("--{}-rings", name));
  check_at_most(loop.iterations, kMaxLoopIterations, fmt::format("--{}-iterations", name));
  check_at_most(loop.warmup, kMaxLoopIterations, fmt::format("--{}-warmup", name));
}

// --quick's profile on `o`, then the counts given on the command line (kept in `user`) back.
void apply_quick_keeping_given(Options& o, const std::set<std::string>& given) {
  const Options user = o;
  apply_quick_profile(o);
  const auto has = [&given](const std::string& name) { return given.count(name) > 0; };
  const auto keep = [&](const char* name, LoopCounts& target, const LoopCounts& from) {
    if (has(fmt::format("--{}-measurements", name))) target.measurements = from.measurements;
    if (has(fmt::format("--{}-rings", name))) target.rings = from.rings;
    if (has(fmt::format("--{}-iterations", name))) target.iterations = from.iterations;
    if (has(fmt::format("--{}-warmup", name))) target.warmup = from.warmup;
  };
  keep("latency", o.latency, user.latency);
  keep("bandwidth", o.bandwidth, user.bandwidth);
  keep("allreduce", o.allreduce, user.allreduce);
  keep("alltoall", o.alltoall, user.alltoall);
  if (has("--congestor-warmup")) o.congestor_warmup = user.congestor_warmup;
  if (has("--congestor-check")) o.congestor_check = user.congestor_check;
}

}  // namespace

void finish_options(Options& o, const OptionsText& t, const std::set<std::string>& given) {
  if (o.quick) {
    apply_quick_keeping_given(o, given);
  }
  if (given.count("--seed") > 0) {
    o.seed = t.seed;
  }
  o.congestors = parse_congestor_list(t.congestors);
  o.latency_bytes = parse_byte_size(t.latency_size, "--latency-size");
  o.bandwidth_bytes = parse_byte_size(t.bandwidth_size, "--bandwidth-size");
  o.allreduce_bytes = parse_byte_size(t.allreduce_size, "--allreduce-size");
  o.alltoall_bytes = parse_byte_size(t.alltoall_size, "--alltoall-size");
  o.congestor_bytes = parse_byte_size(t.congestor_size, "--congestor-size");
  o.allreduce_congestor_bytes = parse_byte_size(t.allreduce_congestor_size, "--allreduce-congestor-size");
  const double timeout = parse_duration_seconds(t.test_timeout, "--test-timeout");
  // The quick profile's shorter limit stays unless --test-timeout was given.
  o.test_timeout_s =
      (o.quick && given.count("--test-timeout") == 0) ? std::min(o.test_timeout_s, timeout) : timeout;
  o.deadline_s = parse_duration_seconds(t.deadline, "--deadline");
  o.rendezvous_timeout_s = parse_duration_seconds(t.rendezvous_timeout, "--rendezvous-timeout");
  check_loop_bounds(o.latency, "latency");
  check_loop_bounds(o.bandwidth, "bandwidth");
  check_loop_bounds(o.allreduce, "allreduce");
  check_loop_bounds(o.alltoall, "alltoall");
  check_at_most(o.congestor_warmup, kMaxLoopIterations, "--congestor-warmup");
  check_at_most(o.congestor_check, kMaxLoopIterations, "--congestor-check");
  if (o.test_timeout_s > kMaxRunSeconds || o.deadline_s > kMaxRunSeconds) {
    throw InputError(fmt::format("--test-timeout {} and --deadline {}: give at most a week (168h) each",
                                 t.test_timeout, t.deadline));
  }
  validate(o);
}

}  // namespace gridlock::gpcnet
