#pragma once
// A horizontal bar chart drawn with QPainter, so that the page and every export (PNG, SVG, PDF) show
// the same picture: one row per item with its full label, never elided (the label column is as wide
// as the longest label, and the chart as high as its rows need), rows grouped into facets (one per
// hardware) that each have their own value axis and their own capacity line, bars coloured by a key
// (the strategy) with the value at each bar's end, and a legend of the colours, of the measures'
// fills and of the capacity line.

#include "charts/chart_axes.hpp"

#include <QColor>
#include <QFont>
#include <QList>
#include <QPalette>
#include <QRectF>
#include <QString>

#include <functional>
#include <optional>

class QPainter;

namespace shardwise::gui {

// How a measure's bar is filled; the colour is the row's. Several measures of one row (allocated,
// reserved, predicted) are told apart by their fill, not by colour.
enum class BarFill { Solid, Hatched, Outline };

struct BarMeasure {
    QString name;
    BarFill fill = BarFill::Solid;
};

struct BarRow {
    QString label;                       // the whole label, on one line
    QColor color;                        // the colour key's colour
    QString colorName;                   // the colour key as the legend names it
    QList<std::optional<double>> values; // one per measure; no value: no bar
    QString note;                        // written in the plot where the row has no bar at all ("out of memory")
};

struct BarFacet {
    QString title;       // e.g. "NVIDIA H200 — GPU memory 139.8 GiB" or "CPU (Gloo)"
    QString axisTitle;   // the value axis' title, with its unit
    double capacity = 0; // a dashed line at this value; 0 for none
    QList<BarRow> rows;
};

struct BarChartSpec {
    QString title;
    QString emptyText;    // shown instead of the facets when there is no row
    QString capacityName; // the capacity line in the legend
    QList<BarMeasure> measures;
    QList<BarFacet> facets;
    std::function<QString(double)> format; // a value with its unit

    int rowCount() const;
    bool isEmpty() const { return rowCount() == 0; }
};

// Where everything of a chart goes at one width, in the painter's logical units.
struct BarChartGeometry {
    struct Label {
        QString text;
        QRectF rect; // the room the text has; it is never narrower than the text
        int facet = 0;
        int row = 0;
    };
    struct Bar {
        QRectF rect;
        QString valueText;
        QRectF valueRect;
        int facet = 0;
        int row = 0;
        int measure = 0;
    };
    struct Facet {
        QString title;
        QRectF titleRect;
        QRectF plot; // the bars' area, rows stacked downwards
        NiceScale scale;
        qreal capacityX = -1; // the capacity line's x; < 0 for none
        QRectF axisTitleRect;
        QList<QRectF> rowRects; // label and plot together, per row
    };
    struct LegendEntry {
        enum class Kind { Color, Measure, Capacity } kind = Kind::Color;
        QString text;
        QColor color;
        BarFill fill = BarFill::Solid;
        QRectF swatch;
        QRectF textRect;
    };

    QFont font;
    QRectF titleRect;
    QRectF emptyRect;
    QList<LegendEntry> legend;
    QList<Facet> facets;
    QList<Label> labels;
    QList<Bar> bars;
    qreal labelColumnWidth = 0;
    qreal width = 0;
    qreal minimumWidth = 0; // below this the plot would have no room: the chart is drawn this wide
    qreal height = 0;
};

BarChartGeometry layoutBarChart(const BarChartSpec& spec, qreal width, const QFont& font);
// Paints the chart at the geometry's size from (0, 0), in `palette`'s colours (light or dark).
void paintBarChart(QPainter& painter, const BarChartSpec& spec, const BarChartGeometry& geometry,
                   const QPalette& palette);
// The text a tooltip shows for row `row` of facet `facet`: the label, then each measure's value.
QString barRowDescription(const BarChartSpec& spec, int facet, int row);

} // namespace shardwise::gui
