#include "gridlock/gpcnet/results.hpp"

#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/gpcnet/table.hpp"

namespace gridlock::gpcnet {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kImpactBar =
    "+---------------------------------+----------------------+---------------------+";

std::string cell(double value, int width) { return table_cell(value, width); }

std::string truncate(std::string_view text, std::size_t width) { return std::string(text.substr(0, width)); }

void print_title(std::FILE* out, std::string_view title) { print_table_title(out, title); }

void print_canary_table(std::FILE* out, std::string_view title, const std::vector<CanaryResult>& rows,
                        Average average) {
  print_title(out, title);
  fmt::print(out, "{}\n", kInnerBar);
  fmt::print(out, "| {:>31} | {:>12} | {:>12} | {:>12} |\n", "Name", "Avg", "99%", "Units");
  fmt::print(out, "{}\n", kInnerBar);
  for (const auto& row : rows) {
    fmt::print(out, "| {:>31} | {} | {} | {:>12} |\n", truncate(row.title, 31), cell(row.avg(average), 12),
               cell(row.tail99(), 12), truncate(row.units, 12));
    fmt::print(out, "{}\n", kInnerBar);
  }
}

void print_congestor_table(std::FILE* out, const PhaseResult& phase) {
  // Average, over the canary tests of the phase, of what each congestor type achieved.
  bool any = false;
  for (const auto& canary : phase.canaries) {
    any = any || !canary.congestors.empty();
  }
  if (!any) {
    return;
  }
  print_title(out, "Congestor Throughput while Canaries Ran");
  fmt::print(out, "{}\n", kInnerBar);
  fmt::print(out, "| {:>31} | {:>12} | {:>12} | {:>12} |\n", "Name", "Per rank", "Total", "Units");
  fmt::print(out, "{}\n", kInnerBar);
  for (const auto type : phase.active) {
    double per_rank = 0;
    double total = 0;
    int runs = 0;
    for (const auto& canary : phase.canaries) {
      for (const auto& c : canary.congestors) {
        if (c.type == type) {
          per_rank += c.mib_per_s_per_rank;
          total += c.mib_per_s_total;
          ++runs;
        }
      }
    }
    if (runs == 0) {
      continue;
    }
    fmt::print(out, "| {:>31} | {} | {} | {:>12} |\n", truncate(congestor_title(type), 31),
               cell(per_rank / runs, 12), cell(total / runs, 12), "MiB/s");
    fmt::print(out, "{}\n", kInnerBar);
  }
}

void print_impact_table(std::FILE* out, std::string_view title, const std::vector<ImpactRow>& rows) {
  print_title(out, title);
  fmt::print(out, "+---------------------------------+--------------------------------------------+\n");
  fmt::print(out, "| {:>31} | {:>42} |\n", "Name", "Congestion Impact Factor");
  fmt::print(out, "{}\n", kImpactBar);
  fmt::print(out, "| {:>31} | {:>20} | {:>19} |\n", "", "Avg", "99%");
  fmt::print(out, "{}\n", kImpactBar);
  for (const auto& row : rows) {
    fmt::print(out, "| {:>31} | {} | {} |\n", truncate(row.title, 31), format_impact(row.mean, 20),
               format_impact(row.tail99, 19));
    fmt::print(out, "{}\n", kImpactBar);
  }
}

std::string phase_title(const PhaseResult& phase) {
  if (phase.active.size() == 1) {
    return fmt::format("Network Tests running with {} Congestor only", congestor_title(phase.active[0]));
  }
  return "Network Tests running with Congestion Tests";
}

const PhaseResult* find_phase(const Report& report, std::string_view label) {
  for (const auto& phase : report.phases) {
    if (phase.label == label) {
      return &phase;
    }
  }
  return nullptr;
}

}  // namespace

std::string_view one_host_explanation() {
  return "all ranks ran on one host: the \"network\" is shared memory and the ranks share its cores, so "
         "these figures measure the host, not a network, and impacts near 1 are noise";
}

std::string format_impact(double factor, int width) {
  if (!std::isfinite(factor)) {
    return fmt::format("{:>{}}", "-", width);
  }
  // A factor is rounded to one decimal in the table, so 0.96 would read 1.0X and 0.94 0.9X: both
  // mean no measurable impact; only the rounded value decides.
  if (std::round(factor * 10.0) < 10.0) {
    return fmt::format("{:>{}}", kWithinNoise, width);
  }
  return fmt::format("{:>{}.1f}X", factor, width - 1);
}

std::vector<ImpactRow> congestion_impacts(const Report& report) {
  std::vector<ImpactRow> rows;
  const PhaseResult* isolated = find_phase(report, "isolated");
  if (isolated == nullptr) {
    return rows;
  }
  for (const auto& phase : report.phases) {
    if (phase.label == "isolated") {
      continue;
    }
    for (const auto& loaded : phase.canaries) {
      for (const auto& base : isolated->canaries) {
        if (base.key != loaded.key) {
          continue;
        }
        rows.push_back(
            ImpactRow{phase.label, loaded.key, loaded.title,
                      congestion_impact(base.avg(report.average), loaded.avg(report.average), loaded.better),
                      congestion_impact(base.tail99(), loaded.tail99(), loaded.better)});
      }
    }
  }
  return rows;
}

void print_tables(const Report& report, std::FILE* out) {
  for (const auto& phase : report.phases) {
    if (phase.label == "isolated") {
      print_canary_table(out, "Isolated Network Tests", phase.canaries, report.average);
    } else {
      print_canary_table(out, phase_title(phase), phase.canaries, report.average);
      print_congestor_table(out, phase);
    }
  }
  if (report.split_launch.contains("congestor_table") && report.split_launch["congestor_table"].is_string()) {
    // The congestor job's own table (congest's layout), as it printed it: one run over the loaded phase.
    fmt::print(out, "\nCongestor job (run {}), from the loaded phase's start to its end:\n{}",
               report.split_launch.value("run_id", std::string("?")),
               report.split_launch["congestor_table"].get<std::string>());
  }
  const auto impacts = congestion_impacts(report);
  for (const auto& phase : report.phases) {
    if (phase.label == "isolated") {
      continue;
    }
    std::vector<ImpactRow> rows;
    for (const auto& row : impacts) {
      if (row.phase == phase.label) {
        rows.push_back(row);
      }
    }
    const std::string title =
        phase.active.size() == 1
            ? fmt::format("{} Congestor only - Key Results", congestor_title(phase.active[0]))
            : "Network Tests running with Congestion Tests - Key Results";
    print_impact_table(out, title, rows);
  }
  if (!impacts.empty()) {
    bool below_one = false;
    for (const auto& row : impacts) {
      below_one = below_one || format_impact(row.mean, 1) == kWithinNoise ||
                  format_impact(row.tail99, 1) == kWithinNoise;
    }
    if (below_one) {
      fmt::print(
          out,
          "note: {}: impact below 1.0X, no measurable impact (within noise); the raw factors are in --json\n",
          kWithinNoise);
    }
  }
  if (report.one_host && report.mode == Mode::kLoad) {
    fmt::print(out, "note: {}\n", one_host_explanation());
  }
  for (const auto& phase : report.phases) {
    for (const auto& c : phase.canaries) {
      if (c.skipped) {
        fmt::print(out, "note: {} {}: not run, --deadline reached\n", phase.label, c.title);
      } else if (c.timed_out) {
        fmt::print(out, "note: {} {}: cut short by --test-timeout after {} of {} ring blocks\n", phase.label,
                   c.title, c.blocks_completed, c.blocks_planned);
      }
    }
  }
  for (const auto& note : report.notes) {
    fmt::print(out, "note: {}\n", note);
  }
  if (!report.split_error.empty()) {
    fmt::print(out,
               "error: split launch: {} (loaded figures above, if any, were not measured under the congestor "
               "job's whole load)\n",
               report.split_error);
  }
  std::fflush(out);
}

std::vector<fs::path> write_histogram_csvs(const Report& report, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw IoError(fmt::format("cannot create --csv-dir '{}': {}", dir.string(), ec.message()));
  }
  std::vector<fs::path> written;
  for (const auto& phase : report.phases) {
    for (const auto& c : phase.canaries) {
      Json context = report.context;
      context["phase"] = phase.label;
      context["canary"] = c.key;
      context["units"] = c.units;
      CsvWriter csv(context, {"lower", "upper", "count"});
      const auto counts = c.histogram.bucket_counts();
      if (counts[LogHistogram::kUnderflowBucket] != 0) {
        csv.add_row({"-inf", fmt::format("{}", std::ldexp(1.0, LogHistogram::kMinExponent)),
                     std::to_string(counts[LogHistogram::kUnderflowBucket])});
      }
      for (std::size_t b = 0; b < LogHistogram::kRegularBuckets; ++b) {
        if (counts[b] != 0) {
          csv.add_row({fmt::format("{:.9g}", LogHistogram::bucket_lower(b)),
                       fmt::format("{:.9g}", LogHistogram::bucket_upper(b)), std::to_string(counts[b])});
        }
      }
      if (counts[LogHistogram::kOverflowBucket] != 0) {
        csv.add_row({fmt::format("{}", std::ldexp(1.0, LogHistogram::kMaxExponent)), "inf",
                     std::to_string(counts[LogHistogram::kOverflowBucket])});
      }
      std::string label = phase.label;
      for (auto& ch : label) {
        ch = ch == ':' ? '_' : ch;
      }
      const fs::path path = dir / fmt::format("{}_{}.csv", label, c.key);
      csv.write(path);
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace gridlock::gpcnet
