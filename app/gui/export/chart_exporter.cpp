#include "export/chart_exporter.hpp"

#include "export/export_file.hpp"

#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QImage>
#include <QLegend>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTextDocument>
#include <QWidget>

namespace shardwise::gui {

namespace {

struct ExportText {
    Q_DECLARE_TR_FUNCTIONS(ExportText)
};

constexpr int kCaptionMargin = 12;

// The caption as a text document `width` wide in the painter's units, title bold.
void layoutCaption(QTextDocument& doc, const ExportCaption& caption, qreal width, const QFont& font)
{
    doc.setDefaultFont(font);
    doc.setDocumentMargin(kCaptionMargin);
    doc.setTextWidth(width);
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(caption.title.toHtmlEscaped());
    if (!caption.description.isEmpty())
        html += QStringLiteral("<p>%1</p>")
                    .arg(caption.description.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br/>")));
    doc.setHtml(html);
}

// Paints the widget and, under it, the caption; returns the height used in widget pixels.
void paintWithCaption(QPainter& painter, QWidget& widget, QTextDocument& doc)
{
    widget.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.save();
    painter.translate(0, widget.height());
    doc.drawContents(&painter);
    painter.restore();
}

} // namespace

QStringList ChartExporter::supportedSuffixes()
{
    return { QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf") };
}

ExportResult ChartExporter::exportWidget(QWidget& widget, const QString& filePath, const ExportCaption& caption)
{
    const QString suffix = QFileInfo(filePath).suffix().toLower();
    const QSize size = widget.size();
    if (size.isEmpty())
        return { false, ExportText::tr("%1: the chart has no size to render").arg(filePath) };

    QTextDocument doc;
    layoutCaption(doc, caption, size.width(), widget.font());
    const int captionHeight = static_cast<int>(std::ceil(doc.size().height()));
    const QSize total(size.width(), size.height() + captionHeight);
    const QColor background = widget.palette().color(QPalette::Window);

    if (suffix == QLatin1String("png")) {
        constexpr qreal kScale = 2.0;
        QImage image(total * kScale, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(kScale);
        image.fill(background);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            paintWithCaption(painter, widget, doc);
        }
        QBuffer file;
        file.open(QIODevice::WriteOnly);
        const QString why = image.save(&file, "PNG") ? writeExportFile(filePath, file.data()) : file.errorString();
        if (!why.isEmpty())
            return {
                false,
                ExportText::tr("%1: cannot write the PNG file (%2); the previous file is kept").arg(filePath, why)
            };
        return { true, {} };
    }
    if (suffix == QLatin1String("svg")) {
        QBuffer file;
        file.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(total);
        svg.setViewBox(QRect(QPoint(), total));
        svg.setTitle(caption.title);
        svg.setDescription(caption.description);
        QPainter painter;
        if (!painter.begin(&svg))
            return { false, ExportText::tr("%1: cannot write the SVG file").arg(filePath) };
        painter.fillRect(QRect(QPoint(), total), background);
        paintWithCaption(painter, widget, doc);
        painter.end();
        if (const QString why = writeExportFile(filePath, file.data()); !why.isEmpty())
            return {
                false,
                ExportText::tr("%1: cannot write the SVG file (%2); the previous file is kept").arg(filePath, why)
            };
        return { true, {} };
    }
    if (suffix == QLatin1String("pdf")) {
        QBuffer file;
        file.open(QIODevice::WriteOnly);
        // The writer flushes the document when it is destroyed: the bytes are complete after this scope.
        {
            QPdfWriter pdf(&file);
            pdf.setTitle(caption.title);
            pdf.setCreator(QStringLiteral("Shardwise"));
            pdf.setPageSize(QPageSize(QPageSize::A4));
            pdf.setPageOrientation(total.width() > total.height() ? QPageLayout::Landscape : QPageLayout::Portrait);
            pdf.setResolution(300);
            QPainter painter;
            if (!painter.begin(&pdf))
                return { false, ExportText::tr("%1: cannot write the PDF file").arg(filePath) };
            const QRect page = painter.viewport();
            const qreal scale = std::min(page.width() / qreal(total.width()), page.height() / qreal(total.height()));
            painter.scale(scale, scale);
            painter.fillRect(QRect(QPoint(), total), background);
            paintWithCaption(painter, widget, doc);
            painter.end();
        }
        if (const QString why = writeExportFile(filePath, file.data()); !why.isEmpty())
            return {
                false,
                ExportText::tr("%1: cannot write the PDF file (%2); the previous file is kept").arg(filePath, why)
            };
        return { true, {} };
    }
    return { false,
             ExportText::tr("%1: unknown chart format \"%2\"; use one of: %3")
                 .arg(filePath, suffix, supportedSuffixes().join(QStringLiteral(", "))) };
}

ExportResult ChartExporter::exportChart(QChart* chart, QSize size, const QString& filePath,
                                        const ExportCaption& caption)
{
    QChartView view(chart); // owns the chart from here on
    view.setRenderHint(QPainter::Antialiasing);
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(size);
    view.show(); // lays the view out (scene rect, chart geometry) without a window on screen
    chart->legend()->setVisible(!chart->series().isEmpty());
    // Twice: the first pass places the plot area, on which the category labels are elided
    // (charts/chart_axes.hpp), and the second lays out the elided labels.
    if (QGraphicsLayout* layout = chart->layout()) {
        layout->activate();
        layout->activate();
    }
    ExportResult result = exportWidget(view, filePath, caption);
    view.hide();
    return result;
}

} // namespace shardwise::gui
