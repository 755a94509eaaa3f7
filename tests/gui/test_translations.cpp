// The shipped translations are complete (no unfinished or obsolete entries), match the sources
// (lupdate finds nothing new), compile into the binary and load together with Qt's own catalogue.
#include "gui_test_main.hpp"

#include "shell/translations.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace shardwise::gui;

namespace {

QString tsPath(const QString& language)
{
    return QStringLiteral(SHARDWISE_SOURCE_DIR "/translations/shardwise_%1.ts").arg(language);
}

struct TsCounts {
    int messages = 0;
    int unfinished = 0;
    int obsolete = 0;
    int emptyTranslations = 0;
    QStringList firstUnfinished;
};

TsCounts countTs(const QString& path)
{
    TsCounts counts;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return counts;
    QXmlStreamReader xml(&file);
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("message")) {
            ++counts.messages;
        } else if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const QString type = xml.attributes().value(QLatin1String("type")).toString();
            if (type == QLatin1String("unfinished")) {
                ++counts.unfinished;
                if (counts.firstUnfinished.size() < 5)
                    counts.firstUnfinished << source;
            } else if (type == QLatin1String("obsolete") || type == QLatin1String("vanished")) {
                ++counts.obsolete;
            }
        }
    }
    return counts;
}

QString lupdatePath()
{
    for (const QString& candidate : {QStringLiteral("/usr/lib/qt6/bin/lupdate"), QStringLiteral("/usr/bin/lupdate")})
        if (QFile::exists(candidate))
            return candidate;
    return {};
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT

private slots:
    void translationIsComplete_data()
    {
        QTest::addColumn<QString>("language");
        for (const QString& l : shippedLanguages())
            QTest::newRow(qPrintable(l)) << l;
    }
    void translationIsComplete()
    {
        QFETCH(QString, language);
        QVERIFY(QFile::exists(tsPath(language)));
        const TsCounts counts = countTs(tsPath(language));
        QVERIFY(counts.messages > 100);
        QVERIFY2(counts.unfinished == 0, qPrintable(counts.firstUnfinished.join(QStringLiteral(" | "))));
        QCOMPARE(counts.obsolete, 0);
    }

    void translationMatchesTheSources_data() { translationIsComplete_data(); }
    void translationMatchesTheSources()
    {
        QFETCH(QString, language);
        const QString lupdate = lupdatePath();
        if (lupdate.isEmpty())
            QSKIP("lupdate is not installed (Debian: qt6-l10n-tools)");
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("copy.ts"));
        QVERIFY(QFile::copy(tsPath(language), copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        QProcess process;
        process.start(lupdate, {QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                                QStringLiteral(SHARDWISE_SOURCE_DIR "/app/gui"), QStringLiteral("-ts"), copy});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        // A string added to the sources but not to the .ts would show up here as unfinished.
        const TsCounts counts = countTs(copy);
        QVERIFY2(counts.unfinished == 0, qPrintable(QStringLiteral("not in the .ts yet: ") + counts.firstUnfinished.join(QStringLiteral(" | "))));
        QCOMPARE(counts.messages, countTs(tsPath(language)).messages);
    }

    void catalogueLoadsWithQtsOwn_data() { translationIsComplete_data(); }
    void catalogueLoadsWithQtsOwn()
    {
        QFETCH(QString, language);
        const QStringList loaded = installTranslations(*QCoreApplication::instance(), QLocale(language));
        QVERIFY2(loaded.contains(QStringLiteral("shardwise_") + language), qPrintable(loaded.join(QLatin1Char(','))));
        QVERIFY2(loaded.contains(QStringLiteral("qt_") + language), qPrintable(loaded.join(QLatin1Char(','))));
        const QString translated = QCoreApplication::translate("shardwise::gui::MainWindow", "&File");
        QVERIFY(translated != QStringLiteral("&File"));
        for (QTranslator* t : QCoreApplication::instance()->findChildren<QTranslator*>())
            QCoreApplication::removeTranslator(t);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestTranslations)
#include "test_translations.moc"
