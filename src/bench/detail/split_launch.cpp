#include "detail/split_launch.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/core/error.hpp"

namespace gridlock::bench::detail {
namespace {

std::unique_ptr<gpcnet::Rendezvous> open_rendezvous(const gpcnet::Options& options, MPI_Comm world) {
  std::unique_ptr<gpcnet::Rendezvous> rendezvous;
  agree_on_root(world, [&] {
    rendezvous = std::make_unique<gpcnet::Rendezvous>(options.rendezvous_dir, options.role);
  });
  return rendezvous;
}

int rank_of(MPI_Comm world) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank));
  return rank;
}

// The table the congestor job printed, for the canary job to print under its own.
std::string congest_table_text(const gpcnet::CongestReport& report) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  if (out == nullptr) {
    return {};
  }
  gpcnet::print_congest_tables(report, out);
  std::fclose(out);
  std::string result(text, size);
  // open_memstream's buffer is malloc'ed by the C library.
  std::free(text);  // NOLINT(cppcoreguidelines-no-malloc)
  return result;
}

}  // namespace

SplitJob::SplitJob(const gpcnet::Options& options, MPI_Comm world)
    : world_(world),
      rank_(rank_of(world)),
      timeout_s_(options.rendezvous_timeout_s),
      quiet_(options.quiet),
      rendezvous_(open_rendezvous(options, world)) {}

void SplitJob::say(const std::string& text) const {
  if (!quiet_) {
    fmt::print(stderr, "gridlock-bench: split launch: {}\n", text);
    std::fflush(stderr);
  }
}

SplitCanaries::SplitCanaries(const gpcnet::Options& options, MPI_Comm world) : SplitJob(options, world) {}

SplitCanaries::~SplitCanaries() {
  if (rendezvous_ && started_ && !stopped_) {
    try {
      rendezvous_->post("stop", Json::object());
    } catch (const Error&) {
      // Best effort on the way out: the congestor job also stops when this job's heartbeat does.
    }
  }
}

std::vector<gpcnet::CongestorType> SplitCanaries::open(const Json& about) {
  std::vector<int> types;
  agree_on_root_idle(world_, [&] {
    rendezvous_->open_run(about);
    say(fmt::format("run {} in {}; waiting for the congestor job", rendezvous_->run_id(),
                    rendezvous_->dir().string()));
    const Json ready = rendezvous_->await("congestors.ready", timeout_s_, "the congestor job's ready");
    rendezvous_->watch_peer();
    std::string keys;
    for (const Json& key : ready.value("congestors", Json::array())) {
      keys += fmt::format("{}{}", keys.empty() ? "" : ",", key.is_string() ? key.get<std::string>() : "?");
    }
    try {
      for (const gpcnet::CongestorType type : gpcnet::parse_congestor_list(keys)) {
        types.push_back(static_cast<int>(type));
      }
    } catch (const InputError& e) {
      throw Error(
          fmt::format("the congestor job's ready ({}) names congestors this gridlock-bench does not "
                      "know ({}): run both jobs with the same gridlock version",
                      (rendezvous_->dir() / "congestors.ready").string(), e.what()));
    }
  });
  int count = static_cast<int>(types.size());
  GRIDLOCK_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, world_));
  types.resize(static_cast<std::size_t>(count));
  GRIDLOCK_MPI(MPI_Bcast(types.data(), count, MPI_INT, 0, world_));
  std::vector<gpcnet::CongestorType> result;
  result.reserve(types.size());
  for (const int t : types) {
    result.push_back(static_cast<gpcnet::CongestorType>(t));
  }
  return result;
}

bool SplitCanaries::start_load() {
  try {
    agree_on_root_idle(world_, [&] {
      rendezvous_->check_peer();
      rendezvous_->post("start", Json::object());
      started_ = true;
      static_cast<void>(rendezvous_->await("congestors.running", timeout_s_, "the congestor job's start"));
    });
    return true;
  } catch (const CollectiveError& e) {
    error_ = e.what();
    return false;
  }
}

void SplitCanaries::finish_load() {
  try {
    agree_on_root_idle(world_, [&] {
      rendezvous_->post("stop", Json::object());
      stopped_ = true;
      done_ = rendezvous_->await("congestors.done", timeout_s_, "the congestor job's results");
    });
  } catch (const CollectiveError& e) {
    error_ = e.what();
  }
}

void SplitCanaries::fill(gpcnet::Report& report) const {
  if (rank_ != 0) {
    return;
  }
  Json block{{"run_id", rendezvous_->run_id()}, {"rendezvous", rendezvous_->dir().string()}};
  if (done_.is_object()) {
    block["congestor_job"] = Json{{"context", done_.value("context", Json::object())},
                                  {"results", done_.value("results", Json::object())}};
    block["congestor_table"] = done_.value("table", std::string());
  }
  if (!error_.empty()) {
    block["error"] = error_;
  }
  report.split_launch = std::move(block);
  report.split_error = error_;
}

SplitCongestors::SplitCongestors(const gpcnet::Options& options, MPI_Comm world) : SplitJob(options, world) {}

void SplitCongestors::await_start(Json about) {
  agree_on_root_idle(world_, [&] {
    say(fmt::format("warm; waiting for a canary job in {}", rendezvous_->dir().string()));
    static_cast<void>(rendezvous_->join_run(timeout_s_));
    rendezvous_->post("congestors.ready", std::move(about));
    say(fmt::format("joined run {}; waiting for its start", rendezvous_->run_id()));
    // The canaries measure alone meanwhile, as long as they need: no limit but their heartbeat.
    static_cast<void>(rendezvous_->await("start", 0, "the canary job's start"));
  });
}

void SplitCongestors::running() {
  if (rank_ == 0) {
    rendezvous_->post("congestors.running", Json::object());
  }
}

std::optional<gpcnet::CongestStop> SplitCongestors::stop_now() {
  if (rendezvous_->posted("stop")) {
    return gpcnet::CongestStop::kCanaries;
  }
  try {
    rendezvous_->check_peer();
  } catch (const Error& e) {
    lost_ = e.what();
    return gpcnet::CongestStop::kCanariesLost;
  }
  return std::nullopt;
}

void SplitCongestors::done(gpcnet::CongestReport& report) {
  agree_on_root(world_, [&] {
    report.context["run_id"] = rendezvous_->run_id();
    report.error = lost_;
    if (lost_.empty()) {
      rendezvous_->post("congestors.done", Json{{"context", report.context},
                                                {"results", gpcnet::congest_body(report)},
                                                {"table", congest_table_text(report)}});
    }
  });
}

}  // namespace gridlock::bench::detail
