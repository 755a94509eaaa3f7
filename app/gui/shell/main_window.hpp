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

    // The guide viewer F1 opened last (null before the first F1).
    QWidget* helpViewer() const { return m_helpViewer; }

public slots:
    void showPage(int index);
    void showPageById(const QString& id);
    // Help > User guide (F1): the user guide in an in-app viewer.
    void showUserGuide();
    // File > Open example: the example plan with this id on the Plan page.
    void openExamplePlan(const QString& id);
    // File > Import runs...: a CSV or JSON export of runs, chosen in a file dialog.
    void importRunsInteractively();

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
    QWidget* m_helpViewer = nullptr;
};

} // namespace shardwise::gui
