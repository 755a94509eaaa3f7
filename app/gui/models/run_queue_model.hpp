#pragma once
// The Runs page's queue: the run being measured now (first row) and the requests waiting behind it,
// in the order they will run.

#include "jobs/run_job.hpp"

#include <QAbstractTableModel>

#include <optional>

namespace shardwise::gui {

class RunQueueModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { StateColumn, StrategyColumn, ModelColumn, RanksColumn, StepsColumn, NodeColumn, ColumnCount };
    static constexpr int TicketRole = Qt::UserRole + 1;
    static constexpr int RunningRole = Qt::UserRole + 2;

    explicit RunQueueModel(QObject* parent = nullptr);

    void setQueue(const std::optional<RunRequest>& running, const QList<RunRequest>& queued);
    // Steps rank 0 has done in the running request (warm-up included).
    void setRunningSteps(int done, int total);
    qint64 ticketAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<RunRequest> m_rows;
    bool m_hasRunning = false;
    int m_stepsDone = 0;
    int m_stepsTotal = 0;
};

} // namespace shardwise::gui
