#include "statement.hpp"

#include <sqlite3.h>

namespace shardwise::store::detail {

void fail(sqlite3* db, int code, std::string_view context)
{
    const std::string detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    const std::string kind = sqlite3_errstr(code);
    std::string message(context);
    message += ": " + detail;
    if (kind != detail)
        message += " (" + kind + ")";
    throw StoreError(message);
}

void execute(sqlite3* db, std::string_view sql)
{
    char* error = nullptr;
    const std::string text(sql);
    const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
        std::string message = error ? error : sqlite3_errstr(rc);
        sqlite3_free(error);
        throw StoreError("SQL failed: " + message + " (" + sqlite3_errstr(rc) + ")");
    }
}

Statement::Statement(sqlite3* db, std::string_view sql)
    : m_db(db)
    , m_sql(sql)
{
    const int rc = sqlite3_prepare_v2(db, m_sql.data(), static_cast<int>(m_sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        fail(db, rc, "preparing a store query");
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::int64_t value)
{
    if (const int rc = sqlite3_bind_int64(m_stmt, index, value); rc != SQLITE_OK)
        fail(m_db, rc, "binding a query parameter");
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    if (const int rc = sqlite3_bind_double(m_stmt, index, value); rc != SQLITE_OK)
        fail(m_db, rc, "binding a query parameter");
    return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
    const int rc = sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK)
        fail(m_db, rc, "binding a query parameter");
    return *this;
}

Statement& Statement::bindNull(int index)
{
    if (const int rc = sqlite3_bind_null(m_stmt, index); rc != SQLITE_OK)
        fail(m_db, rc, "binding a query parameter");
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    fail(m_db, rc, "running a store query");
}

void Statement::run()
{
    while (step()) { }
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::integer(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double Statement::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string Statement::text(int column) const
{
    const auto* p = sqlite3_column_text(m_stmt, column);
    if (!p)
        return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::optional<std::int64_t> Statement::optionalInteger(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return integer(column);
}

std::optional<double> Statement::optionalReal(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return real(column);
}

std::int64_t lastInsertId(sqlite3* db)
{
    return sqlite3_last_insert_rowid(db);
}

int changes(sqlite3* db)
{
    return sqlite3_changes(db);
}

} // namespace shardwise::store::detail
