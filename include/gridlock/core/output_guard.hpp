#pragma once
/// @file
/// The guard both command-line tools put before any work or write: an output naming a file that
/// another argument also names (an input, or a file of an input directory or OTF2 archive) is
/// refused, so `gridlock sim --json S.goal S.goal` cannot destroy the schedule. Hard and symbolic
/// links are caught: files are compared by device and inode (std::filesystem::equivalent). The
/// command-line side (which options are outputs) is the tools' (apps/common/output_guard.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace gridlock {

/// An output option as a command line gave it: its name (`--json`) and its values.
struct OutputArgument {
  std::string option;               ///< The option's name, for messages.
  std::vector<std::string> values;  ///< The values given (an option may be repeated).
};

/// The paths an argument may name: itself and what follows each '@', ':' or '=' in it or in one of
/// its comma-separated pieces (`@nodes.txt`, `matrix:m.csv`, `--json=r.json`, `torus:4x4,coords=F`).
[[nodiscard]] std::vector<std::string> path_candidates(std::string_view argument);

/// Throws InputError when two of `outputs` (two options, or one given twice) name the same file
/// (after resolving `.`, `..` and symbolic links); devices and FIFOs may be shared.
void check_outputs_distinct(const std::vector<OutputArgument>& outputs);

/// Throws InputError when two of `outputs` name the same file (check_outputs_distinct(), naming the
/// options in the order of `arguments`), or when
/// one of `outputs` names a file or directory that an input argument in
/// `arguments` (the command line without the program name) also names, or that lies in one: an
/// existing file equal to an input file, an input directory itself, an existing file inside an
/// input directory of a kind commands read from directories (CSV, JS, OTF2), or a file of an input
/// OTF2 archive (for an input `X.otf2`, or a directory holding `traces.otf2`: `X.otf2`, `X.def`,
/// anything under `X/`). Directories are compared by canonical path, so `./` spellings are caught.
/// The values of `outputs` and `output_directories` (directories a command writes into) are not
/// inputs, nor are the names in `not_paths` (the subcommands given). Outputs that do not exist yet
/// cannot be an input file; devices and FIFOs (`/dev/null`, `/dev/stdout`) are written in place,
/// not replaced, and are left alone.
void check_outputs_not_inputs(const std::vector<std::string>& arguments,
                              const std::vector<OutputArgument>& outputs,
                              const std::vector<OutputArgument>& output_directories,
                              const std::vector<std::string>& not_paths = {});

}  // namespace gridlock
