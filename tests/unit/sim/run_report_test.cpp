// The single-run reporters of `gridlock sim`: result JSON, timeline, console (issue 29, part 4).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"
#include "gridlock/sim/replicas.hpp"
#include "gridlock/sim/run_report.hpp"
#include "gridlock/sim/run_report_json.hpp"

namespace gridlock::sim {
namespace {

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& item : object.items()) {
    out.push_back(item.key());
  }
  return out;
}

// A small generated run with noise and a timeline, as `gridlock sim --program ... --timeline` makes.
struct NoisyRun {
  Schedule schedule = generate("dissemination(size=8B)", 4, 3);
  noise::DetourPattern pattern;
  NoiseInjection injection;
  SimOptions options;
  SimResult result;
  RunInfo info;

  NoisyRun() {
    const noise::NoiseSpec spec = noise::parse_periodic_spec("1000Hz:100us");
    pattern = noise::make_pattern(spec, derive_seed(3, kNoiseSeedStream + 1));
    injection =
        make_noise_injection(pattern, schedule.num_ranks(), derive_seed(3, kNoiseSeedStream), 0, false);
    options.noise = &injection;
    options.record_timeline = true;
    result = simulate(schedule, options);
    info.program = "dissemination(size=8B)";
    info.seed = 3;
    info.ranks = schedule.num_ranks();
    info.params = options.params;
    info.noise = RunNoise{spec, &pattern, false, options.noise_rule};
  }
};

TEST(RunReport, ContextNamesTheRun) {
  const NoisyRun run;
  ASSERT_TRUE(run.result.complete);
  const Json context = run_context(run.info);
  EXPECT_EQ(context["tool"], "gridlock sim");
  EXPECT_EQ(context["schema"], "gridlock.sim.result");
  EXPECT_EQ(context["schema_version"], 1);
  EXPECT_TRUE(context["schedule"].is_null());
  EXPECT_EQ(context["program"], "dissemination(size=8B)");
  EXPECT_EQ(context["seed"], 3);
  EXPECT_EQ(context["ranks"], 4);
  EXPECT_EQ(context["loggops"]["L_ps"], run.info.params.latency.ps);
  EXPECT_EQ(context["network_scale"], 1.0);
  EXPECT_EQ(context["noise"]["cosched"], false);
  EXPECT_EQ(context["noise"]["rule"], "gridlock");
  EXPECT_EQ(context["noise"]["detours_per_period"], run.pattern.size());

  RunInfo file = run.info;
  file.program.clear();
  file.schedule_path = "app.goal";
  file.noise.reset();
  const Json plain = run_context(file);
  EXPECT_EQ(plain["schedule"], "app.goal");
  EXPECT_TRUE(plain["program"].is_null());
  EXPECT_FALSE(plain.contains("noise"));
}

TEST(RunReport, ResultHasEveryField) {
  const NoisyRun run;
  const Json body = run_result_json(run.result, /*per_rank=*/true);
  EXPECT_EQ(keys(body),
            (std::vector<std::string>{"complete", "max_finish_ps", "max_finish_rank", "ops_total",
                                      "ops_completed", "messages", "events", "wall_seconds", "cpu_seconds",
                                      "events_per_second", "event_order", "finish_ps"}));
  EXPECT_EQ(body["complete"], true);
  EXPECT_EQ(body["max_finish_ps"], run.result.max_finish.ps);
  EXPECT_EQ(body["ops_total"], run.schedule.total_ops());
  EXPECT_EQ(body["messages"], run.result.messages);
  EXPECT_EQ(body["event_order"], "global");
  ASSERT_EQ(body["finish_ps"].size(), 4U);
  EXPECT_EQ(body["finish_ps"][run.result.max_finish_rank], run.result.max_finish.ps);
  EXPECT_FALSE(run_result_json(run.result, false).contains("finish_ps"));
}

TEST(RunReport, IncompleteResultListsStuckOps) {
  const Schedule schedule = parse_goal(
      "num_ranks 2\nrank 0 {\n a: recv 8b from 1\n b: send 8b to 1\n b requires a\n}\n"
      "rank 1 {\n c: recv 8b from 0\n d: send 8b to 0\n d requires c\n}\n");
  const SimResult result = simulate(schedule, SimOptions{});
  ASSERT_FALSE(result.complete);
  const Json body = run_result_json(result, false);
  EXPECT_EQ(body["complete"], false);
  EXPECT_EQ(body["stuck_ranks"], 2);
  EXPECT_EQ(body["unexpected_messages"], 0);
  ASSERT_EQ(body["stuck"].size(), 2U);
  EXPECT_EQ(keys(body["stuck"][0]), (std::vector<std::string>{"rank", "op", "operation", "state"}));
}

TEST(RunReport, TimelineHasTracksAndSlices) {
  const NoisyRun run;
  ASSERT_FALSE(run.result.timeline.empty());
  const Json context = run_context(run.info);
  const Json trace = timeline_json(run.result, run.info.ranks, context);
  EXPECT_EQ(keys(trace), (std::vector<std::string>{"traceEvents", "displayTimeUnit", "otherData"}));
  EXPECT_EQ(trace["otherData"], context);
  const Json& events = trace["traceEvents"];
  // Three metadata events per rank (process, cpu thread, nic thread), then one per slice.
  ASSERT_EQ(events.size(), std::size_t{3} * 4 + run.result.timeline.size());
  EXPECT_EQ(events[0]["args"]["name"], "rank 0");
  EXPECT_EQ(events[2]["args"]["name"], "nic");
  for (std::size_t i = 0; i < run.result.timeline.size(); ++i) {
    const TimelineSlice& s = run.result.timeline[i];
    const Json& e = events[12 + i];
    ASSERT_EQ(e["ph"], "X");
    EXPECT_EQ(e["pid"], s.rank);
    EXPECT_EQ(e["tid"], s.track);
    EXPECT_EQ(e["args"]["start_ps"], s.start.ps);
    EXPECT_EQ(e["args"]["end_ps"], s.end.ps);
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), static_cast<double>(s.start.ps) / 1e6);
  }
  bool send = false;
  bool msg = false;
  for (const Json& e : events) {
    send = send || e.value("cat", "") == "send";
    msg = msg || e.value("cat", "") == "msg";
  }
  EXPECT_TRUE(send);
  EXPECT_TRUE(msg);
}

TEST(RunReport, WritesFilesAndPrints) {
  const NoisyRun run;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "run_report_test";
  std::filesystem::create_directories(dir);
  const Json context = run_context(run.info);
  write_run_json((dir / "r.json").string(), context, run.result, false);
  write_timeline((dir / "t.json").string(), run.result, run.info.ranks, context);
  const Json written = Json::parse(read_input_file(dir / "r.json", "result"));
  EXPECT_EQ(written["context"]["schema"], "gridlock.sim.result");
  EXPECT_EQ(written["result"]["max_finish_ps"], run.result.max_finish.ps);
  const Json trace = Json::parse(read_input_file(dir / "t.json", "timeline"));
  EXPECT_EQ(trace["traceEvents"].size(), 12 + run.result.timeline.size());

  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  print_run(out, run.info, run.result, true);
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  (void)std::fclose(out);
  EXPECT_NE(text.find("schedule: 4 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("(dissemination(size=8B), seed 3)"), std::string::npos) << text;
  EXPECT_NE(text.find("noise: "), std::string::npos) << text;
  EXPECT_NE(text.find("rank 3: "), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

TEST(RunReport, TimelineLimits) {
  EXPECT_NO_THROW(check_timeline_ops(kMaxTimelineOps));
  EXPECT_THROW(check_timeline_ops(kMaxTimelineOps + 1), InputError);
  EXPECT_NO_THROW(check_timeline_slices(SimResult{}));
}

}  // namespace
}  // namespace gridlock::sim
