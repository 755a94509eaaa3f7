#include "shell/main_window.hpp"

#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "shell/appearance.hpp"
#include "shell/help_viewer.hpp"
#include "shell/page_catalog.hpp"
#include "shell/quit_guard.hpp"
#include "workspace/workspace.hpp"

#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>

namespace shardwise::gui {

namespace {

// The example plans' menu titles, translated (example-plans.json keeps the English ones).
QString exampleTitle(const ExamplePlan& example)
{
    if (example.id == QLatin1String("start"))
        return MainWindow::tr("Qwen2.5 7B on one node of 8 × H100 80GB (NVLink), sequence 4096");
    if (example.id == QLatin1String("try-it-here"))
        return MainWindow::tr("Try it here: tiny decoder, 2 ranks, validated on this machine's CPU");
    if (example.id == QLatin1String("reference"))
        return MainWindow::tr("Reference: Qwen2.5 3B on one node of 4 × L4 (PCIe)");
    return example.title;
}

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kPageKey = QStringLiteral("mainWindow/page");
const QString kSplitterKey = QStringLiteral("mainWindow/splitter");
} // namespace

MainWindow::MainWindow(Workspace& workspace, QWidget* parent)
    : QMainWindow(parent)
    , m_workspace(workspace)
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("Shardwise"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/shardwise.svg")));

    auto* splitter = new QSplitter(this);
    splitter->setObjectName(QStringLiteral("shellSplitter"));
    m_sidebar = new QListWidget(splitter);
    m_sidebar->setObjectName(QStringLiteral("pageSidebar"));
    m_sidebar->setIconSize(QSize(24, 24));
    m_sidebar->setSpacing(2);
    m_sidebar->setMaximumWidth(180);
    m_sidebar->setAccessibleName(tr("Pages"));
    m_stack = new QStackedWidget(splitter);
    m_stack->setObjectName(QStringLiteral("pageStack"));
    splitter->addWidget(m_sidebar);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(1, 1);
    splitter->setCollapsible(1, false);
    splitter->setSizes({ 150, 1200 });
    setCentralWidget(splitter);

    for (const PageDescriptor& descriptor : pageCatalog()) {
        QWidget* pageWidget = descriptor.create(m_workspace, m_stack);
        pageWidget->setObjectName(descriptor.id + QStringLiteral("Page"));
        m_stack->addWidget(pageWidget);
        // Tab moves from control to control and the arrow keys within a table: a table that took Tab
        // for its cells would hold the focus for as many presses as it has cells.
        for (QAbstractItemView* view : pageWidget->findChildren<QAbstractItemView*>())
            view->setTabKeyNavigation(false);
        auto* item = new QListWidgetItem(descriptor.icon, descriptor.translatedTitle(), m_sidebar);
        item->setToolTip(descriptor.translatedStatusTip());
        item->setStatusTip(descriptor.translatedStatusTip());
        m_pageIds.push_back(descriptor.id);
    }
    connect(m_sidebar, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);

    createActions();
    statusBar()->showMessage(tr("Workspace: %1").arg(m_workspace.databasePath()));
    restoreWindowState();
}

MainWindow::~MainWindow() = default;

int MainWindow::pageCount() const
{
    return m_stack->count();
}

QString MainWindow::pageId(int index) const
{
    return index >= 0 && index < static_cast<int>(m_pageIds.size()) ? m_pageIds[static_cast<std::size_t>(index)]
                                                                    : QString();
}

QWidget* MainWindow::page(int index) const
{
    return m_stack->widget(index);
}

QWidget* MainWindow::pageById(const QString& id) const
{
    for (std::size_t i = 0; i < m_pageIds.size(); ++i)
        if (m_pageIds[i] == id)
            return m_stack->widget(static_cast<int>(i));
    return nullptr;
}

int MainWindow::currentPageIndex() const
{
    return m_stack->currentIndex();
}

void MainWindow::showPage(int index)
{
    if (index >= 0 && index < pageCount())
        m_sidebar->setCurrentRow(index);
}

void MainWindow::showPageById(const QString& id)
{
    for (std::size_t i = 0; i < m_pageIds.size(); ++i)
        if (m_pageIds[i] == id)
            showPage(static_cast<int>(i));
}

void MainWindow::createActions()
{
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    QMenu* examples = fileMenu->addMenu(tr("Open &example"));
    examples->setObjectName(QStringLiteral("examplesMenu"));
    for (const ExamplePlan& example : Workspace::examplePlans()) {
        QAction* open
            = examples->addAction(exampleTitle(example), this, [this, id = example.id] { openExamplePlan(id); });
        open->setData(example.id);
    }
    QAction* importRuns = fileMenu->addAction(tr("&Import runs…"), this, &MainWindow::importRunsInteractively);
    importRuns->setObjectName(QStringLiteral("importRunsAction"));
    importRuns->setStatusTip(
        tr("Store runs measured elsewhere from a CSV or JSON export (shardwise-cli runs export)."));
    fileMenu->addSeparator();
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < pageCount(); ++i) {
        QAction* go = viewMenu->addAction(m_sidebar->item(i)->icon(), m_sidebar->item(i)->text());
        if (i < 9)
            go->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        go->setStatusTip(m_sidebar->item(i)->statusTip());
        connect(go, &QAction::triggered, this, [this, i] { showPage(i); });
        m_sidebar->item(i)->setToolTip(QStringLiteral("%1 (%2)").arg(
            m_sidebar->item(i)->toolTip(), go->shortcut().toString(QKeySequence::NativeText)));
    }
    viewMenu->addSeparator();
    QMenu* appearanceMenu = viewMenu->addMenu(tr("&Appearance"));
    auto* group = new QActionGroup(appearanceMenu);
    const struct {
        ColorScheme scheme;
        QString text;
    } choices[] = { { ColorScheme::System, tr("Follow the &system") },
                    { ColorScheme::Light, tr("&Light") },
                    { ColorScheme::Dark, tr("&Dark") } };
    const ColorScheme current = savedColorScheme();
    for (const auto& choice : choices) {
        QAction* a = appearanceMenu->addAction(choice.text);
        a->setCheckable(true);
        a->setChecked(choice.scheme == current);
        group->addAction(a);
        const ColorScheme scheme = choice.scheme;
        connect(a, &QAction::triggered, this, [scheme] {
            saveColorScheme(scheme);
            applyColorScheme(scheme);
        });
    }

    QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction* guide = helpMenu->addAction(tr("User &guide"), this, &MainWindow::showUserGuide);
    guide->setObjectName(QStringLiteral("userGuideAction"));
    guide->setShortcut(QKeySequence(Qt::Key_F1));
    guide->setShortcutContext(Qt::ApplicationShortcut);
    helpMenu->addAction(tr("&About Shardwise"), this, &MainWindow::showAbout);
}

void MainWindow::showUserGuide()
{
    if (!m_helpViewer)
        m_helpViewer = new HelpViewer(this);
    m_helpViewer->show();
    m_helpViewer->raise();
    m_helpViewer->activateWindow();
}

void MainWindow::openExamplePlan(const QString& id)
{
    const ExamplePlan example = Workspace::examplePlan(id);
    auto* plan = qobject_cast<PlanPage*>(pageById(QStringLiteral("plan")));
    if (!plan || example.form.isEmpty())
        return;
    plan->form()->setState(example.form);
    showPageById(QStringLiteral("plan"));
    statusBar()->showMessage(tr("Example: %1").arg(exampleTitle(example)), 5000);
}

void MainWindow::importRunsInteractively()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Import runs"), QString(),
                                                      tr("Run exports (*.csv *.json);;All files (*)"));
    if (file.isEmpty())
        return;
    QString message;
    if (m_workspace.importRuns(file, &message))
        statusBar()->showMessage(message, 8000);
    else
        QMessageBox::warning(this, tr("Import runs"), message);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Shardwise"),
                       tr("<p><b>Shardwise %1</b></p><p>Plan, measure and compare training-state sharding "
                          "(ZeRO 0-3, ZeRO-3 offload, FSDP2) on your own GPUs.</p>")
                           .arg(QApplication::applicationVersion()));
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(1280, 820);
    restoreState(settings.value(kStateKey).toByteArray());
    if (auto* splitter = qobject_cast<QSplitter*>(centralWidget()))
        splitter->restoreState(settings.value(kSplitterKey).toByteArray());
    const QString lastPage = settings.value(kPageKey).toString();
    m_sidebar->setCurrentRow(0);
    if (!lastPage.isEmpty())
        showPageById(lastPage);
}

void MainWindow::saveWindowState() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    if (auto* splitter = qobject_cast<QSplitter*>(centralWidget()))
        settings.setValue(kSplitterKey, splitter->saveState());
    settings.setValue(kPageKey, pageId(currentPageIndex()));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (const RunJob* queue = m_workspace.runQueueIfCreated()) {
        if (const QString consequences = quitConsequences(*queue); !consequences.isEmpty()) {
            QMessageBox confirm(QMessageBox::Question, tr("Quit Shardwise"), consequences, QMessageBox::NoButton, this);
            confirm.setObjectName(QStringLiteral("confirmQuit"));
            QPushButton* quit = confirm.addButton(tr("&Quit"), QMessageBox::AcceptRole);
            QPushButton* stay = confirm.addButton(tr("&Keep Shardwise open"), QMessageBox::RejectRole);
            confirm.setDefaultButton(stay);
            confirm.setEscapeButton(stay);
            confirm.exec();
            if (confirm.clickedButton() != quit) {
                event->ignore();
                return;
            }
        }
    }
    saveWindowState();
    event->accept();
}

} // namespace shardwise::gui
