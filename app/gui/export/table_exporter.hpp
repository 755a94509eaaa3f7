#pragma once
// Writes what a table view shows (display text of every row and column, in view order) as CSV
// (RFC 4180; the caption as leading "# " comment lines, which pandas reads with comment='#') or as
// Markdown pipe tables followed by the caption, picked by the file's suffix. The Compare page's table
// export (export/run_csv.hpp) writes a plain CSV with the caption in a side file instead.

#include "export/chart_exporter.hpp"

#include <QList>

class QAbstractItemModel;

namespace shardwise::gui {

// One Markdown table of a few of the model's columns under a heading, so that a wide model reads as
// several tables that each fit a report's page.
struct MarkdownSection {
    QString heading;
    QList<int> columns;
};

class TableExporter {
public:
    static QStringList supportedSuffixes(); // "csv", "md"
    static QString toCsv(const QAbstractItemModel& model, const ExportCaption& caption);
    static QString toMarkdown(const QAbstractItemModel& model, const ExportCaption& caption);
    // One table per section ("### heading" above each), then the caption.
    static QString toMarkdown(const QAbstractItemModel& model, const QList<MarkdownSection>& sections,
                              const ExportCaption& caption);
    static ExportResult exportModel(const QAbstractItemModel& model, const QString& filePath,
                                    const ExportCaption& caption);
};

} // namespace shardwise::gui
