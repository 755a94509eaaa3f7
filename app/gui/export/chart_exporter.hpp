#pragma once
// Writes a chart (any widget, typically a QChartView or a panel of them) to PNG, SVG or PDF, picked
// by the file's suffix, with the caption printed under the picture. SVG files carry the caption in
// <title>/<desc> as well so that report tools and screen readers find it.

#include "charts/bar_chart.hpp"

#include <QList>
#include <QSize>
#include <QString>

class QChart;
class QWidget;

namespace shardwise::gui {

struct ExportCaption {
    QString title;       // one line, e.g. "Qwen2.5 3B on 4 x NVIDIA L4: ZeRO vs FSDP2"
    QString description; // model, hardware, software versions, warm-up and timed steps
};

struct ExportResult {
    bool ok = false;
    QString error; // names the file and what went wrong
};

class ChartExporter {
public:
    static QStringList supportedSuffixes(); // "png", "svg", "pdf"
    // Renders `widget` at its current size (PNG at twice the pixel density so it stays sharp on
    // high-DPI screens and in print).
    static ExportResult exportWidget(QWidget& widget, const QString& filePath, const ExportCaption& caption);
    // Renders `chart` (taken over and deleted) in a view of `size`, whatever size it has on screen: a
    // chart squeezed into a third of the page still exports at a readable aspect with its whole legend
    // (every series' swatch and name; markers the legend had to drop for lack of room come back).
    static ExportResult exportChart(QChart* chart, QSize size, const QString& filePath, const ExportCaption& caption);
    // Draws `charts` one above the other, `width` wide (wider where a chart's labels need it), the
    // caption under them, as the page draws them: PNG and SVG as one picture; PDF on A4 pages across
    // the page's width, as many charts to a page as fit whole.
    static ExportResult exportBarCharts(const QList<BarChartSpec>& charts, int width, const QString& filePath,
                                        const ExportCaption& caption);
    static int barChartExportWidth() { return 1000; }
    static QSize reportChartSize() { return { 960, 540 }; } // 16:9, legible on an A4 page and a slide
};

} // namespace shardwise::gui
