#pragma once
// main() for the GUI suites: offscreen unless the caller chose a platform, settings and data in
// Qt's test locations so a run never touches the user's own configuration or workspace.

#include <QApplication>
#include <QStandardPaths>
#include <QtTest>

#define SHARDWISE_GUI_TEST_MAIN(TestClass)                                                                             \
    int main(int argc, char** argv)                                                                                    \
    {                                                                                                                  \
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))                                                            \
            qputenv("QT_QPA_PLATFORM", "offscreen");                                                                   \
        QStandardPaths::setTestModeEnabled(true);                                                                      \
        QApplication app(argc, argv);                                                                                  \
        QApplication::setOrganizationName(QStringLiteral("ShardwiseTests"));                                           \
        QApplication::setApplicationName(QStringLiteral(#TestClass));                                                  \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                                       \
        TestClass tc;                                                                                                  \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&tc, argc, argv);                                                                          \
    }
