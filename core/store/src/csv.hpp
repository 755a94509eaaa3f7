#pragma once
// Reading RFC 4180 CSV records (quoted fields may hold commas, quotes and line breaks), with the line
// each record starts on so errors can point at it. Writing is csvField / csvText in
// shardwise/spec/quote.hpp, the one CSV writer of every export.

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

} // namespace shardwise::store::detail
