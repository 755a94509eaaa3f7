#include "shardwise/store/database.hpp"

#include "shardwise/store/schema.hpp"
#include "statement.hpp"
#include "writer_liveness.hpp"

#include <sqlite3.h>

#include <cctype>
#include <functional>
#include <thread>
#include <utility>

#include <unistd.h>

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
    detail::registerWriterLiveness(db);
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
                throw StoreError("migrating " + path.string() + " to schema version " + std::to_string(m.version) + " ("
                                 + std::string(m.description) + "): " + e.what());
            }
            execute(db, "COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

// PRAGMA quick_check before anything writes: a damaged file is refused whole, so neither a migration
// nor a recorded run lands in it and spreads the damage. quick_check reads every page (O(size)) but
// skips the index-content cross-check of integrity_check, so opening stays fast on large stores.
void refuseCorrupt(sqlite3* db, const std::filesystem::path& path)
{
    std::string problems;
    try {
        Statement s(db, "PRAGMA quick_check(5)");
        while (s.step())
            problems += (problems.empty() ? "" : "; ") + s.text(0);
    } catch (const StoreError& e) {
        problems = e.what();
    }
    if (problems != "ok")
        throw StoreError("the run store " + path.string() + " is corrupt (PRAGMA quick_check: " + problems
                         + "); it was not opened and nothing was written to it: restore it from a backup or move it "
                           "aside to start a new store");
}

bool writable(const std::filesystem::path& path)
{
    // WAL mode creates the -wal and -shm files beside the store, so its folder must be writable too.
    const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    return ::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
}

// "file:<path>?immutable=1", percent-encoding what a URI path cannot hold as is.
std::filesystem::path immutableUri(const std::filesystem::path& path)
{
    static const char* hex = "0123456789ABCDEF";
    std::string uri = "file:";
    for (const unsigned char c : std::filesystem::absolute(path).string()) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            uri += static_cast<char>(c);
        } else {
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        }
    }
    return uri + "?immutable=1";
}

// A new store is built under a private name and linked into place complete (WAL on, migrated), so a
// store path never holds an empty file that Shardwise made: an empty file there is a store that was
// truncated or replaced, and is reported instead of silently becoming a fresh store.
void createStore(const std::filesystem::path& path, const OpenOptions& options, int target)
{
    const std::filesystem::path building = path.string() + ".creating-" + std::to_string(::getpid()) + "-"
        + std::to_string(std::hash<std::thread::id> {}(std::this_thread::get_id()));
    std::error_code ec;
    std::filesystem::remove(building, ec);
    {
        sqlite3* db = openConnection(building, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, options);
        try {
            enableWriteAheadLog(db, options.busyTimeout);
            execute(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
            migrate(db, path, target);
        } catch (...) {
            sqlite3_close_v2(db);
            std::filesystem::remove(building, ec);
            throw;
        }
        // The last connection's close checkpoints the WAL into the file and deletes it.
        sqlite3_close_v2(db);
    }
    // A hard link never replaces a store that another process created meanwhile; that one is used.
    std::filesystem::create_hard_link(building, path, ec);
    if (ec && !std::filesystem::exists(path))
        std::filesystem::rename(building, path, ec); // a file system without hard links
    if (ec && !std::filesystem::exists(path))
        throw StoreError("cannot create the run store " + path.string() + ": " + ec.message());
    std::filesystem::remove(building, ec);
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
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (exists && std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec)
        throw StoreError("the run store " + path.string()
                         + " is an empty file (0 bytes): the store that was there "
                           "has been truncated or replaced, so it is not silently started afresh; restore it from a "
                           "backup, or remove the file to start a new store");
    const auto openReadOnly = [&](std::string reason) {
        d.m_db = openConnection(path, SQLITE_OPEN_READONLY, options);
        d.m_readOnly = true;
        d.m_readOnlyReason = std::move(reason);
        try {
            d.m_version = userVersion(d.m_db);
        } catch (const StoreError& e) {
            // A WAL store in a folder this user cannot write, with no -wal/-shm beside it, can only be
            // read as immutable: nobody can be writing it then, as a writer would have made its -wal.
            if (std::filesystem::exists(path.string() + "-wal", ec) || writable(path))
                throw StoreError("cannot read run store " + path.string() + ": " + e.what());
            d.close();
            d.m_db = openConnection(immutableUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, options);
            try {
                d.m_version = userVersion(d.m_db);
            } catch (const StoreError& again) {
                throw StoreError("cannot read run store " + path.string() + ": " + again.what());
            }
        }
        refuseCorrupt(d.m_db, path);
    };
    if (options.readOnly) {
        openReadOnly("the run store " + path.string() + " was opened read-only");
        return d;
    }
    if (exists && !writable(path)) {
        openReadOnly("the run store " + path.string()
                     + " is not writable (it or its folder is read-only to this "
                       "user); it was opened read-only");
        return d;
    }

    if (!exists) {
        if (path.has_parent_path() && !std::filesystem::exists(path.parent_path(), ec)) {
            std::filesystem::create_directories(path.parent_path(), ec);
            if (ec)
                throw StoreError("cannot create the folder " + path.parent_path().string()
                                 + " for the run store: " + ec.message());
        }
        createStore(path, options, target);
    }
    d.m_db = openConnection(path, SQLITE_OPEN_READWRITE, options);
    int found = 0;
    try {
        found = userVersion(d.m_db);
    } catch (const StoreError& e) {
        throw StoreError("cannot read run store " + path.string() + ": " + e.what());
    }
    refuseCorrupt(d.m_db, path);
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

Database::~Database()
{
    close();
}

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

ReadTransaction::~ReadTransaction()
{
    sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, nullptr);
}

} // namespace shardwise::store
