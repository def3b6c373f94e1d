#include "gridlock/net/report.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::net {
namespace {

// The table layout of gridlock-bench's GPCNeT tables (include/gridlock/gpcnet/table.hpp; net
// does not link gridlock::gpcnet): 80 characters, a name column and three.
constexpr std::string_view kOuterBar =
    "+------------------------------------------------------------------------------+";
constexpr std::string_view kInnerBar =
    "+---------------------------------+--------------+--------------+--------------+";
constexpr std::size_t kNameWidth = 31;
constexpr std::size_t kCellWidth = 12;

void print_title(std::FILE* out, std::string_view title) {
  fmt::print(out, "\n{}\n", kOuterBar);
  const std::size_t inner = kOuterBar.size() - 4;
  const std::string_view shown = title.substr(0, inner);
  const std::size_t left = (inner - shown.size()) / 2;
  fmt::print(out, "| {:<{}}{:<{}} |\n", "", left, shown, inner - left);
}

void print_header(std::FILE* out, std::string_view name, std::string_view a, std::string_view b,
                  std::string_view c) {
  fmt::print(out, "{}\n| {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n{}\n", kInnerBar, name, kNameWidth, a,
             kCellWidth, b, kCellWidth, c, kCellWidth, kInnerBar);
}

// Long link names keep their end (the far router names the link best when cut).
std::string fit_name(const std::string& name) {
  return name.size() <= kNameWidth ? name : ".." + name.substr(name.size() - (kNameWidth - 2));
}

void print_row(std::FILE* out, const std::string& name, const std::string& a, const std::string& b,
               std::string_view c) {
  fmt::print(out, "| {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n{}\n", fit_name(name), kNameWidth, a, kCellWidth, b,
             kCellWidth, c, kCellWidth, kInnerBar);
}

std::string number(double value, int decimals) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : std::string("-");
}

}  // namespace

const char* to_string(topo::LinkKind kind) noexcept {
  switch (kind) {
    case topo::LinkKind::kInjection:
      return "injection";
    case topo::LinkKind::kEjection:
      return "ejection";
    case topo::LinkKind::kNetwork:
      break;
  }
  return "network";
}

NetReport make_net_report(const Network& network, const NetStats& stats, std::uint64_t makespan_ps,
                          std::size_t top_n) {
  const topo::Topology& topology = network.topology();
  const std::size_t links = topology.links().size();
  if (stats.link_bytes.size() != links) {
    throw InputError(
        fmt::format("network report: the statistics count bytes on {} links, {} has {}: statistics "
                    "of a run on another network",
                    stats.link_bytes.size(), topology.spec(), links));
  }
  NetReport report;
  report.model = stats.model;
  report.makespan_ps = makespan_ps;
  report.messages = stats.messages;
  report.network_messages = stats.network_messages;
  report.bytes = stats.bytes;
  // Links the part of a topology a run was given leaves out carried nothing.
  report.links = topology.whole_link_count();

  std::vector<double> busy;
  std::vector<LinkUse> uses;
  for (topo::LinkId l = 0; l < links; ++l) {
    const double bytes = stats.link_bytes[l];
    if (!(bytes > 0)) {
      continue;
    }
    const double capacity_bytes = network.capacity_bytes_per_ps(l) * static_cast<double>(makespan_ps);
    const double u = capacity_bytes > 0 ? bytes / capacity_bytes : 0;
    busy.push_back(u);
    // A link that was full the whole run (u == 1, or a hair above from rounding) is in the last bin.
    const auto bin = static_cast<std::size_t>(std::clamp(u * static_cast<double>(kUtilisationBins), 0.0,
                                                         static_cast<double>(kUtilisationBins - 1)));
    ++report.utilisation_histogram.at(bin);
    uses.push_back(LinkUse{l, {}, topology.links()[l].kind, bytes, u});
  }
  report.busy_links = busy.size();
  report.idle_links = report.links - busy.size();
  if (!busy.empty()) {
    double sum = 0;
    for (const double u : busy) {
      sum += u;
    }
    report.mean_busy_utilisation = sum / static_cast<double>(busy.size());
    std::sort(busy.begin(), busy.end());
    // Nearest rank: the ceil(0.99 n)-th smallest.
    const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(busy.size())));
    report.p99_busy_utilisation = busy[std::max<std::size_t>(rank, 1) - 1];
    report.max_utilisation = busy.back();
  }
  const std::size_t shown = std::min(top_n, uses.size());
  std::partial_sort(uses.begin(), uses.begin() + static_cast<std::ptrdiff_t>(shown), uses.end(),
                    [](const LinkUse& a, const LinkUse& b) {
                      return a.bytes != b.bytes ? a.bytes > b.bytes : a.link < b.link;
                    });
  uses.resize(shown);
  for (LinkUse& use : uses) {
    use.name = topology.link_name(use.link);
    // A part of a topology keeps the whole topology's order of links: the ties above sorted
    // alike, and the id reported is the whole topology's.
    use.link = static_cast<topo::LinkId>(topology.whole_link_id(use.link));
  }
  report.top_links = std::move(uses);

  const LogHistogram& h = stats.slowdown;
  report.slowdown.count = h.count();
  if (h.count() > 0) {
    report.slowdown.mean = h.mean();
    report.slowdown.p50 = h.quantile(0.5);
    report.slowdown.p99 = h.quantile(0.99);
    report.slowdown.max = h.max();
  }
  return report;
}

void print_net_report(std::FILE* out, const NetReport& report, const std::string& description) {
  // The description (spec and placement) is too long for a table title: a line of its own.
  fmt::print(out, "network: {}\n", description);
  print_title(out, fmt::format("Network Report ({} model)", report.model));
  print_header(out, "Name", "Avg", "99%", "Units");
  print_row(out, "Message slowdown", number(report.slowdown.mean, 2), number(report.slowdown.p99, 2),
            "x alone");
  print_row(out, "Link utilisation (busy links)", number(100 * report.mean_busy_utilisation, 1),
            number(100 * report.p99_busy_utilisation, 1), "% capacity");
  fmt::print(out,
             "messages: {} ({} through the network, {} with a slowdown; median slowdown {:.2f}, max {:.2f})\n"
             "bytes on links: {:.0f} over a makespan of {}\n"
             "links: {} ({} busy, {} idle), max utilisation {:.1f}%\n",
             report.messages, report.network_messages, report.slowdown.count, report.slowdown.p50,
             report.slowdown.max, report.bytes, format_time_ps(report.makespan_ps), report.links,
             report.busy_links, report.idle_links, 100 * report.max_utilisation);

  if (!report.top_links.empty()) {
    print_title(out, fmt::format("Top {} Links by Bytes", report.top_links.size()));
    print_header(out, "Link", "MB", "Utilisation", "Kind");
    for (const LinkUse& use : report.top_links) {
      print_row(out, use.name, number(use.bytes / 1e6, 3),
                fmt::format("{}%", number(100 * use.utilisation, 1)), to_string(use.kind));
    }
  }

  print_title(out, "Link Utilisation Histogram");
  print_header(out, "Utilisation", "Links", "Share", "Units");
  const double all = report.links > 0 ? static_cast<double>(report.links) : 1;
  print_row(out, "idle", fmt::format("{}", report.idle_links),
            number(100 * static_cast<double>(report.idle_links) / all, 1), "% of links");
  for (std::size_t i = 0; i < kUtilisationBins; ++i) {
    const std::uint64_t n = report.utilisation_histogram.at(i);
    print_row(out, fmt::format("{}-{}%", 10 * i, 10 * (i + 1)), fmt::format("{}", n),
              number(100 * static_cast<double>(n) / all, 1), "% of links");
  }
}

}  // namespace gridlock::net
