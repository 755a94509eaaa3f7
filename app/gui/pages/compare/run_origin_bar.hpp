#pragma once
// Below the Compare page's table: which runs are not the user's own (the example runs shipped with
// Shardwise, published results), that they are read-only, and "Remove run…" for the selected run,
// disabled with the reason when that run is read-only.

#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace shardwise::gui {

class Workspace;

class RunOriginBar : public QWidget {
    Q_OBJECT

public:
    // `table` shows `proxy`, whose source rows carry RunTableModel::RunIdRole.
    RunOriginBar(Workspace& workspace, QTableView& table, QWidget* parent = nullptr);

    QLabel* originLine() const { return m_line; }
    QPushButton* removeButton() const { return m_remove; }
    // The run the selection points at; 0 for none.
    qint64 selectedRunId() const;

public slots:
    void refresh();
    // Asks, then removes the selected run (a read-only one is refused with the reason).
    void removeSelected();

private:
    Workspace& m_workspace;
    QTableView& m_table;
    QLabel* m_line = nullptr;
    QPushButton* m_remove = nullptr;
};

} // namespace shardwise::gui
