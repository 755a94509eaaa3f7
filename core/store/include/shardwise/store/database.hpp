#pragma once
// One connection to the run store (an SQLite file). Opening applies the pending schema migrations;
// a file written by a newer Shardwise is opened read-only and every write is refused with a message
// that says why. Each process or thread uses its own Database.

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>

struct sqlite3;

namespace shardwise::store {

class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct OpenOptions {
    // How long a writer waits for another writer's transaction before giving up. Transactions in the
    // store last milliseconds, so a long wait means a stuck process, not ordinary contention.
    std::chrono::milliseconds busyTimeout { 30'000 };
    bool readOnly = false;  // never write, even when the file is writable
    int targetVersion = -1; // migrate only up to this schema version; -1 = the current one
};

class Database {
public:
    // Creates the file (and its folder) when missing. Throws StoreError naming the path.
    static Database open(const std::filesystem::path& path, const OpenOptions& options = {});

    Database(Database&& other) noexcept;
    Database& operator=(Database&& other) noexcept;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    ~Database();

    const std::filesystem::path& path() const { return m_path; }
    int schemaVersion() const { return m_version; }
    bool readOnly() const { return m_readOnly; }
    // Why the database is read-only; empty when it is writable.
    const std::string& readOnlyReason() const { return m_readOnlyReason; }
    // Throws StoreError carrying readOnlyReason() when the database may not be written.
    void requireWritable() const;

    // "ok" when both PRAGMA integrity_check and PRAGMA foreign_key_check find nothing wrong, else
    // the problems they list, one per line.
    std::string integrityCheck() const;
    std::string journalMode() const; // "wal" for a writable store
    bool foreignKeysEnforced() const;

    sqlite3* handle() const { return m_db; }

private:
    Database() = default;
    void close() noexcept;

    sqlite3* m_db = nullptr;
    std::filesystem::path m_path;
    int m_version = 0;
    bool m_readOnly = false;
    std::string m_readOnlyReason;
};

// BEGIN IMMEDIATE: takes the write lock up front so a writer waits (busy timeout) at the start
// instead of failing with SQLITE_BUSY when a read would have to be upgraded to a write mid-way.
// Rolls back unless commit() was called.
class WriteTransaction {
public:
    explicit WriteTransaction(Database& db);
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    ~WriteTransaction();
    void commit();

private:
    Database& m_db;
    bool m_open = false;
};

// A deferred read transaction: several queries see one consistent snapshot.
class ReadTransaction {
public:
    explicit ReadTransaction(const Database& db);
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;
    ~ReadTransaction();

private:
    const Database& m_db;
};

// Unix seconds with sub-second resolution, the time base of every stored timestamp.
double currentUnixTime();

} // namespace shardwise::store
