#pragma once
// A prepared SQLite statement with typed binding and reading. Private to the store: nothing outside
// core/store speaks SQL.

#include "shardwise/store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3_stmt;

namespace shardwise::store::detail {

// Throws StoreError: "<context>: <sqlite message> (<result code name>)".
[[noreturn]] void fail(sqlite3* db, int code, std::string_view context);

// Runs one or more statements that return no rows.
void execute(sqlite3* db, std::string_view sql);

class Statement {
public:
    Statement(sqlite3* db, std::string_view sql);
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    // Parameters are 1-based, as in SQLite.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value ? 1 : 0)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bindNull(int index);
    template <typename T> Statement& bind(int index, const std::optional<T>& value)
    {
        return value ? bind(index, *value) : bindNull(index);
    }

    // true when a row is available; false when the statement is done.
    bool step();
    // Steps to completion; for statements that return no rows.
    void run();
    // Makes the statement ready to run again with new bindings.
    void reset();

    bool isNull(int column) const;
    std::int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::optional<std::int64_t> optionalInteger(int column) const;
    std::optional<double> optionalReal(int column) const;

private:
    sqlite3* m_db;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_sql;
};

std::int64_t lastInsertId(sqlite3* db);
int changes(sqlite3* db);

} // namespace shardwise::store::detail
