#pragma once
// The two sides of a split launch of `gridlock-bench load` over MPI (gpcnet/split_launch.hpp has
// the protocol): rank 0 of each job holds the rendezvous, every call here is collective over the
// job's ranks, and the other ranks wait in idle barriers while rank 0 waits for the other job.
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridlock/gpcnet/congest.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/split_launch.hpp"

namespace gridlock::bench::detail {

/// What both jobs' sides hold: rank 0's rendezvous, and the options its waits and messages follow.
class SplitJob {
 protected:
  /// Opens the rendezvous directory on rank 0; throws CollectiveError (exit 2) on every rank when
  /// it is not a writable directory.
  SplitJob(const gpcnet::Options& options, MPI_Comm world);
  /// Rank 0: `text` on stderr, unless -q.
  void say(const std::string& text) const;

  MPI_Comm world_;                                  ///< The job's ranks.
  int rank_ = 0;                                    ///< This rank in world_.
  double timeout_s_;                                ///< --rendezvous-timeout.
  bool quiet_;                                      ///< -q.
  std::unique_ptr<gpcnet::Rendezvous> rendezvous_;  ///< Rank 0's end of the directory; null elsewhere.
};

/// The canary job (`load --role canaries`).
class SplitCanaries : private SplitJob {
 public:
  /// See SplitJob.
  SplitCanaries(const gpcnet::Options& options, MPI_Comm world);
  /// Tells a congestor job that started but was not stopped (this job failed) to stop.
  ~SplitCanaries();
  SplitCanaries(const SplitCanaries&) = delete;             ///< Holds the rendezvous.
  SplitCanaries& operator=(const SplitCanaries&) = delete;  ///< Holds the rendezvous.
  SplitCanaries(SplitCanaries&&) = delete;                  ///< Holds the rendezvous.
  SplitCanaries& operator=(SplitCanaries&&) = delete;       ///< Holds the rendezvous.

  /// Opens a run (`about` goes into the hello) and waits for the congestor job's ready; returns,
  /// on every rank, the congestor types that job runs. Throws CollectiveError (exit 1) when no
  /// congestor job joins within --rendezvous-timeout.
  std::vector<gpcnet::CongestorType> open(const Json& about);
  /// Tells the congestors to start and waits until they run. False, on every rank, when that
  /// failed (the congestor job died or does not answer; error() says so).
  bool start_load();
  /// Tells the congestors to stop and waits for their results (a failure goes to error()).
  void finish_load();
  /// Rank 0: the report's split_launch block and split_error.
  void fill(gpcnet::Report& report) const;

 private:
  Json done_;
  std::string error_;
  bool started_ = false;
  bool stopped_ = false;
};

/// The congestor job (`load --role congestors`).
class SplitCongestors : private SplitJob {
 public:
  /// See SplitJob.
  SplitCongestors(const gpcnet::Options& options, MPI_Comm world);

  /// Joins the canary job's run (waits up to --rendezvous-timeout for its hello), says ready
  /// (`about`: the congestor types, nodes, ranks) and waits for its start. Throws CollectiveError
  /// (exit 1) when the canary job does not come or dies first.
  void await_start(Json about);
  /// Rank 0, after the common start: the congestors run.
  void running();
  /// Rank 0, between batches: whether the canary job said stop (kCanaries) or was lost
  /// (kCanariesLost). Looks at the directory: the caller keeps to kRendezvousPollS.
  [[nodiscard]] std::optional<gpcnet::CongestStop> stop_now();
  /// Collective: rank 0 records the run id and the lost canary job's error in `report` and hands
  /// the results to the canary job.
  void done(gpcnet::CongestReport& report);

 private:
  std::string lost_;
};

}  // namespace gridlock::bench::detail
