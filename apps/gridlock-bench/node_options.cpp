// The options that group ranks into nodes and NICs and run congestors (load, congest), and those of
// `gridlock-bench congest` (docs/gridlock-bench.md, "Congestors for another job").
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "gridlock/gpcnet/nics.hpp"
#include "options.hpp"
#include "output_guard.hpp"

namespace gridlock::bench_cli {

void add_node_options(CLI::App& cmd, std::uint64_t& virtual_nodes, std::uint64_t& ranks_per_node) {
  auto* virtual_option = cmd.add_option(
      "--virtual-nodes", virtual_nodes,
      "Treat consecutive groups of ranks of a host as this many nodes in all (testing on one machine)");
  virtual_option->check(CLI::Range(1, gpcnet::kMaxNodes));
  cmd.add_option("--ranks-per-node", ranks_per_node,
                 "Treat consecutive groups of this many ranks of a host as separate nodes")
      ->check(CLI::Range(1, gpcnet::kMaxNodes))
      ->excludes(virtual_option);
}

void add_layout_options(CLI::App& cmd, gpcnet::Options& o) {
  add_node_options(cmd, o.virtual_nodes, o.ranks_per_node);
  auto* nics = cmd.add_option("--nics-per-node", o.nics_per_node,
                              "NICs per node, local ranks split evenly in order (default: found with hwloc, "
                              "each rank on the NIC nearest to its binding); PPort is ranks per NIC")
                   ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{gpcnet::kMaxNicsPerNode}));
  cmd.add_option(
         "--virtual-nics", o.virtual_nics,
         "Virtual NICs per node, each local to an equal share of the host's CPUs (testing on one machine)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{gpcnet::kMaxNicsPerNode}))
      ->excludes(nics);
  cmd.add_flag("--allow-uneven", o.allow_uneven,
               "Run even when a node's ranks are not spread evenly over its NICs (reported)");
}

void add_congestor_options(CLI::App& cmd, gpcnet::Options& o, gpcnet::OptionsText& t,
                           const std::string& where) {
  cmd.add_option(
         "--congestors", t.congestors,
         fmt::format("Congestor types, split evenly over {}: a2a,p2p-incast,rma-incast,rma-bcast,allreduce",
                     where))
      ->capture_default_str();
  cmd.add_option("--congestor-size", t.congestor_size, "Message size of the congestors")
      ->capture_default_str();
  cmd.add_option("--allreduce-congestor-size", t.allreduce_congestor_size, "Size of the allreduce congestor")
      ->capture_default_str();
  cmd.add_option("--congestor-warmup", o.congestor_warmup,
                 "Congestor iterations before the measurement starts")
      ->capture_default_str();
  cmd.add_option("--congestor-check", o.congestor_check, "Congestor iterations between stop checks")
      ->capture_default_str();
}

CLI::App* add_congest_command(CLI::App& app, gpcnet::CongestOptions& o, gpcnet::OptionsText& base_text,
                              gpcnet::CongestText& t) {
  CLI::App& cmd = *app.add_subcommand(
      "congest",
      "Congestors alone on every node, for a time, until a stop file appears or until "
      "SIGTERM/SIGINT/SIGUSR1: "
      "the load to put beside another job; reports each congestor's throughput over time");
  add_layout_options(cmd, o.base);
  add_congestor_options(cmd, o.base, base_text, "the nodes");
  cmd.add_option("--duration", t.duration, "Run this long (e.g. 10min; 0: until --stop-file or a signal)")
      ->capture_default_str();
  cmd.add_option("--stop-file", o.stop_file,
                 "Stop when this file exists (rank 0 looks every 50 ms; on a file system every node sees)");
  cmd.add_option("--interval", t.interval, "Width of a throughput interval")->capture_default_str();
  cmd.add_option("--seed", base_text.seed, "Seed of the node shuffle (default: from the clock, printed)");
  cmd.add_option("--json", o.base.json_path,
                 "Write the throughput per interval and the run's context as JSON");
  gridlock::cli::output_file(cmd.get_option("--json"));
  cmd.add_option("--csv", o.csv_path, "Write one row per congestor and interval as CSV");
  gridlock::cli::output_file(cmd.get_option("--csv"));
  cmd.add_flag("-q,--quiet", o.base.quiet, "No progress messages on stderr");
  return &cmd;
}

}  // namespace gridlock::bench_cli
