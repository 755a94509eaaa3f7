#include "models/run_queue_model.hpp"

#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include <QDateTime>

namespace shardwise::gui {

RunQueueModel::RunQueueModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_now([] { return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0; })
{
}

void RunQueueModel::setClock(std::function<double()> now)
{
    m_now = std::move(now);
}

void RunQueueModel::setRunningStart(double unixSeconds)
{
    if (!m_hasRunning)
        return;
    m_startedAt = unixSeconds;
    emit dataChanged(index(0, ElapsedColumn), index(0, ElapsedColumn));
}

void RunQueueModel::tick()
{
    if (m_hasRunning)
        emit dataChanged(index(0, ElapsedColumn), index(0, EtaColumn));
}

std::optional<double> RunQueueModel::elapsedSeconds() const
{
    if (!m_hasRunning || !m_startedAt)
        return std::nullopt;
    return std::max(m_now() - *m_startedAt, 0.0);
}

RunEstimate RunQueueModel::estimateAt(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return RunEstimate::unknown();
    const RunRequest& r = m_rows[row];
    if (r.abandonOf)
        return RunEstimate::known(0); // stopping ranks takes a moment, not a run's time
    if (m_hasRunning && row == 0)
        return runningEstimate(m_stepsDone, m_stepsTotal, m_medianStepS);
    // A re-attached run goes on from steps this queue has not seen: nothing to go by until it runs.
    if (r.reattachOf)
        return RunEstimate::unknown();
    return queuedEstimate(r.config.warmupSteps + r.config.timedSteps, r.predicted ? r.predicted->stepS : std::nullopt);
}

RunEstimate RunQueueModel::queueEstimate() const
{
    std::vector<RunEstimate> estimates;
    for (int row = 0; row < m_rows.size(); ++row)
        estimates.push_back(estimateAt(row));
    return gui::queueEstimate(estimates);
}

void RunQueueModel::setQueue(const std::optional<RunRequest>& running, const QList<RunRequest>& queued)
{
    const bool wasSameRun = m_hasRunning && running && !m_rows.isEmpty() && m_rows.front().ticket == running->ticket;
    beginResetModel();
    m_rows.clear();
    m_hasRunning = running.has_value();
    if (running)
        m_rows.append(*running);
    m_rows.append(queued);
    if (!wasSameRun) {
        m_stepsDone = 0;
        m_stepsTotal = running ? running->config.warmupSteps + running->config.timedSteps : 0;
        m_medianStepS.reset();
        m_startedAt.reset();
    }
    endResetModel();
}

void RunQueueModel::setRunningSteps(int done, int total, std::optional<double> medianStepS)
{
    if (!m_hasRunning || (done == m_stepsDone && total == m_stepsTotal && medianStepS == m_medianStepS))
        return;
    m_stepsDone = done;
    m_stepsTotal = total;
    m_medianStepS = medianStepS;
    emit dataChanged(index(0, StateColumn), index(0, EtaColumn));
}

qint64 RunQueueModel::ticketAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].ticket : 0;
}

int RunQueueModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunQueueModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunQueueModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRequest& r = m_rows[index.row()];
    const bool running = m_hasRunning && index.row() == 0;
    if (role == TicketRole)
        return r.ticket;
    if (role == RunningRole)
        return running;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case StateColumn:
        if (r.abandonOf)
            return running
                ? tr("Abandoning run %1").arg(*r.abandonOf)
                : tr("Queued (%1): abandon run %2").arg(index.row() - (m_hasRunning ? 1 : 0) + 1).arg(*r.abandonOf);
        if (!running)
            return tr("Queued (%1)").arg(index.row() - (m_hasRunning ? 1 : 0) + 1);
        return m_stepsTotal > 0 ? tr("Running, step %1 of %2").arg(m_stepsDone).arg(m_stepsTotal) : tr("Running");
    case StrategyColumn:
        if (role == Qt::ToolTipRole)
            return r.config.backend == RunBackend::Native
                ? strategySummary(r.config.strategy)
                : backendLabel(r.config.backend) + QLatin1Char('\n') + strategySummary(r.config.strategy);
        // A torch run says so in the queue, as in the history and on Compare.
        return r.config.backend == RunBackend::Native
            ? strategyLabel(r.config.strategy)
            : tr("%1 (%2)", "strategy (backend)")
                  .arg(strategyLabel(r.config.strategy), backendIdText(r.config.backend));
    case ModelColumn:
        return QString::fromStdString(r.config.model.name.empty() ? r.config.model.id : r.config.model.name);
    case RanksColumn:
        return tr("%n rank(s)", nullptr, r.config.worldSize);
    case StepsColumn:
        //: warm-up steps + timed steps of a queued run
        return tr("%1 + %2 steps").arg(r.config.warmupSteps).arg(r.config.timedSteps);
    case NodeColumn:
        return r.node;
    case ElapsedColumn:
        if (const auto elapsed = elapsedSeconds(); running && elapsed)
            return formatDuration(*elapsed);
        return QString();
    case EtaColumn:
        if (role == Qt::ToolTipRole)
            return running
                ? tr("The median step time so far times the steps left (warm-up and timed); estimated from two steps "
                     "on.")
                : tr("All its steps at the step time the plan predicted; unknown for a run without a prediction.");
        return estimateText(estimateAt(index.row()));
    default:
        return {};
    }
}

QVariant RunQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StateColumn:
        return tr("State");
    case StrategyColumn:
        return tr("Strategy");
    case ModelColumn:
        return tr("Model");
    case RanksColumn:
        return tr("Ranks");
    case StepsColumn:
        return tr("Steps");
    case NodeColumn:
        return tr("Node");
    case ElapsedColumn:
        return tr("Elapsed");
    case EtaColumn:
        //: the time a run still needs
        return tr("Time left");
    default:
        return {};
    }
}

} // namespace shardwise::gui
