// The console reports of `gridlock model fit` and `gridlock model check`: Markdown-style tables in
// the one duration style of every table (docs/units.md).
#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/units.hpp"
#include "gridlock/model/fit.hpp"
#include "gridlock/model/guidelines.hpp"
#include "gridlock/model/sweep.hpp"

namespace gridlock::model {
namespace {

std::string pct(double v) { return fmt::format("{:.1f}%", 100 * v); }

// A duration in microseconds in the one style of every table (docs/units.md): `1.2 us`, `850 ns`.
std::string us(double microseconds) { return format_duration_s(microseconds * 1e-6); }

std::string line_row(const std::string& op, const std::string& pairs, const char* method, const LineFit& f) {
  return fmt::format("| {} | {} | {} | {} | {:.4g} | {} | {:.4f} | {} |", op, pairs, method, us(f.alpha_us),
                     f.beta_us_per_byte,
                     f.beta_us_per_byte > 0 ? fmt::format("{:.1f}", f.bandwidth_mib_s()) : "-", f.r2,
                     pct(f.max_rel_err));
}

}  // namespace

std::string fit_text(const FitResult& fit) {
  std::string out;
  out += "Hockney fits T = alpha + beta*n (relative-error weighting; robust: Huber):\n";
  out += "| op | pairs | fit | alpha | beta us/B | MiB/s | R^2 | max rel err |\n";
  for (const SeriesFit& s : fit.series) {
    const std::string pairs =
        s.key.kind == "collective" ? fmt::format("p={}", s.key.ranks) : s.key.pair_class;
    out += fmt::format("{}\n", line_row(s.key.op, pairs, "LS", s.least_squares));
    out += fmt::format("{}\n", line_row(s.key.op, pairs, "robust", s.robust));
  }
  bool any_switch = false;
  for (const SeriesFit& s : fit.series) {
    for (std::size_t i = 0; i + 1 < s.segments.size(); ++i) {
      out += fmt::format("{}: {}\n", describe(s.key), describe_switch(s.segments[i], s.segments[i + 1]));
      any_switch = true;
    }
  }
  if (!any_switch) {
    out += "no protocol switch found (segmented regression, BIC)\n";
  }
  if (fit.p2p) {
    out += fmt::format(
        "point-to-point reference for the collective models: {} ({}): alpha {:.4g} us, beta {:.4g} us/B\n",
        fit.p2p->op, fit.p2p->pair_class, fit.p2p->alpha_us, fit.p2p->beta_us_per_byte);
  }
  if (!fit.collectives.empty()) {
    out += "\nCollective models: median relative error per size range (best marked *):\n";
    std::string header = "| op | p | sizes |";
    for (const auto m : kAllCollectiveModels) {
      header += fmt::format(" {} |", model_name(m));
    }
    out += fmt::format("{}\n", header);
    for (const CollectiveFit& c : fit.collectives) {
      const std::string ps = c.ranks.size() == 1 ? fmt::format("{}", c.ranks.front())
                                                 : fmt::format("{}..{}", c.ranks.front(), c.ranks.back());
      for (const SizeRange& r : c.ranges) {
        std::string row = fmt::format("| {} | {} | {} .. {} |", c.op, ps, format_bytes(r.from_bytes),
                                      format_bytes(r.to_bytes));
        for (const auto m : kAllCollectiveModels) {
          const auto& e = r.median_rel_err[static_cast<std::size_t>(m)];
          row += e ? fmt::format(" {}{} |", pct(*e), m == r.best ? "*" : "") : " - |";
        }
        out += fmt::format("{}\n", row);
      }
      const auto& paper = c.models[static_cast<std::size_t>(CollectiveModel::kPaperDirect)];
      const auto& bino = c.models[static_cast<std::size_t>(CollectiveModel::kBinomialDirect)];
      if (bino.available) {
        out += fmt::format("  {} binomial_fit: alpha {}, beta {:.4g} us/B\n", c.op, us(bino.alpha_us),
                           bino.beta_us_per_byte);
      }
      if (paper.available) {
        out += fmt::format("  {} paper_fit: gamma {}, delta {:.4g} us/B, alpha {}, beta {:.4g} us/B\n", c.op,
                           us(paper.gamma_us), paper.delta_us_per_byte, us(paper.alpha_us),
                           paper.beta_us_per_byte);
      } else {
        out += fmt::format("  {} paper_fit: {}\n", c.op, paper.note);
      }
    }
  }
  for (const std::string& n : fit.notes) {
    out += fmt::format("note: {}\n", n);
  }
  return out;
}

std::string check_table(const CheckReport& report, const CheckOptions& options) {
  std::string out;
  out += fmt::format("Self-consistent guidelines (level {}, tolerance {}, seed {}):\n", options.level,
                     pct(options.tolerance), options.seed);
  out += "| guideline | p | size | lhs us | rhs us | lhs/rhs | test | p-value | result |\n";
  for (const CheckResult& r : report.results) {
    out += fmt::format("| {} | {} | {} | {:.4g} | {:.4g} | {:.3f} | {} | {} | {} |\n", r.guideline, r.ranks,
                       format_bytes(r.size_bytes), r.lhs_median_us, r.rhs_median_us, r.factor, r.test,
                       r.test == "rank-sum" ? fmt::format("{:.3g}", r.p_value) : "-",
                       r.violated ? "VIOLATED" : "holds");
  }
  for (const std::string& n : report.not_checked) {
    out += fmt::format("{}\n", n);
  }
  return out;
}

std::string check_summary(const CheckReport& report) {
  std::string out;
  out += fmt::format("{} of {} checks violated\n", report.violations(), report.results.size());
  for (const CheckResult& r : report.results) {
    if (r.violated) {
      out += fmt::format("violation: {} at {} on {} ranks: factor {:.3f}\n", r.guideline,
                         format_bytes(r.size_bytes), r.ranks, r.factor);
    }
  }
  return out;
}

}  // namespace gridlock::model
