#pragma once
// The Runs page's history: every stored run, newest first, with its final status and headline
// numbers and the backend that ran it. A run that failed, ran out of memory or timed out is a row like any other.

#include "shardwise/store/runs.hpp"

#include <QAbstractTableModel>

#include <vector>

namespace shardwise::gui {

class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        IdColumn,
        StartedColumn,
        StatusColumn,
        StrategyColumn,
        BackendColumn, // "native" | "torch"
        ModelColumn,
        RanksColumn,
        NodeColumn,
        TokensColumn,
        StepTimeColumn,
        PeakMemoryColumn,
        NoteColumn,
        ColumnCount
    };
    static constexpr int RunIdRole = Qt::UserRole + 1;
    static constexpr int StatusIdRole = Qt::UserRole + 2; // store::runStatusId, e.g. "failed"

    explicit RunHistoryModel(QObject* parent = nullptr);

    void setRuns(std::vector<store::RunSummary> runs);
    const std::vector<store::RunSummary>& runs() const { return m_runs; }
    int rowOf(qint64 runId) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString statusText(store::RunStatus status);

private:
    QVariant display(const store::RunSummary& r, int column) const;
    std::vector<store::RunSummary> m_runs;
};

} // namespace shardwise::gui
