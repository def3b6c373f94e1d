#pragma once
/// @file
/// Result files: a context block first, atomic writes, JSON and CSV; reading input files whole.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridlock/core/schema.hpp"

namespace gridlock {

/// JSON value type used for every gridlock output: keeps keys in insertion order.
using Json = nlohmann::ordered_json;

/// The fields every output file's context block starts with: tool, gridlock version, git commit,
/// schema name and version, date (UTC, ISO 8601) and host name. Callers append ranks, MPI
/// library, seed and parameters.
[[nodiscard]] Json base_context(std::string_view tool, std::string_view schema, int schema_version);

/// base_context() for one of the registered formats (core/schema.hpp).
[[nodiscard]] inline Json base_context(std::string_view tool, const Schema& schema) {
  return base_context(tool, schema.name, schema.version);
}

/// The format a read file's context block names (its `"schema"`), or "" when `context` is not an
/// object or its `schema` is missing or not a string: a reader compares it with the registry
/// without trusting the file's types (Json::value() throws on a number there).
[[nodiscard]] std::string schema_name_of(const Json& context);

/// Current UTC time as ISO 8601 (`2026-11-21T13:53:00Z`).
[[nodiscard]] std::string utc_timestamp();

/// This machine's host name, or "unknown".
[[nodiscard]] std::string host_name();

/// The size limit of an input file when its reader gives none: 1 GiB. Every input is read or
/// mapped whole, so a limit keeps a wrong path (a disk image, a core dump) from filling memory.
inline constexpr std::uintmax_t kDefaultInputLimitBytes = std::uintmax_t{1} << 30U;

/// No size limit: for inputs that are memory-mapped and decoded in place (GOAL and binary
/// schedules), whose size only costs page cache.
inline constexpr std::uintmax_t kNoInputLimit = ~std::uintmax_t{0};

/// Checks, without opening it, that `path` can be read as an input: it exists and is a regular
/// file (a symbolic link to one is fine) of at most `max_bytes`, or it is a pipe the shell made
/// (`/dev/stdin` on a pipe, `<(command)`), whose size is checked while reading. A directory,
/// a named FIFO (opening it without a writer would block forever), a device (`/dev/zero` never
/// ends) or a socket throws IoError naming `what` and the kind of file; a regular file above the
/// limit throws InputError. A missing file's message ends with `hint`. Returns true for a shell
/// pipe.
bool check_regular_input(const std::filesystem::path& path, std::string_view what,
                         std::uintmax_t max_bytes = kDefaultInputLimitBytes,
                         std::string_view hint = "check the path");

/// The whole content of the input file at `path`, checked by check_regular_input() first. Throws
/// IoError naming `what` (e.g. "noise trace") and `hint` (how to fix it) when the path does not
/// exist, is not a regular file or cannot be read to the end; an empty file gives "".
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                                          std::string_view hint = "check the path and permissions",
                                          std::uintmax_t max_bytes = kDefaultInputLimitBytes);

/// The content of an input file: memory-mapped when it is a regular file (no copy, no fresh pages:
/// a large schedule loads at the speed of the disk or page cache), read into memory when it is a
/// shell pipe (`/dev/stdin`, `<(command)`), refused otherwise (check_regular_input()). Throws
/// IoError as read_input_file does. A mapped file must not be truncated while it is open.
class InputFile {
 public:
  /// Opens and maps (or reads) `path` of at most `max_bytes`; `what` and `hint` are for error
  /// messages.
  InputFile(const std::filesystem::path& path, std::string_view what,
            std::string_view hint = "check the path and permissions",
            std::uintmax_t max_bytes = kDefaultInputLimitBytes);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  /// Unmaps the file.
  ~InputFile();
  /// The file's bytes, valid while this object lives.
  [[nodiscard]] std::string_view bytes() const noexcept { return bytes_; }

 private:
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::string content_;
  std::string_view bytes_;
};

/// A file written piece by piece and made visible atomically: the pieces go to a temporary file in
/// the same directory, which commit() flushes, syncs and renames over the path. A writer destroyed
/// without commit() (an error on the way) removes its temporary file, so nothing half-written is
/// left. A path that is a FIFO or a device (`/dev/stdout`) is written in place instead: renaming a
/// file over it would replace the node. Throws IoError naming the path.
class AtomicFileWriter {
 public:
  /// Creates the temporary file next to `path`.
  explicit AtomicFileWriter(const std::filesystem::path& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  /// Appends `bytes`.
  void write(std::string_view bytes);
  /// Flushes, syncs and renames the file into place.
  void commit();

 private:
  [[noreturn]] void fail(int error);
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::FILE* file_ = nullptr;
  bool in_place_ = false;  // the path is a FIFO or device: written directly, never renamed over
};

/// Writes `content` to `path` atomically: a temporary file in the same directory is written,
/// flushed and renamed over `path`, so readers never see a half-written file. Throws IoError.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

/// Checks now, before a long run, that `path` can be created: its directory exists and a file can
/// be created in it (one is created and removed, as write_file_atomic would). Throws IoError
/// saying what is wrong and how to fix it.
void check_writable(const std::filesystem::path& path);

/// Refuses to write `output` over one of `inputs`: throws InputError when `output` is the same file
/// as an input (the same path, a symbolic link to it or a hard link of it), naming `option` (e.g.
/// `--rankfile`). Inputs or an output that do not exist yet are never the same file.
void check_output_not_input(const std::filesystem::path& output, std::string_view option,
                            const std::vector<std::filesystem::path>& inputs);

/// Writes `{"context": context, ...body}` as indented JSON, atomically.
void write_json_file(const std::filesystem::path& path, const Json& context, const Json& body);

/// Builds a CSV file whose first lines are the context block as `# key: value` comments.
class CsvWriter {
 public:
  /// Starts a CSV with the context block and the given column names.
  CsvWriter(const Json& context, const std::vector<std::string>& columns);
  /// Appends one row; throws InputError if the number of cells differs from the columns.
  void add_row(const std::vector<std::string>& cells);
  /// The file content so far.
  [[nodiscard]] const std::string& content() const noexcept { return text_; }
  /// Writes the content atomically to `path`.
  void write(const std::filesystem::path& path) const;

 private:
  std::size_t columns_;
  std::string text_;
};

/// Quotes a CSV cell when it contains a comma, quote or line break (RFC 4180).
[[nodiscard]] std::string csv_escape(std::string_view cell);

}  // namespace gridlock
