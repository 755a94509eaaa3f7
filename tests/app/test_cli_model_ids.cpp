// Model ids are checked when a model is loaded (shardwise/spec/quote.hpp): a model file's "id", a
// model file's name where it has none, and a Hugging Face config's folder name. A value outside
// [A-Za-z0-9._/+-] is refused with exit 2 naming it, and no script is ever written from it.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Ran {
    int exitCode = -1;
    QString err;
};

Ran cli(const QStringList& args, const QString& workDir)
{
    QProcess p;
    p.setWorkingDirectory(workDir);
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), args);
    if (!p.waitForFinished(60000))
        return {};
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError()) };
}

QByteArray tinyModel()
{
    QFile f(QStringLiteral(SHARDWISE_SOURCE_DIR "/resources/presets/models/tiny.json"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestCliModelIds : public QObject {
    Q_OBJECT

private slots:
    void hostileIdsAreRefusedNamingThem_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("command substitution") << QStringLiteral("x$(touch${IFS}PWNED)");
        QTest::newRow("backticks") << QStringLiteral("x`touch PWNED`");
        QTest::newRow("semicolon") << QStringLiteral("x;touch PWNED");
        QTest::newRow("quote") << QStringLiteral("x'touch PWNED'");
        QTest::newRow("space") << QStringLiteral("my model");
        QTest::newRow("leading dash") << QStringLiteral("-rf");
    }

    void hostileIdsAreRefusedNamingThem()
    {
        QFETCH(QString, id);
        QTemporaryDir dir;
        QByteArray model = tinyModel();
        QVERIFY(!model.isEmpty());
        model.replace("\"id\": \"tiny\"", "\"id\": \"" + id.toUtf8() + "\"");
        writeFile(dir.filePath(QStringLiteral("model.json")), model);
        for (const QString& kind : { QStringLiteral("launch"), QStringLiteral("sbatch") }) {
            const Ran r = cli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("model.json"),
                                QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--export"), kind,
                                QStringLiteral("--output"), QStringLiteral("out.sh") },
                              dir.path());
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(id), qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("model id")), qPrintable(r.err));
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out.sh"))));
        }
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("PWNED"))));
    }

    void aNewlineInAnIdIsRefused()
    {
        QTemporaryDir dir;
        QByteArray model = tinyModel();
        model.replace("\"id\": \"tiny\"", "\"id\": \"x\\ntouch PWNED\"");
        writeFile(dir.filePath(QStringLiteral("model.json")), model);
        const Ran r = cli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("model.json"),
                            QStringLiteral("--gpu"), QStringLiteral("h200") },
                          dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("x\\x0atouch PWNED")), qPrintable(r.err)); // named on one line
    }

    void aHostileFolderOrFileNameIsRefused()
    {
        QTemporaryDir dir;
        // A Hugging Face config.json takes its id from its folder.
        const QString folder = QStringLiteral("x$(touch${IFS}PWNED)");
        QVERIFY(QDir(dir.path()).mkdir(folder));
        writeFile(
            dir.filePath(folder + QStringLiteral("/config.json")),
            "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"intermediate_size\": 160,"
            " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"vocab_size\": 256,"
            " \"max_position_embeddings\": 4096}");
        Ran r = cli({ QStringLiteral("plan"), QStringLiteral("--model"), folder + QStringLiteral("/config.json"),
                      QStringLiteral("--gpu"), QStringLiteral("h200") },
                    dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(folder), qPrintable(r.err));
        // A model file without "id" takes its file name.
        QByteArray model = tinyModel();
        model.replace("\"id\": \"tiny\",", "");
        writeFile(dir.filePath(QStringLiteral("x;touch PWNED.json")), model);
        r = cli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("x;touch PWNED.json"),
                  QStringLiteral("--gpu"), QStringLiteral("h200") },
                dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("x;touch PWNED")), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("PWNED"))));
    }

    void huggingFaceStyleIdsAreAccepted()
    {
        QTemporaryDir dir;
        QByteArray model = tinyModel();
        model.replace("\"id\": \"tiny\"", "\"id\": \"meta-llama/Llama-3.1-8B+tiny_v2.0\"");
        writeFile(dir.filePath(QStringLiteral("model.json")), model);
        const Ran r = cli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("model.json"),
                            QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--export"),
                            QStringLiteral("launch"), QStringLiteral("--output"), QStringLiteral("launch.sh") },
                          dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile f(dir.filePath(QStringLiteral("launch.sh")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("--model meta-llama/Llama-3.1-8B+tiny_v2.0 "));
    }
};

QTEST_GUILESS_MAIN(TestCliModelIds)
#include "test_cli_model_ids.moc"
