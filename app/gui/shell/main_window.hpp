#pragma once
// The application shell: a sidebar of pages (from pageCatalog()) beside a stack of page widgets.
// Window geometry, dock state and the last page survive restarts through QSettings.

#include <QMainWindow>

#include <vector>

class QListWidget;
class QStackedWidget;

namespace shardwise::gui {

class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(Workspace& workspace, QWidget* parent = nullptr);
    ~MainWindow() override;

    int pageCount() const;
    QString pageId(int index) const;
    QWidget* page(int index) const;
    QWidget* pageById(const QString& id) const;
    int currentPageIndex() const;

public slots:
    void showPage(int index);
    void showPageById(const QString& id);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void restoreWindowState();
    void saveWindowState() const;
    void showAbout();

    Workspace& m_workspace;
    QListWidget* m_sidebar = nullptr;
    QStackedWidget* m_stack = nullptr;
    std::vector<QString> m_pageIds;
};

} // namespace shardwise::gui
