#pragma once
// Writes what a table view shows (display text of every row and column, in view order) as CSV
// (RFC 4180; the caption as leading "# " comment lines, which pandas reads with comment='#') or as a
// Markdown pipe table followed by the caption, picked by the file's suffix.

#include "export/chart_exporter.hpp"

class QAbstractItemModel;

namespace shardwise::gui {

class TableExporter {
public:
    static QStringList supportedSuffixes(); // "csv", "md"
    static QString toCsv(const QAbstractItemModel& model, const ExportCaption& caption);
    static QString toMarkdown(const QAbstractItemModel& model, const ExportCaption& caption);
    static ExportResult exportModel(const QAbstractItemModel& model, const QString& filePath,
                                    const ExportCaption& caption);
};

} // namespace shardwise::gui
