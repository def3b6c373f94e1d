#include "gridlock/sim/schedule_info_json.hpp"

#include <cstdint>
#include <utility>

namespace gridlock::sim {
namespace {

Json total_json(const RankTotal& t) {
  return {
      {"total", t.total}, {"min", t.per_rank.min}, {"median", t.per_rank.median}, {"max", t.per_rank.max}};
}

// Wildcards are null: a rank number or a tag would be ambiguous with 4294967295.
Json rank_or_any(std::uint32_t value, std::uint32_t any) {
  return value == any ? Json(nullptr) : Json(value);
}

}  // namespace

Json schedule_info_context(const std::string& tool, const std::string& file, const ScheduleInfo& info) {
  Json context = base_context(tool, schemas::kScheduleInfo);
  context["file"] = file;
  context["source_kind"] = info.source_kind;
  context["ranks"] = info.ranks;
  return context;
}

Json schedule_info_json(const ScheduleInfo& info) {
  Json out;
  out["ranks"] = info.ranks;
  out["programs"] = info.programs;
  out["operations"] = info.operations;
  out["sends"] = total_json(info.sends);
  out["recvs"] = total_json(info.recvs);
  out["calcs"] = total_json(info.calcs);
  out["bytes_sent"] = total_json(info.bytes_sent);
  out["calc_ps"] = total_json(info.calc_ps);
  Json sizes = Json::array();
  for (const SizeBucket& b : info.sizes) {
    sizes.push_back(
        {{"min_bytes", b.min_bytes}, {"max_bytes", b.max_bytes}, {"count", b.count}, {"bytes", b.bytes}});
  }
  out["message_sizes"] = std::move(sizes);
  if (info.has_wall) {
    out["compute_share"] = {{"wall_ps_total", info.share.wall_ps_total},
                            {"overall", info.share.overall},
                            {"min", info.share.min},
                            {"median", info.share.median},
                            {"max", info.share.max},
                            {"ranks_without_wall", info.share.ranks_without_wall}};
  } else {
    out["compute_share"] = nullptr;
  }
  out["dependencies"] = {{"requires", info.requires_edges}, {"irequires", info.irequires_edges}};
  out["wildcard_receives"] = {{"any_source", info.any_source_recvs}, {"any_tag", info.any_tag_recvs}};
  Json listed = Json::array();
  for (const UnmatchedKey& k : info.unmatched) {
    listed.push_back({{"src", rank_or_any(k.src, kAnySource)},
                      {"dst", k.dst},
                      {"tag", rank_or_any(k.tag, kAnyTag)},
                      {"sends", k.sends},
                      {"recvs", k.recvs}});
  }
  out["unmatched"] = {{"sends", info.unmatched_sends},
                      {"recvs", info.unmatched_recvs},
                      {"exact", info.unmatched_exact},
                      {"first", std::move(listed)}};
  Json top = Json::array();
  for (const PairTraffic& p : info.top_pairs) {
    top.push_back({{"src", p.src}, {"dst", p.dst}, {"messages", p.messages}, {"bytes", p.bytes}});
  }
  out["communication"] = {{"pairs", info.pairs},
                          {"mean_partners", info.mean_partners()},
                          {"max_out_partners", info.max_out_partners},
                          {"max_out_rank", info.max_out_rank},
                          {"max_in_partners", info.max_in_partners},
                          {"max_in_rank", info.max_in_rank},
                          {"symmetric", info.symmetric},
                          {"top_pairs", std::move(top)}};
  return out;
}

void write_schedule_info_json(const std::string& path, const Json& context, const ScheduleInfo& info) {
  write_json_file(path, context, Json{{"schedule", schedule_info_json(info)}});
}

}  // namespace gridlock::sim
