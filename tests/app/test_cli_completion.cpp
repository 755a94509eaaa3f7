// shardwise-cli's option table and what is made from it, through the real binary: the bash completion
// script the build generated completes commands, actions, flags and their values (run by bash with
// COMP_WORDS and COMP_CWORD set as bash sets them); the zsh script describes commands and actions and
// hands each command its own flags (run by zsh with words and CURRENT set); the man page names every flag of every
// command of the table and renders without a groff warning; and every command of the table parses the same way (an
// unknown flag and a flag without its value exit 2 naming the flag, --flag=value means --flag value).
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

struct Result {
    int exitCode = -1;
    QString out;
    QString err;
};

Result run(const QString& program, const QStringList& args, const QByteArray& input = {})
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return {};
    p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(60000);
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

Result cli(const QStringList& args)
{
    return run(QStringLiteral(SHARDWISE_CLI_PATH), args);
}

const QString kBash = QStringLiteral(SHARDWISE_CLI_GENERATED_DIR "/shardwise-cli");
const QString kMan = QStringLiteral(SHARDWISE_CLI_GENERATED_DIR "/shardwise-cli.1");
const QString kZsh = QStringLiteral(SHARDWISE_CLI_GENERATED_DIR "/_shardwise-cli");

// What the generated zsh script hands zsh's completion system when the last word of `words` is
// completed: zsh runs the script (which ends by calling its function, as compinit's autoload does)
// with `words` and CURRENT set as the completion system sets them, and _describe and _arguments
// replaced by functions that print what they were given: "describe:TAG" and its entries, or
// "arguments" and its specs. Anything on stderr fails the run.
Result zshCompletion(const QStringList& words)
{
    QString array;
    for (const QString& w : words)
        array += QStringLiteral(" '") + w + QLatin1Char('\'');
    const QString script = QStringLiteral("_describe() { print -rl -- \"describe:$1\" \"${(@P)2}\"; }; "
                                          "_arguments() { print -rl -- arguments \"$@\"; }; "
                                          "words=(%1); CURRENT=%2; source '%3'")
                               .arg(array)
                               .arg(words.size())
                               .arg(kZsh);
    return run(QStringLiteral("zsh"), { QStringLiteral("-f"), QStringLiteral("-c"), script });
}

// COMPREPLY after completing the last word of `words` with the generated script.
QStringList complete(const QStringList& words)
{
    QString array;
    for (const QString& w : words)
        array += QStringLiteral(" '") + w + QLatin1Char('\'');
    const QString script = QStringLiteral("source '%1'; COMP_WORDS=(%2); COMP_CWORD=%3; _shardwise_cli; "
                                          "printf '%s\\n' \"${COMPREPLY[@]}\"")
                               .arg(kBash, array)
                               .arg(words.size() - 1);
    const Result r = run(QStringLiteral("bash"), { QStringLiteral("-c"), script });
    return r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

nlohmann::json table()
{
    const Result r = cli({ QStringLiteral("completions"), QStringLiteral("table") });
    return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json::array();
}

} // namespace

class TestCliCompletion : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(kBash), qPrintable(kBash + QStringLiteral(" was not generated")));
        QVERIFY2(QFile::exists(kMan), qPrintable(kMan + QStringLiteral(" was not generated")));
        QVERIFY(table().size() > 10);
    }

    void bashCompletesCommandsActionsFlagsAndValues_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QStringList>("expected");
        const auto l = [](std::initializer_list<const char*> w) {
            QStringList out;
            for (const char* s : w)
                out << QString::fromLatin1(s);
            return out;
        };
        QTest::newRow("command") << l({ "shardwise-cli", "pr" }) << l({ "presets" });
        QTest::newRow("action") << l({ "shardwise-cli", "runs", "im" })
                                << l({ "import", "import-examples", "import-published" });
        QTest::newRow("flag of an action")
            << l({ "shardwise-cli", "nodes", "test", "--acc" }) << l({ "--accept-new-host-key" });
        QTest::newRow("flag of a command") << l({ "shardwise-cli", "plan", "--interc" }) << l({ "--interconnect" });
        QTest::newRow("rehearsal flag of run") << l({ "shardwise-cli", "run", "--reh" }) << l({ "--rehearse-world" });
        QTest::newRow("choices") << l({ "shardwise-cli", "runs", "list", "--format", "" }) << l({ "table", "json" });
        QTest::newRow("choices after =") << l({ "shardwise-cli", "gke", "--format", "=", "y" }) << l({ "yaml" });
        QTest::newRow("gpu preset") << l({ "shardwise-cli", "plan", "--gpu", "h20" }) << l({ "h200" });
        QTest::newRow("strategy") << l({ "shardwise-cli", "runs", "list", "--strategy", "zero3_" })
                                  << l({ "zero3_offload" });
    }
    void bashCompletesCommandsActionsFlagsAndValues()
    {
        QFETCH(QStringList, words);
        QFETCH(QStringList, expected);
        QStringList got = complete(words);
        got.sort();
        expected.sort();
        QCOMPARE(got, expected);
    }

    // zsh (installed by the README's test command): commands and actions are described with their
    // summaries, and completing after a command or action hands _arguments exactly that command's
    // flags from the option table.
    void zshDescribesCommandsAndActions()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("zsh")).isEmpty(),
                 "zsh is not installed (packaging/bootstrap.sh test installs it)");
        QVERIFY2(QFile::exists(kZsh), qPrintable(kZsh + QStringLiteral(" was not generated")));
        const Result commands = zshCompletion({ QStringLiteral("shardwise-cli"), QStringLiteral("pr") });
        QVERIFY2(commands.exitCode == 0 && commands.err.isEmpty(), qPrintable(commands.err));
        QVERIFY2(commands.out.startsWith(QStringLiteral("describe:command\n")), qPrintable(commands.out));
        QVERIFY(commands.out.contains(QStringLiteral("\npresets:list the model and GPU presets\n")));
        const Result actions
            = zshCompletion({ QStringLiteral("shardwise-cli"), QStringLiteral("runs"), QStringLiteral("im") });
        QVERIFY2(actions.exitCode == 0 && actions.err.isEmpty(), qPrintable(actions.err));
        QVERIFY2(actions.out.startsWith(QStringLiteral("describe:action\n")), qPrintable(actions.out));
        QVERIFY(actions.out.contains(QStringLiteral("\nimport-examples:")));
    }

    void zshHandsEveryCommandItsOwnFlags()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("zsh")).isEmpty(),
                 "zsh is not installed (packaging/bootstrap.sh test installs it)");
        for (const auto& command : table()) {
            const QString name = QString::fromStdString(command["command"].get<std::string>());
            QStringList words { QStringLiteral("shardwise-cli") };
            words += name.split(QLatin1Char(' '));
            words << QStringLiteral("--");
            const Result r = zshCompletion(words);
            QVERIFY2(r.exitCode == 0 && r.err.isEmpty(), qPrintable(name + QStringLiteral(": ") + r.err));
            QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            QVERIFY2(!lines.isEmpty() && lines.takeFirst() == QStringLiteral("arguments"), qPrintable(name + r.out));
            // A flag the table lets repeat is offered again after use: its spec starts with '*'.
            QStringList got;
            for (const QString& spec : lines)
                if (spec.startsWith(QStringLiteral("--")) || spec.startsWith(QStringLiteral("*--")))
                    got << spec.section(QRegularExpression(QStringLiteral("[=\\[]")), 0, 0);
            QStringList want;
            for (const auto& option : command["options"])
                want << (option.value("repeatable", false) ? QStringLiteral("*") : QString())
                        + QString::fromStdString(option["name"].get<std::string>());
            got.sort();
            want.sort();
            QVERIFY2(got == want,
                     qPrintable(name + QStringLiteral(": zsh ") + got.join(QLatin1Char(' '))
                                + QStringLiteral(" / table ") + want.join(QLatin1Char(' '))));
        }
    }

    // Every flag of every command of the table is in the man page, under that command.
    void manPageNamesEveryFlagOfEveryCommand()
    {
        QFile f(kMan);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString man = QString::fromUtf8(f.readAll());
        for (const auto& command : table()) {
            const QString name = QString::fromStdString(command["command"].get<std::string>());
            const QString heading = QStringLiteral(".SS \"")
                + QString(name).replace(QLatin1Char('-'), QStringLiteral("\\-")) + QLatin1Char('"');
            const qsizetype at = man.indexOf(heading);
            QVERIFY2(at >= 0, qPrintable(name));
            const qsizetype next = man.indexOf(QStringLiteral("\n.SS "), at + 1);
            const QString section = man.mid(at, next < 0 ? -1 : next - at);
            for (const auto& option : command["options"]) {
                const QString flag = QString::fromStdString(option["name"].get<std::string>())
                                         .replace(QLatin1Char('-'), QStringLiteral("\\-"));
                QVERIFY2(section.contains(QStringLiteral(".B ") + flag), qPrintable(name + QLatin1Char(' ') + flag));
            }
        }
    }

    void manPageRendersWithoutWarnings()
    {
        const Result probe = run(QStringLiteral("groff"), { QStringLiteral("--version") });
        if (probe.exitCode != 0)
            QSKIP("groff is not installed");
        QFile f(kMan);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Result r = run(QStringLiteral("groff"),
                             { QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-ww") }, f.readAll());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("SHARDWISE-CLI(1)")) && r.out.contains(QStringLiteral("Removes")),
                 qPrintable(r.out.left(2000)));
    }

    // The parser is the same for every command: an unknown flag and a value-taking flag at the end
    // exit 2 with a message naming the flag.
    void everyCommandRefusesUnknownFlagsAndMissingValues()
    {
        for (const auto& command : table()) {
            const QStringList words
                = QString::fromStdString(command["command"].get<std::string>()).split(QLatin1Char(' '));
            Result r = cli(words + QStringList { QStringLiteral("--no-such-flag") });
            QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("--no-such-flag: unknown option")),
                     qPrintable(words.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
            for (const auto& option : command["options"]) {
                if (option["value"].get<std::string>().empty())
                    continue;
                const QString flag = QString::fromStdString(option["name"].get<std::string>());
                r = cli(words + QStringList { flag });
                QVERIFY2(
                    r.exitCode == 2 && r.err.contains(flag + QStringLiteral(": missing value")),
                    qPrintable(words.join(QLatin1Char(' ')) + QLatin1Char(' ') + flag + QStringLiteral(": ") + r.err));
            }
        }
    }

    void flagEqualsValueMeansFlagValue()
    {
        const Result spaced = cli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"),
                                    QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--format"),
                                    QStringLiteral("json") });
        const Result assigned = cli({ QStringLiteral("plan"), QStringLiteral("--model=qwen2.5-3b"),
                                      QStringLiteral("--gpu=h200"), QStringLiteral("--format=json") });
        QCOMPARE(spaced.exitCode, 0);
        QCOMPARE(assigned.exitCode, 0);
        QCOMPARE(assigned.out, spaced.out);
        const Result listed = cli({ QStringLiteral("presets"), QStringLiteral("--format=json") });
        QCOMPARE(listed.exitCode, 0);
        QVERIFY(listed.out.contains(QStringLiteral("\"gpus\"")));
        const Result switchWithValue
            = cli({ QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--local=yes") });
        QCOMPARE(switchWithValue.exitCode, 2);
        QVERIFY2(switchWithValue.err.contains(QStringLiteral("--local: takes no value")),
                 qPrintable(switchWithValue.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCompletion)
#include "test_cli_completion.moc"
