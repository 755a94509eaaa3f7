#include "shell/startup.hpp"

#include "shell/appearance.hpp"
#include "shell/main_window.hpp"
#include "shell/translations.hpp"
#include "workspace/workspace.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QMessageBox>
#include <QScrollArea>
#include <QTimer>

#include <cstdio>
#include <string_view>

namespace shardwise::gui {

namespace {

struct StartupText {
    Q_DECLARE_TR_FUNCTIONS(StartupText)
};

void printError(const QString& message)
{
    std::fprintf(stderr, "shardwise: %s\n", qPrintable(message));
}

// Lets queued plan results and chart layouts land before a page is grabbed.
void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

QStringList renderScreenshots(MainWindow& window, const QDir& dir, const QString& suffix, QString* error)
{
    QStringList written;
    if (!dir.exists() && !QDir().mkpath(dir.absolutePath())) {
        if (error)
            *error = StartupText::tr("%1: cannot create the folder").arg(dir.absolutePath());
        return written;
    }
    for (int i = 0; i < window.pageCount(); ++i) {
        window.showPage(i);
        settle(400);
        const QString file = dir.filePath(window.pageId(i) + suffix + QStringLiteral(".png"));
        if (!window.grab().save(file, "PNG")) {
            if (error)
                *error = StartupText::tr("%1: cannot write the screenshot").arg(file);
            return written;
        }
        written << file;
        // A page's charts whole, as high as their rows need: what its chart area scrolls through.
        if (auto* charts = window.page(i)->findChild<QScrollArea*>(QStringLiteral("chartArea"));
            charts && charts->widget()) {
            const QString chartsFile
                = dir.filePath(window.pageId(i) + QStringLiteral("-charts") + suffix + QStringLiteral(".png"));
            if (!charts->widget()->grab().save(chartsFile, "PNG")) {
                if (error)
                    *error = StartupText::tr("%1: cannot write the screenshot").arg(chartsFile);
                return written;
            }
            written << chartsFile;
        }
    }
    return written;
}

int runShardwise(int argc, char** argv)
{
    // Fractional scale factors (125 %, 150 %) as the desktop asks, instead of rounding to 1x or 2x.
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    // --help and --version only print: they need no display, so a terminal without one (SSH, CI) gets
    // them too instead of a platform-plugin failure.
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if ((a == "--help" || a == "-h" || a == "--help-all" || a == "--version" || a == "-v")
            && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Shardwise"));
    QApplication::setOrganizationDomain(QStringLiteral("shardwise.example"));
    QApplication::setApplicationName(QStringLiteral("shardwise"));
    QApplication::setApplicationDisplayName(QStringLiteral("Shardwise"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDWISE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("shardwise"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        StartupText::tr("Plan, measure and compare training-state sharding on your own GPUs."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption workspaceOption(
        QStringLiteral("workspace"), StartupText::tr("Open the run store FILE instead of the default workspace."),
        StartupText::tr("FILE"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        StartupText::tr("Render every page to DIR/<page>.png and DIR/<page>-dark.png, then exit."),
        StartupText::tr("DIR"));
    const QCommandLineOption languageOption(
        QStringLiteral("language"), StartupText::tr("User interface language (en, de, ja); default: the system's."),
        StartupText::tr("LANG"));
    const QCommandLineOption schemeOption(
        QStringLiteral("color-scheme"),
        StartupText::tr("system, light or dark; default: the last choice in View > Appearance."),
        StartupText::tr("SCHEME"));
    parser.addOptions({ workspaceOption, screenshotOption, languageOption, schemeOption });
    parser.process(app);

    const QLocale locale = parser.isSet(languageOption) ? QLocale(parser.value(languageOption)) : QLocale::system();
    QLocale::setDefault(locale);
    installTranslations(app, locale);

    ColorScheme scheme = savedColorScheme();
    if (parser.isSet(schemeOption) && !parseColorScheme(parser.value(schemeOption), &scheme)) {
        printError(StartupText::tr("--color-scheme: \"%1\" is not one of system, light, dark")
                       .arg(parser.value(schemeOption)));
        return 2;
    }
    applyColorScheme(scheme);

    Workspace workspace;
    // A new workspace of the app gets the example runs shipped with it (Compare shows them at once).
    workspace.setSeedsExampleRuns(true);
    QString error;
    QString path;
    try {
        path = parser.isSet(workspaceOption) ? parser.value(workspaceOption) : Workspace::defaultDatabasePath();
    } catch (const std::exception& e) {
        printError(QString::fromUtf8(e.what()));
        return 1;
    }
    if (!workspace.open(path, &error)) {
        printError(error);
        if (!parser.isSet(screenshotOption))
            QMessageBox::critical(nullptr, StartupText::tr("Shardwise"), error);
        return 1;
    }

    // The example runs of a new workspace are stored off the GUI thread; a failure is said when it ends.
    QObject::connect(&workspace, &Workspace::exampleRunsImported, &workspace, [&workspace] {
        if (!workspace.exampleRunsError().isEmpty())
            printError(workspace.exampleRunsError());
    });
    MainWindow window(workspace);
    if (parser.isSet(screenshotOption)) {
        workspace.waitForExampleRuns(); // the screenshots show them
        const QDir dir(parser.value(screenshotOption));
        window.resize(1400, 900);
        window.show();
        QStringList files;
        const struct {
            ColorScheme scheme;
            QString suffix;
        } variants[] = { { ColorScheme::Light, QString() }, { ColorScheme::Dark, QStringLiteral("-dark") } };
        for (const auto& v : variants) {
            applyColorScheme(v.scheme);
            const QStringList written = renderScreenshots(window, dir, v.suffix, &error);
            if (!error.isEmpty()) {
                printError(error);
                return 1;
            }
            files << written;
        }
        for (const QString& f : files)
            std::printf("%s\n", qPrintable(f));
        return 0;
    }
    window.show();
    return app.exec();
}

} // namespace shardwise::gui
