#pragma once
/// @file
/// Reads an OTF2 archive (libgridlock-trace.so's or Score-P's) as a TraceReader.

#include <filesystem>
#include <memory>

#include "gridlock/trace/events.hpp"

namespace gridlock::trace {

/// Opens the archive at `path`: its anchor file (`traces.otf2`) or the directory holding it.
/// Reads the global definitions now (ranks from the MPI locations group, communicators with
/// their members, regions, the timer); events are read by TraceReader::for_each_rank, one rank
/// at a time. Throws InputError when the path is not an OTF2 archive, the archive has no global
/// definitions (a run that ended without MPI_Finalize) or they are inconsistent. Every file OTF2
/// opens (the anchor, `traces.def`, and before the events are read each rank's `.evt` and `.def`)
/// is checked first as gridlock's reader checks a file given by name: a FIFO, a device or a pipe
/// throws IoError naming it, a file above its bound (anchor 16 MiB, definitions 1 GiB, events
/// 4 GiB per rank) throws InputError.
[[nodiscard]] std::unique_ptr<TraceReader> open_otf2(const std::filesystem::path& path);

/// True if `path` looks like an OTF2 archive (an `.otf2` anchor file, or a directory with
/// `traces.otf2`), without opening it.
[[nodiscard]] bool is_otf2_path(const std::filesystem::path& path);

}  // namespace gridlock::trace
