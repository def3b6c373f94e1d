#pragma once
// Small RAII wrappers over SQLite's C API for the history: a connection and prepared statements
// with bound parameters only (no SQL is ever built from values). Every error names the file.

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace gridlock::model::detail {

/// An open SQLite connection; closes on destruction.
class Connection {
 public:
  /// Opens `path` with the given sqlite3_open_v2 flags, or the URI `uri` naming it (flags with
  /// SQLITE_OPEN_URI) when one is given. Throws IoError naming the file.
  Connection(const std::filesystem::path& path, int flags, const std::string& uri = {});
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();
  /// The raw handle.
  [[nodiscard]] sqlite3* get() const noexcept { return db_; }
  /// The file.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// Runs SQL without parameters (schema statements, PRAGMAs, BEGIN/COMMIT).
  void exec(const char* sql) const;
  /// Throws the error that SQLite result code `rc` means for this file, with `doing` as context.
  [[noreturn]] void fail(int rc, std::string_view doing) const;

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

/// A prepared statement; finalised on destruction.
class Statement {
 public:
  /// Prepares `sql` on `connection`.
  Statement(const Connection& connection, const char* sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();
  /// Binds parameter `index` (1-based).
  void bind(int index, std::int64_t value);
  /// Binds a double.
  void bind(int index, double value);
  /// Binds text (copied by SQLite).
  void bind(int index, std::string_view value);
  /// Binds text without a copy: `value` must stay alive and unchanged until the next step() or
  /// reset() of this statement has returned.
  void bind_static(int index, std::string_view value);
  /// Binds a blob (copied by SQLite).
  void bind_blob(int index, std::span<const std::byte> value);
  /// Binds NULL.
  void bind_null(int index);
  /// Steps: true when a row is available, false when done. Throws on errors.
  bool step();
  /// Resets for another run with new bindings.
  void reset();
  /// Column accessors of the current row (0-based).
  [[nodiscard]] std::int64_t int64(int column) const;
  /// Double column.
  [[nodiscard]] double real(int column) const;
  /// Text column ("" for NULL).
  [[nodiscard]] std::string text(int column) const;
  /// Text column without a copy, valid until the next step() or reset() ("" for NULL).
  [[nodiscard]] std::string_view text_view(int column) const;
  /// True when the column is NULL.
  [[nodiscard]] bool is_null(int column) const;

 private:
  const Connection* connection_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace gridlock::model::detail
