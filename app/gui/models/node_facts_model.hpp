#pragma once
// The facts discovered on one node as property / value rows: system, each GPU, and the software the
// runner needs, followed by what prevents building or running the runner there.

#include "shardwise/dispatch/node.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class NodeFactsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { PropertyColumn, ValueColumn, ColumnCount };
    static constexpr int ProblemRole = Qt::UserRole + 1;

    explicit NodeFactsModel(QObject* parent = nullptr);

    void setFacts(const dispatch::NodeFacts& facts);
    void clear();
    QString valueOf(const QString& property) const; // the first row with that property text

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString property;
        QString value;
        bool problem = false;
    };
    QList<Row> m_rows;
};

} // namespace shardwise::gui
