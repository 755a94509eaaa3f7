#pragma once
// Stored runs, one row each, with a check box per row that selects the run for the Compare charts.
// Failed, out-of-memory and timed-out runs stay in the table with their outcome and reason. Beside
// the measurements, the planner's predictions for the run (presets and calibrated from the store),
// once they are set, each with its error against the measurement and its fit verdict.

#include "models/run_prediction.hpp"
#include "workspace/run_record.hpp"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>

namespace shardwise::gui {

class RunTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        IdColumn,
        StartedColumn,
        ModelColumn,
        HardwareColumn,
        WorldColumn, // "2 ranks" | "rehearsal of 8": the world whose rank the memory figures are
        NodeColumn,
        StrategyColumn,
        BackendColumn,    // "native" | "torch": what ran it
        PrecisionColumn,  // as asked ("bf16", "bf16-fp32-master"); "fp32 (CPU)" for a CPU run
        SequenceColumn,   // tokens per sequence
        MicroBatchColumn, // sequences per rank and step
        OutcomeColumn,
        TokensColumn,
        PeakAllocatedColumn,
        PeakReservedColumn,
        NcclColumn,
        PredictedTokensColumn,
        PresetsTokensColumn,
        PresetsTokensErrorColumn,
        CalibratedTokensColumn,
        CalibratedTokensErrorColumn,
        PresetsPeakColumn,
        PresetsPeakErrorColumn,
        CalibratedPeakColumn,
        CalibratedPeakErrorColumn,
        PresetsVerdictColumn,
        CalibratedVerdictColumn,
        ColumnCount
    };
    static constexpr int RawValueRole = Qt::UserRole + 1; // unformatted value for sorting and filtering
    static constexpr int RunIdRole = Qt::UserRole + 2;

    explicit RunTableModel(QObject* parent = nullptr);

    // Keeps the check state of runs that are still present and checks those of `check` (new
    // runs, say) with them: one checkedRunsChanged for it all.
    void setRuns(const QList<RunRecord>& runs, const QSet<qint64>& check = {});
    const QList<RunRecord>& runs() const { return m_runs; }
    const RunRecord* runById(qint64 id) const;

    // Runs without an entry (not completed or OOM, CPU runs, no stored configuration) show "n/a".
    void setPredictions(const QHash<qint64, RunPrediction>& predictions);
    const QHash<qint64, RunPrediction>& predictions() const { return m_predictions; }
    const RunPrediction* predictionFor(qint64 runId) const;

    QList<RunRecord> checkedRuns() const; // in table order
    void setChecked(qint64 runId, bool checked);
    void checkAll(bool checked);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void checkedRunsChanged();

private:
    QVariant display(const RunRecord& r, int column) const;
    QVariant raw(const RunRecord& r, int column) const;
    QVariant toolTip(const RunRecord& r, int column) const;

    QList<RunRecord> m_runs;
    QSet<qint64> m_checked;
    QHash<qint64, RunPrediction> m_predictions;
};

} // namespace shardwise::gui
