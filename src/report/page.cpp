// The HTML page: every script and style inlined, a Content-Security-Policy that makes any request
// fail, data embedded as JSON that the page script turns into Chart.js charts.
//
// Why Chart.js (Debian's libjs-chart.js) and not Vega (libjs-vega): one 200 KB file draws bars,
// lines and scatter plots with log axes, hover tooltips and legend toggling, configured from plain
// objects; Vega needs vega, vega-lite and vega-embed (over 1 MB together) and compiles its specs
// at run time, which a small mailed report does not need. Box plots, which Chart.js lacks, are
// floating bars (q1-q3 and whiskers) with median and outlier markers.
#include <string>
#include <utility>

#include <fmt/format.h>

#include "detail/build.hpp"

namespace gridlock::report {
namespace {

// Print-friendly, grey-scale-safe styles; no web fonts (the system's sans-serif).
constexpr std::string_view kStyle = R"CSS(
:root { color-scheme: light; }
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1rem 2rem;
       color: #111; background: #fff; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-top: 1rem; }
h2, nav.toc li, .source, caption { overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; border-bottom: 2px solid #444; padding-bottom: .2rem; margin-top: 2rem; }
.source { color: #444; font-family: monospace; }
.note { background: #fff4d6; border-left: 4px solid #E69F00; padding: .3rem .6rem; margin: .4rem 0; }
.error .note, #script-errors:not(:empty) { background: #fde2e1; border-left-color: #D55E00; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 1rem; }
figure.chart { margin: 0; border: 1px solid #ccc; padding: .5rem; break-inside: avoid; }
.chart-box { position: relative; height: 320px; }
figure.chart.wide { grid-column: 1 / -1; }
.table-wrap { overflow-x: auto; margin: .8rem 0; }
table { border-collapse: collapse; font-size: .9rem; }
caption { text-align: left; font-weight: bold; padding: .3rem 0; }
th, td { border: 1px solid #999; padding: .2rem .5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #eee; }
details.context dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: .85rem; }
details.context dt { font-weight: bold; }
details.context dd { margin: 0; font-family: monospace; word-break: break-all; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.side-by-side .charts { grid-template-columns: 1fr; }
nav.toc ol { columns: 2; }
@media print {
  body { max-width: none; }
  section { break-before: page; }
  .charts { grid-template-columns: 1fr 1fr; }
  details.context { display: block; }
  a { color: inherit; text-decoration: none; }
}
)CSS";

// Collects script errors into the page before anything else runs (the browser test reads them).
constexpr std::string_view kErrorCollector = R"JS(
window.gridlockErrors = [];
window.gridlockReportError = function (text) {
  window.gridlockErrors.push(text);
  var box = document.getElementById('script-errors');
  if (box) { box.textContent = window.gridlockErrors.join('\n'); }
  document.documentElement.setAttribute('data-script-errors', String(window.gridlockErrors.length));
};
window.onerror = function (message, source, line) {
  window.gridlockReportError(String(message) + ' (line ' + line + ')');
};
)JS";

// Draws every chart of every `gl-data` block (docs/report.md, "Embedded data"). Okabe-Ito colours
// (distinct for the common colour-vision deficiencies) plus a dash pattern, a marker shape and a
// hatch per series, so that series stay apart in grey-scale prints.
constexpr std::string_view kPageScript = R"JS(
(function () {
  'use strict';
  var PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000', '#F0E442'];
  var DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [1, 2], [12, 6], [6, 2, 2, 2]];
  var POINTS = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'cross', 'rectRounded'];
  function hatch(color, i) {
    if (i % 4 === 0) { return color; }
    var c = document.createElement('canvas');
    c.width = 8; c.height = 8;
    var g = c.getContext('2d');
    g.fillStyle = color; g.fillRect(0, 0, 8, 8);
    g.strokeStyle = 'rgba(255,255,255,0.85)'; g.lineWidth = 2; g.beginPath();
    if (i % 4 === 1) { g.moveTo(0, 8); g.lineTo(8, 0); }
    if (i % 4 === 2) { g.moveTo(0, 4); g.lineTo(8, 4); }
    if (i % 4 === 3) { g.moveTo(4, 0); g.lineTo(4, 8); }
    g.stroke();
    return g.createPattern(c, 'repeat');
  }
  function axis(spec, kind) {
    var a = { title: { display: true, text: spec.label } };
    if (spec.log) { a.type = 'logarithmic'; } else if (kind) { a.type = kind; }
    return a;
  }
  function styled(ds, i, asLine) {
    var color = PALETTE[i % PALETTE.length];
    ds.borderColor = color;
    ds.backgroundColor = asLine ? color : hatch(color, i);
    ds.borderDash = asLine ? DASHES[i % DASHES.length] : [];
    ds.pointStyle = POINTS[i % POINTS.length];
    ds.borderWidth = asLine ? 2 : 1;
    return ds;
  }
  function boxDatasets(spec) {
    var out = [];
    spec.series.forEach(function (s) {
      if (s.label === 'whiskers') {
        out.push({ type: 'bar', label: s.legend || 'whiskers (Tukey fences)', data: s.data, backgroundColor: '#000000',
                   barPercentage: 0.04, grouped: false, order: 3 });
      } else if (s.label === 'q1-q3') {
        out.push({ type: 'bar', label: 'q1-q3', data: s.data, backgroundColor: hatch('#56B4E9', 1),
                   borderColor: '#0072B2', borderWidth: 1, barPercentage: 0.5, grouped: false, order: 2 });
      } else if (s.label === 'median') {
        out.push({ type: 'line', label: 'median', data: s.data, showLine: false, pointStyle: 'line',
                   pointRadius: 18, borderWidth: 3, borderColor: '#000000', order: 1 });
      } else if (s.label === 'noiseless') {
        out.push({ type: 'line', label: 'noiseless', data: s.data, showLine: false, pointStyle: 'rectRot',
                   pointRadius: 6, borderColor: '#D55E00', backgroundColor: '#D55E00', order: 0 });
      } else {
        out.push({ type: 'line', label: s.label, data: s.data, showLine: false, pointStyle: 'circle',
                   pointRadius: 3, borderColor: '#444444', backgroundColor: 'rgba(0,0,0,0)', order: 0 });
      }
    });
    return out;
  }
  function config(spec) {
    var kind = spec.type;
    var isXY = kind === 'scatter' || kind === 'histogram';
    var datasets;
    if (kind === 'box') {
      datasets = boxDatasets(spec);
    } else {
      datasets = spec.series.map(function (s, i) {
        var asLine = kind !== 'bar';
        var ds = styled({ label: s.label, data: s.data, spanGaps: true }, i, asLine);
        if (isXY) { ds.showLine = kind === 'histogram' || s.line === true; ds.pointRadius = s.line ? 0 : 3; }
        return ds;
      });
    }
    if (typeof spec.reference === 'number') {
      var n = isXY ? 0 : (spec.labels || []).length;
      var ref = { type: 'line', label: spec.reference_label || 'reference', borderColor: '#000000',
                  borderDash: [3, 3], borderWidth: 1, pointRadius: 0, fill: false, order: -1 };
      if (isXY) {
        var xs = [];
        spec.series.forEach(function (s) { s.data.forEach(function (p) { if (p && typeof p.x === 'number') { xs.push(p.x); } }); });
        if (xs.length) {
          ref.data = [{ x: Math.min.apply(null, xs), y: spec.reference }, { x: Math.max.apply(null, xs), y: spec.reference }];
          datasets.push(ref);
        }
      } else {
        ref.data = []; for (var k = 0; k < n; k++) { ref.data.push(spec.reference); }
        datasets.push(ref);
      }
    }
    var scales = { x: axis(spec.x, isXY ? 'linear' : null), y: axis(spec.y, null) };
    if (spec.horizontal) {
      scales.y.ticks = { autoSkip: false };
    }
    if (spec.stacked) { scales.x.stacked = true; scales.y.stacked = true; }
    return {
      type: kind === 'box' ? 'bar' : (isXY ? 'scatter' : kind),
      data: { labels: isXY ? undefined : spec.labels, datasets: datasets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        indexAxis: spec.horizontal ? 'y' : 'x',
        interaction: { mode: isXY ? 'nearest' : 'index', intersect: false, axis: spec.horizontal ? 'y' : 'x' },
        plugins: { title: { display: true, text: spec.title }, legend: { position: 'bottom' } },
        scales: scales
      }
    };
  }
  var drawn = 0;
  var expected = 0;
  var charts = [];
  Chart.defaults.font.family = 'system-ui, sans-serif';
  Array.prototype.forEach.call(document.querySelectorAll('script.gl-data'), function (block) {
    var data = JSON.parse(block.textContent);
    (data.charts || []).forEach(function (spec, i) {
      expected += 1;
      var where = 'chart ' + i + ' of section ' + block.getAttribute('data-section');
      // One chart that fails is reported and the others are still drawn.
      try {
        var canvas = document.getElementById(block.getAttribute('data-section') + '-c' + i);
        if (!canvas) { throw new Error('no canvas'); }
        charts.push(new Chart(canvas, config(spec)));
        drawn += 1;
      } catch (e) {
        window.gridlockReportError(where + ' (' + spec.title + '): ' + e.message);
      }
    });
  });
  // A print shows every table, the collapsed ones too.
  window.addEventListener('beforeprint', function () {
    Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.open = true; });
    charts.forEach(function (c) { c.resize(); });
  });
  document.documentElement.setAttribute('data-charts-expected', String(expected));
  document.documentElement.setAttribute('data-rendered', String(drawn));
})();
)JS";

std::string section_html(const Section& s) {
  std::string out = fmt::format("<section id=\"{}\" class=\"report-section{}\" data-kind=\"{}\">\n", s.id,
                                s.failed ? " error" : "", detail::escape_html(s.kind));
  out += fmt::format("<h2>{}</h2>\n<p class=\"source\">{}</p>\n", detail::escape_html(s.title),
                     detail::escape_html(s.source));
  for (const std::string& note : s.notes) {
    out += "<p class=\"note\">" + detail::escape_html(note) + "</p>\n";
  }
  const Json& charts = s.data.contains("charts") ? s.data["charts"] : Json::array();
  if (!charts.empty()) {
    out += "<div class=\"charts\">\n";
    for (std::size_t i = 0; i < charts.size(); ++i) {
      const std::string title = charts[i].value("title", "chart");
      // A chart with many bars asks for more height (and the whole row of the grid).
      const bool tall = charts[i].contains("height_px") && charts[i]["height_px"].is_number_unsigned();
      out += fmt::format(
          "<figure class=\"chart{}\"><div class=\"chart-box\"{}><canvas id=\"{}-c{}\" role=\"img\" "
          "aria-label=\"{}\"></canvas></div></figure>\n",
          tall ? " wide" : "",
          tall ? fmt::format(" style=\"height: {}px\"", charts[i]["height_px"].get<std::size_t>()) : "", s.id,
          i, detail::escape_html(title));
    }
    out += "</div>\n";
  }
  out += s.body_html;
  if (s.context.is_object()) {
    out += detail::context_table(s.context);
  }
  out += fmt::format("<script type=\"application/json\" class=\"gl-data\" data-section=\"{}\">{}</script>\n",
                     s.id, json_for_script(s.data));
  out += "</section>\n";
  return out;
}

}  // namespace

std::string json_for_script(const Json& value) {
  const std::string dumped = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(dumped.size());
  // '<', '>' and '&' occur only inside JSON strings, where \u escapes mean the same characters.
  for (const char c : dumped) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_page(std::vector<Section> sections, const PageOptions& options) {
  for (std::size_t i = 0; i < sections.size(); ++i) {
    sections[i].id = fmt::format("s{}", i + 1);
  }
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Any request (script, style, image, font, fetch) but inline code and data: URLs fails: the page
  // works offline and tells nobody that it was opened.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
      "'unsafe-inline'; "
      "style-src 'unsafe-inline'; img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + detail::escape_html(options.title) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n";
  out += "<script>" + std::string(kErrorCollector) + "</script>\n";
  out += "</head>\n<body>\n<header><h1>" + detail::escape_html(options.title) + "</h1>\n";
  std::size_t failed = 0;
  for (const Section& s : sections) {
    failed += s.failed ? 1 : 0;
  }
  out += fmt::format(
      "<p>{} section(s){}. Generated by {} on {}.</p></header>\n", sections.size(),
      failed > 0 ? fmt::format(", {} input(s) could not be reported (see their notes)", failed) : "",
      detail::escape_html(detail::text(options.context, "tool", "gridlock report")),
      detail::escape_html(detail::text(options.context, "date", "?")));
  out += "<pre id=\"script-errors\" role=\"alert\"></pre>\n";
  out += "<nav class=\"toc\" aria-label=\"Contents\"><h2>Contents</h2><ol>\n";
  for (const Section& s : sections) {
    out += fmt::format("<li><a href=\"#{}\">{}</a> <span class=\"source\">({})</span></li>\n", s.id,
                       detail::escape_html(s.title), detail::escape_html(s.source));
  }
  out += "</ol></nav>\n<main>\n";
  for (std::size_t i = 0; i < sections.size(); ++i) {
    // The two results of a comparison follow it, side by side.
    if (sections[i].kind == "compare" && i + 2 < sections.size()) {
      out += section_html(sections[i]);
      out += "<div class=\"side-by-side\">\n" + section_html(sections[i + 1]) +
             section_html(sections[i + 2]) + "</div>\n";
      i += 2;
      continue;
    }
    out += section_html(sections[i]);
  }
  out += "</main>\n<footer><h2>About this report</h2>\n" + detail::context_table(options.context) +
         "</footer>\n";
  out += "<script>" + options.chartjs_source + "</script>\n";
  out += "<script>" + std::string(kPageScript) + "</script>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace gridlock::report
