#pragma once
// The pages the main window shows, in sidebar order. A page is one QWidget subclass; adding one means
// adding one entry to pageCatalog() in page_catalog.cpp and nothing else.

#include <QIcon>
#include <QString>

#include <functional>
#include <vector>

class QWidget;

namespace shardwise::gui {

class Workspace;

struct PageDescriptor {
    QString id;            // stable, used for QSettings, shortcuts and screenshot file names
    const char* title;     // QT_TRANSLATE_NOOP("PageCatalog", ...)
    const char* statusTip; // QT_TRANSLATE_NOOP("PageCatalog", ...)
    QIcon icon;
    std::function<QWidget*(Workspace& workspace, QWidget* parent)> create;

    QString translatedTitle() const;
    QString translatedStatusTip() const;
};

std::vector<PageDescriptor> pageCatalog();

} // namespace shardwise::gui
