#pragma once
// RFC 4180 CSV records (quoted fields may hold commas, quotes and line breaks), with the line each
// record starts on so errors can point at it.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::store::detail {

struct CsvRecord {
    int line = 0; // 1-based line the record starts on
    std::vector<std::string> fields;
};

// Throws ImportError for an unterminated quote or text after a closing quote. Blank lines are skipped.
std::vector<CsvRecord> readCsv(std::istream& in);

void writeCsvField(std::ostream& out, std::string_view field);

// True when a spreadsheet would evaluate a text cell: it starts with = + - @, a tab or a CR.
bool startsLikeFormula(std::string_view text);
// Undoes the quote export puts in front of such a cell ("'=1+2" -> "=1+2"); other text is unchanged.
std::string withoutFormulaGuard(std::string text);

} // namespace shardwise::store::detail
