#pragma once
// Cells of the numeric CSV files the exports write (RFC 4180): numbers in SI units (bytes, seconds,
// tokens per second, fractions) in C-locale notation with a '.' decimal point and no thousands
// separators, timestamps in ISO 8601 with their zone (UTC, "Z"), text quoted where it must be and
// defused where a spreadsheet would run it as a formula.

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>

namespace shardwise::gui::csv {

// Text: quoted when it holds a comma, quote or line break; a leading = + - @ (or tab / CR) gets a
// quote in front so that a spreadsheet shows it as text instead of running it (OWASP, "CSV Injection").
// The core's one CSV writer (shardwise::csvText, shardwise/spec/quote.hpp) writes it.
QString text(const QString& value);
// A real number, the shortest text that reads back as the same double; empty for a missing one.
QString real(std::optional<double> value);
QString integer(std::optional<qint64> value);
// Bytes from a figure held in GiB (2^30 bytes), rounded to whole bytes.
QString bytesFromGiB(std::optional<double> gib);
QString boolean(bool value); // "true" | "false"
// ISO 8601 in UTC with its zone designator, e.g. 2026-12-04T17:47:09Z; empty for an invalid time.
QString timestamp(const QDateTime& time);

// The caption as leading "# " comment lines (pandas: read_csv(..., comment='#')).
QString commentLines(const QString& title, const QString& description);
QString row(const QStringList& cells); // cells already formatted, joined with ',' and ended with CRLF

} // namespace shardwise::gui::csv
