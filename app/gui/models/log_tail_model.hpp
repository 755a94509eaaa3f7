#pragma once
// The last lines the ranks of one run wrote (stderr and the runner's log and error events), oldest
// first, capped so a chatty run cannot grow the view without bound. Lines of the first failure can
// be marked so the view highlights them.

#include "jobs/run_job.hpp"

#include <QAbstractListModel>
#include <QSet>

namespace shardwise::gui {

class LogTailModel : public QAbstractListModel {
    Q_OBJECT

public:
    static constexpr int RankRole = Qt::UserRole + 1;
    static constexpr int ErrorRole = Qt::UserRole + 2;       // an error event or an error-looking line
    static constexpr int HighlightedRole = Qt::UserRole + 3; // part of the first failure's evidence

    explicit LogTailModel(int maxLines = 2000, QObject* parent = nullptr);

    void watch(qint64 runId); // a different run starts over
    qint64 watchedRunId() const { return m_runId; }
    // Lines of another run than the watched one are dropped.
    void append(qint64 runId, const QList<RunLogLine>& lines);
    void setLines(qint64 runId, const QList<RunLogLine>& lines);
    // Marks lines whose text contains one of `needles` (the first failure's evidence lines).
    void setHighlighted(const QStringList& needles);
    int firstHighlightedRow() const; // -1 when none
    int maxLines() const { return m_maxLines; }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    bool matchesHighlight(const RunLogLine& line) const;

    int m_maxLines;
    qint64 m_runId = 0;
    QList<RunLogLine> m_lines;
    QStringList m_highlight;
};

} // namespace shardwise::gui
