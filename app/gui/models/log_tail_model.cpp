#include "models/log_tail_model.hpp"

#include <QBrush>
#include <QFont>

namespace shardwise::gui {

LogTailModel::LogTailModel(int maxLines, QObject* parent)
    : QAbstractListModel(parent)
    , m_maxLines(std::max(1, maxLines))
{
}

void LogTailModel::watch(qint64 runId)
{
    if (runId == m_runId)
        return;
    beginResetModel();
    m_runId = runId;
    m_lines.clear();
    m_highlight.clear();
    endResetModel();
}

void LogTailModel::setLines(qint64 runId, const QList<RunLogLine>& lines)
{
    beginResetModel();
    m_runId = runId;
    m_lines = lines.size() > m_maxLines ? lines.mid(lines.size() - m_maxLines) : lines;
    endResetModel();
}

void LogTailModel::append(qint64 runId, const QList<RunLogLine>& lines)
{
    if (runId != m_runId || lines.isEmpty())
        return;
    const qsizetype overflow = m_lines.size() + lines.size() - m_maxLines;
    if (overflow > 0) {
        const int drop = static_cast<int>(std::min<qsizetype>(overflow, m_lines.size()));
        if (drop > 0) {
            beginRemoveRows({}, 0, drop - 1);
            m_lines.remove(0, drop);
            endRemoveRows();
        }
    }
    const QList<RunLogLine> kept = lines.size() > m_maxLines ? lines.mid(lines.size() - m_maxLines) : lines;
    const int first = static_cast<int>(m_lines.size());
    beginInsertRows({}, first, first + static_cast<int>(kept.size()) - 1);
    m_lines.append(kept);
    endInsertRows();
}

void LogTailModel::setHighlighted(const QStringList& needles)
{
    m_highlight.clear();
    for (const QString& n : needles)
        if (!n.trimmed().isEmpty())
            m_highlight << n.trimmed();
    if (!m_lines.isEmpty())
        emit dataChanged(index(0), index(static_cast<int>(m_lines.size()) - 1));
}

bool LogTailModel::matchesHighlight(const RunLogLine& line) const
{
    for (const QString& n : m_highlight)
        if (line.text.contains(n))
            return true;
    return false;
}

int LogTailModel::firstHighlightedRow() const
{
    for (int i = 0; i < m_lines.size(); ++i)
        if (matchesHighlight(m_lines[i]))
            return i;
    return -1;
}

int LogTailModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_lines.size());
}

QVariant LogTailModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunLogLine& line = m_lines[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        //: one log line: the rank that wrote it, then the text
        return tr("[rank %1] %2").arg(line.rank).arg(line.text);
    case Qt::FontRole: {
        QFont font(QStringLiteral("monospace"));
        font.setStyleHint(QFont::TypeWriter);
        font.setBold(matchesHighlight(line));
        return font;
    }
    case Qt::BackgroundRole:
        if (matchesHighlight(line))
            return QBrush(QColor(0xff, 0xe0, 0x82)); // amber: the first failure, as in the diagnosis
        return {};
    case Qt::ForegroundRole:
        if (matchesHighlight(line))
            return QBrush(QColor(Qt::black)); // stays readable on the amber background in dark themes
        if (line.isError)
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        return {};
    case RankRole:
        return line.rank;
    case ErrorRole:
        return line.isError;
    case HighlightedRole:
        return matchesHighlight(line);
    default:
        return {};
    }
}

} // namespace shardwise::gui
