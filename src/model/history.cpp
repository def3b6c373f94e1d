// The history database: opening, checking, migrating, adding and querying (docs/model.md, "History").
#include "gridlock/model/history.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <limits>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "detail/history_sqlite.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"

namespace gridlock::model {
namespace fs = std::filesystem;
using detail::Connection;
using detail::Statement;

namespace {

// Version 1 of the layout, kept verbatim: a new database is created at version 1 and migrated,
// so that every database, new or old, reaches the current layout by the same steps.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta(key, value) VALUES ('application', 'gridlock history'), ('schema_version', '1');
CREATE TABLE runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  added TEXT NOT NULL,
  source TEXT NOT NULL,
  schema TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  tool TEXT NOT NULL,
  mode TEXT NOT NULL,
  host TEXT NOT NULL,
  date TEXT NOT NULL,
  mpi_library TEXT NOT NULL,
  gridlock_version TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  seed TEXT,
  ranks INTEGER,
  notes TEXT NOT NULL,
  json TEXT NOT NULL);
CREATE TABLE metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, name)) WITHOUT ROWID;
CREATE INDEX metrics_by_name ON metrics(name, run_id, value);
PRAGMA application_id = 1196181587;
PRAGMA user_version = 1;
)sql";

// 1 -> 2: a content hash per run (duplicates are skipped) and the directions of metrics whose
// names do not tell them (version 1 knew directions from names only).
constexpr const char* kMigrate1To2 = R"sql(
ALTER TABLE runs ADD COLUMN content_hash INTEGER;
CREATE INDEX runs_by_hash ON runs(content_hash);
CREATE TABLE metric_info(name TEXT PRIMARY KEY, better TEXT NOT NULL) WITHOUT ROWID;
)sql";

// 2 -> 3: metrics stored run-major only, so that an add appends (the (name, run_id) index cost one
// page per metric name and add); the names with their run counts in a small table of their own;
// runs by schema for regress, which reads the baseline run by run among runs of the candidate's
// schema (metric names are schema-specific). The counts are taken before the index goes.
constexpr const char* kMigrate2To3 = R"sql(
CREATE TABLE metric_names(name TEXT PRIMARY KEY, runs INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO metric_names(name, runs) SELECT name, count(*) FROM metrics GROUP BY name;
DROP INDEX metrics_by_name;
CREATE INDEX runs_by_schema ON runs(schema);
)sql";

// 3 -> 4: the names with their run counts as name sets: the runs of one kind (every sweep of the
// same options) share one set of names, stored once with the number of its runs, so that an add
// counts its run in one row instead of one row per name (17,500 for a large sweep). The sets are
// filled from the stored metrics by migrate_3_to_4(), then metric_names goes.
constexpr const char* kMigrate3To4 = R"sql(
CREATE TABLE name_sets(
  id INTEGER PRIMARY KEY,
  digest BLOB NOT NULL UNIQUE,
  names INTEGER NOT NULL,
  runs INTEGER NOT NULL);
CREATE TABLE name_set_members(
  set_id INTEGER NOT NULL REFERENCES name_sets(id),
  name TEXT NOT NULL,
  PRIMARY KEY (set_id, name)) WITHOUT ROWID;
CREATE INDEX name_set_members_by_name ON name_set_members(name);
ALTER TABLE runs ADD COLUMN name_set INTEGER REFERENCES name_sets(id);
)sql";

// Below this many metrics still short of baseline values, regress looks each one up by primary
// key in a run; above, one ordered scan of the run's metrics is cheaper.
constexpr std::size_t kBaselineLookupMax = 32;

// Metric rows inserted per statement by add().
constexpr std::size_t kRowsPerInsert = 64;

static_assert(kHistoryApplicationId == 1196181587, "kSchemaV1 spells the application id out");

// Rolls back unless committed: an error in the middle of add() leaves the database as it was.
class Transaction {
 public:
  explicit Transaction(const Connection& db, const char* begin = "BEGIN IMMEDIATE") : db_(db) {
    db_.exec(begin);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (!committed_) {
      sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }
  void commit() {
    db_.exec("COMMIT");
    committed_ = true;
  }

 private:
  const Connection& db_;
  bool committed_ = false;
};

std::int64_t as_int64(std::uint64_t v) noexcept { return std::bit_cast<std::int64_t>(v); }

__extension__ typedef unsigned __int128 Uint128;  // NOLINT(modernize-use-using): __extension__ needs typedef

// The digest of a run's set of metric names: FNV-1a 128 over the names in byte order, each
// preceded by its length (so that no two lists of names give the same bytes), then their count.
// Two runs with equal digests are taken to have the same names without comparing them, so the
// digest must not collide in practice: 128 bits make an accidental collision among even 10^9
// distinct sets about 10^-21 likely. Hand-written: no hashing library is a dependency and SQLite
// exposes none; FNV-1a 128 is a fixed published algorithm, so stored digests stay valid across
// builds and platforms (std::hash promises neither).
class NameDigest {
 public:
  void add(std::string_view name) noexcept {
    mix_number(name.size());
    for (const char c : name) {
      mix(static_cast<unsigned char>(c));
    }
    ++names_;
  }
  [[nodiscard]] std::size_t names() const noexcept { return names_; }
  /// The 16 bytes stored in name_sets.digest, most significant first.
  [[nodiscard]] std::array<std::byte, 16> bytes() const noexcept {
    NameDigest last = *this;
    last.mix_number(names_);
    std::array<std::byte, 16> out{};
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<std::byte>(static_cast<unsigned>(last.hash_ >> (8 * (15 - i))) & 0xffU);
    }
    return out;
  }

 private:
  static constexpr Uint128 kOffset =
      (static_cast<Uint128>(0x6c62272e07bb0142ULL) << 64) | static_cast<Uint128>(0x62b821756295c58dULL);
  static constexpr Uint128 kPrime = (static_cast<Uint128>(0x0000000001000000ULL) << 64) | 0x13bU;

  void mix(unsigned char byte) noexcept {
    hash_ ^= byte;
    hash_ *= kPrime;
  }
  void mix_number(std::uint64_t n) noexcept {
    for (int i = 0; i < 8; ++i) {
      mix(static_cast<unsigned char>((n >> (8 * i)) & 0xffU));
    }
  }

  Uint128 hash_ = kOffset;
  std::size_t names_ = 0;
};

// A run's name set: finds it by the digest of the names and counts the run in it (one row), or
// creates it; the caller then stores a new set's members (store_members()).
class NameSets {
 public:
  explicit NameSets(const Connection& db)
      : find_(db, "SELECT id FROM name_sets WHERE digest = ?1"),
        count_(db, "UPDATE name_sets SET runs = runs + 1 WHERE id = ?1"),
        create_(db, "INSERT INTO name_sets(digest, names, runs) VALUES (?1, ?2, 1)"),
        // From the run's rows just stored, in their (name) order: appends to the members' key.
        members_(db,
                 "INSERT INTO name_set_members(set_id, name) SELECT ?1, name FROM metrics WHERE run_id = ?2"),
        db_(db) {}

  /// The set's id, and whether it was created (its members are still to be stored).
  std::pair<std::int64_t, bool> count_run(const NameDigest& names) {
    const std::array<std::byte, 16> digest = names.bytes();
    find_.reset();
    find_.bind_blob(1, digest);
    if (find_.step()) {
      const std::int64_t id = find_.int64(0);
      find_.reset();
      count_.reset();
      count_.bind(1, id);
      count_.step();
      return {id, false};
    }
    find_.reset();
    create_.reset();
    create_.bind_blob(1, digest);
    create_.bind(2, static_cast<std::int64_t>(names.names()));
    create_.step();
    return {sqlite3_last_insert_rowid(db_.get()), true};
  }

  /// Stores the members of a set just created: the metric names of `run`.
  void store_members(std::int64_t set, std::int64_t run) {
    members_.reset();
    members_.bind(1, set);
    members_.bind(2, run);
    members_.step();
  }

 private:
  Statement find_;
  Statement count_;
  Statement create_;
  Statement members_;
  const Connection& db_;
};

// The digest of `metrics`' names, which add() takes in name order (parse_result() gives them so);
// a caller's list in another order is digested in name order all the same.
NameDigest digest_of(const std::vector<Metric>& metrics) {
  NameDigest digest;
  const auto by_name = [](const Metric& a, const Metric& b) { return a.name < b.name; };
  if (std::is_sorted(metrics.begin(), metrics.end(), by_name)) {
    for (const Metric& m : metrics) {
      digest.add(m.name);
    }
    return digest;
  }
  std::vector<std::string_view> names;
  names.reserve(metrics.size());
  for (const Metric& m : metrics) {
    names.emplace_back(m.name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string_view name : names) {
    digest.add(name);
  }
  return digest;
}

Direction parse_direction(std::string_view text) noexcept {
  if (text == "lower") {
    return Direction::kLower;
  }
  if (text == "higher") {
    return Direction::kHigher;
  }
  return Direction::kUnknown;
}

std::int64_t sql_limit(std::size_t limit) {
  return limit == 0 ? -1
                    : static_cast<std::int64_t>(
                          std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));
}

constexpr const char* kRunColumns =
    "r.id, r.added, r.source, r.schema, r.schema_version, r.tool, r.mode, r.host, r.date, r.mpi_library, "
    "r.gridlock_version, r.git_commit, r.seed, r.ranks, r.notes, "
    "(SELECT count(*) FROM metrics m WHERE m.run_id = r.id)";

RunSummary read_summary(const Statement& s) {
  RunSummary r;
  r.id = s.int64(0);
  r.added = s.text(1);
  r.source = s.text(2);
  r.context.schema = s.text(3);
  r.context.schema_version = static_cast<int>(s.int64(4));
  r.context.tool = s.text(5);
  r.context.mode = s.text(6);
  r.context.host = s.text(7);
  r.context.date = s.text(8);
  r.context.mpi_library = s.text(9);
  r.context.gridlock_version = s.text(10);
  r.context.git_commit = s.text(11);
  if (!s.is_null(12)) {
    try {
      r.context.seed = std::stoull(s.text(12));
    } catch (const std::exception&) {
      r.context.seed.reset();
    }
  }
  if (!s.is_null(13)) {
    r.context.ranks = static_cast<std::uint64_t>(s.int64(13));
  }
  r.notes = s.text(14);
  r.metrics = static_cast<std::size_t>(s.int64(15));
  return r;
}

// A read-only connection to a WAL database needs its -shm file, which SQLite creates next to it:
// in a directory this process may not write, without one, reads fail (SQLITE_READONLY or
// SQLITE_CANTOPEN). Then nobody can write the database either, and it is opened immutable.
bool needs_immutable(const fs::path& file) {
  sqlite3* probe = nullptr;
  int rc = sqlite3_open_v2(file.c_str(), &probe, SQLITE_OPEN_READONLY, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_exec(probe, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  }
  sqlite3_close(probe);
  const int primary = rc & 0xff;
  std::error_code ec;
  return (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN) &&
         !fs::exists(fs::path(file.string() + "-wal"), ec);
}

bool is_file(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec);
}

// `file:PATH?immutable=1`, with the characters a URI gives a meaning escaped.
std::string immutable_uri(const fs::path& file) {
  std::string uri = "file:";
  for (const char c : fs::absolute(file).string()) {
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

struct History::Impl {
  Impl(const fs::path& file, HistoryOptions o)
      : options(o),
        immutable(o.read_only && is_file(file) && needs_immutable(file)),
        db(file, open_flags(file, o) | (immutable ? SQLITE_OPEN_URI : 0),
           immutable ? immutable_uri(file) : std::string()) {
    sqlite3_busy_handler(db.get(), &Impl::on_busy, this);
  }

  static int open_flags(const fs::path& file, const HistoryOptions& o) {
    std::error_code ec;
    const bool exists = fs::exists(file, ec);
    if (exists && fs::is_directory(file, ec)) {
      throw IoError(
          fmt::format("history database '{}' is a directory; give a file path to --db", file.string()));
    }
    if (!exists && !o.create) {
      throw InputError(
          fmt::format("no history database at '{}'; `gridlock history add RESULT.json --db {}` "
                      "creates it",
                      file.string(), file.string()));
    }
    if (o.read_only) {
      return SQLITE_OPEN_READONLY;
    }
    return SQLITE_OPEN_READWRITE | (o.create ? SQLITE_OPEN_CREATE : 0);
  }

  // SQLite's own busy timeout would do, but it cannot count the waits, which add() reports.
  static int on_busy(void* self, int count) {
    auto* impl = static_cast<Impl*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (count == 0) {
      impl->wait_started = now;
    }
    if (now - impl->wait_started >= impl->options.busy_timeout) {
      return 0;
    }
    ++impl->busy_waits;
    const auto pause = std::chrono::milliseconds(std::min(1 << std::min(count, 7), 100));
    std::this_thread::sleep_for(pause);
    return 1;
  }

  [[nodiscard]] std::int64_t scalar(const char* sql) const {
    Statement s(db, sql);
    return s.step() ? s.int64(0) : 0;
  }

  [[nodiscard]] bool has_table(const char* name) const {
    Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
    s.bind(1, std::string_view(name));
    return s.step() && s.int64(0) > 0;
  }

  [[nodiscard]] int stored_version() const {
    Statement s(db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (!s.step()) {
      throw InputError(
          fmt::format("history database '{}' has no schema version in its meta table; it was not "
                      "written by gridlock, or is damaged",
                      db.path().string()));
    }
    try {
      return std::stoi(s.text(0));
    } catch (const std::exception&) {
      throw InputError(fmt::format("history database '{}': schema version '{}' is not a number",
                                   db.path().string(), s.text(0)));
    }
  }

  // Checks what the file is, creates or migrates it. Every decision is taken again under the
  // write lock, since another process may be creating or migrating the same file right now.
  // True when a read-only connection is enough: the database holds gridlock's tables at this
  // gridlock's schema version (nothing to create or migrate).
  [[nodiscard]] bool ready_for_reading() const {
    check_identity();
    return scalar("SELECT count(*) FROM sqlite_master") > 0 && stored_version() == kHistorySchemaVersion;
  }

  // The connection's settings for reading (prepare() without creating, migrating or switching to WAL).
  void prepare_reading() {
    opened_version = stored_version();
    db.exec("PRAGMA cache_size = -65536");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA temp_store = MEMORY");
  }

  void prepare() {
    check_identity();
    if (scalar("SELECT count(*) FROM sqlite_master") == 0) {
      Transaction t(db);
      if (scalar("SELECT count(*) FROM sqlite_master") == 0) {
        db.exec(kSchemaV1);
      }
      t.commit();
      check_identity();
    }
    opened_version = stored_version();
    if (opened_version > kHistorySchemaVersion) {
      throw InputError(fmt::format(
          "history database '{}' has schema version {}, written by a newer gridlock; this gridlock knows "
          "versions up to {}: upgrade gridlock",
          db.path().string(), opened_version, kHistorySchemaVersion));
    }
    if (opened_version < kHistorySchemaVersion) {
      Transaction t(db);
      migrate(stored_version());
      t.commit();
    }
    // WAL: readers never block the writer and the writer never blocks readers (docs/model.md).
    enable_wal();
    // In WAL mode NORMAL syncs at checkpoints only: a power cut may lose the last adds, never the
    // database's consistency, and an add costs no fsync of its own.
    db.exec("PRAGMA synchronous = NORMAL");
    // A larger cache keeps the pages regress reads (64 MiB, per connection).
    db.exec("PRAGMA cache_size = -65536");
    db.exec("PRAGMA foreign_keys = ON");
    // The first add of a kind of run inserts its name set's members (17,500 for a large sweep) in a
    // statement that keeps a statement journal; in memory rather than a temporary file.
    db.exec("PRAGMA temp_store = MEMORY");
  }

  // Switching a database to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY at once,
  // without the busy handler, while another connection reads it, as every other process opening
  // the same new file does (CI: cli.history_concurrent). Retries until the busy timeout; the mode
  // is stored in the file, so another opener's switch ends the wait as well.
  void enable_wal() {
    for (int attempt = 0;; ++attempt) {
      std::string mode;
      const auto read_mode = [](void* out, int columns, char** values, char** /*names*/) {
        if (columns > 0 && values[0] != nullptr) {
          *static_cast<std::string*>(out) = values[0];
        }
        return 0;
      };
      const int rc = sqlite3_exec(db.get(), "PRAGMA journal_mode = WAL", read_mode, &mode, nullptr);
      if (rc == SQLITE_OK && mode == "wal") {
        return;
      }
      const int primary = rc & 0xff;
      if (rc != SQLITE_OK && primary != SQLITE_BUSY && primary != SQLITE_LOCKED) {
        db.fail(rc, "switching the database to WAL mode");
      }
      // The same wait as SQLite's busy handler: its timeout, its pauses, counted in busy_waits.
      if (on_busy(this, attempt) == 0) {
        if (rc == SQLITE_OK) {
          throw IoError(fmt::format(
              "history database '{}' stays in journal mode '{}': SQLite cannot switch it to WAL, which "
              "the history needs (a file system without shared memory or locking?); put --db on a "
              "local file system",
              db.path().string(), mode));
        }
        db.fail(rc, "switching the database to WAL mode");
      }
    }
  }

  void check_identity() const {
    // One read transaction for the three reads: without it, another process creating the same
    // file can commit between them, and a new database reads as application 0 with 9 tables.
    Transaction snapshot(db, "BEGIN");
    const std::int64_t app = scalar("PRAGMA application_id");
    const std::int64_t tables = scalar("SELECT count(*) FROM sqlite_master");
    const bool has_meta = has_table("meta");
    snapshot.commit();
    if (app == kHistoryApplicationId && has_meta) {
      return;
    }
    if (app == 0 && tables == 0) {
      return;
    }
    if (app != 0 && app != kHistoryApplicationId) {
      throw InputError(fmt::format(
          "'{}' is an SQLite database of another application (application_id {:#x}, not gridlock history's "
          "{:#x}); give another --db path",
          db.path().string(), app, kHistoryApplicationId));
    }
    throw InputError(
        fmt::format("'{}' is an SQLite database but not a gridlock history (it has {} table{} and no "
                    "gridlock 'meta' table); "
                    "give another --db path",
                    db.path().string(), tables, tables == 1 ? "" : "s"));
  }

  void migrate(int from) const {
    for (int version = from; version < kHistorySchemaVersion; ++version) {
      if (version == 1) {
        migrate_1_to_2();
      } else if (version == 2) {
        db.exec(kMigrate2To3);
      } else if (version == 3) {
        migrate_3_to_4();
      }
      Statement set(db, "UPDATE meta SET value = ?1 WHERE key = 'schema_version'");
      set.bind(1, std::to_string(version + 1));
      set.step();
      db.exec(fmt::format("PRAGMA user_version = {}", version + 1).c_str());
    }
  }

  void migrate_1_to_2() const {
    db.exec(kMigrate1To2);
    Statement runs(db, "SELECT id, json FROM runs");
    Statement set(db, "UPDATE runs SET content_hash = ?1 WHERE id = ?2");
    while (runs.step()) {
      set.reset();
      set.bind(1, as_int64(fnv1a64(runs.text(1))));
      set.bind(2, runs.int64(0));
      set.step();
    }
  }

  // Every run's name set from its stored metrics, read in (run_id, name) order, the primary key's.
  void migrate_3_to_4() const {
    db.exec(kMigrate3To4);
    std::vector<std::int64_t> ids;
    Statement runs(db, "SELECT id FROM runs ORDER BY id");
    while (runs.step()) {
      ids.push_back(runs.int64(0));
    }
    Statement names(db, "SELECT name FROM metrics WHERE run_id = ?1 ORDER BY name");
    Statement set_of(db, "UPDATE runs SET name_set = ?1 WHERE id = ?2");
    NameSets sets(db);
    for (const std::int64_t id : ids) {
      NameDigest digest;
      names.reset();
      names.bind(1, id);
      while (names.step()) {
        digest.add(names.text_view(0));
      }
      names.reset();
      const auto [set, created] = sets.count_run(digest);
      if (created) {
        sets.store_members(set, id);
      }
      set_of.reset();
      set_of.bind(1, set);
      set_of.bind(2, id);
      set_of.step();
    }
    db.exec("DROP TABLE metric_names");
  }

  // The baseline values of each of `metrics` (names with the candidate's values): from the runs
  // before `run` of the same schema, newest first, the first `last` (0: all) of each metric.
  // Reads run by run and stops when every metric has its values, so that a baseline of N runs
  // costs N runs' metrics however long the history is.
  [[nodiscard]] std::vector<std::vector<double>> baselines(
      std::int64_t run, const std::vector<std::pair<std::string, double>>& metrics, std::size_t last) const {
    std::vector<std::vector<double>> out(metrics.size());
    std::vector<std::size_t> order(metrics.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    // SQLite's BINARY collation and std::string both compare bytes as unsigned: one order for the merge.
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return metrics[a].first < metrics[b].first; });
    std::size_t open = metrics.size();
    const auto take = [&](std::size_t i, double value) {
      out[i].push_back(value);
      if (out[i].size() == last) {
        --open;
      }
    };
    const auto wanted = [&](std::size_t i) { return last == 0 || out[i].size() < last; };
    Statement runs(db,
                   "SELECT id FROM runs WHERE schema = (SELECT schema FROM runs WHERE id = ?1) AND id < ?1 "
                   "ORDER BY id DESC");
    runs.bind(1, run);
    Statement one(db, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2");
    Statement all(db, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name");
    while (open > 0 && runs.step()) {
      const std::int64_t id = runs.int64(0);
      if (open <= kBaselineLookupMax) {
        for (const std::size_t i : order) {
          if (!wanted(i)) {
            continue;
          }
          one.reset();
          one.bind(1, id);
          one.bind(2, std::string_view(metrics[i].first));
          if (one.step()) {
            take(i, one.real(0));
          }
        }
        continue;
      }
      all.reset();
      all.bind(1, id);
      std::size_t k = 0;
      while (k < order.size() && all.step()) {
        const std::string_view name = all.text_view(0);
        while (k < order.size() && metrics[order[k]].first < name) {
          ++k;
        }
        // Equal names (a metric asked for twice) each take the value.
        for (std::size_t j = k; j < order.size() && metrics[order[j]].first == name; ++j) {
          if (wanted(order[j])) {
            take(order[j], all.real(1));
          }
        }
      }
    }
    return out;
  }

  HistoryOptions options;
  bool immutable = false;  // opened with immutable=1 (a read-only directory); set before db
  Connection db;
  std::chrono::steady_clock::time_point wait_started{};
  std::uint64_t busy_waits = 0;
  int opened_version = 0;
};

History::History(const fs::path& path, HistoryOptions options)
    : impl_(std::make_unique<Impl>(path, options)) {
  if (!options.read_only) {
    impl_->prepare();
    return;
  }
  if (impl_->ready_for_reading()) {
    impl_->prepare_reading();
    return;
  }
  // An empty or older database: created or migrated as a writing command would, if it can be.
  HistoryOptions writable = options;
  writable.read_only = false;
  impl_.reset();
  try {
    impl_ = std::make_unique<Impl>(path, writable);
    impl_->prepare();
  } catch (const IoError& e) {
    throw InputError(fmt::format(
        "history database '{}' is empty or from an older gridlock and must be set up or migrated before "
        "it is read, which needs write access ({}); run `gridlock history add` on it where it can be "
        "written",
        path.string(), e.what()));
  }
}
History::History(History&&) noexcept = default;
History& History::operator=(History&&) noexcept = default;
History::~History() = default;

const fs::path& History::path() const noexcept { return impl_->db.path(); }

int History::schema_version() const { return impl_->stored_version(); }

int History::opened_schema_version() const noexcept { return impl_->opened_version; }

AddReport History::add(const std::vector<ParsedResult>& results) {
  const Connection& db = impl_->db;
  const std::uint64_t waits_before = impl_->busy_waits;
  AddReport report;
  Transaction t(db);
  Statement find(db, "SELECT id, json FROM runs WHERE content_hash = ?1");
  Statement run(
      db,
      "INSERT INTO runs(added, source, schema, schema_version, tool, mode, host, date, mpi_library, "
      "gridlock_version, git_commit, seed, ranks, notes, json, content_hash, name_set) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
  Statement metric(db, "INSERT INTO metrics(run_id, name, value) VALUES (?1, ?2, ?3)");
  // Rows in blocks: one step per block instead of one per metric (17,500 for a large sweep).
  std::string block_sql = "INSERT INTO metrics(run_id, name, value) VALUES (?, ?, ?)";
  for (std::size_t k = 1; k < kRowsPerInsert; ++k) {
    block_sql += ", (?, ?, ?)";
  }
  Statement block(db, block_sql.c_str());
  NameSets sets(db);
  Statement info(db,
                 "INSERT INTO metric_info(name, better) VALUES (?1, ?2) "
                 "ON CONFLICT(name) DO UPDATE SET better = excluded.better");
  const std::string added = utc_timestamp();
  for (const ParsedResult& r : results) {
    AddedRun out{r.source, 0, false, 0};
    find.reset();
    find.bind(1, as_int64(r.content_hash));
    while (find.step()) {
      if (find.text(1) == r.json) {
        out.id = find.int64(0);
        out.duplicate = true;
        break;
      }
    }
    find.reset();
    if (out.duplicate) {
      report.runs.push_back(out);
      continue;
    }
    std::string notes;
    for (const std::string& n : r.notes) {
      notes += (notes.empty() ? "" : "; ") + n;
    }
    const auto [set, created] = sets.count_run(digest_of(r.metrics));
    const RunContext& c = r.context;
    run.reset();
    run.bind(1, std::string_view(added));
    run.bind(2, std::string_view(r.source));
    run.bind(3, std::string_view(c.schema));
    run.bind(4, static_cast<std::int64_t>(c.schema_version));
    run.bind(5, std::string_view(c.tool));
    run.bind(6, std::string_view(c.mode));
    run.bind(7, std::string_view(c.host));
    run.bind(8, std::string_view(c.date));
    run.bind(9, std::string_view(c.mpi_library));
    run.bind(10, std::string_view(c.gridlock_version));
    run.bind(11, std::string_view(c.git_commit));
    if (c.seed) {
      run.bind(12, std::string_view(std::to_string(*c.seed)));
    } else {
      run.bind_null(12);
    }
    if (c.ranks && *c.ranks <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      run.bind(13, static_cast<std::int64_t>(*c.ranks));
    } else {
      run.bind_null(13);
    }
    run.bind(14, std::string_view(notes));
    // The result's text and names outlive the step: bound without SQLite's copy.
    run.bind_static(15, r.json);
    run.bind(16, as_int64(r.content_hash));
    run.bind(17, set);
    run.step();
    out.id = sqlite3_last_insert_rowid(db.get());
    std::size_t first = 0;
    for (; first + kRowsPerInsert <= r.metrics.size(); first += kRowsPerInsert) {
      block.reset();
      for (std::size_t k = 0; k < kRowsPerInsert; ++k) {
        const Metric& m = r.metrics[first + k];
        const int at = static_cast<int>(3 * k);
        block.bind(at + 1, out.id);
        block.bind_static(at + 2, m.name);
        block.bind(at + 3, m.value);
      }
      block.step();
    }
    for (; first < r.metrics.size(); ++first) {
      const Metric& m = r.metrics[first];
      metric.reset();
      metric.bind(1, out.id);
      metric.bind_static(2, m.name);
      metric.bind(3, m.value);
      metric.step();
    }
    for (const Metric& m : r.metrics) {
      // Only directions the name does not tell are kept: a sweep adds none of these rows.
      if (m.better != Direction::kUnknown && m.better != direction_from_name(m.name)) {
        info.reset();
        info.bind(1, std::string_view(m.name));
        info.bind(2, direction_name(m.better));
        info.step();
      }
    }
    if (created) {
      sets.store_members(set, out.id);
    }
    out.metrics = r.metrics.size();
    report.runs.push_back(out);
  }
  t.commit();
  report.busy_waits = impl_->busy_waits - waits_before;
  return report;
}

std::vector<RunSummary> History::list(std::size_t limit) const {
  Statement s(impl_->db,
              fmt::format("SELECT {} FROM runs r ORDER BY r.id DESC LIMIT ?1", kRunColumns).c_str());
  s.bind(1, sql_limit(limit));
  std::vector<RunSummary> out;
  while (s.step()) {
    out.push_back(read_summary(s));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::size_t History::count() const {
  return static_cast<std::size_t>(impl_->scalar("SELECT count(*) FROM runs"));
}

std::optional<StoredRun> History::get(std::int64_t id) const {
  Statement s(impl_->db, fmt::format("SELECT {}, r.json FROM runs r WHERE r.id = ?1", kRunColumns).c_str());
  s.bind(1, id);
  if (!s.step()) {
    return std::nullopt;
  }
  StoredRun run;
  run.summary = read_summary(s);
  run.json = s.text(16);
  Statement m(impl_->db,
              "SELECT m.name, m.value, i.better FROM metrics m LEFT JOIN metric_info i ON i.name = m.name "
              "WHERE m.run_id = ?1 ORDER BY m.name");
  m.bind(1, id);
  while (m.step()) {
    const std::string name = m.text(0);
    const Direction d = m.is_null(2) ? direction_from_name(name) : parse_direction(m.text(2));
    run.metrics.push_back(Metric{name, m.real(1), d});
  }
  return run;
}

std::vector<TrendPoint> History::trend(std::string_view metric, std::size_t limit) const {
  Statement s(impl_->db,
              // One primary-key lookup per run, newest first (CROSS JOIN keeps runs the outer loop:
              // metrics has no index by name).
              "SELECT r.id, r.date, r.host, m.value FROM runs r CROSS JOIN metrics m "
              "ON m.run_id = r.id AND m.name = ?1 ORDER BY r.id DESC LIMIT ?2");
  s.bind(1, metric);
  s.bind(2, sql_limit(limit));
  std::vector<TrendPoint> out;
  while (s.step()) {
    out.push_back(TrendPoint{s.int64(0), s.text(1), s.text(2), s.real(3)});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, std::size_t>> History::metric_names(std::string_view prefix) const {
  // A range on the members' index by name rather than LIKE, whose wildcards '_' and '%' occur in
  // metric names; a name's runs are those of the sets that hold it.
  Statement s(impl_->db,
              "SELECT m.name, sum(s.runs) FROM name_set_members m JOIN name_sets s ON s.id = m.set_id "
              "WHERE m.name >= ?1 AND m.name < ?1 || x'f48fbfbf' GROUP BY m.name HAVING sum(s.runs) > 0 "
              "ORDER BY m.name");
  s.bind(1, prefix);
  std::vector<std::pair<std::string, std::size_t>> out;
  while (s.step()) {
    out.emplace_back(s.text(0), static_cast<std::size_t>(s.int64(1)));
  }
  return out;
}

Direction History::direction(std::string_view metric) const {
  Statement s(impl_->db, "SELECT better FROM metric_info WHERE name = ?1");
  s.bind(1, metric);
  return s.step() ? parse_direction(s.text(0)) : direction_from_name(metric);
}

RegressReport History::regress(const RegressOptions& options) const {
  const Connection& db = impl_->db;
  // One read snapshot: the same runs throughout, and one lock for the thousands of lookups (in
  // autocommit each statement takes and drops the file lock).
  Transaction snapshot(db, "BEGIN");
  RegressReport report;
  report.options = options;
  if (options.run) {
    Statement s(db, "SELECT count(*) FROM runs WHERE id = ?1");
    s.bind(1, *options.run);
    if (!s.step() || s.int64(0) == 0) {
      throw InputError(
          fmt::format("history database '{}' has no run {}; `gridlock history list` shows the runs",
                      db.path().string(), *options.run));
    }
    report.run = *options.run;
  } else {
    report.run = impl_->scalar("SELECT coalesce(max(id), 0) FROM runs");
    if (report.run == 0) {
      throw InputError(
          fmt::format("history database '{}' holds no runs: nothing to check", db.path().string()));
    }
  }
  std::vector<std::pair<std::string, double>> candidate;
  Statement values(db, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name");
  values.bind(1, report.run);
  while (values.step()) {
    candidate.emplace_back(values.text(0), values.real(1));
  }
  if (!options.metrics.empty()) {
    std::vector<std::pair<std::string, double>> wanted;
    for (const std::string& name : options.metrics) {
      const auto it =
          std::find_if(candidate.begin(), candidate.end(), [&](const auto& p) { return p.first == name; });
      if (it == candidate.end()) {
        throw InputError(
            fmt::format("run {} has no metric '{}'; `gridlock history show {}` lists its metrics", report.run,
                        name, report.run));
      }
      wanted.push_back(*it);
    }
    candidate = std::move(wanted);
  }
  const std::vector<std::vector<double>> baselines =
      impl_->baselines(report.run, candidate, options.baseline.last);
  // One prepared lookup for every metric (direction() prepares one per call).
  Statement info(db, "SELECT better FROM metric_info WHERE name = ?1");
  for (std::size_t i = 0; i < candidate.size(); ++i) {
    const auto& [name, x] = candidate[i];
    RegressRow row;
    row.metric = name;
    row.value = x;
    info.reset();
    info.bind_static(1, name);
    row.better = info.step() ? parse_direction(info.text(0)) : direction_from_name(name);
    const std::vector<double>& baseline = baselines[i];
    row.baseline_runs = baseline.size();
    if (baseline.size() < std::max<std::size_t>(options.min_baseline, 1)) {
      row.skipped = true;
      report.rows.push_back(row);
      continue;
    }
    row.median = median_of(baseline);
    row.mad = mad_of(baseline, row.median);
    const double diff = x - row.median;
    const double scale = 1.4826 * row.mad;
    const double inf = std::numeric_limits<double>::infinity();
    row.robust_z = scale > 0 ? diff / scale : (diff == 0 ? 0 : std::copysign(inf, diff));
    row.change = row.median != 0 ? diff / std::abs(row.median) : (diff == 0 ? 0 : std::copysign(inf, diff));
    row.flagged = std::abs(diff) > options.threshold * scale && std::abs(row.change) > options.min_change;
    report.rows.push_back(row);
  }
  return report;
}

std::string_view RegressRow::verdict() const noexcept {
  if (skipped) {
    return "skipped";
  }
  if (!flagged) {
    return "ok";
  }
  const double diff = value - median;
  switch (better) {
    case Direction::kLower:
      return diff > 0 ? "worse" : "better";
    case Direction::kHigher:
      return diff < 0 ? "worse" : "better";
    case Direction::kUnknown:
      break;
  }
  return "changed";
}

bool RegressRow::regression() const noexcept {
  const std::string_view v = verdict();
  return v == "worse" || v == "changed";
}

std::size_t RegressReport::regressions() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const RegressRow& r) { return r.regression(); }));
}

std::string RegressReport::test_description() const {
  return fmt::format(
      "run {} against {} (at least {} values per metric): flagged when |x - median| > {} x 1.4826 x MAD "
      "(robust z-score) and |x - median| / |median| > {}%",
      run,
      options.baseline.last == 0
          ? std::string("every earlier run")
          : fmt::format("the last {} earlier runs with the metric", options.baseline.last),
      options.min_baseline, options.threshold, 100.0 * options.min_change);
}

Baseline parse_baseline(std::string_view text) {
  if (text == "all") {
    return Baseline{0};
  }
  if (text.starts_with("last:")) {
    const std::string_view digits = text.substr(5);
    std::size_t n = 0;
    bool ok = !digits.empty() && digits.size() <= 9;
    for (const char c : digits) {
      ok = ok && c >= '0' && c <= '9';
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    if (ok && n >= 3) {
      return Baseline{n};
    }
  }
  throw InputError(fmt::format(
      "--baseline '{}': give last:N (the last N earlier runs, N >= 3, e.g. last:10) or all", text));
}

double parse_min_change(std::string_view text) {
  std::string digits(text);
  if (!digits.empty() && digits.back() == '%') {
    digits.pop_back();
  }
  // std::stod, as the option has always been read: leading blanks and a '+' are accepted.
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(digits, &used);
    if (used != digits.size()) {
      value = -1;
    }
  } catch (const std::exception&) {
    value = -1;
  }
  if (!(value >= 0) || value > 1000) {
    throw InputError(
        fmt::format("--min-change '{}': give a percentage from 0 to 1000, e.g. --min-change 5%", text));
  }
  return value / 100.0;
}

}  // namespace gridlock::model
