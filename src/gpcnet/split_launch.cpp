#include "gridlock/gpcnet/split_launch.hpp"

#include <unistd.h>

#include <array>
#include <random>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"

namespace gridlock::gpcnet {
namespace {

constexpr std::array<std::string_view, 6> kProtocolFiles{
    "canaries.hello", "congestors.ready", "start", "congestors.running", "stop", "congestors.done"};

std::string_view alive_file(SplitRole role) {
  return role == SplitRole::kCanaries ? "canaries.alive" : "congestors.alive";
}

double seconds_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A run id two jobs cannot confuse: 64 random bits (the kernel's entropy) and the host's pid.
// Not a seed: nothing measured depends on it.
std::string fresh_run_id() {
  std::random_device device;
  const std::uint64_t high = device();
  const std::uint64_t low = device();
  return fmt::format("{:016x}-{}", (high << 32U) | low, ::getpid());
}

}  // namespace

Rendezvous::Rendezvous(std::filesystem::path dir, SplitRole role) : dir_(std::move(dir)), role_(role) {
  if (role_ == SplitRole::kBoth) {
    throw InternalError("Rendezvous: a job in both roles has no rendezvous");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec)) {
    throw InputError(fmt::format(
        "--rendezvous {}: not an existing directory: create it on a file system both jobs see (e.g. in "
        "$HOME or the parallel file system), and give both jobs the same path",
        dir_.string()));
  }
  try {
    check_writable(dir_ / alive_file(role_));
  } catch (const IoError& e) {
    throw InputError(fmt::format("--rendezvous {}: {}", dir_.string(), e.what()));
  }
}

Rendezvous::~Rendezvous() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) {
    heartbeat_.join();
  }
}

void Rendezvous::open_run(Json about) {
  // An earlier run's files would answer this run's waits: remove them, then say hello. A congestor
  // job that joined the earlier run sees the new hello's run id and stops (check_peer()).
  for (const std::string_view name : kProtocolFiles) {
    std::error_code ec;
    std::filesystem::remove(dir_ / name, ec);
  }
  run_id_ = fresh_run_id();
  start_heartbeat();
  post("canaries.hello", std::move(about));
}

Json Rendezvous::join_run(double timeout_s) {
  const Clock::time_point start = Clock::now();
  // A hello counts once its job's heartbeat changes while we look: the files of a canary job that
  // died (or of one that ended) do not.
  std::string last_beat = peer_heartbeat();
  bool beating = false;
  for (;;) {
    const std::string beat = peer_heartbeat();
    if (beat != last_beat) {
      beating = !beat.empty();
      last_beat = beat;
    }
    if (beating) {
      if (const std::optional<Json> hello = read("canaries.hello");
          hello && hello->contains("run_id") && (*hello)["run_id"].is_string() &&
          beat.rfind((*hello)["run_id"].get<std::string>() + " ", 0) == 0) {
        run_id_ = (*hello)["run_id"].get<std::string>();
        watching_ = true;
        peer_beat_ = beat;
        peer_changed_ = Clock::now();
        start_heartbeat();
        return *hello;
      }
    }
    if (seconds_between(start, Clock::now()) >= timeout_s) {
      throw Error(fmt::format(
          "no canary job opened a run in {} within {:g} s (no canaries.hello with a beating "
          "canaries.alive): start `gridlock-bench load --role canaries --rendezvous {}` with the same "
          "directory, or give a longer --rendezvous-timeout",
          dir_.string(), timeout_s, dir_.string()));
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(kRendezvousPollS));
  }
}

void Rendezvous::post(std::string_view name, Json body) {
  if (!body.is_object()) {
    throw InternalError("Rendezvous::post: the body must be a JSON object");
  }
  body["run_id"] = run_id_;
  write_file_atomic(dir_ / name, body.dump(1) + "\n");
}

std::optional<Json> Rendezvous::read(std::string_view name) const {
  const std::filesystem::path path = dir_ / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return std::nullopt;
  }
  try {
    Json body = Json::parse(read_input_file(path, "rendezvous file", "", kMaxRendezvousFileBytes));
    if (body.is_object()) {
      return body;
    }
  } catch (const Json::exception&) {
    // Files are renamed into place whole, so a partial one is not ours: treated as absent.
  } catch (const Error&) {
    // Removed between the check and the read (a new canary run cleaning up), or too large.
  }
  return std::nullopt;
}

std::optional<Json> Rendezvous::read_ours(std::string_view name) const {
  std::optional<Json> body = read(name);
  if (body && body->contains("run_id") && (*body)["run_id"] == run_id_) {
    return body;
  }
  return std::nullopt;
}

bool Rendezvous::posted(std::string_view name) { return read_ours(name).has_value(); }

Json Rendezvous::await(std::string_view name, double timeout_s, std::string_view what) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    if (std::optional<Json> body = read_ours(name)) {
      return std::move(*body);
    }
    check_peer();
    if (timeout_s > 0 && seconds_between(start, Clock::now()) >= timeout_s) {
      throw Error(fmt::format(
          "{} did not come within {:g} s ({} in {}, run {}): {}", what, timeout_s, name, dir_.string(),
          run_id_,
          role_ == SplitRole::kCanaries
              ? fmt::format("start `gridlock-bench load --role congestors --rendezvous {}` beside this job, "
                            "or give a longer --rendezvous-timeout",
                            dir_.string())
              : std::string("is the canary job stuck? give a longer --rendezvous-timeout")));
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(kRendezvousPollS));
  }
}

void Rendezvous::watch_peer() {
  watching_ = true;
  peer_beat_ = peer_heartbeat();
  peer_changed_ = Clock::now();
}

bool Rendezvous::peer_alive() {
  if (!watching_) {
    return true;
  }
  const std::string beat = peer_heartbeat();
  const Clock::time_point now = Clock::now();
  if (beat != peer_beat_) {
    peer_beat_ = beat;
    peer_changed_ = now;
  }
  return seconds_between(peer_changed_, now) < kHeartbeatStaleS;
}

void Rendezvous::check_peer() {
  if (role_ == SplitRole::kCongestors && !run_id_.empty()) {
    if (const std::optional<Json> hello = read("canaries.hello");
        hello && hello->contains("run_id") && (*hello)["run_id"] != run_id_) {
      throw Error(
          fmt::format("another canary job (run {}) took {} over from run {}: give each pair of jobs its own "
                      "--rendezvous directory",
                      (*hello)["run_id"].dump(), dir_.string(), run_id_));
    }
  }
  if (!peer_alive()) {
    throw Error(fmt::format(
        "the {} job of run {} stopped: its heartbeat {} has not changed for {:g} s (killed, crashed, or "
        "its allocation ended); see that job's output",
        peer_name(), run_id_,
        (dir_ / (role_ == SplitRole::kCanaries ? "congestors.alive" : "canaries.alive")).string(),
        kHeartbeatStaleS));
  }
}

std::string Rendezvous::peer_name() const { return role_ == SplitRole::kCanaries ? "congestor" : "canary"; }

std::string Rendezvous::peer_heartbeat() const {
  const SplitRole peer = role_ == SplitRole::kCanaries ? SplitRole::kCongestors : SplitRole::kCanaries;
  try {
    return read_input_file(dir_ / alive_file(peer), "heartbeat", "", 4096);
  } catch (const Error&) {
    return {};
  }
}

void Rendezvous::start_heartbeat() {
  if (!heartbeat_.joinable()) {
    heartbeat_ = std::thread([this] { beat_until_stopped(); });
  }
}

void Rendezvous::beat_until_stopped() {
  // "<run id> <count>": the count changes every beat, the run id tells a watcher whose it is.
  std::uint64_t count = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    try {
      write_file_atomic(dir_ / alive_file(role_), fmt::format("{} {}\n", run_id_, count++));
    } catch (const Error&) {
      // A full or unreachable file system: the peer sees the heartbeat stop and says so; this job
      // finds out at its next post.
    }
    wake_.wait_for(lock, std::chrono::duration<double>(kHeartbeatPeriodS), [this] { return stopping_; });
  }
}

}  // namespace gridlock::gpcnet
