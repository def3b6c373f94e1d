#include "gridlock/sim/replica_report.hpp"

#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/units.hpp"
#include "gridlock/sim/params_json.hpp"
#include "gridlock/sim/replica_report_json.hpp"

namespace gridlock::sim {

const char* study_status(const ReplicaStudyResult& result) noexcept {
  return result.complete ? "complete" : "cut_short";
}

std::string study_reason(const ReplicaStudyResult& result) {
  if (result.complete) {
    return {};
  }
  if (!result.reason.empty()) {
    return result.reason;
  }
  return fmt::format(
      "the study stopped after {} of {} scales (still running, or killed, e.g. at the job's wall-time limit)",
      result.scales.size(), result.scales_planned);
}

std::string study_header_line(const ReplicaStudyInfo& info) {
  const ReplicaStudySpec& spec = *info.spec;
  const noise::DetourPattern& pattern = *info.pattern;
  return fmt::format(
      "noise: {} (period {}, {:.4f}% noise), {}, {} rule; seed {}; {} replicas per scale, {}\n",
      noise::describe(spec.noise, pattern), format_time_ps(pattern.period_ps()),
      100.0 * pattern.noise_fraction(),
      spec.cosched ? "co-scheduled (one phase for all ranks)" : "unsynchronised (a phase per rank)",
      to_string(spec.options.noise_rule), spec.seed, spec.replicas, info.where);
}

void ConsoleReplicaReporter::study_started(const ReplicaStudyInfo& info) {
  fmt::print(out_, "{}{}", study_header_line(info), scale_table_header());
  std::fflush(out_);
}

void ConsoleReplicaReporter::scale_started(std::uint32_t ranks) {
  if (on_scale_started) {
    on_scale_started(ranks);
  }
}

void ConsoleReplicaReporter::scale_finished(const ReplicaStudyResult& so_far) {
  if (on_scale_finished) {
    on_scale_finished();
  }
  if (!so_far.scales.empty()) {
    fmt::print(out_, "{}", scale_table_row(so_far.scales.back()));
    std::fflush(out_);
  }
}

void ConsoleReplicaReporter::study_finished(const ReplicaStudyResult& result) {
  if (on_scale_finished) {
    on_scale_finished();
  }
  if (result.complete && result.bottleneck) {
    fmt::print(out_, "{}\n", describe(*result.bottleneck));
  }
}

Json study_json(const ReplicaStudyResult& result) {
  Json scales = Json::array();
  for (const ScaleResult& scale : result.scales) {
    scales.push_back(scale_json(scale));
  }
  return Json{{"status", study_status(result)},
              {"reason", result.complete ? Json(nullptr) : Json(study_reason(result))},
              {"scales", std::move(scales)},
              {"noise_bottleneck", result.bottleneck ? bottleneck_json(*result.bottleneck) : Json(nullptr)}};
}

Json study_context(const std::string& tool, const ReplicaStudySpec& spec,
                   const noise::DetourPattern& pattern) {
  Json context = base_context(tool, schemas::kSimReplicas);
  context["schedule"] = spec.program.empty() ? Json(spec.schedule_path) : Json(nullptr);
  context["program"] = spec.program.empty() ? Json(nullptr) : Json(spec.program);
  context["seed"] = spec.seed;
  context["replicas"] = spec.replicas;
  context["network_scale"] = spec.network_scale;
  context["loggops"] = params_json(spec.options.params);
  context["noise"] = noise_json(spec.noise, pattern, spec.seed, spec.cosched, spec.options.noise_rule);
  return context;
}

void JsonReplicaReporter::scale_finished(const ReplicaStudyResult& so_far) {
  write_json_file(path_, context_, study_json(so_far));
}

void JsonReplicaReporter::study_finished(const ReplicaStudyResult& result) {
  write_json_file(path_, context_, study_json(result));
}

void CsvReplicaReporter::scale_finished(const ReplicaStudyResult& so_far) {
  CsvWriter csv(context_, scale_csv_columns());
  for (const ScaleResult& scale : so_far.scales) {
    csv.add_row(scale_csv_row(scale));
  }
  csv.write(path_);
}

void CsvReplicaReporter::study_finished(const ReplicaStudyResult& result) { scale_finished(result); }

void SvgReplicaReporter::scale_finished(const ReplicaStudyResult& so_far) {
  // A box plot needs a box: before the first scale there is nothing to draw.
  if (!so_far.scales.empty()) {
    write_file_atomic(path_, study_boxplot_svg(so_far.scales, context_, title_));
  }
}

void SvgReplicaReporter::study_finished(const ReplicaStudyResult& result) { scale_finished(result); }

std::vector<std::unique_ptr<ReplicaReporter>> file_reporters(const std::string& json_path,
                                                             const std::string& csv_path,
                                                             const std::string& svg_path, const Json& context,
                                                             const std::string& title) {
  std::vector<std::unique_ptr<ReplicaReporter>> files;
  if (!json_path.empty()) {
    files.push_back(std::make_unique<JsonReplicaReporter>(json_path, context));
  }
  if (!csv_path.empty()) {
    files.push_back(std::make_unique<CsvReplicaReporter>(csv_path, context));
  }
  if (!svg_path.empty()) {
    files.push_back(std::make_unique<SvgReplicaReporter>(svg_path, context, title));
  }
  return files;
}

void ClosedPipeQuietReporter::guard(const std::function<void()>& call) {
  if (closed_) {
    return;
  }
  try {
    call();
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::broken_pipe) {
      throw;
    }
    closed_ = true;
  }
}

void ClosedPipeQuietReporter::study_started(const ReplicaStudyInfo& info) {
  guard([&] { inner_.study_started(info); });
}

void ClosedPipeQuietReporter::scale_started(std::uint32_t ranks) {
  guard([&] { inner_.scale_started(ranks); });
}

void ClosedPipeQuietReporter::scale_finished(const ReplicaStudyResult& so_far) {
  guard([&] { inner_.scale_finished(so_far); });
}

void ClosedPipeQuietReporter::study_finished(const ReplicaStudyResult& result) {
  guard([&] { inner_.study_finished(result); });
}

}  // namespace gridlock::sim
