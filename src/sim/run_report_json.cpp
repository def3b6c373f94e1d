#include "gridlock/sim/run_report_json.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "gridlock/sim/params_json.hpp"

namespace gridlock::sim {

Json run_context(const RunInfo& info) {
  Json context = base_context(info.tool, schemas::kSimResult);
  context["schedule"] = info.program.empty() ? Json(info.schedule_path) : Json(nullptr);
  context["program"] = info.program.empty() ? Json(nullptr) : Json(info.program);
  context["seed"] = info.seed;
  context["ranks"] = info.ranks;
  context["loggops"] = params_json(info.params);
  context["network_scale"] = info.network_scale;
  if (info.noise.has_value()) {
    const RunNoise& n = *info.noise;
    context["noise"] = noise_json(n.spec, *n.pattern, info.seed, n.cosched, n.rule);
  }
  return context;
}

Json run_result_json(const SimResult& result, bool per_rank) {
  Json body;
  body["complete"] = result.complete;
  body["max_finish_ps"] = result.max_finish.ps;
  body["max_finish_rank"] = result.max_finish_rank;
  body["ops_total"] = result.ops_total;
  body["ops_completed"] = result.ops_completed;
  body["messages"] = result.messages;
  body["events"] = result.events;
  body["wall_seconds"] = result.wall_seconds;
  body["cpu_seconds"] = result.cpu_seconds;
  body["events_per_second"] =
      result.wall_seconds > 0 ? static_cast<double>(result.events) / result.wall_seconds : 0;
  body["event_order"] = result.windowed ? "windowed" : "global";
  if (per_rank) {
    Json finish = Json::array();
    for (const SimTime t : result.finish) {
      finish.push_back(t.ps);
    }
    body["finish_ps"] = std::move(finish);
  }
  if (!result.complete) {
    Json stuck = Json::array();
    for (const StuckOp& s : result.stuck) {
      stuck.push_back({{"rank", s.rank}, {"op", s.op}, {"operation", s.description}, {"state", s.state}});
    }
    body["stuck"] = std::move(stuck);
    body["stuck_ranks"] = result.stuck_ranks;
    body["unexpected_messages"] = result.unexpected_left;
  }
  return body;
}

void write_run_json(const std::string& path, const Json& context, const SimResult& result, bool per_rank) {
  write_json_file(path, context, Json{{"result", run_result_json(result, per_rank)}});
}

Json timeline_json(const SimResult& result, std::uint32_t num_ranks, const Json& context) {
  // Indexed by TimelineSlice::kind: the OpType values, and 4 for a message.
  static constexpr std::array<const char*, 5> kKinds = {"?", "send", "recv", "calc", "msg"};
  Json events = Json::array();
  for (std::uint32_t r = 0; r < num_ranks; ++r) {
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", r}, {"args", {{"name", fmt::format("rank {}", r)}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 0}, {"args", {{"name", "cpu"}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 1}, {"args", {{"name", "nic"}}}});
  }
  for (const TimelineSlice& s : result.timeline) {
    const std::string name = s.kind == 3   ? std::string("calc")
                             : s.kind == 1 ? fmt::format("send {}b to {}", s.bytes, s.peer)
                             : s.kind == 2 ? fmt::format("recv {}b from {}", s.bytes, s.peer)
                                           : fmt::format("msg {}b, peer {}", s.bytes, s.peer);
    // Trace-event times are microseconds; picoseconds are exact in the args.
    events.push_back({{"name", name},
                      {"cat", kKinds.at(s.kind)},
                      {"ph", "X"},
                      {"pid", s.rank},
                      {"tid", s.track},
                      {"ts", us_from_ps(s.start.ps)},
                      {"dur", us_from_ps(s.end.ps - s.start.ps)},
                      {"args", {{"start_ps", s.start.ps}, {"end_ps", s.end.ps}}}});
  }
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", context}};
}

void write_timeline(const std::string& path, const SimResult& result, std::uint32_t num_ranks,
                    const Json& context) {
  write_file_atomic(path, timeline_json(result, num_ranks, context).dump(1) + "\n");
}

}  // namespace gridlock::sim
