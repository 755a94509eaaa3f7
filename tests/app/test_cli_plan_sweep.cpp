// shardwise-cli plan --sweep, run as a real process: the grid as JSON, CSV (to --output) and a table,
// every point equal to `plan --format json` at its input, and exit status 2 naming the value for bad
// axes and for flags that do not go with a sweep.
#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <charconv>

using nlohmann::json;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), args);
    if (!p.waitForFinished(60'000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
             QString::fromUtf8(p.readAllStandardError()) };
}

QStringList plan(const QString& model = QStringLiteral("qwen2.5-32b"), const QString& gpu = QStringLiteral("h100-80gb"))
{
    return { QStringLiteral("plan"), QStringLiteral("--model"), model, QStringLiteral("--gpu"), gpu };
}

// The four axes of the sweep the issue asks for: 3 x 2 x 2 x 2 points.
QStringList fourAxes()
{
    return { QStringLiteral("--sweep"),          QStringLiteral("seq=1024,2048,4096"),
             QStringLiteral("--sweep"),          QStringLiteral("micro-batch=1,2"),
             QStringLiteral("--sweep"),          QStringLiteral("gpus-per-node=1,8"),
             QStringLiteral("--sweep=nodes=1,2") };
}

double number(const QString& text)
{
    const std::string s = text.toStdString();
    double x = 0;
    std::from_chars(s.data(), s.data() + s.size(), x);
    return x;
}

} // namespace

class TestCliPlanSweep : public QObject {
    Q_OBJECT

private slots:
    void jsonGridEqualsPlanAtEveryPoint()
    {
        const CliResult r
            = runCli(plan() + fourAxes() + QStringList { QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("model").get<std::string>(), std::string("qwen2.5-32b"));
        QCOMPARE(j.at("gpu").get<std::string>(), std::string("h100-80gb"));
        QCOMPARE(j.at("axes").size(), std::size_t(4));
        QCOMPARE(j.at("axes")[0].at("axis").get<std::string>(), std::string("seq"));
        QCOMPARE(j.at("axes")[3].at("values"), json({ 1, 2 }));
        const json& points = j.at("points");
        QCOMPARE(points.size(), std::size_t(24));
        // The first axis slowest, the last fastest.
        QCOMPARE(points[0].at("seq_len").get<int>(), 1024);
        QCOMPARE(points[1].at("nodes").get<int>(), 2);
        QCOMPARE(points[2].at("gpus_per_node").get<int>(), 8);
        QCOMPARE(points[23].at("world_size").get<int>(), 16);
        bool sawFit = false;
        bool sawNoFit = false;
        for (const json& p : points) {
            const QString seq = QString::number(p.at("seq_len").get<int>());
            const QString mb = QString::number(p.at("micro_batch").get<int>());
            const QString gpn = QString::number(p.at("gpus_per_node").get<int>());
            const QString nodes = QString::number(p.at("nodes").get<int>());
            const CliResult single
                = runCli(plan()
                         + QStringList { QStringLiteral("--seq"), seq, QStringLiteral("--micro-batch"), mb,
                                         QStringLiteral("--gpus-per-node"), gpn, QStringLiteral("--nodes"), nodes,
                                         QStringLiteral("--format"), QStringLiteral("json") });
            QCOMPARE(single.exitCode, 0);
            const json one = json::parse(single.out.toStdString());
            QCOMPARE(p.at("recommended"), one.at("recommendation").at("strategy"));
            QCOMPARE(p.at("fits").get<bool>(), !one.at("recommendation").at("strategy").is_null());
            (p.at("fits").get<bool>() ? sawFit : sawNoFit) = true;
            bool found = false;
            for (const json& c : one.at("candidates"))
                if (c.at("strategy") == p.at("strategy")) {
                    found = true;
                    // One peak, one definition: the very number plan prints.
                    QCOMPARE(p.at("peak_gib").get<double>(), c.at("peak_gib").get<double>());
                    QCOMPARE(p.at("tokens_per_s").get<double>(), c.at("tokens_per_s").get<double>());
                }
            QVERIFY(found);
        }
        QVERIFY(sawFit);
        QVERIFY(sawNoFit); // 32B at 4096 tokens and micro-batch 2: nothing fits
    }

    void csvGoesToOutputWithTheJsonFigures()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("sweep.csv"));
        const CliResult r = runCli(
            plan() + fourAxes()
            + QStringList { QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("--output"), path });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(QStringLiteral("wrote the sweep's 24 points to ")), qPrintable(r.err));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 25);
        QCOMPARE(lines.front(),
                 QStringLiteral("seq_len,micro_batch,gpus_per_node,nodes,world_size,recommended,"
                                "strategy,fits,peak_gib,tokens_per_s"));

        const CliResult asJson = runCli(plan() + fourAxes() + QStringList { QStringLiteral("--format=json") });
        QCOMPARE(asJson.exitCode, 0);
        const json points = json::parse(asJson.out.toStdString()).at("points");
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList f = lines[i].split(QLatin1Char(','));
            const json& p = points[static_cast<std::size_t>(i - 1)];
            QCOMPARE(f.size(), 10);
            QCOMPARE(f[0].toInt(), p.at("seq_len").get<int>());
            QCOMPARE(f[3].toInt(), p.at("nodes").get<int>());
            QCOMPARE(f[5],
                     p.at("recommended").is_null() ? QString()
                                                   : QString::fromStdString(p.at("recommended").get<std::string>()));
            QCOMPARE(f[6], QString::fromStdString(p.at("strategy").get<std::string>()));
            QCOMPARE(f[7], p.at("fits").get<bool>() ? QStringLiteral("true") : QStringLiteral("false"));
            QCOMPARE(number(f[8]), p.at("peak_gib").get<double>());
            QCOMPARE(number(f[9]), p.at("tokens_per_s").get<double>());
        }
    }

    void tableMarksWhereNothingFits()
    {
        const CliResult r = runCli(plan() + QStringList { QStringLiteral("--sweep"), QStringLiteral("seq=1024,8192") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("2 points over seq")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("peak GiB")));
        QVERIFY(r.out.contains(QStringLiteral("tokens/s")));
        QVERIFY2(r.out.contains(QStringLiteral("* nothing fits")), qPrintable(r.out));
    }

    void helpAndManPageDescribeTheSweep()
    {
        const CliResult help = runCli({ QStringLiteral("plan"), QStringLiteral("--help") });
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains(QStringLiteral("--sweep AXIS=V1,V2,...")));
        QVERIFY(help.out.contains(QStringLiteral("What-if sweep")));
        const CliResult man = runCli({ QStringLiteral("man") });
        QCOMPARE(man.exitCode, 0);
        QVERIFY(man.out.contains(QStringLiteral("sweep")));
    }

    void badSweepsExitTwoNamingTheValue_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const auto sweep = [](const char* value) {
            return plan() + QStringList { QStringLiteral("--sweep"), QString::fromLatin1(value) };
        };
        QTest::newRow("empty") << sweep("seq=") << QStringLiteral("--sweep seq: no values");
        QTest::newRow("zero") << sweep("micro-batch=1,0")
                              << QStringLiteral("--sweep micro-batch: must be in [1, 4096], got '0'");
        QTest::newRow("not a number") << sweep("nodes=two")
                                      << QStringLiteral("--sweep nodes: expected a whole number, got 'two'");
        QTest::newRow("empty value") << sweep("seq=1024,,2048") << QStringLiteral("an empty value in '1024,,2048'");
        QTest::newRow("above bound") << sweep("gpus-per-node=65") << QStringLiteral("got '65'");
        QTest::newRow("unknown axis") << sweep("batch=1,2") << QStringLiteral("--sweep: unknown axis 'batch'");
        QTest::newRow("mistyped axis") << sweep("sq=1024") << QStringLiteral("did you mean 'seq'?");
        QTest::newRow("no axis") << sweep("1024") << QStringLiteral("expected AXIS=V1,V2,...");
        QTest::newRow("axis twice") << (sweep("seq=1024")
                                        + QStringList { QStringLiteral("--sweep"), QStringLiteral("seq=2048") })
                                    << QStringLiteral("--sweep seq: the axis is given twice");
        QTest::newRow("axis and its flag")
            << (sweep("nodes=1,2") + QStringList { QStringLiteral("--nodes"), QStringLiteral("4") })
            << QStringLiteral("--sweep nodes: --nodes is given as well");
        QTest::newRow("too many points")
            << (sweep("seq=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,"
                      "34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65")
                + QStringList { QStringLiteral("--sweep"),
                                QStringLiteral("gpus-per-node=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,"
                                               "23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,"
                                               "46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64") })
            << QStringLiteral("--sweep: more than 4096 points");
        QTest::newRow("csv without sweep")
            << (plan() + QStringList { QStringLiteral("--format"), QStringLiteral("csv") })
            << QStringLiteral("--format csv: writes a --sweep");
        QTest::newRow("export with sweep")
            << (sweep("seq=1024") + QStringList { QStringLiteral("--export"), QStringLiteral("ds-config") })
            << QStringLiteral("--export: writes one strategy's config, not a sweep");
        QTest::newRow("output alone") << (plan() + QStringList { QStringLiteral("--output"), QStringLiteral("x.csv") })
                                      << QStringLiteral("--output: needs --export KIND or --sweep");
        // A point the planner refuses: an L4 has no NVLink between the GPUs of a node.
        QTest::newRow("refused point") << (plan(QStringLiteral("qwen2.5-3b"), QStringLiteral("l4"))
                                           + QStringList { QStringLiteral("--interconnect"), QStringLiteral("nvlink"),
                                                           QStringLiteral("--sweep"),
                                                           QStringLiteral("gpus-per-node=1,2") })
                                       << QStringLiteral("at seq=2048, micro-batch=1, gpus-per-node=2, nodes=1: ");
    }

    void badSweepsExitTwoNamingTheValue()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliPlanSweep)
#include "test_cli_plan_sweep.moc"
