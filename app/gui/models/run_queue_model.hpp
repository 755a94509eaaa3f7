#pragma once
// The Runs page's queue: the run being measured now (first row, labelled running) and the requests
// waiting behind it, in the order they will run, each with the time it has run and the time it
// still needs (run_eta.hpp), and the whole queue's time left.

#include "jobs/run_job.hpp"
#include "models/run_eta.hpp"

#include <QAbstractTableModel>

#include <functional>
#include <optional>

namespace shardwise::gui {

class RunQueueModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StateColumn,
        StrategyColumn,
        ModelColumn,
        RanksColumn,
        StepsColumn,
        NodeColumn,
        ElapsedColumn,
        EtaColumn,
        ColumnCount
    };
    static constexpr int TicketRole = Qt::UserRole + 1;
    static constexpr int RunningRole = Qt::UserRole + 2;

    explicit RunQueueModel(QObject* parent = nullptr);

    void setQueue(const std::optional<RunRequest>& running, const QList<RunRequest>& queued);
    // Steps rank 0 has done in the running request (warm-up included) and the median of their times.
    void setRunningSteps(int done, int total, std::optional<double> medianStepS = std::nullopt);
    // When the running request's run started (Unix seconds; a re-attached run's original start).
    void setRunningStart(double unixSeconds);
    // The clock elapsed times are read from (Unix seconds); the wall clock unless set.
    void setClock(std::function<double()> now);
    // The elapsed column moved on: call once a second while a run goes.
    void tick();
    qint64 ticketAt(int row) const;

    // Seconds the running request has run; none before it started or without a running one.
    std::optional<double> elapsedSeconds() const;
    // The time row `row` still needs, and the whole queue's.
    RunEstimate estimateAt(int row) const;
    RunEstimate queueEstimate() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<RunRequest> m_rows;
    bool m_hasRunning = false;
    int m_stepsDone = 0;
    int m_stepsTotal = 0;
    std::optional<double> m_medianStepS;
    std::optional<double> m_startedAt;
    std::function<double()> m_now;
};

} // namespace shardwise::gui
