#include "pages/compare/compare_page.hpp"

#include "charts/bar_chart_view.hpp"
#include "charts/chart_panel.hpp"
#include "charts/comparison_charts.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"
#include "models/run_filter_model.hpp"
#include "models/run_table_model.hpp"
#include "pages/compare/prediction_job.hpp"
#include "pages/compare/run_origin_bar.hpp"
#include "workspace/workspace.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <initializer_list>

namespace shardwise::gui {

namespace {

QComboBox* makeFilterCombo(const QString& tip, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setToolTip(tip);
    // A long model or node name does not widen the page; the list shows it in full.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
    return combo;
}

// Refills `combo` with "any" plus `values`, keeping the current choice when it is still offered.
void refill(QComboBox* combo, const QStringList& values)
{
    const QString current = combo->currentData().toString();
    const QSignalBlocker block(combo);
    combo->clear();
    combo->addItem(ComparePage::tr("any"), QString());
    for (const QString& v : values)
        combo->addItem(v, v);
    const int i = combo->findData(current);
    combo->setCurrentIndex(i >= 0 ? i : 0);
}

// Each prediction next to what it predicts: the fit verdicts after the outcome, the tokens/s
// predictions after the measured throughput, the peak predictions after the measured peak. Only the
// view's order changes; exports keep the model's column order.
void placePredictionsBesideMeasurements(QHeaderView& header)
{
    const auto placeAfter = [&header](int anchor, std::initializer_list<int> columns) {
        for (const int column : columns) {
            const int from = header.visualIndex(column);
            const int after = header.visualIndex(anchor);
            header.moveSection(from, from > after ? after + 1 : after);
            anchor = column;
        }
    };
    placeAfter(RunTableModel::OutcomeColumn,
               { RunTableModel::PresetsVerdictColumn, RunTableModel::CalibratedVerdictColumn });
    placeAfter(RunTableModel::TokensColumn,
               { RunTableModel::PresetsTokensColumn, RunTableModel::PresetsTokensErrorColumn,
                 RunTableModel::CalibratedTokensColumn, RunTableModel::CalibratedTokensErrorColumn });
    placeAfter(RunTableModel::PeakAllocatedColumn,
               { RunTableModel::PresetsPeakColumn, RunTableModel::PresetsPeakErrorColumn,
                 RunTableModel::CalibratedPeakColumn, RunTableModel::CalibratedPeakErrorColumn });
}

} // namespace

ComparePage::ComparePage(Workspace& workspace, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
{
    m_runs = new RunTableModel(this);
    m_filter = new RunFilterModel(this);
    m_filter->setSourceModel(m_runs);

    auto* filters = new QVBoxLayout;
    m_modelFilter = makeFilterCombo(tr("Show only runs of this model."), this);
    m_modelFilter->setObjectName(QStringLiteral("modelFilter"));
    m_hardwareFilter = makeFilterCombo(tr("Show only runs on this hardware."), this);
    m_strategyFilter = makeFilterCombo(tr("Show only runs of this strategy."), this);
    m_strategyFilter->setObjectName(QStringLiteral("strategyFilter"));
    m_nodeFilter = makeFilterCombo(tr("Show only runs on this node."), this);
    m_backendFilter
        = makeFilterCombo(tr("Show only runs of this backend: native (Shardwise's runner) or torch (PyTorch)."), this);
    m_backendFilter->setObjectName(QStringLiteral("backendFilter"));
    m_backendFilter->addItem(tr("any"), QString());
    for (const RunBackend b : { RunBackend::Native, RunBackend::Torch })
        m_backendFilter->addItem(backendIdText(b), backendIdText(b));
    m_limitDates = new QCheckBox(tr("Started between"), this);
    m_limitDates->setToolTip(tr("Show only runs started in this date range (inclusive)."));
    m_from = new QDateEdit(QDate::currentDate().addMonths(-1), this);
    m_to = new QDateEdit(QDate::currentDate(), this);
    for (QDateEdit* d : { m_from, m_to }) {
        d->setCalendarPopup(true);
        d->setEnabled(false);
    }
    // Two rows of filters, so that the page fits a 1024 px window: what ran, then where and when.
    auto* whatRow = new QHBoxLayout;
    whatRow->addWidget(new QLabel(tr("Model:"), this));
    whatRow->addWidget(m_modelFilter);
    whatRow->addWidget(new QLabel(tr("Hardware:"), this));
    whatRow->addWidget(m_hardwareFilter);
    whatRow->addWidget(new QLabel(tr("Strategy:"), this));
    whatRow->addWidget(m_strategyFilter);
    whatRow->addStretch(1);
    auto* whereRow = new QHBoxLayout;
    whereRow->addWidget(new QLabel(tr("Backend:"), this));
    whereRow->addWidget(m_backendFilter);
    whereRow->addWidget(new QLabel(tr("Node:"), this));
    whereRow->addWidget(m_nodeFilter);
    whereRow->addWidget(m_limitDates);
    whereRow->addWidget(m_from);
    whereRow->addWidget(new QLabel(tr("and"), this));
    whereRow->addWidget(m_to);
    whereRow->addStretch(1);
    filters->addLayout(whatRow);
    filters->addLayout(whereRow);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("runTable"));
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunTableModel::IdColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    placePredictionsBesideMeasurements(*m_table->horizontalHeader());

    auto* buttons = new QHBoxLayout;
    auto* checkVisible = new QPushButton(tr("Check all shown"), this);
    checkVisible->setToolTip(tr("Put every run the filters show into the charts."));
    auto* uncheck = new QPushButton(tr("Uncheck all"), this);
    auto* exportCharts = new QPushButton(tr("Export &charts…"), this);
    exportCharts->setObjectName(QStringLiteral("exportChartsButton"));
    exportCharts->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportCharts->setToolTip(tr("Save the four charts as PNG, SVG or PDF with a caption (%1).")
                                 .arg(exportCharts->shortcut().toString(QKeySequence::NativeText)));
    auto* exportTable = new QPushButton(tr("Export &table…"), this);
    exportTable->setObjectName(QStringLiteral("exportTableButton"));
    exportTable->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportTable->setToolTip(tr("Save the checked runs as CSV or Markdown with a caption (%1).")
                                .arg(exportTable->shortcut().toString(QKeySequence::NativeText)));
    auto* refresh = new QPushButton(tr("&Reload"), this);
    refresh->setShortcut(QKeySequence::Refresh);
    refresh->setToolTip(
        tr("Read the runs from the workspace again (%1).").arg(refresh->shortcut().toString(QKeySequence::NativeText)));
    buttons->addWidget(checkVisible);
    buttons->addWidget(uncheck);
    buttons->addStretch(1);
    buttons->addWidget(refresh);
    buttons->addWidget(exportTable);
    buttons->addWidget(exportCharts);

    auto* exportPrediction = new QPushButton(tr("Export &prediction chart…"), this);
    exportPrediction->setObjectName(QStringLiteral("exportPredictionChartButton"));
    exportPrediction->setToolTip(tr("Save the measured-vs-predicted chart as PNG, SVG or PDF with a caption naming the "
                                    "calibration."));
    buttons->addWidget(exportPrediction);

    m_calibrationLine = new QLabel(this);
    m_calibrationLine->setObjectName(QStringLiteral("calibrationLine"));
    m_calibrationLine->setWordWrap(true);
    m_calibrationLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_calibrationLine->setToolTip(
        tr("The calibration behind the \"Calibrated\" columns, per GPU type shown: fitted to the "
           "store's newest probe of a node with that GPU and to its finished runs. Its residuals "
           "are in-sample: they show what calibration explains, not how it predicts a new run."));

    m_charts = new ChartPanel(this);
    m_charts->setObjectName(QStringLiteral("comparisonCharts"));
    m_predictionChart = new BarChartView(this);
    m_predictionChart->setObjectName(QStringLiteral("predictionChart"));
    m_predictionChart->setToolTip(tr("Measured tokens/s of each checked run beside the presets' and the calibrated "
                                     "prediction. The calibrated prediction is fitted to these runs (in-sample)."));

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(filters);
    topLayout->addWidget(m_calibrationLine);
    topLayout->addWidget(m_table, 1);
    topLayout->addLayout(buttons);
    topLayout->addWidget(new RunOriginBar(workspace, *m_table, top));
    // The charts one above the other at the page's width, each as high as its runs need: the area
    // scrolls instead of squeezing 30 runs' labels.
    auto* charts = new QWidget(this);
    auto* chartColumn = new QVBoxLayout(charts);
    chartColumn->setContentsMargins(0, 0, 0, 0);
    chartColumn->addWidget(m_charts);
    chartColumn->addWidget(m_predictionChart);
    chartColumn->addStretch(1);
    auto* chartArea = new QScrollArea(this);
    chartArea->setObjectName(QStringLiteral("chartArea"));
    chartArea->setWidgetResizable(true);
    chartArea->setFrameShape(QFrame::NoFrame);
    chartArea->setWidget(charts);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(chartArea);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 0); // the window's height goes to the table and the charts
    layout->addWidget(splitter);

    for (QComboBox* combo : { m_modelFilter, m_hardwareFilter, m_strategyFilter, m_nodeFilter, m_backendFilter })
        connect(combo, &QComboBox::currentIndexChanged, this, &ComparePage::applyFilters);
    connect(m_limitDates, &QCheckBox::toggled, this, [this](bool on) {
        m_from->setEnabled(on);
        m_to->setEnabled(on);
        applyFilters();
    });
    connect(m_from, &QDateEdit::dateChanged, this, &ComparePage::applyFilters);
    connect(m_to, &QDateEdit::dateChanged, this, &ComparePage::applyFilters);
    connect(m_runs, &RunTableModel::checkedRunsChanged, this, &ComparePage::updateCharts);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &ComparePage::updateCharts); // sorted again
    connect(checkVisible, &QPushButton::clicked, this, [this] {
        for (int row = 0; row < m_filter->rowCount(); ++row)
            m_runs->setChecked(m_filter->index(row, 0).data(RunTableModel::RunIdRole).toLongLong(), true);
    });
    connect(uncheck, &QPushButton::clicked, this, [this] { m_runs->checkAll(false); });
    connect(exportCharts, &QPushButton::clicked, this, &ComparePage::exportChartsInteractively);
    connect(exportTable, &QPushButton::clicked, this, &ComparePage::exportTableInteractively);
    connect(exportPrediction, &QPushButton::clicked, this, &ComparePage::exportPredictionChartInteractively);
    connect(refresh, &QPushButton::clicked, this, &ComparePage::reload);
    m_predictionJob = new PredictionJob(this);
    connect(m_predictionJob, &PredictionJob::predictionsAvailable, this, &ComparePage::showPredictions);
    connect(m_predictionJob, &PredictionJob::predictionsFailed, this, &ComparePage::showPredictionFailure);
    connect(&m_workspace, &Workspace::runsChanged, this, &ComparePage::reload);
    reload();
}

ComparePage::~ComparePage() = default;

void ComparePage::reload()
{
    const QList<RunRecord> runs = m_workspace.runs();
    // Every run not shown before is charted as it arrives; on the first load, the newest ones (the
    // workspace lists the newest first).
    QSet<qint64> known;
    for (const RunRecord& r : m_runs->runs())
        known.insert(r.id);
    QSet<qint64> arriving;
    for (const RunRecord& r : runs)
        if (!known.contains(r.id) && (!known.isEmpty() || arriving.size() < kChartedAtFirstLoad))
            arriving.insert(r.id);
    m_runs->setRuns(runs, arriving);
    rebuildFilterChoices();
    updateCharts();
    if (m_workspace.isOpen()) {
        m_predictionsPending = true;
        m_predictionJob->request(m_workspace.databasePath());
    } else {
        m_predictions = {};
        m_runs->setPredictions({});
        m_predictionError = tr("no run store is open");
        m_predictionsPending = false;
    }
    updateCalibrationLine();
}

void ComparePage::showPredictions(const PredictionSet& predictions)
{
    m_predictions = predictions;
    m_predictionError.clear();
    m_predictionsPending = false;
    m_runs->setPredictions(m_predictions.runs);
    updateCalibrationLine();
    updateCharts();
    emit predictionsUpdated();
}

void ComparePage::showPredictionFailure(const QString& message)
{
    m_predictions = {};
    m_predictionError = message;
    m_predictionsPending = false;
    m_runs->setPredictions({});
    updateCalibrationLine();
    updateCharts();
    emit predictionsUpdated();
}

void ComparePage::updateCalibrationLine()
{
    if (m_predictionsPending && m_predictions.runs.isEmpty()) {
        m_calibrationLine->setText(tr("Calibrating from the run store…"));
        return;
    }
    if (!m_predictionError.isEmpty()) {
        m_calibrationLine->setText(tr("Predictions unavailable: %1").arg(m_predictionError));
        return;
    }
    if (m_predictions.runs.isEmpty()) {
        m_calibrationLine->setText(tr("No measurements to compare with predictions: the store holds no completed or "
                                      "out-of-memory GPU run with its configuration. Validate a plan on a GPU node, or "
                                      "import measured runs, and they appear here with their predictions."));
        return;
    }
    // One line per GPU type among the rows the filters show, in the order the table lists them.
    QStringList gpus;
    for (int row = 0; row < m_filter->rowCount(); ++row)
        if (const RunPrediction* p
            = m_runs->predictionFor(m_filter->index(row, 0).data(RunTableModel::RunIdRole).toLongLong()))
            if (!gpus.contains(p->gpu))
                gpus << p->gpu;
    if (gpus.isEmpty()) {
        m_calibrationLine->setText(
            tr("None of the runs shown has a prediction: only completed or out-of-memory runs on "
               "a known GPU preset are predicted."));
        return;
    }
    QStringList lines;
    for (const QString& gpu : gpus)
        if (const CalibrationSummary* c = m_predictions.calibrationFor(gpu))
            lines << describeCalibration(*c);
    m_calibrationLine->setText(lines.join(QLatin1Char('\n')));
}

void ComparePage::rebuildFilterChoices()
{
    QStringList models, hardware, nodes;
    for (const RunRecord& r : m_runs->runs()) {
        if (!models.contains(r.model))
            models << r.model;
        if (!hardware.contains(r.hardware))
            hardware << r.hardware;
        if (!nodes.contains(r.node))
            nodes << r.node;
    }
    models.sort();
    hardware.sort();
    nodes.sort();
    refill(m_modelFilter, models);
    refill(m_hardwareFilter, hardware);
    refill(m_nodeFilter, nodes);
    if (m_strategyFilter->count() == 0) {
        m_strategyFilter->addItem(tr("any"), QString());
        for (const StrategyTraits& t : allStrategies())
            m_strategyFilter->addItem(strategyLabel(t.strategy), strategyIdText(t.strategy));
    }
}

void ComparePage::applyFilters()
{
    m_filter->setModelFilter(m_modelFilter->currentData().toString());
    m_filter->setHardwareFilter(m_hardwareFilter->currentData().toString());
    m_filter->setStrategyFilter(m_strategyFilter->currentData().toString());
    m_filter->setNodeFilter(m_nodeFilter->currentData().toString());
    m_filter->setBackendFilter(m_backendFilter->currentData().toString());
    if (m_limitDates->isChecked())
        m_filter->setDateRange(m_from->date(), m_to->date());
    else
        m_filter->setDateRange({}, {});
    updateCalibrationLine();
}

void ComparePage::updateCharts()
{
    // In the table's order (its sort column), so that a chart reads like the table; checked runs the
    // filters hide follow.
    QList<RunRecord> checked;
    QSet<qint64> placed;
    for (int row = 0; row < m_filter->rowCount(); ++row) {
        const qint64 id = m_filter->index(row, 0).data(RunTableModel::RunIdRole).toLongLong();
        if (m_filter->index(row, 0).data(Qt::CheckStateRole).toInt() == Qt::Checked)
            if (const RunRecord* r = m_runs->runById(id)) {
                checked << *r;
                placed.insert(id);
            }
    }
    for (const RunRecord& r : m_runs->checkedRuns())
        if (!placed.contains(r.id))
            checked << r;
    m_charts->setRuns(checked);
    m_predictionChart->setSpec(calibrationChart(checked, m_predictions.runs));
}

void ComparePage::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange && m_charts && m_predictionChart)
        updateCharts(); // rebuilds every chart in the new palette
    QWidget::changeEvent(event);
}

} // namespace shardwise::gui
