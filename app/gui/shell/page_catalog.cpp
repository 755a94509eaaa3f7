#include "shell/page_catalog.hpp"

#include "pages/cloud/cloud_page.hpp"
#include "pages/compare/compare_page.hpp"
#include "pages/nodes/nodes_page.hpp"
#include "pages/plan/plan_page.hpp"
#include "pages/runs/runs_page.hpp"

#include <QCoreApplication>

namespace shardwise::gui {

QString PageDescriptor::translatedTitle() const
{
    return QCoreApplication::translate("PageCatalog", title);
}

QString PageDescriptor::translatedStatusTip() const
{
    return QCoreApplication::translate("PageCatalog", statusTip);
}

std::vector<PageDescriptor> pageCatalog()
{
    return {
        { QStringLiteral("plan"), QT_TRANSLATE_NOOP("PageCatalog", "Plan"),
          QT_TRANSLATE_NOOP("PageCatalog", "Build a configuration and follow the decision order to a recommendation"),
          QIcon(QStringLiteral(":/icons/plan.svg")),
          [](Workspace& w, QWidget* parent) -> QWidget* { return new PlanPage(w, parent); } },
        { QStringLiteral("compare"), QT_TRANSLATE_NOOP("PageCatalog", "Compare"),
          QT_TRANSLATE_NOOP("PageCatalog", "Chart measured runs side by side and export the charts for a report"),
          QIcon(QStringLiteral(":/icons/compare.svg")),
          [](Workspace& w, QWidget* parent) -> QWidget* { return new ComparePage(w, parent); } },
        { QStringLiteral("runs"), QT_TRANSLATE_NOOP("PageCatalog", "Runs"),
          QT_TRANSLATE_NOOP("PageCatalog",
                            "Queue measured runs, watch every rank live and see why a failed run failed"),
          QIcon::fromTheme(QStringLiteral("system-run")),
          [](Workspace& w, QWidget* parent) -> QWidget* { return new RunsPage(w, parent); } },
        { QStringLiteral("nodes"), QT_TRANSLATE_NOOP("PageCatalog", "Nodes"),
          QT_TRANSLATE_NOOP("PageCatalog",
                            "Add this machine and SSH nodes, check their host keys and see their GPUs and software"),
          QIcon::fromTheme(QStringLiteral("network-server")),
          [](Workspace& w, QWidget* parent) -> QWidget* { return new NodesPage(w, parent); } },
        { QStringLiteral("cloud"), QT_TRANSLATE_NOOP("PageCatalog", "Cloud"),
          QT_TRANSLATE_NOOP("PageCatalog",
                            "Prepare GPU capacity on GKE for the current plan: checklist, commands and Job manifest"),
          QIcon::fromTheme(QStringLiteral("network-workgroup")),
          [](Workspace& w, QWidget* parent) -> QWidget* { return new CloudPage(w, parent); } },
    };
}

} // namespace shardwise::gui
