// shardwise-runner --rehearse-world N as real processes on CPU (the tiny preset): one process holding
// rank 0 of world N through the communicator that moves no data has the state bytes and unit buffers of
// rank 0 of a real N-rank Gloo run, a rehearsal of world 1 is a real world-1 run bit for bit, its
// summary never carries a throughput, and bad requests are configuration errors naming the value.
#include "param_dump.hpp"
#include "rank_launch.hpp"

#include "shardwise/spec/strategy.hpp"

#include <QtTest>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

const QStringList kSmallRun { QStringLiteral("--model"),
                              QStringLiteral("tiny"),
                              QStringLiteral("--seq"),
                              QStringLiteral("32"),
                              QStringLiteral("--micro-batch"),
                              QStringLiteral("2"),
                              QStringLiteral("--warmup"),
                              QStringLiteral("1"),
                              QStringLiteral("--steps"),
                              QStringLiteral("2"),
                              QStringLiteral("--seed"),
                              QStringLiteral("7"),
                              QStringLiteral("--lr"),
                              QStringLiteral("0.01"),
                              QStringLiteral("--persistence-threshold"),
                              QStringLiteral("0") };

QString id(const StrategyTraits& t)
{
    return QString::fromUtf8(t.id.data(), static_cast<qsizetype>(t.id.size()));
}

void addStrategyRows(std::initializer_list<int> worlds)
{
    QTest::addColumn<int>("world");
    QTest::addColumn<QString>("strategy");
    for (int world : worlds)
        for (const auto& t : allStrategies())
            QTest::addRow("w%d-%s", world, std::string(t.id).c_str()) << world << id(t);
}

SummaryEvent summaryOf(const RankRun& r)
{
    const auto s = eventsOf<SummaryEvent>(r);
    return s.empty() ? SummaryEvent {} : s.back();
}

bool ranCleanly(const std::vector<RankRun>& ranks)
{
    for (const auto& r : ranks)
        if (r.exitCode != 0 || eventsOf<SummaryEvent>(r).empty()) {
            qWarning().noquote() << "rank log:\n" << r.log;
            return false;
        }
    return true;
}

} // namespace

class TestRunnerRehearsal : public QObject {
    Q_OBJECT

    QTemporaryDir m_dumps;

private slots:
    void rehearsalHoldsRankZerosStateAndBuffers_data() { addStrategyRows({ 2, 4 }); }

    void rehearsalHoldsRankZerosStateAndBuffers()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        const auto args = kSmallRun + QStringList { QStringLiteral("--strategy"), strategy };
        const auto real = runRanks(world, args);
        QVERIFY(ranCleanly(real));
        const auto rehearsal
            = runRanks(1, args + QStringList { QStringLiteral("--rehearse-world"), QString::number(world) });
        QVERIFY(ranCleanly(rehearsal));

        const auto want = summaryOf(real[0]);
        const auto got = summaryOf(rehearsal[0]);
        QCOMPARE(got.state.deviceParams, want.state.deviceParams);
        QCOMPARE(got.state.deviceGrads, want.state.deviceGrads);
        QCOMPARE(got.state.deviceOptimizer, want.state.deviceOptimizer);
        QCOMPARE(got.state.hostParams, want.state.hostParams);
        QCOMPARE(got.state.hostGrads, want.state.hostGrads);
        QCOMPARE(got.state.hostOptimizer, want.state.hostOptimizer);
        QVERIFY(want.unitBufferPeak > 0);
        QCOMPARE(got.unitBufferPeak, want.unitBufferPeak);

        // What it stands for, and what it does not measure.
        QCOMPARE(got.rehearsedWorld, world);
        QCOMPARE(want.rehearsedWorld, 0);
        QCOMPARE(got.tokensPerS, 0.0);
        QVERIFY(want.tokensPerS > 0);
        QCOMPARE(got.ncclShare, 0.0);
        QCOMPARE(got.losses.size(), std::size_t { 3 });
        for (double loss : got.losses)
            QVERIFY2(std::isfinite(loss), "a rehearsal computes on finite values");
        const auto start = eventsOf<StartEvent>(rehearsal[0]);
        QCOMPARE(start.size(), std::size_t { 1 });
        QCOMPARE(start[0].config.rehearseWorld, world);
        QCOMPARE(start[0].world, 1);
        QVERIFY2(rehearsal[0].log.contains(QStringLiteral("only the state bytes")), qPrintable(rehearsal[0].log));
    }

    void rehearsalOfWorldOneIsARealRun_data()
    {
        QTest::addColumn<QString>("strategy");
        for (const auto& t : allStrategies())
            QTest::addRow("%s", std::string(t.id).c_str()) << id(t);
    }

    void rehearsalOfWorldOneIsARealRun()
    {
        QFETCH(QString, strategy);
        const QString realDump = m_dumps.filePath(QStringLiteral("real-") + strategy);
        const QString rehearsedDump = m_dumps.filePath(QStringLiteral("rehearsed-") + strategy);
        const auto args = kSmallRun + QStringList { QStringLiteral("--strategy"), strategy };
        const auto real = runRanks(1, args + QStringList { QStringLiteral("--dump-params"), realDump });
        QVERIFY(ranCleanly(real));
        const auto rehearsal = runRanks(1,
                                        args
                                            + QStringList { QStringLiteral("--rehearse-world"), QStringLiteral("1"),
                                                            QStringLiteral("--dump-params"), rehearsedDump });
        QVERIFY(ranCleanly(rehearsal));

        const auto want = summaryOf(real[0]);
        const auto got = summaryOf(rehearsal[0]);
        QCOMPARE(got.losses, want.losses);
        QCOMPARE(got.unitBufferPeak, want.unitBufferPeak);
        QCOMPARE(got.state.deviceParams, want.state.deviceParams);
        QCOMPARE(got.state.hostOptimizer, want.state.hostOptimizer);
        QCOMPARE(got.rehearsedWorld, 1);
        QCOMPARE(got.tokensPerS, 0.0);
        const auto a = readParamDump(realDump + QStringLiteral(".rank0"));
        const auto b = readParamDump(rehearsedDump + QStringLiteral(".rank0"));
        const auto mismatch = firstMismatch(b.values, a.values, 0, 0);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    void badRehearsalIsAConfigError_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("worldSize");
        QTest::addColumn<QString>("mentions");
        const auto rehearse = [](const char* n) {
            return QStringList { QStringLiteral("--rehearse-world"), QString::fromLatin1(n) };
        };
        QTest::addRow("zero") << rehearse("0") << 1 << QStringLiteral("--rehearse-world 0");
        QTest::addRow("negative") << rehearse("-4") << 1 << QStringLiteral("--rehearse-world -4");
        QTest::addRow("beyond the shard arithmetic") << rehearse("70000") << 1 << QStringLiteral("65536");
        QTest::addRow("not a number") << rehearse("eight") << 1 << QStringLiteral("'eight'");
        QTest::addRow("with several ranks") << rehearse("8") << 2 << QStringLiteral("world_size must be 1, got 2");
        QTest::addRow("with a parameter dump")
            << rehearse("4") + QStringList { QStringLiteral("--dump-params"), QStringLiteral("/tmp/never") } << 1
            << QStringLiteral("--dump-params");
        QTest::addRow("with checkpoints") << rehearse("4")
                + QStringList { QStringLiteral("--checkpoint-every"), QStringLiteral("1"),
                                QStringLiteral("--checkpoint-dir"), QStringLiteral("/tmp/never") }
                                          << 1 << QStringLiteral("checkpoint");
        QTest::addRow("with the probe") << rehearse("4") + QStringList { QStringLiteral("--probe") } << 1
                                        << QStringLiteral("--probe");
    }

    void badRehearsalIsAConfigError()
    {
        QFETCH(QStringList, args);
        QFETCH(int, worldSize);
        QFETCH(QString, mentions);
        auto env = rankEnvironment(0, worldSize, freeTcpPort());
        const auto outcome = runOnce(kSmallRun + args, env);
        QCOMPARE(outcome.exitCode, 2);
        const auto errors = eventsOf<ErrorEvent>(outcome);
        QCOMPARE(errors.size(), std::size_t { 1 });
        QCOMPARE(errors[0].kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors[0].message).contains(mentions), errors[0].message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunnerRehearsal)
#include "test_runner_rehearsal.moc"
