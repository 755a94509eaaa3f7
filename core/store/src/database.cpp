#include "shardwise/store/database.hpp"

#include "shardwise/store/schema.hpp"
#include "statement.hpp"

#include <sqlite3.h>

#include <thread>
#include <utility>

namespace shardwise::store {

using detail::execute;
using detail::Statement;

namespace {

int userVersion(sqlite3* db)
{
    Statement s(db, "PRAGMA user_version");
    return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

sqlite3* openConnection(const std::filesystem::path& path, int flags, const OpenOptions& options)
{
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close(db);
        throw StoreError("cannot open run store " + path.string() + ": " + why);
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, static_cast<int>(options.busyTimeout.count()));
    return db;
}

// Switching to WAL needs an exclusive lock for a moment; when another process is doing the same on
// a fresh file SQLite reports SQLITE_BUSY without consulting the busy handler, so wait here instead.
void enableWriteAheadLog(sqlite3* db, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        sqlite3_stmt* raw = nullptr;
        int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &raw, nullptr);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(raw);
        sqlite3_finalize(raw);
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            return;
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            detail::fail(db, rc, "switching the run store to write-ahead logging");
        if (std::chrono::steady_clock::now() > deadline)
            detail::fail(db, rc, "switching the run store to write-ahead logging");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

const Migration& migrationTo(int version)
{
    for (const auto& m : migrations())
        if (m.version == version)
            return m;
    throw StoreError("no migration to schema version " + std::to_string(version));
}

void migrate(sqlite3* db, const std::filesystem::path& path, int target)
{
    for (;;) {
        // user_version is re-read inside the write transaction: another process may have migrated
        // the file between our first look and taking the lock.
        execute(db, "BEGIN IMMEDIATE");
        try {
            const int version = userVersion(db);
            if (version >= target) {
                execute(db, "COMMIT");
                return;
            }
            const Migration& m = migrationTo(version + 1);
            try {
                execute(db, m.sql);
                execute(db, "PRAGMA user_version = " + std::to_string(m.version));
            } catch (const StoreError& e) {
                throw StoreError("migrating " + path.string() + " to schema version " + std::to_string(m.version)
                                 + " (" + std::string(m.description) + "): " + e.what());
            }
            execute(db, "COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

} // namespace

double currentUnixTime()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

Database Database::open(const std::filesystem::path& path, const OpenOptions& options)
{
    const int current = currentSchemaVersion();
    const int target = options.targetVersion < 0 ? current : options.targetVersion;
    if (target > current)
        throw StoreError("schema version " + std::to_string(target) + " is newer than this build knows ("
                         + std::to_string(current) + ")");

    Database d;
    d.m_path = path;
    if (options.readOnly) {
        d.m_db = openConnection(path, SQLITE_OPEN_READONLY, options);
        d.m_readOnly = true;
        d.m_readOnlyReason = "the run store " + path.string() + " was opened read-only";
        try {
            d.m_version = userVersion(d.m_db);
        } catch (const StoreError& e) {
            throw StoreError("cannot read run store " + path.string() + ": " + e.what());
        }
        return d;
    }

    std::error_code ec;
    if (path.has_parent_path() && !std::filesystem::exists(path.parent_path(), ec)) {
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec)
            throw StoreError("cannot create the folder " + path.parent_path().string() + " for the run store: "
                             + ec.message());
    }
    d.m_db = openConnection(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, options);
    int found = 0;
    try {
        found = userVersion(d.m_db);
    } catch (const StoreError& e) {
        throw StoreError("cannot read run store " + path.string() + ": " + e.what());
    }
    if (found > current) {
        // A newer Shardwise may have changed tables in ways this build would corrupt; reading is
        // safe because migrations only add.
        d.close();
        d.m_db = openConnection(path, SQLITE_OPEN_READONLY, options);
        d.m_version = found;
        d.m_readOnly = true;
        d.m_readOnlyReason = "the run store " + path.string() + " has schema version " + std::to_string(found)
                             + ", newer than this Shardwise understands (" + std::to_string(current)
                             + "); it was opened read-only, use a newer Shardwise to change it";
        return d;
    }
    enableWriteAheadLog(d.m_db, options.busyTimeout);
    // NORMAL is durable against a crashed or killed process in WAL mode; only an OS crash or power
    // loss can drop the last commits, and never leaves the file corrupt.
    execute(d.m_db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
    migrate(d.m_db, path, target);
    d.m_version = userVersion(d.m_db);
    return d;
}

Database::Database(Database&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_path(std::move(other.m_path))
    , m_version(other.m_version)
    , m_readOnly(other.m_readOnly)
    , m_readOnlyReason(std::move(other.m_readOnlyReason))
{
}

Database& Database::operator=(Database&& other) noexcept
{
    if (this != &other) {
        close();
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_version = other.m_version;
        m_readOnly = other.m_readOnly;
        m_readOnlyReason = std::move(other.m_readOnlyReason);
    }
    return *this;
}

Database::~Database() { close(); }

void Database::close() noexcept
{
    if (m_db)
        sqlite3_close_v2(m_db);
    m_db = nullptr;
}

void Database::requireWritable() const
{
    if (m_readOnly)
        throw StoreError("cannot write: " + m_readOnlyReason);
}

std::string Database::integrityCheck() const
{
    Statement s(m_db, "PRAGMA integrity_check");
    std::string result;
    while (s.step())
        result += (result.empty() ? "" : "\n") + s.text(0);
    Statement fk(m_db, "PRAGMA foreign_key_check");
    while (fk.step()) {
        if (result == "ok")
            result.clear();
        result += (result.empty() ? "" : "\n") + std::string("row ") + std::to_string(fk.integer(1)) + " of "
                  + fk.text(0) + " refers to a missing row of " + fk.text(2);
    }
    return result;
}

std::string Database::journalMode() const
{
    Statement s(m_db, "PRAGMA journal_mode");
    return s.step() ? s.text(0) : std::string();
}

bool Database::foreignKeysEnforced() const
{
    Statement s(m_db, "PRAGMA foreign_keys");
    return s.step() && s.integer(0) == 1;
}

WriteTransaction::WriteTransaction(Database& db)
    : m_db(db)
{
    db.requireWritable();
    execute(db.handle(), "BEGIN IMMEDIATE");
    m_open = true;
}

WriteTransaction::~WriteTransaction()
{
    if (m_open)
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit()
{
    execute(m_db.handle(), "COMMIT");
    m_open = false;
}

ReadTransaction::ReadTransaction(const Database& db)
    : m_db(db)
{
    execute(db.handle(), "BEGIN");
}

ReadTransaction::~ReadTransaction() { sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, nullptr); }

} // namespace shardwise::store
