// The section of `gridlock predict mapping --json` (schema gridlock.predict.mapping,
// docs/formats/predict-mapping-json.md): time recovered per mapping next to the paper's Table II.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report::detail {

Section predict_mapping_section(const Json& document) {
  Section s;
  const Json& context = field(document, "context");
  // The canonical topology spec spells out every parameter; the title keeps its shape (the context
  // block below has it whole).
  const std::string network = text(context, "network", "a machine");
  s.title = fmt::format("gridlock predict mapping: {} on {} ({} model)", text(context, "tasks", "tasks"),
                        network.substr(0, network.find(',')), text(context, "net_model", "?"));
  const Json& rows = field(document, "rows");
  if (!rows.is_array() || rows.empty()) {
    s.notes.emplace_back("This result has no rows: nothing to chart.");
    s.data["charts"] = Json::array();
    return s;
  }
  const Json& seeds = field(document, "seeds");
  const bool several_seeds = seeds.is_number() && seeds.get<double>() > 1;
  std::vector<std::string> headers{"mapping",  "alone (us)",    "congested (us)",
                                   "slowdown", "recovered (%)", "paper (%)"};
  if (several_seeds) {
    headers.insert(headers.begin() + 5, "recovered min..max (%)");
    headers.emplace_back("starved seeds");
  }
  Table table(fmt::format("Completion time alone and beside the congestors ({}; means over {} seed(s))",
                          text(document, "congestors", "competing traffic"), format_cell(seeds)),
              headers);
  Json recovered_chart = make_chart("bar", "Time recovered per mapping, next to the paper's Table II",
                                    "mapping", "time recovered (%)");
  recovered_chart["reference"] = 0.0;
  recovered_chart["reference_label"] = "identity (0%)";
  Json time_chart =
      make_chart("bar", "Completion time alone and beside the congestors", "mapping", "latest finish (us)");
  Json recovered = Json::array();
  Json paper = Json::array();
  Json alone = Json::array();
  Json congested = Json::array();
  std::vector<std::string> starved_mappings;
  for (const Json& r : rows) {
    const std::string method = text(r, "method", "?");
    // A starved run has no finite congested time (congested_us null): it is named as such in the
    // table and the charts' labels rather than drawn as a zero.
    const bool starved = field(r, "starved").is_boolean() && field(r, "starved").get<bool>();
    if (starved) {
      starved_mappings.push_back(method);
    }
    const std::string label = starved ? method + " (starved)" : method;
    std::vector<std::string> row{method,
                                 format_number(field(r, "alone_us")),
                                 starved ? "starved" : format_number(field(r, "congested_us")),
                                 format_number(field(r, "slowdown")),
                                 format_number(field(r, "recovered_pct")),
                                 format_number(field(r, "paper_recovered_pct"))};
    if (several_seeds) {
      row.insert(row.begin() + 5, fmt::format("{}..{}", format_number(field(r, "recovered_min_pct")),
                                              format_number(field(r, "recovered_max_pct"))));
      row.push_back(format_cell(field(r, "starved_seeds")));
    }
    table.row(row);
    recovered_chart["labels"].push_back(label);
    time_chart["labels"].push_back(label);
    recovered.push_back(field(r, "recovered_pct").is_number() ? field(r, "recovered_pct") : Json(nullptr));
    paper.push_back(field(r, "paper_recovered_pct").is_number() ? field(r, "paper_recovered_pct")
                                                                : Json(nullptr));
    alone.push_back(field(r, "alone_us").is_number() ? field(r, "alone_us") : Json(nullptr));
    congested.push_back(!starved && field(r, "congested_us").is_number() ? field(r, "congested_us")
                                                                         : Json(nullptr));
  }
  add_series(recovered_chart, "recovered (simulated)", std::move(recovered));
  add_series(recovered_chart, "paper (Brandt et al., Table II)", std::move(paper));
  add_series(time_chart, "alone", std::move(alone));
  add_series(time_chart, "beside the congestors", std::move(congested));
  s.notes.emplace_back(
      "recovered: the share of identity's congestion time (congested - alone) a mapping takes back; "
      "above 100% the mapping beside the congestors beats identity alone, below 0% it loses time. "
      "paper: Table II of Brandt et al. (HOPS, BW, STALLS, MJ = geometric).");
  if (!starved_mappings.empty()) {
    std::string names;
    for (const std::string& m : starved_mappings) {
      names += (names.empty() ? "" : ", ") + m;
    }
    s.notes.push_back(
        fmt::format("Starved (the application ended only after the congestors, no finite "
                    "congested time; not drawn): {}.",
                    names));
  }
  for (const Json& n : field(document, "notes")) {
    if (n.is_string()) {
      s.notes.push_back(n.get<std::string>());
    }
  }
  s.body_html += table.html();
  s.data["charts"] = Json::array({std::move(recovered_chart), std::move(time_chart)});
  return s;
}

}  // namespace gridlock::report::detail
