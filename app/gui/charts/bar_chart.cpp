#include "charts/bar_chart.hpp"

#include "charts/chart_style.hpp"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace shardwise::gui {

namespace {

struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

constexpr qreal kMargin = 10;
constexpr qreal kPad = 8;           // between a label and its plot, a bar and its value
constexpr qreal kMinimumPlot = 160; // the narrowest plot the chart accepts before it grows wider
constexpr qreal kSwatch = 14;
constexpr qreal kFacetGap = 14;

QFont boldFont(QFont font)
{
    font.setBold(true);
    return font;
}

QFont smallFont(QFont font)
{
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * 0.9);
    else if (font.pixelSize() > 0)
        font.setPixelSize(std::max(8, static_cast<int>(std::lround(font.pixelSize() * 0.9))));
    return font;
}

QString tickText(double value, int decimals)
{
    return QLocale().toString(value, 'f', decimals);
}

double facetMaximum(const BarFacet& facet)
{
    double maximum = facet.capacity;
    for (const BarRow& row : facet.rows)
        for (const std::optional<double>& v : row.values)
            if (v)
                maximum = std::max(maximum, *v);
    return maximum;
}

// Lays out the legend's entries left to right, wrapping at `right`; returns the height used.
qreal layoutLegend(BarChartGeometry& g, qreal top, qreal right, const QFontMetricsF& metrics)
{
    qreal x = kMargin;
    qreal y = top;
    const qreal lineHeight = std::max(metrics.height(), kSwatch) + 4;
    for (BarChartGeometry::LegendEntry& entry : g.legend) {
        const qreal textWidth = metrics.horizontalAdvance(entry.text);
        const qreal entryWidth = kSwatch + 5 + textWidth + 16;
        if (x > kMargin && x + entryWidth > right) {
            x = kMargin;
            y += lineHeight;
        }
        entry.swatch = QRectF(x, y + (lineHeight - 4 - kSwatch) / 2, kSwatch, kSwatch);
        entry.textRect = QRectF(x + kSwatch + 5, y, std::ceil(textWidth) + 1, lineHeight - 4);
        x += entryWidth;
    }
    return g.legend.isEmpty() ? 0 : y + lineHeight - top;
}

BarChartGeometry::LegendEntry legendEntry(BarChartGeometry::LegendEntry::Kind kind, const QString& text,
                                          const QColor& color, BarFill fill = BarFill::Solid)
{
    BarChartGeometry::LegendEntry entry;
    entry.kind = kind;
    entry.text = text;
    entry.color = color;
    entry.fill = fill;
    return entry;
}

void fillBar(QPainter& painter, const QRectF& rect, const QColor& color, BarFill fill, const QColor& text)
{
    const QColor edge = color.darker(140);
    switch (fill) {
    case BarFill::Solid:
        painter.setPen(QPen(edge, 1));
        painter.setBrush(color);
        break;
    case BarFill::Hatched:
        painter.setPen(QPen(edge, 1));
        painter.setBrush(color.lighter(135));
        painter.drawRect(rect);
        painter.setBrush(QBrush(text, Qt::BDiagPattern));
        break;
    case BarFill::Outline:
        painter.setPen(QPen(color, 2));
        painter.setBrush(Qt::NoBrush);
        break;
    }
    painter.drawRect(rect);
}

} // namespace

int BarChartSpec::rowCount() const
{
    int n = 0;
    for (const BarFacet& f : facets)
        n += static_cast<int>(f.rows.size());
    return n;
}

BarChartGeometry layoutBarChart(const BarChartSpec& spec, qreal width, const QFont& font)
{
    BarChartGeometry g;
    g.font = font;
    const QFontMetricsF metrics(font);
    const QFontMetricsF bold(boldFont(font));
    const QFontMetricsF small(smallFont(font));

    // The label column: as wide as the longest label. The values: room for the longest at a bar's end.
    qreal labelWidth = 0;
    qreal valueWidth = 0;
    for (const BarFacet& facet : spec.facets)
        for (const BarRow& row : facet.rows) {
            labelWidth = std::max(labelWidth, metrics.horizontalAdvance(row.label));
            for (const std::optional<double>& v : row.values)
                if (v && spec.format)
                    valueWidth = std::max(valueWidth, small.horizontalAdvance(spec.format(*v)));
        }
    g.labelColumnWidth = std::ceil(labelWidth) + 2;
    g.minimumWidth = std::ceil(2 * kMargin + g.labelColumnWidth + kPad + kMinimumPlot + kPad + valueWidth);
    g.width = std::max(width, g.minimumWidth);
    const qreal right = g.width - kMargin;

    qreal y = kMargin;
    const QRectF titleBounds
        = bold.boundingRect(QRectF(kMargin, y, right - kMargin, 1e6), Qt::TextWordWrap, spec.title);
    g.titleRect = QRectF(kMargin, y, right - kMargin, std::ceil(titleBounds.height()));
    y = g.titleRect.bottom() + 6;

    if (spec.isEmpty()) {
        g.emptyRect = QRectF(kMargin, y, right - kMargin, 3 * metrics.height());
        g.height = std::ceil(g.emptyRect.bottom() + kMargin);
        return g;
    }

    // The legend: the colours (in the order they first appear), the measures when there are
    // several, the capacity line when a facet has one.
    QStringList colorNames;
    for (const BarFacet& facet : spec.facets)
        for (const BarRow& row : facet.rows)
            if (!row.colorName.isEmpty() && !colorNames.contains(row.colorName)) {
                colorNames << row.colorName;
                g.legend.append(legendEntry(BarChartGeometry::LegendEntry::Kind::Color, row.colorName, row.color));
            }
    if (spec.measures.size() > 1)
        for (const BarMeasure& m : spec.measures)
            g.legend.append(
                legendEntry(BarChartGeometry::LegendEntry::Kind::Measure, m.name, QColor(0x88, 0x88, 0x88), m.fill));
    const bool anyCapacity
        = std::any_of(spec.facets.begin(), spec.facets.end(), [](const BarFacet& f) { return f.capacity > 0; });
    if (anyCapacity && !spec.capacityName.isEmpty())
        g.legend.append(
            legendEntry(BarChartGeometry::LegendEntry::Kind::Capacity, spec.capacityName, capacityLineColor()));
    y += layoutLegend(g, y, right, metrics) + 4;

    const qreal plotLeft = kMargin + g.labelColumnWidth + kPad;
    const qreal plotWidth = std::max(kMinimumPlot, right - valueWidth - kPad - plotLeft);
    const int measures = std::max<int>(1, static_cast<int>(spec.measures.size()));
    const qreal barHeight = std::max<qreal>(small.height() + 2, 12);
    const qreal rowHeight = std::max(metrics.height() + 8, measures * barHeight + 8);

    for (int f = 0; f < spec.facets.size(); ++f) {
        const BarFacet& facet = spec.facets[f];
        BarChartGeometry::Facet out;
        out.title = facet.title;
        out.titleRect = QRectF(kMargin, y, right - kMargin, bold.height() + 2);
        y = out.titleRect.bottom() + 4;
        out.scale = niceScale(facetMaximum(facet));
        const qreal top = y;
        const auto xOf = [&](double v) { return plotLeft + plotWidth * std::clamp(v / out.scale.max, 0.0, 1.0); };
        for (int r = 0; r < facet.rows.size(); ++r) {
            const BarRow& row = facet.rows[r];
            const QRectF rowRect(kMargin, y, plotLeft + plotWidth - kMargin, rowHeight);
            out.rowRects << rowRect;
            g.labels.append({ row.label, QRectF(kMargin, y, g.labelColumnWidth, rowHeight), f, r });
            const qreal barsTop = y + (rowHeight - measures * barHeight) / 2;
            for (int m = 0; m < row.values.size() && m < measures; ++m) {
                if (!row.values[m])
                    continue;
                BarChartGeometry::Bar bar;
                bar.facet = f;
                bar.row = r;
                bar.measure = m;
                bar.rect = QRectF(plotLeft, barsTop + m * barHeight + 1, xOf(*row.values[m]) - plotLeft, barHeight - 2);
                bar.valueText = spec.format ? spec.format(*row.values[m]) : QString::number(*row.values[m]);
                bar.valueRect = QRectF(bar.rect.right() + 4, barsTop + m * barHeight,
                                       std::ceil(small.horizontalAdvance(bar.valueText)) + 1, barHeight);
                g.bars << bar;
            }
            y += rowHeight;
        }
        out.plot = QRectF(plotLeft, top, plotWidth, y - top);
        out.capacityX = facet.capacity > 0 ? xOf(facet.capacity) : -1;
        y += 2 + small.height(); // the tick labels
        out.axisTitleRect = QRectF(plotLeft, y, plotWidth, small.height() + 2);
        y = out.axisTitleRect.bottom() + kFacetGap;
        g.facets << out;
    }
    g.height = std::ceil(y - kFacetGap + kMargin);
    return g;
}

void paintBarChart(QPainter& painter, const BarChartSpec& spec, const BarChartGeometry& g, const QPalette& palette)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor text = palette.color(QPalette::Text);
    const QColor base = palette.color(QPalette::Base);
    QColor grid = text;
    grid.setAlphaF(0.18);
    QColor band = text;
    band.setAlphaF(0.04);
    painter.fillRect(QRectF(0, 0, g.width, g.height), base);

    const QFont font = g.font;
    const QFont bold = boldFont(font);
    const QFont small = smallFont(font);
    painter.setPen(text);
    painter.setFont(bold);
    painter.drawText(g.titleRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, spec.title);
    if (!g.emptyRect.isNull()) {
        painter.setFont(font);
        painter.drawText(g.emptyRect, Qt::AlignCenter | Qt::TextWordWrap, spec.emptyText);
        painter.restore();
        return;
    }

    painter.setFont(font);
    for (const BarChartGeometry::LegendEntry& entry : g.legend) {
        switch (entry.kind) {
        case BarChartGeometry::LegendEntry::Kind::Color:
            fillBar(painter, entry.swatch, entry.color, BarFill::Solid, text);
            break;
        case BarChartGeometry::LegendEntry::Kind::Measure:
            fillBar(painter, entry.swatch, entry.color, entry.fill, text);
            break;
        case BarChartGeometry::LegendEntry::Kind::Capacity: {
            QPen pen(entry.color, 2, Qt::DashLine);
            painter.setPen(pen);
            painter.drawLine(QPointF(entry.swatch.center().x(), entry.swatch.top() - 1),
                             QPointF(entry.swatch.center().x(), entry.swatch.bottom() + 1));
            break;
        }
        }
        painter.setPen(text);
        painter.drawText(entry.textRect, Qt::AlignLeft | Qt::AlignVCenter, entry.text);
    }

    for (int f = 0; f < g.facets.size(); ++f) {
        const BarChartGeometry::Facet& facet = g.facets[f];
        painter.setFont(bold);
        painter.setPen(text);
        painter.drawText(facet.titleRect, Qt::AlignLeft | Qt::AlignVCenter, facet.title);
        for (int r = 0; r < facet.rowRects.size(); r += 2)
            painter.fillRect(facet.rowRects[r], band);
        // Grid lines and tick labels on every round value.
        painter.setFont(small);
        const QFontMetricsF smallMetrics(small);
        for (const double tick : facet.scale.ticks()) {
            const qreal x = facet.plot.left() + facet.plot.width() * tick / facet.scale.max;
            painter.setPen(QPen(grid, 1));
            painter.drawLine(QPointF(x, facet.plot.top()), QPointF(x, facet.plot.bottom()));
            const QString label = tickText(tick, facet.scale.decimals);
            const qreal w = smallMetrics.horizontalAdvance(label);
            painter.setPen(text);
            painter.drawText(QRectF(x - w / 2 - 1, facet.plot.bottom() + 1, w + 2, smallMetrics.height()),
                             Qt::AlignCenter, label);
        }
        if (f < spec.facets.size())
            painter.drawText(facet.axisTitleRect, Qt::AlignHCenter | Qt::AlignTop, spec.facets[f].axisTitle);
        painter.setPen(QPen(text, 1));
        painter.drawLine(facet.plot.topLeft(), facet.plot.bottomLeft());
    }

    painter.setFont(font);
    painter.setPen(text);
    for (const BarChartGeometry::Label& label : g.labels)
        painter.drawText(label.rect, Qt::AlignLeft | Qt::AlignVCenter, label.text);

    for (const BarChartGeometry::Bar& bar : g.bars) {
        const BarRow& row = spec.facets[bar.facet].rows[bar.row];
        const BarFill fill = bar.measure < spec.measures.size() ? spec.measures[bar.measure].fill : BarFill::Solid;
        fillBar(painter, bar.rect, row.color, fill, text);
    }
    painter.setFont(small);
    painter.setPen(text);
    for (const BarChartGeometry::Bar& bar : g.bars)
        painter.drawText(bar.valueRect, Qt::AlignLeft | Qt::AlignVCenter, bar.valueText);

    // Rows without a bar say why ("out of memory") where the bar would be.
    QFont italic = small;
    italic.setItalic(true);
    painter.setFont(italic);
    for (int f = 0; f < g.facets.size() && f < spec.facets.size(); ++f)
        for (int r = 0; r < spec.facets[f].rows.size() && r < g.facets[f].rowRects.size(); ++r) {
            const BarRow& row = spec.facets[f].rows[r];
            const bool hasBar = std::any_of(row.values.begin(), row.values.end(),
                                            [](const std::optional<double>& v) { return v.has_value(); });
            if (hasBar || row.note.isEmpty())
                continue;
            const QRectF rowRect = g.facets[f].rowRects[r];
            painter.drawText(
                QRectF(g.facets[f].plot.left() + 6, rowRect.top(), g.facets[f].plot.width() - 6, rowRect.height()),
                Qt::AlignLeft | Qt::AlignVCenter, row.note);
        }

    // The capacity lines last, over the bars: a bar that crosses one is over the GPU's memory.
    for (const BarChartGeometry::Facet& facet : g.facets) {
        if (facet.capacityX < 0)
            continue;
        painter.setPen(QPen(capacityLineColor(), 2, Qt::DashLine));
        painter.drawLine(QPointF(facet.capacityX, facet.plot.top() - 2), QPointF(facet.capacityX, facet.plot.bottom()));
    }
    painter.restore();
}

QString barRowDescription(const BarChartSpec& spec, int facet, int row)
{
    if (facet < 0 || facet >= spec.facets.size() || row < 0 || row >= spec.facets[facet].rows.size())
        return {};
    const BarRow& r = spec.facets[facet].rows[row];
    QStringList lines { r.label };
    for (int m = 0; m < spec.measures.size() && m < r.values.size(); ++m)
        if (r.values[m])
            lines << ChartText::tr("%1: %2").arg(
                spec.measures[m].name, spec.format ? spec.format(*r.values[m]) : QString::number(*r.values[m]));
    if (!r.note.isEmpty())
        lines << r.note;
    return lines.join(QLatin1Char('\n'));
}

} // namespace shardwise::gui
