#include "export/table_exporter.hpp"

#include "export/export_file.hpp"
#include "shardwise/spec/quote.hpp"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QFileInfo>

namespace shardwise::gui {

namespace {

struct ExportText {
    Q_DECLARE_TR_FUNCTIONS(ExportText)
};

// What the view shows, numbers included, so quoted (shardwise::csvField) but never formula-guarded:
// a guard would turn "-3.2" into text.
QString csvField(const QString& text)
{
    return QString::fromStdString(shardwise::csvField(text.toStdString()));
}

QString markdownCell(const QString& text)
{
    QString cell = text;
    cell.replace(QLatin1String("|"), QLatin1String("\\|"));
    cell.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return cell;
}

QString header(const QAbstractItemModel& model, int column)
{
    return model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
}

QString cell(const QAbstractItemModel& model, int row, int column)
{
    return model.index(row, column).data(Qt::DisplayRole).toString();
}

} // namespace

QStringList TableExporter::supportedSuffixes()
{
    return { QStringLiteral("csv"), QStringLiteral("md") };
}

QString TableExporter::toCsv(const QAbstractItemModel& model, const ExportCaption& caption)
{
    QString out;
    const QString captionText
        = caption.description.isEmpty() ? caption.title : caption.title + QLatin1Char('\n') + caption.description;
    for (const QString& line : captionText.split(QLatin1Char('\n')))
        out += QStringLiteral("# ") + line + QLatin1String("\r\n");
    QStringList fields;
    for (int c = 0; c < model.columnCount(); ++c)
        fields << csvField(header(model, c));
    out += fields.join(QLatin1Char(',')) + QLatin1String("\r\n");
    for (int r = 0; r < model.rowCount(); ++r) {
        fields.clear();
        for (int c = 0; c < model.columnCount(); ++c)
            fields << csvField(cell(model, r, c));
        out += fields.join(QLatin1Char(',')) + QLatin1String("\r\n");
    }
    return out;
}

QString TableExporter::toMarkdown(const QAbstractItemModel& model, const ExportCaption& caption)
{
    MarkdownSection all;
    for (int c = 0; c < model.columnCount(); ++c)
        all.columns << c;
    return toMarkdown(model, { all }, caption);
}

QString TableExporter::toMarkdown(const QAbstractItemModel& model, const QList<MarkdownSection>& sections,
                                  const ExportCaption& caption)
{
    QString out;
    for (const MarkdownSection& section : sections) {
        if (!section.heading.isEmpty())
            out += QStringLiteral("### ") + markdownCell(section.heading) + QStringLiteral("\n\n");
        QStringList cells;
        for (const int c : section.columns)
            cells << markdownCell(header(model, c));
        out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        out += QStringLiteral("|") + QStringLiteral("---|").repeated(section.columns.size()) + QLatin1Char('\n');
        for (int r = 0; r < model.rowCount(); ++r) {
            cells.clear();
            for (const int c : section.columns)
                cells << markdownCell(cell(model, r, c));
            out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        }
        out += QLatin1Char('\n');
    }
    out += QStringLiteral("*%1*").arg(markdownCell(caption.title));
    if (!caption.description.isEmpty())
        out += QStringLiteral(" — ") + markdownCell(caption.description);
    out += QLatin1Char('\n');
    return out;
}

ExportResult TableExporter::exportModel(const QAbstractItemModel& model, const QString& filePath,
                                        const ExportCaption& caption)
{
    const QString suffix = QFileInfo(filePath).suffix().toLower();
    QString text;
    if (suffix == QLatin1String("csv"))
        text = toCsv(model, caption);
    else if (suffix == QLatin1String("md"))
        text = toMarkdown(model, caption);
    else
        return { false,
                 ExportText::tr("%1: unknown table format \"%2\"; use one of: %3")
                     .arg(filePath, suffix, supportedSuffixes().join(QStringLiteral(", "))) };
    if (const QString why = writeExportFile(filePath, text.toUtf8()); !why.isEmpty())
        return { false, ExportText::tr("%1: cannot write: %2").arg(filePath, why) };
    return { true, {} };
}

} // namespace shardwise::gui
