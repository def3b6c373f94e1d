#pragma once
/// @file
/// `gridlock-bench sim-replicas`: the Monte-Carlo noise study of `gridlock sim --replicas`
/// (sim::ReplicaStudy) with the replicas spread over the MPI ranks and gathered to rank 0; same
/// seed, same results.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridlock/sim/replica_study.hpp"

namespace gridlock::bench {

/// Options (the same meaning as in `gridlock sim --replicas`).
struct SimReplicasOptions {
  sim::ReplicaStudySpec study;  ///< The study (program and scales; a schedule file is refused).
  unsigned threads = 1;         ///< Threads per rank.
  std::string json_path;        ///< --json.
  std::string csv_path;         ///< --csv: one row per scale.
  std::string svg_path;         ///< --svg: the box plot of every scale.
  bool quiet = false;           ///< No progress on stderr.
};

/// sim::ReplicaRunner over the ranks of a communicator: rank i simulates replicas
/// [K·i/n, K·(i+1)/n) on its threads, rank 0 gathers them (MPI_Gatherv) and reports; every step
/// that may fail on some ranks only is agreed on before the next collective.
class MpiReplicaRunner final : public sim::ReplicaRunner {
 public:
  /// Runs over `world` with `threads` threads per rank. Collective.
  MpiReplicaRunner(MPI_Comm world, unsigned threads);
  [[nodiscard]] std::vector<std::uint64_t> run(const sim::Schedule& schedule, const sim::SimOptions& options,
                                               const sim::ReplicaConfig& config, std::uint64_t begin,
                                               std::uint64_t end) override;
  void every_process(const std::function<void()>& step) override;
  void reporting_process(const std::function<void()>& step) override;
  [[nodiscard]] bool reports() const override { return rank_ == 0; }
  [[nodiscard]] std::string where() const override;

 private:
  MPI_Comm world_;
  int rank_ = 0;
  int size_ = 1;
  unsigned threads_;
};

/// Runs `step` (the conversion of the options, which reads files such as --loggops-from's fit) on
/// every rank and agrees on its outcome: a failure on any rank (a file missing on one node) ends
/// every rank alike instead of leaving the others in a collective. Collective.
void agree_on_options(MPI_Comm world, const std::function<void()>& step);

/// Runs the study collectively over `world`: rank 0 prints the table and writes --json, --csv and
/// --svg (after each scale and at the end, as `gridlock sim --replicas` does).
void run_sim_replicas(const SimReplicasOptions& options, MPI_Comm world);

}  // namespace gridlock::bench
