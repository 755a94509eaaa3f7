// How a real shardwise-runner process ends when its host or its launch environment fails it: the
// error event's kind and the exit code (docs/protocol.md) are what the store and the diagnosis read.
#include "rank_launch.hpp"

#include <QElapsedTimer>
#include <QtTest>

using namespace shardwise;
using namespace shardwise::protocol;

class TestRunnerFailures : public QObject {
    Q_OBJECT

private slots:
    // A model whose fp32 weights alone (1.5 B parameters, 6 GB) exceed the process's address-space
    // limit: LibTorch's DefaultCPUAllocator throws "can't allocate memory" as a plain c10::Error.
    void hostOutOfMemoryIsAnOomEventAndExitThree()
    {
        const QString limit = QString::number(4LL * 1024 * 1024 * 1024);
        RankProcess rank({ QStringLiteral("--as=") + limit, QStringLiteral(SHARDWISE_RUNNER_PATH),
                           QStringLiteral("--model"), QStringLiteral("qwen2.5-1.5b"), QStringLiteral("--seq"),
                           QStringLiteral("64"), QStringLiteral("--steps"), QStringLiteral("1"),
                           QStringLiteral("--warmup"), QStringLiteral("0") },
                         rankEnvironment(0, 1, freeTcpPort()), QStringLiteral("prlimit"));
        const RankRun run = rank.finish(180000);
        QVERIFY2(!run.crashed, qPrintable(run.log.right(2000)));
        const auto errors = eventsOf<ErrorEvent>(run);
        QVERIFY2(errors.size() == 1, qPrintable(run.log.right(2000)));
        QCOMPARE(errors.front().kind, ErrorKind::Oom);
        const QString message = QString::fromStdString(errors.front().message);
        QVERIFY2(message.contains(QStringLiteral("can't allocate memory")), qPrintable(message));
        // The allocator's sentence, not the C++ backtrace c10::Error::what() appends.
        QVERIFY2(!message.contains(QStringLiteral("frame #")), qPrintable(message.left(2000)));
        QCOMPARE(run.exitCode, 3);
    }

    // A MASTER_ADDR that does not exist fails at once as a config error naming it, instead of waiting
    // out the rendezvous timeout (here 120 s) as if a peer were slow.
    void unresolvableMasterAddressFailsAtOnce()
    {
        QProcessEnvironment env = rankEnvironment(1, 2, freeTcpPort());
        env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("no-such-host.invalid"));
        QElapsedTimer clock;
        clock.start();
        const RankRun run = runOnce({ QStringLiteral("--model"), QStringLiteral("tiny"), QStringLiteral("--seq"),
                                      QStringLiteral("16"), QStringLiteral("--timeout-s"), QStringLiteral("120") },
                                    env, 150000);
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
        const auto errors = eventsOf<ErrorEvent>(run);
        QVERIFY2(errors.size() == 1, qPrintable(run.log.right(2000)));
        QCOMPARE(errors.front().kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors.front().message)
                     .contains(QStringLiteral("MASTER_ADDR 'no-such-host.invalid'")),
                 errors.front().message.c_str());
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestRunnerFailures)
#include "test_runner_failures.moc"
