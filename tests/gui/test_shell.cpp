// The shell: every catalogued page is present, the window restores its page from QSettings, the
// palette switches between light and dark, and --screenshot renders every page to a PNG.
#include "gui_test_main.hpp"

#include "shell/appearance.hpp"
#include "shell/main_window.hpp"
#include "shell/page_catalog.hpp"
#include "shell/startup.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/store/nodes.hpp"
#include "shardwise/store/plans.hpp"

#include <QImage>
#include <QScrollArea>
#include <QSettings>
#include <QTemporaryDir>

using namespace shardwise::gui;

class TestShell : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QSettings().clear();
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("shell.sqlite")), &error), qPrintable(error));
    }

    void firstStartSeedsTheDemoWorkspace()
    {
        QVERIFY(m_workspace.createdOnOpen());
        QVERIFY(shardwise::store::findNodeByName(*m_workspace.database(), "local").has_value());
        const auto plans = shardwise::store::listPlans(*m_workspace.database(), true);
        QCOMPARE(static_cast<qsizetype>(plans.size()), Workspace::examplePlans().size());
        for (const auto& p : plans)
            QVERIFY(p.document.contains("recommendation"));
        // Opening it again is not a first start and adds nothing.
        Workspace again;
        QString error;
        QVERIFY(again.open(m_workspace.databasePath(), &error));
        QVERIFY(!again.createdOnOpen());
        QCOMPARE(shardwise::store::listPlans(*again.database()).size(), plans.size());
    }

    void everyCataloguedPageIsShown()
    {
        MainWindow window(m_workspace);
        const auto catalog = pageCatalog();
        QCOMPARE(window.pageCount(), static_cast<int>(catalog.size()));
        for (std::size_t i = 0; i < catalog.size(); ++i) {
            QCOMPARE(window.pageId(static_cast<int>(i)), catalog[i].id);
            QVERIFY(window.pageById(catalog[i].id));
        }
    }

    void windowRestoresTheLastPage()
    {
        {
            MainWindow window(m_workspace);
            window.show();
            window.showPageById(QStringLiteral("compare"));
            window.close();
        }
        MainWindow again(m_workspace);
        QCOMPARE(again.pageId(again.currentPageIndex()), QStringLiteral("compare"));
    }

    void keyboardShortcutSwitchesPages()
    {
        MainWindow window(m_workspace);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.showPage(0);
        QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window.currentPageIndex(), 1);
        QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(window.currentPageIndex(), 0);
    }

    void colorSchemeSwitchesThePalette_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("dark");
        QTest::newRow("dark") << QStringLiteral("dark") << true;
        QTest::newRow("light") << QStringLiteral("light") << false;
    }
    void colorSchemeSwitchesThePalette()
    {
        QFETCH(QString, name);
        QFETCH(bool, dark);
        ColorScheme scheme = ColorScheme::System;
        QVERIFY(parseColorScheme(name, &scheme));
        applyColorScheme(scheme);
        QCOMPARE(paletteIsDark(QApplication::palette()), dark);
        saveColorScheme(scheme);
        QCOMPARE(savedColorScheme(), scheme);
    }

    void unknownColorSchemeIsRejected()
    {
        ColorScheme scheme = ColorScheme::Light;
        QVERIFY(!parseColorScheme(QStringLiteral("sepia"), &scheme));
        QCOMPARE(scheme, ColorScheme::Light);
    }

    void screenshotsRenderEveryPage()
    {
        QTemporaryDir out;
        MainWindow window(m_workspace);
        window.resize(1200, 800);
        window.show();
        QString error;
        const QStringList files = renderScreenshots(window, QDir(out.path()), QString(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // Every page, and the Compare page's charts whole (as high as their rows need).
        QCOMPARE(files.size(), window.pageCount() + 1);
        for (const QString& f : files) {
            QImage image(f);
            QVERIFY2(!image.isNull(), qPrintable(f));
            if (f.endsWith(QStringLiteral("compare-charts.png"))) {
                auto* area
                    = window.pageById(QStringLiteral("compare"))->findChild<QScrollArea*>(QStringLiteral("chartArea"));
                QVERIFY(area && area->widget());
                QCOMPARE(image.size(), area->widget()->size() * image.devicePixelRatio());
                QVERIFY(image.height() >= area->widget()->minimumSizeHint().height());
                continue;
            }
            QVERIFY(image.width() >= 1200);
        }
        QVERIFY(files.contains(QDir(out.path()).filePath(QStringLiteral("compare-charts.png"))));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestShell)
#include "test_shell.moc"
