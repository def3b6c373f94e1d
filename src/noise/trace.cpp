#include "gridlock/noise/trace.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::noise {
namespace {

constexpr std::string_view kMagic = "# gridlock-noise-trace v1";

[[noreturn]] void fail(std::string_view source, std::size_t line, std::string_view what) {
  throw InputError(fmt::format("{}:{}: {}", source, line, what));
}

std::uint64_t parse_u64(std::string_view field, std::string_view source, std::size_t line, const char* name) {
  field = trim(field);
  if (!field.empty() && field.front() == '-') {
    fail(source, line,
         fmt::format("negative {} '{}': detour times are >= 0", name, printable_excerpt(field)));
  }
  const std::optional<std::uint64_t> v = gridlock::parse_u64(field);
  if (!v) {
    fail(source, line,
         fmt::format("{} '{}' is not a non-negative integer (ns)", name, printable_excerpt(field)));
  }
  return *v;
}

// A decimal number of `unit` (ns_per_unit ns each), rounded to the nearest ns.
std::uint64_t parse_decimal_as_ns(std::string_view field, std::string_view source, std::size_t line,
                                  const char* name, std::uint64_t ns_per_unit, const char* unit) {
  // Integers exactly (a double holds only 53 bits), decimals through a double.
  if (const std::optional<std::uint64_t> whole_number = gridlock::parse_u64(field)) {
    const std::uint64_t whole = *whole_number;
    if (whole > kMaxTraceNs / ns_per_unit) {
      fail(source, line,
           fmt::format("{} '{}' {} is beyond the longest trace gridlock can simulate ({} ns, about 213 days)",
                       name, printable_excerpt(field), unit, kMaxTraceNs));
    }
    return whole * ns_per_unit;
  }
  const std::optional<double> number = parse_double(field);
  const double v = number.value_or(0.0);
  if (!number || !std::isfinite(v)) {
    fail(source, line, fmt::format("{} '{}' is not a number ({})", name, printable_excerpt(field), unit));
  }
  if (v < 0) {
    fail(source, line,
         fmt::format("negative {} '{}': detour times are >= 0", name, printable_excerpt(field)));
  }
  const double ns = std::round(v * static_cast<double>(ns_per_unit));
  if (ns > static_cast<double>(kMaxTraceNs)) {
    fail(source, line,
         fmt::format("{} '{}' {} is beyond the longest trace gridlock can simulate ({} ns, about 213 days)",
                     name, printable_excerpt(field), unit, kMaxTraceNs));
  }
  return static_cast<std::uint64_t>(ns);
}

// Appends a detour read at `line`, checking order against the previous one.
void add_detour(NoiseTrace& t, Detour d, std::string_view source, std::size_t line) {
  if (!t.detours.empty()) {
    const Detour& prev = t.detours.back();
    if (d.start_ns < prev.start_ns) {
      fail(source, line,
           fmt::format("detours are not sorted: start {} ns comes after start {} ns; sort the file by start "
                       "time (e.g. `sort -n`)",
                       d.start_ns, prev.start_ns));
    }
    if (d.start_ns < prev.start_ns + prev.length_ns) {
      fail(source, line,
           fmt::format("detour at {} ns overlaps the previous one ({} ns + {} ns); merge overlapping detours",
                       d.start_ns, prev.start_ns, prev.length_ns));
    }
  }
  if (d.start_ns > kMaxTraceNs || d.length_ns > kMaxTraceNs - d.start_ns) {
    fail(source, line,
         fmt::format("detour at {} ns of {} ns ends beyond the longest trace gridlock can simulate ({} ns, "
                     "about 213 days: simulated time is 64-bit picoseconds)",
                     d.start_ns, d.length_ns, kMaxTraceNs));
  }
  t.detours.push_back(d);
}

TraceFormat detect(std::string_view text) {
  if (text.substr(0, kMagic.size()) == kMagic) {
    return TraceFormat::kGridlock;
  }
  // The first data line decides: decimals are Netgauge (microseconds), integers LogGOPSim (ns).
  // LogGOPSim reads its lines with sscanf("%lf\t%lf"), so spaces are as good as a tab there; a
  // LogGOPSim trace with decimal ns needs --noise-format loggopsim.
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    return line.find('.') != std::string_view::npos ? TraceFormat::kNetgauge : TraceFormat::kLoggopsim;
  }
  return TraceFormat::kLoggopsim;
}

NoiseTrace parse_gridlock(std::string_view text, std::string_view source) {
  NoiseTrace t;
  const auto lines = split(text, '\n');
  if (lines.empty() || trim(lines[0]) != kMagic) {
    fail(source, 1, fmt::format("not a gridlock noise trace: the first line must be '{}'", kMagic));
  }
  bool header = false;
  bool have_duration = false;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t no = i + 1;
    const std::string_view line = trim(lines[i]);
    if (line.empty()) {
      continue;
    }
    if (line.front() == '#') {
      if (header) {
        fail(source, no, "context comments must come before the column header");
      }
      const std::string_view body = trim(line.substr(1));
      const auto colon = body.find(": ");
      if (colon == std::string_view::npos) {
        fail(source, no, "context lines look like '# key: value'");
      }
      const std::string key(body.substr(0, colon));
      const std::string value(trim(body.substr(colon + 2)));
      Json parsed = Json::parse(value, nullptr, false);
      t.context[key] = parsed.is_discarded() ? Json(value) : parsed;
      if (key == "duration_ns") {
        t.duration_ns = parse_u64(value, source, no, "duration_ns");
        if (t.duration_ns > kMaxTraceNs) {
          fail(source, no,
               fmt::format("duration_ns {} is beyond the longest trace gridlock can simulate ({} ns)",
                           t.duration_ns, kMaxTraceNs));
        }
        have_duration = true;
      } else if (key == "detours_not_listed") {
        t.detours_not_listed = parse_u64(value, source, no, "detours_not_listed");
      }
      continue;
    }
    if (!header) {
      if (line != "start_ns,length_ns") {
        fail(source, no,
             fmt::format("expected the column header 'start_ns,length_ns', got '{}'",
                         printable_excerpt(line)));
      }
      header = true;
      continue;
    }
    const auto cells = split(line, ',');
    if (cells.size() != 2) {
      fail(source, no, fmt::format("expected 'start_ns,length_ns', got {} fields", cells.size()));
    }
    add_detour(t, Detour{parse_u64(cells[0], source, no, "start"), parse_u64(cells[1], source, no, "length")},
               source, no);
  }
  if (!have_duration) {
    fail(source, lines.size(), "missing the '# duration_ns: N' context line");
  }
  validate_trace(t, source);
  return t;
}

// The two blank-separated fields of a trimmed line, or false if it has not exactly two. Read in
// place, line by line: a vector of lines and one of fields per line cost a third of the time of
// `gridlock sim` with a 10^6-detour trace.
bool two_fields(std::string_view line, std::string_view& first, std::string_view& second) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t i = 0;
  while (i < line.size() && !blank(line[i])) {
    ++i;
  }
  first = line.substr(0, i);
  while (i < line.size() && blank(line[i])) {
    ++i;
  }
  const std::size_t start = i;
  while (i < line.size() && !blank(line[i])) {
    ++i;
  }
  second = line.substr(start, i - start);
  return !first.empty() && !second.empty() && i == line.size();
}

NoiseTrace parse_columns(std::string_view text, std::string_view source, bool loggopsim) {
  NoiseTrace t;
  constexpr std::size_t kShortestLine = 4;  // "1 1\n"; a reserve, not a limit
  t.detours.reserve(std::min<std::size_t>(text.size() / kShortestLine, std::size_t{1} << 20U));
  std::size_t no = 0;
  for (std::size_t from = 0; from < text.size();) {
    std::size_t to = text.find('\n', from);
    if (to == std::string_view::npos) {
      to = text.size();
    }
    ++no;
    const std::string_view line = trim(text.substr(from, to - from));
    from = to + 1;
    if (line.empty() || line.front() == '#') {
      continue;
    }
    std::string_view f0;
    std::string_view f1;
    if (!two_fields(line, f0, f1)) {
      fail(source, no,
           fmt::format("expected two columns (start, length{}), got {}: '{}'",
                       loggopsim ? " in ns" : " in us", split_blanks(line).size(), printable_excerpt(line)));
    }
    const Detour d = loggopsim ? Detour{parse_decimal_as_ns(f0, source, no, "start", 1, "ns"),
                                        parse_decimal_as_ns(f1, source, no, "duration", 1, "ns")}
                               : Detour{parse_decimal_as_ns(f0, source, no, "start", 1000, "us"),
                                        parse_decimal_as_ns(f1, source, no, "length", 1000, "us")};
    add_detour(t, d, source, no);
  }
  // These formats do not store the measured span: the trace repeats after its last detour.
  t.duration_ns = t.last_detour_end_ns();
  return t;
}

}  // namespace

std::uint64_t NoiseTrace::total_detour_ns() const noexcept {
  std::uint64_t sum = 0;
  for (const Detour& d : detours) {
    sum += d.length_ns;
  }
  return sum;
}

double NoiseTrace::noise_fraction(std::uint64_t span_ns) const noexcept {
  return span_ns == 0 ? 0.0 : static_cast<double>(total_detour_ns()) / static_cast<double>(span_ns);
}

std::uint64_t NoiseTrace::last_detour_end_ns() const noexcept {
  return detours.empty() ? 0 : detours.back().start_ns + detours.back().length_ns;
}

TraceFormat parse_trace_format(std::string_view text, std::string_view what) {
  if (text == "auto") {
    return TraceFormat::kAuto;
  }
  if (text == "gridlock") {
    return TraceFormat::kGridlock;
  }
  if (text == "netgauge") {
    return TraceFormat::kNetgauge;
  }
  if (text == "loggopsim") {
    return TraceFormat::kLoggopsim;
  }
  throw InputError(fmt::format("unknown {} '{}': use auto, gridlock, netgauge or loggopsim", what, text));
}

std::string format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::kAuto:
      return "auto";
    case TraceFormat::kGridlock:
      return "gridlock";
    case TraceFormat::kNetgauge:
      return "netgauge";
    case TraceFormat::kLoggopsim:
      return "loggopsim";
  }
  return "?";
}

void validate_trace(const NoiseTrace& trace, std::string_view source) {
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < trace.detours.size(); ++i) {
    const Detour& d = trace.detours[i];
    if (d.start_ns < end) {
      throw InputError(fmt::format("{}: detour {} (start {} ns) is unsorted or overlaps the previous one",
                                   source, i + 1, d.start_ns));
    }
    end = d.start_ns + d.length_ns;
  }
  if (end > trace.duration_ns) {
    throw InputError(fmt::format("{}: the last detour ends at {} ns, after the trace's duration_ns {}",
                                 source, end, trace.duration_ns));
  }
}

NoiseTrace parse_trace(std::string_view text, TraceFormat format, std::string_view source) {
  text = without_utf8_bom(text);
  if (format == TraceFormat::kAuto) {
    format = detect(text);
  }
  NoiseTrace trace;
  switch (format) {
    case TraceFormat::kGridlock:
      trace = parse_gridlock(text, source);
      break;
    case TraceFormat::kNetgauge:
      trace = parse_columns(text, source, false);
      break;
    case TraceFormat::kLoggopsim:
    case TraceFormat::kAuto:
      trace = parse_columns(text, source, true);
      format = TraceFormat::kLoggopsim;
      break;
  }
  trace.format = format;
  return trace;
}

NoiseTrace read_trace(const std::filesystem::path& path, TraceFormat format) {
  return parse_trace(read_input_file(path, "noise trace", "check the path"), format, path.string());
}

std::string format_trace(const NoiseTrace& trace, TraceFormat format) {
  std::string out;
  switch (format) {
    case TraceFormat::kGridlock: {
      Json context = trace.context.is_object() ? trace.context : Json::object();
      context["duration_ns"] = trace.duration_ns;
      CsvWriter csv(context, {"start_ns", "length_ns"});
      for (const Detour& d : trace.detours) {
        csv.add_row({std::to_string(d.start_ns), std::to_string(d.length_ns)});
      }
      out = std::string(kMagic) + "\n" + csv.content();
      break;
    }
    case TraceFormat::kNetgauge:
      out = "# start_us length_us\n";
      for (const Detour& d : trace.detours) {
        out += fmt::format("{}.{:03} {}.{:03}\n", d.start_ns / 1000, d.start_ns % 1000, d.length_ns / 1000,
                           d.length_ns % 1000);
      }
      break;
    case TraceFormat::kLoggopsim:
      for (const Detour& d : trace.detours) {
        out += fmt::format("{}\t{}\n", d.start_ns, d.length_ns);
      }
      break;
    case TraceFormat::kAuto:
      throw InputError("choose a trace format to write: gridlock, netgauge or loggopsim");
  }
  return out;
}

void write_trace(const std::filesystem::path& path, const NoiseTrace& trace, TraceFormat format) {
  write_file_atomic(path, format_trace(trace, format));
}

}  // namespace gridlock::noise
