#include "pages/plan/what_if_panel.hpp"

#include "models/display_format.hpp"

#include "shardwise/spec/json.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace shardwise::gui {

namespace {

// The values each axis starts with: powers of two around the usual settings.
QString defaultValues(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SeqLen:
        return QStringLiteral("512,1024,2048,4096,8192");
    case SweepAxis::MicroBatch:
        return QStringLiteral("1,2,4,8");
    case SweepAxis::GpusPerNode:
        return QStringLiteral("1,2,4,8");
    case SweepAxis::Nodes:
        return QStringLiteral("1,2,4,8");
    }
    return {};
}

SweepAxis axisOf(const QComboBox* combo)
{
    return static_cast<SweepAxis>(combo->currentData().toInt());
}

void selectAxis(QComboBox* combo, SweepAxis axis)
{
    combo->setCurrentIndex(combo->findData(static_cast<int>(axis)));
}

// Light cells with dark text, readable in the light and the dark palette alike. `t` in 0..1 darkens
// the colour: a larger peak, a higher throughput.
QColor heat(bool fits, double t)
{
    const double hue = fits ? 0.33 : 0.0; // green where the plan fits, red where nothing does
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(0.12 + 0.5 * std::clamp(t, 0.0, 1.0)), 0.97F);
}

} // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("whatIfPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    m_columnAxis = new QComboBox(this);
    m_columnAxis->setObjectName(QStringLiteral("whatIfColumnAxis"));
    m_rowAxis = new QComboBox(this);
    m_rowAxis->setObjectName(QStringLiteral("whatIfRowAxis"));
    for (const SweepAxis a : kSweepAxes) {
        m_columnAxis->addItem(axisLabel(a), static_cast<int>(a));
        m_rowAxis->addItem(axisLabel(a), static_cast<int>(a));
        m_values.insert(static_cast<int>(a), defaultValues(a));
    }
    m_columnValues = new QLineEdit(this);
    m_columnValues->setObjectName(QStringLiteral("whatIfColumnValues"));
    m_rowValues = new QLineEdit(this);
    m_rowValues->setObjectName(QStringLiteral("whatIfRowValues"));
    const QString valuesTip = tr("The values to plan, separated by commas (at most %1); every other setting is the "
                                 "form's.")
                                  .arg(kMaxValuesPerAxis);
    m_columnValues->setToolTip(valuesTip);
    m_rowValues->setToolTip(valuesTip);
    m_metric = new QComboBox(this);
    m_metric->setObjectName(QStringLiteral("whatIfMetric"));
    m_metric->addItem(tr("Fits"), static_cast<int>(Metric::Fits));
    m_metric->addItem(tr("Peak per GPU"), static_cast<int>(Metric::Peak));
    m_metric->addItem(tr("Tokens/s"), static_cast<int>(Metric::TokensPerS));

    auto* controls = new QGridLayout;
    controls->addWidget(new QLabel(tr("Columns:"), this), 0, 0);
    controls->addWidget(m_columnAxis, 0, 1);
    controls->addWidget(m_columnValues, 0, 2);
    controls->addWidget(new QLabel(tr("Show:"), this), 0, 3);
    controls->addWidget(m_metric, 0, 4);
    controls->addWidget(new QLabel(tr("Rows:"), this), 1, 0);
    controls->addWidget(m_rowAxis, 1, 1);
    controls->addWidget(m_rowValues, 1, 2);
    controls->setColumnStretch(2, 1);
    layout->addLayout(controls);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("whatIfError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d03b3b"));
    m_error->hide();
    layout->addWidget(m_error);

    m_grid = new QTableWidget(this);
    m_grid->setObjectName(QStringLiteral("whatIfGrid"));
    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setSelectionMode(QAbstractItemView::SingleSelection);
    m_grid->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_grid->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    layout->addWidget(m_grid, 1);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("whatIfLegend"));
    m_legend->setWordWrap(true);
    layout->addWidget(m_legend);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &WhatIfPanel::refresh);

    selectAxis(m_columnAxis, SweepAxis::SeqLen);
    selectAxis(m_rowAxis, SweepAxis::GpusPerNode);
    m_shownColumnAxis = static_cast<int>(SweepAxis::SeqLen);
    m_shownRowAxis = static_cast<int>(SweepAxis::GpusPerNode);
    m_columnValues->setText(m_values.value(m_shownColumnAxis));
    m_rowValues->setText(m_values.value(m_shownRowAxis));

    connect(m_columnAxis, &QComboBox::currentIndexChanged, this, [this] { axisChosen(m_columnAxis); });
    connect(m_rowAxis, &QComboBox::currentIndexChanged, this, [this] { axisChosen(m_rowAxis); });
    connect(m_columnValues, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_values.insert(static_cast<int>(axisOf(m_columnAxis)), text);
        scheduleRefresh();
    });
    connect(m_rowValues, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_values.insert(static_cast<int>(axisOf(m_rowAxis)), text);
        scheduleRefresh();
    });
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { fillGrid(); });
    fillGrid();
}

QString WhatIfPanel::axisLabel(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SeqLen:
        return tr("Sequence");
    case SweepAxis::MicroBatch:
        return tr("Micro-batch");
    case SweepAxis::GpusPerNode:
        return tr("GPUs per node");
    case SweepAxis::Nodes:
        return tr("Nodes");
    }
    return {};
}

QString WhatIfPanel::memoryTabTitle()
{
    return tr("Memory");
}

QString WhatIfPanel::tabTitle()
{
    return tr("What if");
}

void WhatIfPanel::setBaseInput(const EstimateInput& input)
{
    m_base = input;
    scheduleRefresh();
}

void WhatIfPanel::clearBase()
{
    m_base.reset();
    scheduleRefresh();
}

void WhatIfPanel::setAxes(SweepAxis columns, const QString& columnValues, SweepAxis rows, const QString& rowValues)
{
    m_values.insert(static_cast<int>(columns), columnValues);
    m_values.insert(static_cast<int>(rows), rowValues);
    const QSignalBlocker blockColumns(m_columnAxis);
    const QSignalBlocker blockRows(m_rowAxis);
    selectAxis(m_columnAxis, columns);
    selectAxis(m_rowAxis, rows);
    m_shownColumnAxis = static_cast<int>(columns);
    m_shownRowAxis = static_cast<int>(rows);
    m_columnValues->setText(columnValues);
    m_rowValues->setText(rowValues);
    scheduleRefresh();
}

SweepAxis WhatIfPanel::columnAxis() const
{
    return axisOf(m_columnAxis);
}

SweepAxis WhatIfPanel::rowAxis() const
{
    return axisOf(m_rowAxis);
}

void WhatIfPanel::setMetric(Metric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric)));
}

WhatIfPanel::Metric WhatIfPanel::metric() const
{
    return static_cast<Metric>(m_metric->currentData().toInt());
}

bool WhatIfPanel::pending() const
{
    return m_dirty;
}

QString WhatIfPanel::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

void WhatIfPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        m_debounce->start(0); // planned while hidden is planned for nothing: now it is shown
}

void WhatIfPanel::scheduleRefresh()
{
    m_dirty = true;
    if (isVisible())
        m_debounce->start();
}

void WhatIfPanel::axisChosen(QComboBox* changed)
{
    // One axis cannot be both: the other one takes the axis this one had.
    QComboBox* other = changed == m_columnAxis ? m_rowAxis : m_columnAxis;
    int& shown = changed == m_columnAxis ? m_shownColumnAxis : m_shownRowAxis;
    int& otherShown = changed == m_columnAxis ? m_shownRowAxis : m_shownColumnAxis;
    const int chosen = static_cast<int>(axisOf(changed));
    if (chosen == otherShown) {
        const QSignalBlocker block(other);
        selectAxis(other, static_cast<SweepAxis>(shown));
        otherShown = shown;
    }
    shown = chosen;
    const QSignalBlocker blockColumns(m_columnValues);
    const QSignalBlocker blockRows(m_rowValues);
    m_columnValues->setText(m_values.value(m_shownColumnAxis));
    m_rowValues->setText(m_values.value(m_shownRowAxis));
    scheduleRefresh();
}

void WhatIfPanel::showError(const QString& message)
{
    m_sweep = {};
    m_error->setText(message);
    m_error->show();
    fillGrid();
    emit sweepUpdated();
}

void WhatIfPanel::refresh()
{
    m_debounce->stop();
    m_dirty = false;
    if (!m_base) {
        m_error->hide();
        m_sweep = {};
        fillGrid();
        emit sweepUpdated();
        return;
    }
    std::vector<SweepAxisValues> axes;
    // Rows first: the sweep's first axis varies slowest, so the points fill the grid row by row.
    for (const auto& [axis, edit] :
         { std::pair { rowAxis(), m_rowValues }, std::pair { columnAxis(), m_columnValues } }) {
        QString text = edit->text();
        text.remove(QLatin1Char(' '));
        try {
            axes.push_back({ axis, parseSweepValues(axis, text.toStdString()) });
        } catch (const SpecError& e) {
            std::string message = e.what();
            const std::string prefix = e.field() + ": ";
            if (message.rfind(prefix, 0) == 0)
                message.erase(0, prefix.size());
            showError(tr("%1: %2").arg(axisLabel(axis), QString::fromStdString(message)));
            return;
        }
        if (axes.back().values.size() > static_cast<std::size_t>(kMaxValuesPerAxis)) {
            showError(tr("%1: at most %2 values, got %3")
                          .arg(axisLabel(axis))
                          .arg(kMaxValuesPerAxis)
                          .arg(axes.back().values.size()));
            return;
        }
    }
    try {
        m_sweep = runSweep(*m_base, axes);
    } catch (const SpecError& e) {
        showError(tr("Cannot plan the grid: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    m_error->hide();
    fillGrid();
    emit sweepUpdated();
}

QString WhatIfPanel::cellText(const SweepPoint& p) const
{
    switch (metric()) {
    case Metric::Fits:
        return p.fits ? strategyIdText(*p.recommended) : tr("none");
    case Metric::Peak:
        return formatGiB(p.peakBytes / kGiB);
    case Metric::TokensPerS:
        return formatTokensPerS(p.tokensPerS);
    }
    return {};
}

QString WhatIfPanel::cellToolTip(const SweepPoint& p) const
{
    QString text = tr("Sequence %1, micro-batch %2, GPUs per node %3, nodes %4, world %5")
                       .arg(p.seqLen)
                       .arg(p.microBatch)
                       .arg(p.gpusPerNode)
                       .arg(p.nodes)
                       .arg(p.worldSize());
    text += QLatin1Char('\n');
    text += p.fits ? tr("Recommended: %1").arg(strategyIdText(p.strategy))
                   : tr("Nothing fits; the lowest peak is %1's").arg(strategyIdText(p.strategy));
    text += QLatin1Char('\n') + tr("Peak per GPU: %1").arg(formatGiB(p.peakBytes / kGiB));
    text += QLatin1Char('\n') + tr("Predicted: %1").arg(formatTokensPerS(p.tokensPerS));
    return text;
}

void WhatIfPanel::fillGrid()
{
    m_grid->clear();
    const std::size_t rows = m_sweep.axes.size() == 2 ? m_sweep.axes[0].values.size() : 0;
    const std::size_t columns = m_sweep.axes.size() == 2 ? m_sweep.axes[1].values.size() : 0;
    m_grid->setRowCount(static_cast<int>(rows));
    m_grid->setColumnCount(static_cast<int>(columns));
    switch (metric()) {
    case Metric::Fits:
        m_legend->setText(tr("Each cell names the recommended strategy: green where it fits, red where nothing "
                             "fits. Hover a cell for its peak and tokens/s."));
        break;
    case Metric::Peak:
        m_legend->setText(tr("The planned peak per GPU, the plan's one peak figure: a darker cell needs more. Red: "
                             "nothing fits, the figure is the lowest peak of any strategy."));
        break;
    case Metric::TokensPerS:
        m_legend->setText(tr("Predicted tokens/s of all GPUs together: a darker cell is faster. Red: nothing fits."));
        break;
    }
    if (rows == 0 || columns == 0)
        return;
    double maxPeak = 0;
    double maxTokens = 0;
    for (const SweepPoint& p : m_sweep.points) {
        maxPeak = std::max(maxPeak, p.peakBytes);
        maxTokens = std::max(maxTokens, p.tokensPerS);
    }
    const SweepAxis rowAxisShown = m_sweep.axes[0].axis;
    const SweepAxis columnAxisShown = m_sweep.axes[1].axis;
    QStringList rowLabels;
    for (const int v : m_sweep.axes[0].values)
        rowLabels << QString::number(v);
    QStringList columnLabels;
    for (const int v : m_sweep.axes[1].values)
        columnLabels << QString::number(v);
    m_grid->setVerticalHeaderLabels(rowLabels);
    m_grid->setHorizontalHeaderLabels(columnLabels);
    for (std::size_t c = 0; c < columns; ++c)
        m_grid->horizontalHeaderItem(static_cast<int>(c))->setToolTip(axisLabel(columnAxisShown));
    for (std::size_t r = 0; r < rows; ++r)
        m_grid->verticalHeaderItem(static_cast<int>(r))->setToolTip(axisLabel(rowAxisShown));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < columns; ++c) {
            const SweepPoint* p = m_sweep.at({ r, c });
            if (!p)
                continue;
            auto* item = new QTableWidgetItem(cellText(*p));
            item->setTextAlignment(Qt::AlignCenter);
            double t = 0.5;
            if (metric() == Metric::Peak && maxPeak > 0)
                t = p->peakBytes / maxPeak;
            else if (metric() == Metric::TokensPerS && maxTokens > 0)
                t = p->tokensPerS / maxTokens;
            item->setBackground(heat(p->fits, t));
            item->setForeground(QColor(Qt::black));
            const bool current = m_base && sweepAxisValue(*m_base, rowAxisShown) == p->value(rowAxisShown)
                && sweepAxisValue(*m_base, columnAxisShown) == p->value(columnAxisShown);
            QString tip = cellToolTip(*p);
            if (current) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                tip += QLatin1Char('\n') + tr("The form's own settings.");
            }
            item->setToolTip(tip);
            item->setData(FitsRole, p->fits);
            item->setData(PeakBytesRole, p->peakBytes);
            item->setData(TokensPerSRole, p->tokensPerS);
            item->setData(StrategyRole, strategyIdText(p->strategy));
            item->setData(CurrentPlanRole, current);
            m_grid->setItem(static_cast<int>(r), static_cast<int>(c), item);
        }
}

} // namespace shardwise::gui
