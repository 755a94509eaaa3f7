#include "csv.hpp"

#include "shardwise/store/exchange.hpp"

#include <istream>
#include <ostream>

namespace shardwise::store::detail {

std::vector<CsvRecord> readCsv(std::istream& in)
{
    std::string text;
    char chunk[4096];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0)
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    std::vector<CsvRecord> records;
    CsvRecord current;
    std::string field;
    int line = 1;
    current.line = 1;
    bool inQuotes = false;
    bool quotedField = false; // the current field was quoted and its closing quote was seen
    bool recordHasContent = false;

    auto endField = [&] {
        current.fields.push_back(std::move(field));
        field.clear();
        quotedField = false;
    };
    auto endRecord = [&] {
        endField();
        const bool blank = !recordHasContent && current.fields.size() == 1 && current.fields[0].empty();
        if (!blank)
            records.push_back(std::move(current));
        current = CsvRecord {};
        current.line = line;
        recordHasContent = false;
    };

    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    inQuotes = false;
                    quotedField = true;
                }
            } else {
                if (c == '\n')
                    ++line;
                field += c;
            }
            continue;
        }
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
            continue;
        if (c == '\n') {
            ++line;
            endRecord();
            continue;
        }
        if (quotedField && c != ',')
            throw ImportError("line " + std::to_string(line), "text after a closing quote");
        if (c == ',') {
            recordHasContent = true;
            endField();
        } else if (c == '"' && field.empty()) {
            inQuotes = true;
            recordHasContent = true;
        } else {
            field += c;
            recordHasContent = true;
        }
    }
    if (inQuotes)
        throw ImportError("line " + std::to_string(current.line), "a quoted field is never closed");
    if (recordHasContent || !field.empty())
        endRecord();
    return records;
}

} // namespace shardwise::store::detail
