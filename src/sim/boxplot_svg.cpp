// The box plot of a Monte-Carlo noise study as a standalone SVG (docs/noise.md, "Monte-Carlo
// study"): written by hand, a few dozen elements, so no plotting library is needed on the machine
// where the study runs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/sim/replica_report_json.hpp"
#include "gridlock/sim/replicas.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::sim {
namespace {

// Layout, in SVG user units (pixels at 100%).
constexpr double kLeft = 90;
constexpr double kRight = 30;
constexpr double kTitleLine = 18;
constexpr double kLegendLine = 15;
constexpr double kSlowdownLine = 14;
constexpr double kPlotHeight = 320;
constexpr double kBottom = 62;
constexpr double kSlot = 96;                 // Width given to one scale.
constexpr double kMinPlotWidth = 5 * kSlot;  // Room for the title and the legend.
constexpr double kBoxHalf = 20;
constexpr double kCapHalf = 10;
constexpr double kNoiselessHalf = 32;
constexpr double kOutlierRadius = 2.5;
constexpr int kTargetTicks = 6;
constexpr int kMaxTicks = 20;
// Picoseconds per microsecond, as a double: the axes are in microseconds.
constexpr auto kPsPerUsD = static_cast<double>(kPsPerUs);

// A tick step of 1, 2 or 5 times a power of ten that gives about kTargetTicks ticks over `range`.
double nice_step(double range) {
  const double raw = range / kTargetTicks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) {
      return m * power;
    }
  }
  return 10 * power;
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

// Where things go: the value range (us) and the plot's frame.
struct Layout {
  double lo = 0;   // Bottom of the value axis, us.
  double hi = 0;   // Top of the value axis, us.
  double top = 0;  // Top of the plot frame: below the title, legend and slowdowns.
  double plot_width = 0;
  double width = 0;
  double height = 0;
  [[nodiscard]] double y_of_us(double us) const { return top + kPlotHeight * (hi - us) / (hi - lo); }
  [[nodiscard]] double y_of(double ps) const { return y_of_us(ps / kPsPerUsD); }
};

// Grid lines, whisker caps, medians and the noiseless marks are all horizontal lines.
void horizontal(std::string& svg, const char* cls, double x_from, double x_to, double y) {
  svg += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", cls, number(x_from),
                     number(y), number(x_to), number(y));
}

// The document's opening: the SVG element, the context block, the title, the style, the background.
void append_header(std::string& svg, const Layout& at, const Json& context, const std::string& title) {
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      number(at.width), number(at.height), number(at.width), number(at.height));
  // Element text: quotes stay, so the context block reads (and greps) as the JSON it is.
  svg += "<metadata>" + xml_escaped(context.dump(1), false) + "</metadata>\n";
  std::string one_line = title;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  svg += "<title>" + xml_escaped(one_line) + "</title>\n";
  svg +=
      "<style>.box{fill:#cfe0f3;stroke:#1f4e79;stroke-width:1.2}.median{stroke:#1f4e79;stroke-width:2.5}"
      ".whisker{stroke:#1f4e79;stroke-width:1.2}.outlier{fill:none;stroke:#1f4e79;stroke-width:1}"
      ".noiseless{stroke:#c00000;stroke-width:2;stroke-dasharray:5,3}.grid{stroke:#e3e3e3;stroke-width:1}"
      ".frame{fill:none;stroke:#444;stroke-width:1}.slowdown{fill:#444;font-size:11px}</style>\n";
  svg +=
      fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", number(at.width), number(at.height));
}

// The title's lines (the first in bold), then the legend, centred above the plot.
void append_title(std::string& svg, const Layout& at, const std::vector<std::string_view>& title_lines) {
  double line_y = kTitleLine;
  for (std::size_t i = 0; i < title_lines.size(); ++i) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\"{}>{}</text>\n",
                       number(at.width / 2), number(line_y), i == 0 ? 14 : 12,
                       i == 0 ? " font-weight=\"bold\"" : "", xml_escaped(title_lines[i]));
    line_y += kTitleLine;
  }
  for (const char* legend : {"box: q1 to q3, bar: median, whiskers: last replica within 1.5 IQR",
                             "circles: outliers, red dashes: noiseless run, (n): replicas"}) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444\" font-size=\"11\">{}</text>\n",
        number(at.width / 2), number(line_y), legend);
    line_y += kLegendLine;
  }
}

// Grid lines and their labels, the frame and the axis titles. The lines are counted in whole
// steps (adding a step that is tiny next to the values could leave the value unchanged, for ever).
void append_axes(std::string& svg, const Layout& at) {
  const double step = nice_step(at.hi - at.lo);
  const double first = std::ceil(at.lo / step);
  const double ticks = std::min(std::floor(at.hi / step) - first, static_cast<double>(kMaxTicks));
  for (int k = 0; k <= static_cast<int>(ticks); ++k) {
    const double v = (first + k) * step;
    const double y = at.y_of_us(v);
    horizontal(svg, "grid", kLeft, kLeft + at.plot_width, y);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", number(kLeft - 6),
                       number(y + 4), number(v));
  }
  svg += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", number(kLeft),
                     number(at.top), number(at.plot_width), number(kPlotHeight));
  svg += fmt::format(
      "<text transform=\"translate(22 {}) rotate(-90)\" text-anchor=\"middle\">completion time (us)</text>\n",
      number(at.top + kPlotHeight / 2));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">processes (replicas)</text>\n",
                     number(kLeft + at.plot_width / 2), number(at.height - 10));
}

// One scale's box at `x`: whiskers, box, median, outliers, the noiseless mark and the labels.
void append_scale(std::string& svg, const Layout& at, const ScaleResult& scale, const BoxStats& b, double x) {
  svg += fmt::format("<g class=\"scale\" data-ranks=\"{}\">\n", scale.ranks);
  // Whiskers with their caps, then the box over them.
  for (const auto& [from, to] : {std::pair{b.q3, b.whisker_high}, std::pair{b.q1, b.whisker_low}}) {
    svg += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", number(x),
                       number(at.y_of(from)), number(at.y_of(to)));
    horizontal(svg, "whisker", x - kCapHalf, x + kCapHalf, at.y_of(to));
  }
  const double box_top = at.y_of(b.q3);
  svg += fmt::format("<rect class=\"box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                     number(x - kBoxHalf), number(box_top), number(2 * kBoxHalf),
                     number(std::max(at.y_of(b.q1) - box_top, 0.0)));
  horizontal(svg, "median", x - kBoxHalf, x + kBoxHalf, at.y_of(b.median));
  // A study may have millions of outliers: one circle per half-pixel row is all that shows.
  std::set<long long> rows;
  for (const std::uint64_t v : b.outliers) {
    const double y = at.y_of(static_cast<double>(v));
    if (rows.insert(std::llround(2 * y)).second) {
      svg += fmt::format("<circle class=\"outlier\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>\n", number(x), number(y),
                         number(kOutlierRadius));
    }
  }
  horizontal(svg, "noiseless", x - kNoiselessHalf, x + kNoiselessHalf,
             at.y_of(static_cast<double>(scale.noiseless_ps)));
  svg += fmt::format("<text class=\"slowdown\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:+.1f}%</text>\n",
                     number(x), number(at.top - 6),
                     100 * slowdown(b.median, static_cast<double>(scale.noiseless_ps)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", number(x),
                     number(at.top + kPlotHeight + 18), scale.ranks);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444\">({})</text>\n", number(x),
                     number(at.top + kPlotHeight + 33), b.count);
  svg += "</g>\n";
}

}  // namespace

std::string study_title(const std::string& source, const noise::NoiseSpec& spec,
                        const noise::DetourPattern& pattern, bool cosched) {
  return fmt::format("{}\nnoise: {}, {}", source, noise::describe(spec, pattern),
                     cosched ? "co-scheduled" : "unsynchronised");
}

std::string study_boxplot_svg(const std::vector<ScaleResult>& scales, const Json& context,
                              const std::string& title) {
  if (scales.empty()) {
    throw InputError("a box plot needs at least one scale");
  }
  std::vector<BoxStats> stats;
  stats.reserve(scales.size());
  // The value range covers every sample and every noiseless time, in us.
  double lo = HUGE_VAL;
  double hi = -HUGE_VAL;
  for (const ScaleResult& scale : scales) {
    if (scale.completion_ps.empty()) {
      throw InputError(fmt::format("a box plot needs replicas: the scale of {} ranks has none", scale.ranks));
    }
    stats.push_back(box_stats(scale.completion_ps));
    const double noiseless = static_cast<double>(scale.noiseless_ps);
    lo = std::min({lo, stats.back().min, noiseless});
    hi = std::max({hi, stats.back().max, noiseless});
  }
  lo /= kPsPerUsD;
  hi /= kPsPerUsD;
  // Some air above and below; a study whose samples are all equal still gets a range to draw in.
  const double pad = hi > lo ? 0.05 * (hi - lo) : std::max(0.05 * hi, 1e-6);
  lo = std::max(0.0, lo - pad);
  hi += pad;
  Layout at;
  at.lo = lo;
  at.hi = hi;
  at.plot_width = std::max(kMinPlotWidth, kSlot * static_cast<double>(scales.size()));
  at.width = kLeft + at.plot_width + kRight;
  // Above the plot: the title's lines, two lines of legend, the slowdowns.
  std::vector<std::string_view> title_lines;
  for (std::string_view rest = title; !rest.empty();) {
    const std::size_t cut = std::min(rest.find('\n'), rest.size());
    title_lines.push_back(rest.substr(0, cut));
    rest.remove_prefix(std::min(cut + 1, rest.size()));
  }
  at.top = kTitleLine * static_cast<double>(title_lines.size() + 1) + 2 * kLegendLine + kSlowdownLine;
  at.height = at.top + kPlotHeight + kBottom;
  std::string svg;
  append_header(svg, at, context, title);
  append_title(svg, at, title_lines);
  append_axes(svg, at);
  const double slot = at.plot_width / static_cast<double>(scales.size());
  for (std::size_t i = 0; i < scales.size(); ++i) {
    append_scale(svg, at, scales[i], stats[i], kLeft + slot * (static_cast<double>(i) + 0.5));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace gridlock::sim
