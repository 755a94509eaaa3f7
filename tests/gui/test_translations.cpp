// The shipped translations are complete (no unfinished or obsolete entries), match the sources
// (lupdate finds nothing new), compile into the binary and load together with Qt's own catalogue;
// in every language, English included, no two mnemonics (Alt+letter) of a page and the menu bar clash.
#include "gui_test_main.hpp"

#include "pages/runs/run_request_form.hpp"
#include "shell/main_window.hpp"
#include "shell/translations.hpp"
#include "workspace/workspace.hpp"

#include <QAbstractButton>
#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QGroupBox>
#include <QKeySequence>
#include <QLabel>
#include <QMap>
#include <QMenuBar>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSpinBox>
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

void removeTranslators()
{
    for (QTranslator* t : QCoreApplication::instance()->findChildren<QTranslator*>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
}

// What takes Alt+<letter> while `page` is the current page of `window`: the menu bar's menus and,
// on the page, every shown label with a buddy, button and group box title with a mnemonic (Qt
// grabs each as a window shortcut). Two on one key make it ambiguous: Alt+key then only moves the
// focus between them. Returns one line per ambiguous key, naming the texts that share it.
QStringList mnemonicClashes(const QMainWindow& window, const QWidget& page)
{
    QMap<QString, QStringList> byKey;
    const auto add = [&byKey](const QString& text, const char* kind) {
        const QKeySequence key = QKeySequence::mnemonic(text);
        if (!key.isEmpty())
            byKey[key.toString(QKeySequence::PortableText)]
                << QStringLiteral("%1 \"%2\"").arg(QLatin1String(kind), text);
    };
    for (const QAction* menu : window.menuBar()->actions())
        add(menu->text(), "menu");
    for (const QWidget* w : page.findChildren<QWidget*>()) {
        if (w->window() != &window || !w->isVisibleTo(&page))
            continue;
        if (const auto* label = qobject_cast<const QLabel*>(w)) {
            if (label->buddy())
                add(label->text(), "label");
        } else if (const auto* button = qobject_cast<const QAbstractButton*>(w)) {
            add(button->text(), "button");
        } else if (const auto* box = qobject_cast<const QGroupBox*>(w)) {
            add(box->title(), "group box");
        }
    }
    QStringList clashes;
    for (auto it = byKey.cbegin(); it != byKey.cend(); ++it)
        if (it.value().size() > 1)
            clashes << it.key() + QStringLiteral(": ") + it.value().join(QStringLiteral(", "));
    return clashes;
}

QString lupdatePath()
{
    for (const QString& candidate : { QStringLiteral("/usr/lib/qt6/bin/lupdate"), QStringLiteral("/usr/bin/lupdate") })
        if (QFile::exists(candidate))
            return candidate;
    return {};
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QSettings().clear();
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("translations.sqlite")), &error), qPrintable(error));
    }

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
        process.start(lupdate,
                      { QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                        QStringLiteral(SHARDWISE_SOURCE_DIR "/app/gui"), QStringLiteral("-ts"), copy });
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        // A string added to the sources but not to the .ts would show up here as unfinished.
        const TsCounts counts = countTs(copy);
        QVERIFY2(
            counts.unfinished == 0,
            qPrintable(QStringLiteral("not in the .ts yet: ") + counts.firstUnfinished.join(QStringLiteral(" | "))));
        QCOMPARE(counts.messages, countTs(tsPath(language)).messages);
    }

    // English shows its sources, but a counted string takes its forms from the English plural
    // catalogue: every plural message of the sources is in it, finished, and nothing else is.
    void englishPluralsMatchTheSources()
    {
        const QString en = tsPath(QStringLiteral("en"));
        const TsCounts counts = countTs(en);
        QVERIFY(counts.messages > 10);
        QVERIFY2(counts.unfinished == 0, qPrintable(counts.firstUnfinished.join(QStringLiteral(" | "))));
        QCOMPARE(counts.obsolete, 0);
        const QString lupdate = lupdatePath();
        if (lupdate.isEmpty())
            QSKIP("lupdate is not installed (Debian: qt6-l10n-tools)");
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("copy.ts"));
        QVERIFY(QFile::copy(en, copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        QProcess process;
        process.start(lupdate,
                      { QStringLiteral("-pluralonly"), QStringLiteral("-no-obsolete"), QStringLiteral("-locations"),
                        QStringLiteral("none"), QStringLiteral(SHARDWISE_SOURCE_DIR "/app/gui"), QStringLiteral("-ts"),
                        copy });
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        const TsCounts updated = countTs(copy);
        QVERIFY2(updated.unfinished == 0,
                 qPrintable(QStringLiteral("not in shardwise_en.ts yet: ")
                            + updated.firstUnfinished.join(QStringLiteral(" | "))));
        QCOMPARE(updated.messages, counts.messages);
    }

    void englishCountsReadAsEnglish_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::newRow("en_US") << QStringLiteral("en_US");
        QTest::newRow("C") << QStringLiteral("C");
        QTest::newRow("fr_FR (no translation shipped)") << QStringLiteral("fr_FR");
    }
    void englishCountsReadAsEnglish()
    {
        QFETCH(QString, locale);
        const auto cleanup = qScopeGuard([] { removeTranslators(); });
        const QStringList loaded = installTranslations(*QCoreApplication::instance(), QLocale(locale));
        QCOMPARE(loaded, QStringList { QStringLiteral("shardwise_en") });
        const char* context = "CoreMessage";
        auto runs = [&](int n) { return QCoreApplication::translate(context, "%n run(s)", nullptr, n); };
        QCOMPARE(runs(1), QStringLiteral("1 run"));
        QCOMPARE(runs(3), QStringLiteral("3 runs"));
        QCOMPARE(runs(0), QStringLiteral("0 runs"));
        // The run form's spin boxes: "1 sequence", never "1 sequences".
        RunRequestForm form;
        auto* microBatch = form.findChild<QSpinBox*>(QStringLiteral("runMicroBatch"));
        QVERIFY(microBatch);
        microBatch->setValue(1);
        QCOMPARE(microBatch->text(), QStringLiteral("1 sequence"));
        microBatch->setValue(4);
        QCOMPARE(microBatch->text(), QStringLiteral("4 sequences"));
        auto* ranks = form.findChild<QSpinBox*>(QStringLiteral("runRanks"));
        ranks->setValue(1);
        QCOMPARE(ranks->text(), QStringLiteral("1 rank"));
        auto* warmup = form.findChild<QSpinBox*>(QStringLiteral("runWarmup"));
        warmup->setValue(1);
        QCOMPARE(warmup->text(), QStringLiteral("1 step"));
        warmup->setValue(0);
        QCOMPARE(warmup->text(), QStringLiteral("0 steps"));
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
        removeTranslators();
    }

    void mnemonicsAreUniqueOnEveryPage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("en");
        for (const QString& l : shippedLanguages())
            QTest::newRow(qPrintable(l)) << l;
    }
    void mnemonicsAreUniqueOnEveryPage()
    {
        QFETCH(QString, language);
        const auto cleanup = qScopeGuard([] { removeTranslators(); });
        const QStringList loaded = installTranslations(*QCoreApplication::instance(), QLocale(language));
        if (shippedLanguages().contains(language))
            QVERIFY2(loaded.contains(QStringLiteral("shardwise_") + language),
                     qPrintable(loaded.join(QLatin1Char(','))));
        // The pages translate their texts when they are built: the window comes after the catalogues.
        MainWindow window(m_workspace);
        QVERIFY(window.pageCount() > 0);
        QStringList clashes;
        for (int i = 0; i < window.pageCount(); ++i)
            for (const QString& clash : mnemonicClashes(window, *window.page(i)))
                clashes << QStringLiteral("%1 page, %2").arg(window.pageId(i), clash);
        QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join(QStringLiteral("; "))));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestTranslations)
#include "test_translations.moc"
