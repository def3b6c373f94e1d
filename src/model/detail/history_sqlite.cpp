#include "detail/history_sqlite.hpp"

#include <fmt/format.h>

#include "gridlock/core/error.hpp"

namespace gridlock::model::detail {

Connection::Connection(const std::filesystem::path& path, int flags, const std::string& uri) : path_(path) {
  const int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw IoError(fmt::format("cannot open history database '{}': {}; check the path and permissions",
                              path.string(), message));
  }
  sqlite3_extended_result_codes(db_, 0);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::exec(const char* sql) const {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    sqlite3_free(message);
    fail(rc, sql);
  }
}

void Connection::fail(int rc, std::string_view doing) const {
  const std::string file = path_.string();
  const std::string message = sqlite3_errmsg(db_);
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
      throw InputError(fmt::format(
          "'{}' is not a gridlock history database: it is not an SQLite database (a corrupt file, or "
          "another kind of file); give another --db path, or move the file away to start a new history",
          file));
    case SQLITE_CORRUPT:
      throw InputError(
          fmt::format("history database '{}' is corrupt ({}); restore it from a backup, or recover it with "
                      "`sqlite3 '{}' .recover`",
                      file, message, file));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw IoError(fmt::format(
          "history database '{}' is locked by another process beyond the busy timeout ({}); try again "
          "later, or raise --busy-timeout",
          file, message));
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      throw IoError(
          fmt::format("cannot write history database '{}': {}; check the permissions of the file "
                      "and of its directory (SQLite writes '{}-wal' and '{}-shm' beside it)",
                      file, message, file, file));
    default:
      throw IoError(fmt::format("history database '{}': {} (while {})", file, message, doing));
  }
}

Statement::Statement(const Connection& connection, const char* sql) : connection_(&connection) {
  const int rc = sqlite3_prepare_v2(connection.get(), sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    connection.fail(rc, "preparing a statement");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

void Statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

void Statement::bind(int index, std::string_view value) {
  const int rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

void Statement::bind_static(int index, std::string_view value) {
  const int rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

void Statement::bind_blob(int index, std::span<const std::byte> value) {
  const int rc = sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

void Statement::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) {
    connection_->fail(rc, "binding a parameter");
  }
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  sqlite3_reset(stmt_);
  connection_->fail(rc, "running a statement");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string_view Statement::text_view(int column) const {
  const auto* bytes = sqlite3_column_text(stmt_, column);
  if (bytes == nullptr) {
    return {};
  }
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  return {reinterpret_cast<const char*>(bytes), size};
}

std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(stmt_, column);
  if (bytes == nullptr) {
    return {};
  }
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  return {reinterpret_cast<const char*>(bytes), size};
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

}  // namespace gridlock::model::detail
