// The options of `gridlock-bench congest` (docs/gridlock-bench.md, "Congestors for another job").
#include <string>

#include <CLI/CLI.hpp>

#include "options.hpp"
#include "output_guard.hpp"

namespace gridlock::bench_cli {

void add_congest_options(CLI::App& cmd, gpcnet::CongestOptions& o, gpcnet::OptionsText& base_text,
                         gpcnet::CongestText& t) {
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
}

}  // namespace gridlock::bench_cli
