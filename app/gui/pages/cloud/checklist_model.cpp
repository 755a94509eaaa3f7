#include "pages/cloud/checklist_model.hpp"

#include <QApplication>
#include <QStyle>

namespace shardwise::gui {

ChecklistModel::ChecklistModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ChecklistModel::setItems(std::vector<cloud::ChecklistItem> items)
{
    beginResetModel();
    m_items = std::move(items);
    endResetModel();
}

int ChecklistModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int ChecklistModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ChecklistModel::statusText(cloud::CheckStatus s)
{
    switch (s) {
    case cloud::CheckStatus::Pass:
        // Nothing is created or checked yet: the prepared commands will take care of it.
        return tr("planned");
    case cloud::CheckStatus::Warn:
        return tr("warn");
    case cloud::CheckStatus::Check:
        return tr("check");
    }
    return {};
}

QVariant ChecklistModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const cloud::ChecklistItem& item = m_items[static_cast<std::size_t>(index.row())];
    if (role == StatusRole)
        return static_cast<int>(item.status);
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(item.detail);
        if (item.status == cloud::CheckStatus::Pass)
            tip = tr("Planned: the prepared commands take care of this when you run them; nothing has been created "
                     "or checked yet.")
                + QStringLiteral("\n\n") + tip;
        if (!item.command.empty())
            tip += QStringLiteral("\n\n") + tr("Confirm with:") + QStringLiteral("\n")
                + QString::fromStdString(item.command);
        return tip;
    }
    if (index.column() == StatusColumn) {
        if (role == Qt::DisplayRole)
            return statusText(item.status);
        if (role == Qt::DecorationRole) {
            const QStyle* style = QApplication::style();
            switch (item.status) {
            case cloud::CheckStatus::Pass: // planned, not verified: no check mark
                return style->standardIcon(QStyle::SP_MessageBoxInformation);
            case cloud::CheckStatus::Warn:
                return style->standardIcon(QStyle::SP_MessageBoxWarning);
            case cloud::CheckStatus::Check:
                return style->standardIcon(QStyle::SP_MessageBoxQuestion);
            }
        }
        return {};
    }
    if (role == Qt::DisplayRole)
        return QString::fromStdString(item.title);
    return {};
}

QVariant ChecklistModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == StatusColumn ? tr("Status") : tr("Preflight item");
}

} // namespace shardwise::gui
