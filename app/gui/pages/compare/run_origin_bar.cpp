#include "pages/compare/run_origin_bar.hpp"

#include "models/run_table_model.hpp"
#include "workspace/workspace.hpp"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>

namespace shardwise::gui {

RunOriginBar::RunOriginBar(Workspace& workspace, QTableView& table, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
    , m_table(table)
{
    setObjectName(QStringLiteral("runOriginBar"));
    m_line = new QLabel(this);
    m_line->setObjectName(QStringLiteral("runOriginLine"));
    m_line->setWordWrap(true);
    m_remove = new QPushButton(tr("Re&move run…"), this);
    m_remove->setObjectName(QStringLiteral("removeRunButton"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_line, 1);
    layout->addWidget(m_remove);
    connect(m_remove, &QPushButton::clicked, this, &RunOriginBar::removeSelected);
    connect(&m_workspace, &Workspace::runsChanged, this, &RunOriginBar::refresh);
    if (QItemSelectionModel* selection = m_table.selectionModel())
        connect(selection, &QItemSelectionModel::currentRowChanged, this, &RunOriginBar::refresh);
    refresh();
}

qint64 RunOriginBar::selectedRunId() const
{
    const QModelIndex current = m_table.selectionModel() ? m_table.selectionModel()->currentIndex() : QModelIndex();
    return current.isValid() ? current.siblingAtColumn(0).data(RunTableModel::RunIdRole).toLongLong() : 0;
}

void RunOriginBar::refresh()
{
    int examples = 0;
    int published = 0;
    for (const RunRecord& r : m_workspace.runs()) {
        examples += r.origin == QLatin1String("example");
        published += r.origin == QLatin1String("published");
    }
    QStringList parts;
    if (examples > 0)
        parts << tr(
            "%n run(s) on node “example” are examples shipped with Shardwise: the project's own measurements on "
            "an NVIDIA H200, each with the planner's prediction for it.",
            nullptr, examples);
    if (published > 0)
        parts << tr("%n run(s) are published results (launcher “published”).", nullptr, published);
    if (!parts.isEmpty())
        parts << tr("They are read-only: they cannot be removed or edited as your own runs.");
    m_line->setText(parts.join(QLatin1Char(' ')));
    m_line->setVisible(!parts.isEmpty());

    const qint64 id = selectedRunId();
    const std::optional<RunRecord> run = id ? m_workspace.run(id) : std::nullopt;
    m_remove->setEnabled(run && !run->readOnly);
    if (!run)
        m_remove->setToolTip(tr("Select one of your runs in the table to remove it with everything recorded for it."));
    else if (run->readOnly)
        m_remove->setToolTip(tr("Run %1 is %2 run shipped with Shardwise: read-only, it cannot be removed.")
                                 .arg(id)
                                 .arg(run->origin == QLatin1String("example") ? tr("an example") : tr("a published")));
    else
        m_remove->setToolTip(tr("Remove run %1 with everything recorded for it.").arg(id));
}

void RunOriginBar::removeSelected()
{
    const qint64 id = selectedRunId();
    if (!id)
        return;
    const std::optional<RunRecord> run = m_workspace.run(id);
    if (run && !run->readOnly
        && QMessageBox::question(this, tr("Remove run"),
                                 tr("Remove run %1 with everything recorded for it? This cannot be undone.").arg(id))
            != QMessageBox::Yes)
        return;
    QString error;
    if (!m_workspace.removeRun(id, &error))
        QMessageBox::information(this, tr("Remove run"), error);
}

} // namespace shardwise::gui
