#pragma once
// The GKE preflight checklist as a table: status marker (pass / warn / check) and the item's title;
// the detail, its source and the confirming command are the row's tooltip.

#include "shardwise/cloud/gke_preparation.hpp"

#include <QAbstractTableModel>

#include <vector>

namespace shardwise::gui {

class ChecklistModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { StatusColumn, ItemColumn, ColumnCount };
    static constexpr int StatusRole = Qt::UserRole + 1; // the item's cloud::CheckStatus as int

    explicit ChecklistModel(QObject* parent = nullptr);

    void setItems(std::vector<cloud::ChecklistItem> items);
    const std::vector<cloud::ChecklistItem>& items() const { return m_items; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    static QString statusText(cloud::CheckStatus s);

private:
    std::vector<cloud::ChecklistItem> m_items;
};

} // namespace shardwise::gui
