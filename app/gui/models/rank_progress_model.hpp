#pragma once
// One row per rank of the run being watched: steps done, tokens/s over its timed steps so far,
// memory, and whether it finished or failed.

#include "jobs/run_job.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class RankProgressModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        StateColumn,
        StepsColumn,
        TokensColumn,
        StepTimeColumn,
        LossColumn,
        MemoryColumn,
        ColumnCount
    };
    static constexpr int RankRole = Qt::UserRole + 1;
    static constexpr int FailedRole = Qt::UserRole + 2;

    explicit RankProgressModel(QObject* parent = nullptr);

    // Progress of run `runId`; a different run id starts over. Updates for a run other than the
    // watched one are dropped (see watch()).
    void watch(qint64 runId);
    qint64 watchedRunId() const { return m_runId; }
    void update(qint64 runId, const QList<RankProgress>& ranks);
    void clear();
    // The watched run is being cancelled: ranks still going say so until the run's end is known.
    void setCancelling(bool cancelling);
    bool cancelling() const { return m_cancelling; }
    const QList<RankProgress>& ranks() const { return m_ranks; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const RankProgress& p, int column) const;

    qint64 m_runId = 0;
    QList<RankProgress> m_ranks;
    bool m_cancelling = false;
};

QString formatBytes(std::int64_t bytes); // binary units: "512 MiB", "2.50 GiB"

} // namespace shardwise::gui
