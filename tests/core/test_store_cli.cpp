// `shardwise-cli runs` as a user runs it: a real process on a real store file.
#include "shardwise/store/database.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace shardwise;
using namespace shardwise::store;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDWISE_CLI), args);
    CliResult r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class TestStoreCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_completedH200 = 0;
    std::int64_t m_oomL4 = 0;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("runs.sqlite"));
        Database db = Database::open(m_db.toStdString());
        fixtures::SyntheticRun a;
        a.config = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 2, 1, 2);
        a.gpuName = "NVIDIA H200";
        a.node = "box-a";
        m_completedH200 = fixtures::recordRun(db, a);
        fixtures::SyntheticRun b;
        b.config = fixtures::syntheticConfig(Strategy::Zero3, 4, 1, 2);
        b.gpuName = "NVIDIA L4";
        b.node = "box-b";
        b.outcome = fixtures::Outcome::Oom;
        b.failingRank = 2;
        b.failingStep = 1;
        m_oomL4 = fixtures::recordRun(db, b);
        Diagnosis d;
        d.runId = m_oomL4;
        d.code = "oom-fragmentation";
        d.title = "Out of memory with 3.0 GiB reserved but unallocated";
        d.firstFailureRank = 2;
        addDiagnosis(db, d);
    }

    void listFiltersRuns_data()
    {
        QTest::addColumn<QStringList>("filter");
        QTest::addColumn<QList<int>>("ids"); // indexes: 0 = completed H200 run, 1 = OOM L4 run
        QTest::newRow("no filter") << QStringList {} << QList<int> { 1, 0 };
        QTest::newRow("strategy") << QStringList { QStringLiteral("--strategy"), QStringLiteral("zero3") }
                                  << QList<int> { 1 };
        QTest::newRow("gpu") << QStringList { QStringLiteral("--gpu"), QStringLiteral("H200") } << QList<int> { 0 };
        QTest::newRow("node") << QStringList { QStringLiteral("--node"), QStringLiteral("box-b") } << QList<int> { 1 };
        QTest::newRow("status") << QStringList { QStringLiteral("--status"), QStringLiteral("oom") }
                                << QList<int> { 1 };
        QTest::newRow("model") << QStringList { QStringLiteral("--model"), QStringLiteral("synthetic-2l") }
                               << QList<int> { 1, 0 };
        QTest::newRow("nothing") << QStringList { QStringLiteral("--model"), QStringLiteral("llama-3.1-70b") }
                                 << QList<int> {};
    }
    void listFiltersRuns()
    {
        QFETCH(QStringList, filter);
        QFETCH(QList<int>, ids);
        const auto r = runCli(QStringList { QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"),
                                            m_db, QStringLiteral("--format"), QStringLiteral("json") }
                              + filter);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(runs.size(), ids.size());
        const std::int64_t known[] = { m_completedH200, m_oomL4 };
        for (int i = 0; i < ids.size(); ++i)
            QCOMPARE(runs[i].toObject()[QStringLiteral("id")].toInteger(), known[ids[i]]);
    }

    void listTableShowsUnits()
    {
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), m_db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("ID")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral(" tok/s")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral(" GiB")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("oom")), qPrintable(r.out));
    }

    void databaseComesFromEnvironmentThenDataDirectory()
    {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SHARDWISE_DB"), m_db);
        auto r = runCli(
            { QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--format"), QStringLiteral("json") },
            env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).array().size(), 2);

        QTemporaryDir dataHome;
        env.remove(QStringLiteral("SHARDWISE_DB"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome.path());
        r = runCli({ QStringLiteral("runs"), QStringLiteral("list") }, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(dataHome.filePath(QStringLiteral("shardwise/shardwise.sqlite"))));
        QVERIFY2(r.out.contains(QStringLiteral("no runs match")), qPrintable(r.out));
    }

    void showPrintsConfigRanksErrorsAndDiagnosis()
    {
        const auto r = runCli(
            { QStringLiteral("runs"), QStringLiteral("show"), QString::number(m_oomL4), QStringLiteral("--db"), m_db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const auto* expected :
             { "oom", "zero3", "NVIDIA L4", "rank 2, step 1: oom: CUDA out of memory",
               "reserved but unallocated: 3.0 GiB", "oom-fragmentation", "first failure on rank 2", "LibTorch 1.13.1" })
            QVERIFY2(r.out.contains(QString::fromUtf8(expected)),
                     qPrintable(QStringLiteral("missing '%1' in:\n%2").arg(QString::fromUtf8(expected), r.out)));

        const auto json = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(m_completedH200),
                                   QStringLiteral("--db"), m_db, QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o[QStringLiteral("rank_summaries")].toArray().size(), 2);
        QCOMPARE(o[QStringLiteral("config")].toObject()[QStringLiteral("strategy")].toString(),
                 QStringLiteral("fsdp2_reshard"));
        QCOMPARE(o[QStringLiteral("run")].toObject()[QStringLiteral("status")].toString(), QStringLiteral("completed"));
    }

    // A rehearsal of one rank of world 64 beside a real run: the list shows its world as "rehearsal of
    // 64" and no throughput, with the note saying why; show gives its memory against the prediction for
    // world 64 and its compute-only step; JSON carries rehearsed_world (null for the real run) and the
    // CSV export the same figures as the JSON.
    void rehearsalIsShownAsAMemoryResult()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rehearsal.sqlite"));
        std::int64_t real = 0, rehearsal = 0;
        {
            Database db = Database::open(path.toStdString());
            fixtures::SyntheticRun run;
            run.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 2);
            run.gpuName = "NVIDIA H100 80GB HBM3";
            real = fixtures::recordRun(db, run);
            RunConfig config = fixtures::syntheticConfig(Strategy::Zero3, 1, 1, 2);
            config.device = DeviceKind::Cuda;
            config.rehearseWorld = 64;
            RunOrigin origin;
            origin.gpuName = "NVIDIA H100 80GB HBM3";
            origin.predicted = RunPrediction { 80000.0, 0.9, 3LL << 30, {} };
            RunRecorder recorder(db, config, origin);
            protocol::StartEvent start;
            start.config = config;
            start.deviceName = origin.gpuName;
            recorder.record(start);
            protocol::SummaryEvent summary;
            summary.warmupSteps = 1;
            summary.timedSteps = 2;
            summary.medianStepS = 0.75;
            summary.memory = fixtures::memoryAt(0, 2);
            summary.rehearsedWorld = 64;
            recorder.record(summary);
            recorder.finish(recorder.statusFromEvents());
            rehearsal = recorder.runId();
        }
        const auto list = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path,
                                   QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        QMap<qint64, QJsonObject> byId;
        for (const auto& v : QJsonDocument::fromJson(list.out.toUtf8()).array())
            byId.insert(v.toObject()[QStringLiteral("id")].toInteger(), v.toObject());
        QCOMPARE(byId.size(), 2);
        const QJsonObject r = byId.value(rehearsal);
        QCOMPARE(r[QStringLiteral("rehearsed_world")].toInt(), 64);
        QCOMPARE(r[QStringLiteral("world_size")].toInt(), 1);
        QVERIFY(r[QStringLiteral("tokens_per_s")].isNull());
        QVERIFY(r[QStringLiteral("median_step_s")].isNull());
        QVERIFY(r[QStringLiteral("predicted_tokens_per_s")].isNull());
        QCOMPARE(r[QStringLiteral("peak_allocated_bytes")].toInteger(), fixtures::memoryAt(0, 2).peakAllocated);
        QCOMPARE(r[QStringLiteral("predicted_peak_bytes")].toInteger(), qint64(3LL << 30));
        QVERIFY(byId.value(real).contains(QStringLiteral("rehearsed_world")));
        QVERIFY(byId.value(real)[QStringLiteral("rehearsed_world")].isNull());

        const auto table = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), path });
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        const QString row = table.out.split(QLatin1Char('\n'))
                                .filter(QRegularExpression(QStringLiteral("^%1 ").arg(rehearsal)))
                                .value(0);
        QVERIFY2(row.contains(QStringLiteral("rehearsal of 64")) && !row.contains(QStringLiteral("tok/s")),
                 qPrintable(table.out));
        QVERIFY2(table.out.contains(QStringLiteral("its steps held no communication")), qPrintable(table.out));

        const auto show = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(rehearsal),
                                   QStringLiteral("--db"), path });
        QVERIFY2(show.exitCode == 0, qPrintable(show.err));
        for (const char* expected :
             { "a rehearsal of world 64", "predicted 3.0 GiB per rank at world 64", "measure no tokens/s of world 64",
               "0.750 s (rank 0's median, no communication)", "COMPUTE-ONLY STEP" })
            QVERIFY2(show.out.contains(QString::fromUtf8(expected)),
                     qPrintable(QStringLiteral("missing '%1' in:\n%2").arg(QString::fromUtf8(expected), show.out)));
        const auto json = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(rehearsal),
                                   QStringLiteral("--db"), path, QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject detail = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(detail[QStringLiteral("run")].toObject()[QStringLiteral("rehearsed_world")].toInt(), 64);
        QVERIFY(detail[QStringLiteral("run")].toObject()[QStringLiteral("tokens_per_s")].isNull());
        QCOMPARE(detail[QStringLiteral("compute_only_step_s")].toDouble(), 0.75);
        const auto realJson
            = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(real), QStringLiteral("--db"),
                       path, QStringLiteral("--format"), QStringLiteral("json") });
        const QJsonObject realDetail = QJsonDocument::fromJson(realJson.out.toUtf8()).object();
        QVERIFY(realDetail[QStringLiteral("run")].toObject()[QStringLiteral("rehearsed_world")].isNull());
        QVERIFY(realDetail[QStringLiteral("compute_only_step_s")].isNull());

        const auto csv = runCli({ QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"),
                                  QStringLiteral("csv"), QStringLiteral("--db"), path });
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
        const QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
        const QStringList header = lines.front().split(QLatin1Char(','));
        const qsizetype world = header.indexOf(QStringLiteral("rehearsed_world"));
        const qsizetype tokens = header.indexOf(QStringLiteral("tokens_per_s"));
        QVERIFY(world >= 0 && tokens >= 0);
        for (const QString& line : lines.mid(1)) {
            const QStringList cells = line.split(QLatin1Char(','));
            const bool isRehearsal = cells.front() == QString::number(rehearsal);
            QCOMPARE(cells.value(world), isRehearsal ? QStringLiteral("64") : QString());
            QCOMPARE(cells.value(tokens).isEmpty(), isRehearsal);
        }
    }

    // A run ID the store does not hold is a bad argument (exit 2), not a failed command.
    void showUnknownRunIsAUsageError()
    {
        const auto r = runCli(
            { QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("999999"), QStringLiteral("--db"), m_db });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no run with ID 999999 in ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("runs list")), qPrintable(r.err));
    }

    // What a runner printed and what a note holds reach the terminal with their control characters
    // shown (\xNN, \u00NN for C1), never as escape sequences; --logs prints every stored log line.
    void showPrintsRunTextWithoutTerminalEscapes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("escapes.sqlite"));
        std::int64_t id = 0;
        {
            Database db = Database::open(path.toStdString());
            RunOrigin origin;
            origin.nodes = { { "box-a", std::nullopt } };
            origin.launcher = "shardwise";
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 2), origin);
            id = recorder.runId();
            protocol::ErrorEvent e;
            e.rank = 1;
            e.kind = protocol::ErrorKind::Comm;
            e.message = "peer gone\x1b[2J\x1b]0;owned\x07";
            recorder.record(e);
            recorder.recordLog(0,
                               "stderr \x1b[31mred\x1b[0m and CSI \xc2\x9b"
                               "31m, caf\xc3\xa9");
            recorder.finish(RunStatus::Failed, "first line\nsecond \x1b[1mline");
        }
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(id),
                                QStringLiteral("--logs"), QStringLiteral("--db"), path });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.out.contains(QChar(0x1b)) && !r.out.contains(QChar(0x07)) && !r.out.contains(QChar(0x9b)),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("comm: peer gone\\x1b[2J\\x1b]0;owned\\x07")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("first line\\x0asecond \\x1b[1mline")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("Logs (1 line)")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("rank 0 stderr: stderr \\x1b[31mred\\x1b[0m and CSI \\u009b31m, caf")
                                + QChar(0xe9)),
                 qPrintable(r.out));
        // JSON keeps the text as it is (escaped by JSON itself), the logs included.
        const auto json
            = runCli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(id), QStringLiteral("--logs"),
                       QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--db"), path });
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(doc.value(QStringLiteral("logs")).toArray().size(), 1);
        QCOMPARE(doc.value(QStringLiteral("logs")).toArray().at(0).toObject().value(QStringLiteral("text")).toString(),
                 QString::fromUtf8("stderr \x1b[31mred\x1b[0m and CSI \xc2\x9b"
                                   "31m, caf\xc3\xa9"));
    }

    void exportThenImportMarksRowsImported_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << QStringLiteral("csv");
        QTest::newRow("json") << QStringLiteral("json");
    }
    void exportThenImportMarksRowsImported()
    {
        QFETCH(QString, format);
        const QString file = m_dir.filePath(QStringLiteral("export.") + format);
        auto r = runCli({ QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"), format,
                          QStringLiteral("--out"), file, QStringLiteral("--db"), m_db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(file).size() > 0);

        const QString target = m_dir.filePath(QStringLiteral("imported-") + format + QStringLiteral(".sqlite"));
        r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), target,
                     QStringLiteral("--source"), QStringLiteral("lab notebook") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("imported 2 runs")), qPrintable(r.out));

        r = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), target,
                     QStringLiteral("--source"), QStringLiteral("imported"), QStringLiteral("--format"),
                     QStringLiteral("json") });
        const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(runs.size(), 2);
        for (const auto& run : runs) {
            QCOMPARE(run.toObject()[QStringLiteral("source")].toString(), QStringLiteral("imported"));
            QCOMPARE(run.toObject()[QStringLiteral("import_source")].toString(), QStringLiteral("lab notebook"));
        }
    }

    void exportToStdoutIsCsvWithHeader()
    {
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"),
                                QStringLiteral("csv"), QStringLiteral("--db"), m_db, QStringLiteral("--status"),
                                QStringLiteral("completed") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("id,source,import_source,status,model")));
        QVERIFY(lines[1].contains(QStringLiteral(",completed,synthetic-2l,")));
    }

    // A header naming a field twice is refused naming it, not read with the last column winning.
    void importRefusesAFieldNamedTwiceInTheHeader()
    {
        const auto exported = runCli({ QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"),
                                       QStringLiteral("csv"), QStringLiteral("--db"), m_db });
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QString csv = exported.out;
        QVERIFY(csv.startsWith(QStringLiteral("id,source,import_source,status,model,")));
        csv.replace(0, QStringLiteral("id,source,import_source,").size(), QStringLiteral("id,source,model,"));
        const QString file = m_dir.filePath(QStringLiteral("twice.csv"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(csv.toUtf8());
        out.close();
        const QString target = m_dir.filePath(QStringLiteral("twice.sqlite"));
        const auto r
            = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), target });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("line 1, column 'model'")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("named twice")), qPrintable(r.err));
        const auto listed = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), target,
                                     QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(QJsonDocument::fromJson(listed.out.toUtf8()).array().size(), 0);
    }

    // A device, a FIFO or a folder is refused before anything is read (/dev/zero would be read until
    // memory runs out, a FIFO without a writer never returns).
    void importRefusesWhatIsNotARegularFile()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("runs.csv"));
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        for (const QString& path : { QStringLiteral("/dev/zero"), fifo, m_dir.path() }) {
            const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), QStringLiteral("--format"),
                                    QStringLiteral("csv"), path, QStringLiteral("--db"), m_db });
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("'%1' is not a regular file").arg(path)), qPrintable(r.err));
        }
        QFile::remove(fifo);
        const Database db = Database::open(m_db.toStdString());
        QCOMPARE(listRuns(db).size(), std::size_t(2));
    }

    void badImportNamesTheLineAndKeepsTheStore()
    {
        const QString file = m_dir.filePath(QStringLiteral("bad.csv"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("model,gpu_name,strategy,world_size,status\nm,L4,zero1,4,completed\nm,L4,zero9,4,oom\n");
        f.close();
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), m_db });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("line 3, column 'strategy': unknown strategy 'zero9'")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("nothing was imported")), qPrintable(r.err));
        const Database db = Database::open(m_db.toStdString());
        QCOMPARE(listRuns(db).size(), std::size_t(2));
    }

    // Values that parse but cannot be stored, and files from a newer Shardwise: each a named error with
    // exit 2, and the store keeps exactly what it had.
    void badImportValuesAreNamed_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        const QByteArray run = R"("model":"m","gpu_name":"L4","strategy":"zero1","world_size":4,"status":"completed")";
        QTest::newRow("json overflow") << QStringLiteral("overflow.json")
                                       << QByteArray("[\n{" + run + ",\n\"tokens_per_s\":1e999}]")
                                       << QStringLiteral("line 3: number out of range");
        QTest::newRow("csv overflow")
            << QStringLiteral("overflow.csv")
            << QByteArray("model,gpu_name,strategy,world_size,status,tokens_per_s\nm,L4,zero1,4,completed,1e999\n")
            << QStringLiteral("line 2, column 'tokens_per_s': number out of range: '1e999' overflows a double");
        QTest::newRow("csv integer overflow") << QStringLiteral("bytes.csv")
                                              << QByteArray("model,gpu_name,strategy,world_size,status,peak_allocated_"
                                                            "bytes\nm,L4,zero1,4,completed,99999999999999999999\n")
                                              << QStringLiteral("column 'peak_allocated_bytes': number out of range");
        QTest::newRow("newer format version")
            << QStringLiteral("newer.json")
            << QByteArray(R"({"format":"shardwise-runs","version":2,"runs":[{)" + run + "}]}")
            << QStringLiteral("version: the file has format version 2, newer than this Shardwise reads (1)");
        QTest::newRow("unknown precision")
            << QStringLiteral("precision.json") << QByteArray("[{" + run + R"(,"precision":"fp7"}])")
            << QStringLiteral("runs[0].precision: unknown precision 'fp7'; known: bf16, bf16-fp32-master");
        QTest::newRow("more nodes than ranks")
            << QStringLiteral("nodes.json") << QByteArray("[{" + run + R"(,"node_count":5}])")
            << QStringLiteral("runs[0].node_count: 5 nodes cannot hold 4 ranks");
        QTest::newRow("node list disagrees")
            << QStringLiteral("list.json") << QByteArray("[{" + run + R"(,"node_count":2,"nodes":"a;b;c"}])")
            << QStringLiteral("runs[0].node_count: is 2 but 'nodes' names 3");
    }
    void badImportValuesAreNamed()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString file = m_dir.filePath(name);
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), m_db });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("nothing was imported")), qPrintable(r.err));
        const Database db = Database::open(m_db.toStdString());
        QCOMPARE(listRuns(db).size(), std::size_t(2));
    }

    // An imported 1e308 tok/s (the largest value import accepts) keeps runs list's table narrow, and
    // text cells a spreadsheet would run as formulas leave as text while numbers stay numbers.
    void hugeValuesAndFormulaTextExportSafely()
    {
        const QString file = m_dir.filePath(QStringLiteral("hostile.json"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Built as JSON objects: moc cannot read a raw string literal holding )" .
        QJsonObject hostile { { QStringLiteral("model"), QStringLiteral("m") },
                              { QStringLiteral("gpu_id"), QStringLiteral("h200") },
                              { QStringLiteral("gpu_name"), QStringLiteral("-2+3") },
                              { QStringLiteral("strategy"), QStringLiteral("zero1") },
                              { QStringLiteral("world_size"), 2 },
                              { QStringLiteral("status"), QStringLiteral("completed") },
                              { QStringLiteral("tokens_per_s"), 1e308 },
                              { QStringLiteral("median_step_s"), 1e300 },
                              { QStringLiteral("note"), QStringLiteral("=HYPERLINK(\"http://x\",\"y\")") },
                              { QStringLiteral("import_source"), QStringLiteral("@src") } };
        QJsonObject plain { { QStringLiteral("model"), QStringLiteral("m") },
                            { QStringLiteral("gpu_id"), QStringLiteral("h200") },
                            { QStringLiteral("strategy"), QStringLiteral("zero1") },
                            { QStringLiteral("world_size"), 2 },
                            { QStringLiteral("status"), QStringLiteral("completed") },
                            { QStringLiteral("tokens_per_s"), 2345678 },
                            { QStringLiteral("median_step_s"), 0.25 } };
        f.write(QJsonDocument(QJsonArray { hostile, plain }).toJson());
        f.close();
        const QString db = m_dir.filePath(QStringLiteral("hostile.sqlite"));
        auto r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        r = runCli({ QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const QString& line : r.out.split(QLatin1Char('\n')))
            QVERIFY2(line.size() < 200, qPrintable(line));
        QVERIFY2(r.out.contains(QStringLiteral("1e+308 tok/s")) && r.out.contains(QStringLiteral("1e+300 s")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("2.35 Mtok/s")) && r.out.contains(QStringLiteral("0.250 s")),
                 qPrintable(r.out));

        const QString csv = m_dir.filePath(QStringLiteral("hostile.csv"));
        r = runCli({ QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"),
                     QStringLiteral("csv"), QStringLiteral("--out"), csv, QStringLiteral("--db"), db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile exported(csv);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(exported.readAll());
        QVERIFY2(text.contains(QStringLiteral(",'@src,")) && text.contains(QStringLiteral(",'-2+3,"))
                     && text.contains(QStringLiteral("\"'=HYPERLINK(")),
                 qPrintable(text));
        // Numeric columns are numbers, never guarded.
        QVERIFY2(text.contains(QStringLiteral(",1e+308,1e+300,")) && text.contains(QStringLiteral(",2345678,0.25,")),
                 qPrintable(text));
        for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            for (const QString& cell : line.split(QLatin1Char(',')))
                QVERIFY2(cell.isEmpty() || !QStringLiteral("=+-@").contains(cell.front()), qPrintable(line));

        // Import takes the guard off again: the text round-trips.
        const QString again = m_dir.filePath(QStringLiteral("hostile-again.sqlite"));
        r = runCli({ QStringLiteral("runs"), QStringLiteral("import"), csv, QStringLiteral("--db"), again });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Database back = Database::open(again.toStdString());
        const auto runs = listRuns(back);
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs.front().note, std::string("=HYPERLINK(\"http://x\",\"y\")"));
        QCOMPARE(runs.front().importSource, std::string("@src"));
        QCOMPARE(runs.front().gpuName, std::string("-2+3"));
    }

    void importPrintsIdsLowestToHighest()
    {
        const QString file = m_dir.filePath(QStringLiteral("three.csv"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("model,gpu_name,strategy,world_size,status,precision,node_count,nodes\n"
                "m,L4,zero1,4,completed,bf16,2,a;b\nm,L4,zero2,4,completed,bf16-fp32-master,,\nm,L4,zero3,4,oom,,,\n");
        f.close();
        const QString target = m_dir.filePath(QStringLiteral("three.sqlite"));
        const auto r
            = runCli({ QStringLiteral("runs"), QStringLiteral("import"), file, QStringLiteral("--db"), target });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("imported 3 runs from "))
                     && r.out.contains(QStringLiteral(" as IDs 1-3")),
                 qPrintable(r.out));
    }

    // The shipped published results as runs: every predictable cell stored once with its citation key,
    // a second import keeps them, --replace stores them again under new ids; a folder with a broken
    // source is refused by name and stores nothing.
    void importPublishedStoresEachCellOnce()
    {
        const QString path = m_dir.filePath(QStringLiteral("published.sqlite"));
        auto r = runCli({ QStringLiteral("runs"), QStringLiteral("import-published"), QStringLiteral("--db"), path });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QRegularExpression imported(QStringLiteral("imported (\\d+) published runs? from (\\d+) sources?"));
        const auto m = imported.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        const int count = m.captured(1).toInt();
        QVERIFY(count > 0);
        QVERIFY(m.captured(2).toInt() > 0);
        std::vector<RunSummary> runs;
        {
            const Database db = Database::open(path.toStdString());
            runs = listRuns(db);
        }
        QCOMPARE(static_cast<int>(runs.size()), count);
        for (const RunSummary& run : runs)
            QVERIFY2(run.importSource.rfind("published:", 0) == 0, run.importSource.c_str());

        r = runCli({ QStringLiteral("runs"), QStringLiteral("import-published"), QStringLiteral("--db"), path });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("imported 0 published runs")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("%1 cells already stored, kept").arg(count)), qPrintable(r.out));

        r = runCli({ QStringLiteral("runs"), QStringLiteral("import-published"), QStringLiteral("--replace"),
                     QStringLiteral("--db"), path });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("imported %1 published runs").arg(count)), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("replaced %1 runs").arg(count)), qPrintable(r.out));
        {
            const Database db = Database::open(path.toStdString());
            QCOMPARE(static_cast<int>(listRuns(db).size()), count);
        }

        const QString bad = m_dir.filePath(QStringLiteral("bad-published"));
        QVERIFY(QDir().mkpath(bad));
        QFile f(bad + QStringLiteral("/broken.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"shardwise-published\", ");
        f.close();
        r = runCli({ QStringLiteral("runs"), QStringLiteral("import-published"), bad, QStringLiteral("--db"), path });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("broken.json")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("nothing was imported")), qPrintable(r.err));
        const Database db = Database::open(path.toStdString());
        QCOMPARE(static_cast<int>(listRuns(db).size()), count);
    }

    void abandonEndsADetachedRunAsLostWithoutItsHandle()
    {
        const QString path = m_dir.filePath(QStringLiteral("abandon.sqlite"));
        std::int64_t id = 0;
        {
            Database db = Database::open(path.toStdString());
            RunOrigin origin;
            origin.nodes = { { "gpu-b", std::nullopt } };
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1), origin);
            id = recorder.runId();
            saveRemoteFollow(db, id, R"({"nodes":["gpu-b"]})");
            markRemoteDetached(db, id, "{}");
            recorder.leaveRunning();
        }
        const QString runId = QString::number(id);
        const auto r = runCli({ QStringLiteral("runs"), QStringLiteral("abandon"), runId, QStringLiteral("--db"), path,
                                QStringLiteral("--reason"), QStringLiteral("node gpu-b was re-imaged") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("run %1: lost").arg(id)), qPrintable(r.out));
        // gpu-b is not in this store's node registry: nothing could be stopped there, and it says so.
        QVERIFY2(r.out.contains(QStringLiteral("not reached, its ranks may still be running: gpu-b")),
                 qPrintable(r.out));
        const Database db = Database::open(path.toStdString());
        const auto run = findRun(db, id);
        QCOMPARE(run->status, RunStatus::Lost);
        QVERIFY2(run->note.find("abandoned while detached: node gpu-b was re-imaged") != std::string::npos,
                 run->note.c_str());
        QVERIFY(!findRemoteFollow(db, id));
        // Once lost it is no longer detached: a second abandon is refused.
        const auto again
            = runCli({ QStringLiteral("runs"), QStringLiteral("abandon"), runId, QStringLiteral("--db"), path });
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains(QStringLiteral("run %1 is lost, not detached").arg(id)), qPrintable(again.err));
    }

    void abandonRefusesRunsThatAreNotDetachedNamingThem_data()
    {
        QTest::addColumn<int>("which"); // 0 = completed H200 run, 1 = OOM L4 run, -1 = no such run
        QTest::addColumn<QString>("expected");
        QTest::newRow("completed") << 0 << QStringLiteral("is completed, not detached");
        QTest::newRow("out of memory") << 1 << QStringLiteral("is oom, not detached");
        QTest::newRow("unknown") << -1 << QStringLiteral("there is no run 9999");
    }
    void abandonRefusesRunsThatAreNotDetachedNamingThem()
    {
        QFETCH(int, which);
        QFETCH(QString, expected);
        const std::int64_t id = which == 0 ? m_completedH200 : which == 1 ? m_oomL4 : 9999;
        const auto r = runCli(
            { QStringLiteral("runs"), QStringLiteral("abandon"), QString::number(id), QStringLiteral("--db"), m_db });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        if (which >= 0)
            QVERIFY2(r.err.contains(QStringLiteral("run %1").arg(id)), qPrintable(r.err));
        const Database db = Database::open(m_db.toStdString());
        if (which == 0)
            QCOMPARE(findRun(db, id)->status, RunStatus::Completed);
    }

    void badUsageNamesTheFlag_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown strategy")
            << QStringList { QStringLiteral("list"), QStringLiteral("--strategy"), QStringLiteral("zero9") }
            << QStringLiteral("--strategy: unknown strategy 'zero9'");
        QTest::newRow("unknown status") << QStringList { QStringLiteral("list"), QStringLiteral("--status"),
                                                         QStringLiteral("done") }
                                        << QStringLiteral("--status: unknown status 'done'");
        QTest::newRow("bad date") << QStringList { QStringLiteral("list"), QStringLiteral("--since"),
                                                   QStringLiteral("yesterday") }
                                  << QStringLiteral("--since: expected a UTC date");
        QTest::newRow("export without format")
            << QStringList { QStringLiteral("export") } << QStringLiteral("--format");
        QTest::newRow("unknown option") << QStringList { QStringLiteral("list"), QStringLiteral("--colour"),
                                                         QStringLiteral("x") }
                                        << QStringLiteral("--colour: unknown option");
        QTest::newRow("import-published takes one folder")
            << QStringList { QStringLiteral("import-published"), QStringLiteral("a"), QStringLiteral("b") }
            << QStringLiteral("at most one DIR");
        QTest::newRow("unknown action") << QStringList { QStringLiteral("purge") }
                                        << QStringLiteral("unknown action 'purge'");
        QTest::newRow("bad id") << QStringList { QStringLiteral("show"), QStringLiteral("abc") }
                                << QStringLiteral("'abc'");
    }
    void badUsageNamesTheFlag()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const auto r
            = runCli(QStringList { QStringLiteral("runs") } + args + QStringList { QStringLiteral("--db"), m_db });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestStoreCli)
#include "test_store_cli.moc"
