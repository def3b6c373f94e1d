#include "gridlock/core/output_guard.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock {
namespace {

// True if `path` is `dir` or lies below it; both are absolute, canonical paths.
bool is_within(const std::filesystem::path& path, const std::filesystem::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty() && std::next(d) == dir.end()) {
      return true;  // `dir/` ends in an empty element
    }
    if (p == path.end() || *p != *d) {
      return false;
    }
  }
  return true;
}

// The canonical form of `path` with symbolic links of its existing part resolved (".", "..",
// symlinked directories), or empty when it cannot be resolved.
std::filesystem::path resolved(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path out = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? std::filesystem::path() : out;
}

// Same file (device and inode) for two existing paths.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

// True if `output` is a hard link of a file under `dir` (a file with other links is looked for
// among dir's files by device and inode; the first 100,000 entries are searched).
bool is_linked_into(const std::filesystem::path& output, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(output, ec) || fs::hard_link_count(output, ec) < 2 || ec) {
    return false;
  }
  constexpr std::size_t kMaxEntries = 100000;
  std::size_t seen = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && seen < kMaxEntries; it.increment(ec), ++seen) {
    if (it->is_regular_file(ec) && same_file(it->path(), output)) {
      return true;
    }
  }
  return false;
}

// Throws InputError when `output` (option `option`) is a file of the OTF2 archive whose anchor
// file is `anchor` (`X.otf2`): the anchor, the global definitions `X.def`, or anything under the
// archive's directory `X/`, existing or not.
void check_not_in_archive(std::string_view option, const std::string& output,
                          const std::filesystem::path& anchor) {
  std::filesystem::path base = anchor;
  base.replace_extension();
  std::filesystem::path def = base;
  def.replace_extension(".def");
  const std::filesystem::path out = resolved(output);
  const std::filesystem::path dir = resolved(base);
  if (same_file(output, anchor) || same_file(output, def) ||
      (!out.empty() && !dir.empty() && is_within(out, dir)) ||
      (!dir.empty() && is_linked_into(output, dir))) {
    throw InputError(fmt::format(
        "{} '{}' is a file of the OTF2 trace '{}' (its files are {}, {} and everything under {}/): writing "
        "it would damage the trace; give an output outside the archive",
        option, output, anchor.string(), anchor.filename().string(), def.filename().string(),
        base.filename().string()));
  }
}

// True for the kinds of file that gridlock reads from an input directory: histogram CSVs
// (`report --csv-dir`, LDMS metric directories), scripts (`report --assets`), OTF2 archive files.
bool is_read_from_directories(const std::filesystem::path& path) {
  static constexpr std::string_view kKinds[] = {".csv", ".js", ".otf2", ".def", ".evt"};
  const std::string extension = path.extension().string();
  return std::find(std::begin(kKinds), std::end(kKinds), extension) != std::end(kKinds);
}

}  // namespace

std::vector<std::string> path_candidates(std::string_view argument) {
  std::vector<std::string> out{std::string(argument)};
  const auto add_suffixes = [&out](std::string_view piece) {
    out.emplace_back(piece);
    for (std::size_t i = 0; i < piece.size(); ++i) {
      if (piece[i] == '@' || piece[i] == ':' || piece[i] == '=') {
        out.emplace_back(piece.substr(i + 1));
      }
    }
  };
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = argument.find(',', start);
    add_suffixes(
        argument.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) {
      return out;
    }
    start = comma + 1;
  }
}

void check_outputs_distinct(const std::vector<OutputArgument>& outputs) {
  namespace fs = std::filesystem;
  // Each output is written whole (atomically, by rename), so of two outputs naming one file the
  // later would silently replace the earlier. Paths compare after resolving `.`, `..` and symbolic
  // links of the parts that exist.
  std::map<std::string, std::string> written;  // resolved path -> the option that writes it
  for (const OutputArgument& option : outputs) {
    for (const std::string& output : option.values) {
      std::error_code ec;
      const fs::file_status status = fs::status(output, ec);
      if (output.empty() || (fs::exists(status) && !fs::is_regular_file(status))) {
        continue;  // devices and FIFOs (/dev/null) are written in place: any number may share one
      }
      // resolved() makes the path absolute first: weakly_canonical() alone leaves "n.out" relative
      // but resolves "./n.out" against the working directory.
      const fs::path path = resolved(output);
      if (path.empty()) {
        continue;
      }
      const auto [it, inserted] = written.emplace(path.string(), option.option);
      if (!inserted) {
        throw InputError(
            fmt::format("{} and {} both write '{}': one would replace the other; give them "
                        "different files",
                        it->second, option.option, output));
      }
    }
  }
}

void check_outputs_not_inputs(const std::vector<std::string>& arguments,
                              const std::vector<OutputArgument>& outputs,
                              const std::vector<OutputArgument>& output_directories,
                              const std::vector<std::string>& not_paths) {
  namespace fs = std::filesystem;
  {
    // In the order the command line gives them, so that a refusal names the options that way.
    const auto position = [&arguments](const OutputArgument& output) {
      for (std::size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i] == output.option || arguments[i].starts_with(output.option + "=")) {
          return i;
        }
      }
      return arguments.size();
    };
    std::vector<OutputArgument> ordered = outputs;
    std::stable_sort(
        ordered.begin(), ordered.end(),
        [&position](const OutputArgument& a, const OutputArgument& b) { return position(a) < position(b); });
    check_outputs_distinct(ordered);
  }
  std::map<std::string, int> output_values;  // how many times each output value was given
  for (const auto* list : {&outputs, &output_directories}) {
    for (const OutputArgument& output : *list) {
      for (const std::string& value : output.values) {
        ++output_values[value];
      }
    }
  }
  std::vector<std::string> inputs;
  // Directories count as inputs only when an argument is the whole value (`DIR`, `--opt=DIR`),
  // not a piece of one (`torus:4x4`, `--nodes @file`).
  std::vector<std::string> input_values;
  for (const std::string& argument : arguments) {
    const std::size_t eq = argument.find('=');
    const std::string value =
        argument.starts_with('-') && eq != std::string::npos ? argument.substr(eq + 1) : argument;
    if (const auto it = output_values.find(value); it != output_values.end() && it->second > 0) {
      --it->second;
      continue;
    }
    inputs.push_back(argument);
    if (!value.empty() && !value.starts_with('-') &&
        std::find(not_paths.begin(), not_paths.end(), value) == not_paths.end()) {
      input_values.push_back(value);
    }
  }
  for (const OutputArgument& option : outputs) {
    for (const std::string& output : option.values) {
      std::error_code ec;
      const fs::file_status status = fs::status(output, ec);
      if (output.empty() ||
          (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status))) {
        continue;
      }
      const bool exists = fs::exists(status);
      for (const std::string& input : inputs) {
        for (const std::string& candidate : path_candidates(input)) {
          if (candidate.empty()) {
            continue;
          }
          if (exists && fs::is_regular_file(status) && same_file(candidate, output)) {
            throw InputError(
                fmt::format("{} '{}' is the input file '{}': writing it would destroy the input; give "
                            "another output file",
                            option.option, output, candidate));
          }
          if (fs::path(candidate).extension() == ".otf2" && fs::is_regular_file(candidate, ec)) {
            check_not_in_archive(option.option, output, candidate);
          }
        }
      }
      for (const std::string& input : input_values) {
        if (!fs::is_directory(input, ec)) {
          continue;
        }
        if (fs::is_regular_file(fs::path(input) / "traces.otf2", ec)) {
          check_not_in_archive(option.option, output, fs::path(input) / "traces.otf2");
        }
        const fs::path dir = resolved(input);
        const fs::path out = resolved(output);
        if (!exists || dir.empty() || out.empty()) {
          continue;
        }
        if (out == dir) {
          throw InputError(fmt::format("{} '{}' is the input directory '{}': give an output file outside it",
                                       option.option, output, input));
        }
        // Only a file of a kind some command reads from a directory is refused (histogram CSVs of
        // --csv-dir, --assets' chart.min.js, OTF2 files): refusing every existing file would refuse
        // re-running `gridlock report load.json --csv-dir . -o report.html`, whose page no command
        // reads back.
        if ((is_read_from_directories(out) && is_within(out, dir)) || is_linked_into(output, dir)) {
          throw InputError(fmt::format(
              "{} '{}' is inside the input directory '{}', whose files the command reads: writing "
              "it could destroy an input; give an output outside '{}'",
              option.option, output, input, input));
        }
      }
    }
  }
}

}  // namespace gridlock
