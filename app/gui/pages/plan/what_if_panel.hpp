#pragma once
// The Plan page's what-if grid: the plan's input swept over two chosen axes (sequence, micro-batch,
// GPUs per node, nodes; core/plan's runSweep), one cell per combination, coloured as a heatmap of
// whether anything fits, the planned peak per GPU or the predicted tokens/s. The page hands it every
// input the form describes; the grid is planned again after a short pause, while it is shown.

#include "shardwise/plan/sweep.hpp"

#include <QHash>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;
class QTimer;

namespace shardwise::gui {

class WhatIfPanel : public QWidget {
    Q_OBJECT

public:
    enum class Metric { Fits, Peak, TokensPerS };
    // Each cell's figures, beside its text (Qt::DisplayRole) and tooltip.
    enum CellRole {
        FitsRole = Qt::UserRole, // bool
        PeakBytesRole,           // double, the point's planned peak per GPU
        TokensPerSRole,          // double
        StrategyRole,            // QString, the id of the strategy the figures are for
        CurrentPlanRole,         // bool: the cell is the form's own input
    };
    // The most values one axis takes in the grid.
    static constexpr int kMaxValuesPerAxis = 16;

    explicit WhatIfPanel(QWidget* parent = nullptr);

    // The plan's input: the grid is planned again after a short pause (at once when shown later).
    void setBaseInput(const EstimateInput& input);
    // The form describes no valid input: the grid empties until the next setBaseInput.
    void clearBase();
    // The axes and their values as typed ("1024,2048,4096"); planned again after the pause.
    void setAxes(SweepAxis columns, const QString& columnValues, SweepAxis rows, const QString& rowValues);
    SweepAxis columnAxis() const;
    SweepAxis rowAxis() const;
    void setMetric(Metric metric);
    Metric metric() const;

    // Plans now what is pending (the pause's end; a test need not wait for it).
    void refresh();
    bool pending() const;
    const SweepResult& sweep() const { return m_sweep; }
    // Why the grid is empty: a bad value (naming the axis and the value), a point the planner refuses.
    QString errorText() const;
    QTableWidget* grid() const { return m_grid; }

    static QString axisLabel(SweepAxis axis);
    // The tab titles of the page's figures: the memory chart and this grid.
    static QString memoryTabTitle();
    static QString tabTitle();

signals:
    // The grid shows a new sweep, or an error.
    void sweepUpdated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void scheduleRefresh();
    void axisChosen(QComboBox* changed);
    void fillGrid();
    void showError(const QString& message);
    QString cellText(const SweepPoint& p) const;
    QString cellToolTip(const SweepPoint& p) const;

    std::optional<EstimateInput> m_base;
    SweepResult m_sweep;
    bool m_dirty = false;
    QComboBox* m_columnAxis = nullptr;
    QComboBox* m_rowAxis = nullptr;
    QLineEdit* m_columnValues = nullptr;
    QLineEdit* m_rowValues = nullptr;
    QComboBox* m_metric = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_legend = nullptr;
    QTableWidget* m_grid = nullptr;
    QTimer* m_debounce = nullptr;
    QHash<int, QString> m_values; // per axis, the values last typed for it
    int m_shownColumnAxis = 0;    // the axes before the user's last choice, to swap on a clash
    int m_shownRowAxis = 0;
};

} // namespace shardwise::gui
