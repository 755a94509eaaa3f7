#include "export/chart_exporter.hpp"

#include "export/export_file.hpp"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFontInfo>
#include <QGraphicsLayout>
#include <QImage>
#include <QLegend>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTextDocument>
#include <QWidget>

#include <cmath>
#include <functional>

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

using Paint = std::function<void(QPainter&)>;

ExportResult unknownFormat(const QString& filePath, const QString& suffix)
{
    return { false,
             ExportText::tr("%1: unknown chart format \"%2\"; use one of: %3")
                 .arg(filePath, suffix, ChartExporter::supportedSuffixes().join(QStringLiteral(", "))) };
}

// PNG at twice the pixel density, so that it stays sharp on high-DPI screens and in print.
ExportResult writePng(const QString& filePath, QSize total, const QColor& background, const Paint& paint)
{
    constexpr qreal kScale = 2.0;
    QImage image(total * kScale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kScale);
    image.fill(background);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        paint(painter);
    }
    QBuffer file;
    file.open(QIODevice::WriteOnly);
    const QString why = image.save(&file, "PNG") ? writeExportFile(filePath, file.data()) : file.errorString();
    if (!why.isEmpty())
        return { false,
                 ExportText::tr("%1: cannot write the PNG file (%2); the previous file is kept").arg(filePath, why) };
    return { true, {} };
}

ExportResult writeSvg(const QString& filePath, QSize total, const QColor& background, const ExportCaption& caption,
                      const Paint& paint)
{
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
    paint(painter);
    painter.end();
    if (const QString why = writeExportFile(filePath, file.data()); !why.isEmpty())
        return { false,
                 ExportText::tr("%1: cannot write the SVG file (%2); the previous file is kept").arg(filePath, why) };
    return { true, {} };
}

// An A4 PDF at 300 dpi; `paint` draws its pages (QPdfWriter::newPage for each after the first).
ExportResult writePdf(const QString& filePath, const ExportCaption& caption, bool landscape,
                      const std::function<void(QPdfWriter&, QPainter&)>& paint)
{
    QBuffer file;
    file.open(QIODevice::WriteOnly);
    // The writer flushes the document when it is destroyed: the bytes are complete after this scope.
    {
        QPdfWriter pdf(&file);
        pdf.setTitle(caption.title);
        pdf.setCreator(QStringLiteral("Shardwise"));
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageOrientation(landscape ? QPageLayout::Landscape : QPageLayout::Portrait);
        pdf.setResolution(300);
        QPainter painter;
        if (!painter.begin(&pdf))
            return { false, ExportText::tr("%1: cannot write the PDF file").arg(filePath) };
        painter.setRenderHint(QPainter::Antialiasing);
        paint(pdf, painter);
        painter.end();
    }
    if (const QString why = writeExportFile(filePath, file.data()); !why.isEmpty())
        return { false,
                 ExportText::tr("%1: cannot write the PDF file (%2); the previous file is kept").arg(filePath, why) };
    return { true, {} };
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
    const auto paint = [&](QPainter& painter) { paintWithCaption(painter, widget, doc); };

    if (suffix == QLatin1String("png"))
        return writePng(filePath, total, background, paint);
    if (suffix == QLatin1String("svg"))
        return writeSvg(filePath, total, background, caption, paint);
    if (suffix == QLatin1String("pdf")) {
        // One page: the picture scaled to fit it.
        return writePdf(filePath, caption, total.width() > total.height(), [&](QPdfWriter&, QPainter& painter) {
            const QRect page = painter.viewport();
            const qreal scale = std::min(page.width() / qreal(total.width()), page.height() / qreal(total.height()));
            painter.scale(scale, scale);
            painter.fillRect(QRect(QPoint(), total), background);
            paint(painter);
        });
    }
    return unknownFormat(filePath, suffix);
}

ExportResult ChartExporter::exportBarCharts(const QList<BarChartSpec>& charts, int width, const QString& filePath,
                                            const ExportCaption& caption)
{
    const QString suffix = QFileInfo(filePath).suffix().toLower();
    // The application's font at the pixel size the screen shows it: a pixel size keeps the text in
    // proportion on every device (a point size grows with a PDF's 300 dpi and shrinks with SVG's 72).
    QFont font = QApplication::font();
    font.setPixelSize(QFontInfo(font).pixelSize());
    const QPalette palette = QApplication::palette();
    // One width for all: the widest a chart's labels need, at least `width`.
    qreal chartWidth = width;
    for (const BarChartSpec& spec : charts)
        chartWidth = std::max(chartWidth, layoutBarChart(spec, width, font).minimumWidth);
    QList<BarChartGeometry> geometries;
    for (const BarChartSpec& spec : charts)
        geometries << layoutBarChart(spec, chartWidth, font);
    QTextDocument doc;
    layoutCaption(doc, caption, chartWidth, font);
    const qreal captionHeight = std::ceil(doc.size().height());
    constexpr qreal kGap = 8;
    qreal chartsHeight = 0;
    for (const BarChartGeometry& g : geometries)
        chartsHeight += g.height + kGap;
    const QSize total(static_cast<int>(std::ceil(chartWidth)),
                      static_cast<int>(std::ceil(chartsHeight + captionHeight)));
    const QColor background = palette.color(QPalette::Base);
    const auto paint = [&](QPainter& painter) {
        painter.save();
        for (int i = 0; i < charts.size(); ++i) {
            paintBarChart(painter, charts[i], geometries[i], palette);
            painter.translate(0, geometries[i].height + kGap);
        }
        painter.setPen(palette.color(QPalette::Text));
        doc.drawContents(&painter);
        painter.restore();
    };

    if (suffix == QLatin1String("png"))
        return writePng(filePath, total, background, paint);
    if (suffix == QLatin1String("svg"))
        return writeSvg(filePath, total, background, caption, paint);
    if (suffix == QLatin1String("pdf")) {
        // A4 portrait, the charts across the page's width, as many to a page as fit whole; a chart
        // taller than a page shrinks every chart to the scale at which it fits.
        return writePdf(filePath, caption, false, [&](QPdfWriter& pdf, QPainter& painter) {
            const QRect page = painter.viewport();
            qreal tallest = captionHeight;
            for (const BarChartGeometry& g : geometries)
                tallest = std::max(tallest, g.height);
            const qreal scale = std::min(page.width() / chartWidth, page.height() / tallest);
            const qreal pageHeight = page.height() / scale;
            painter.scale(scale, scale);
            qreal y = 0;
            const auto place = [&](qreal height) {
                if (y > 0 && y + height > pageHeight) {
                    pdf.newPage();
                    y = 0;
                }
                painter.fillRect(QRectF(0, y, chartWidth, height + kGap), background);
                const qreal at = y;
                y += height + kGap;
                return at;
            };
            for (int i = 0; i < charts.size(); ++i) {
                const qreal at = place(geometries[i].height);
                painter.save();
                painter.translate(0, at);
                paintBarChart(painter, charts[i], geometries[i], palette);
                painter.restore();
            }
            const qreal at = place(captionHeight);
            painter.save();
            painter.translate(0, at);
            doc.drawContents(&painter);
            painter.restore();
        });
    }
    return unknownFormat(filePath, suffix);
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
