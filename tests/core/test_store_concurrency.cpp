// Several writers on one store, each with its own connection, never surface SQLITE_BUSY: writes
// take the lock with BEGIN IMMEDIATE and wait out the others within the busy timeout.
#include "shardwise/store/runs.hpp"
#include "shardwise/store/schema.hpp"
#include "store_fixtures/run_invariants.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <mutex>
#include <thread>

using namespace shardwise::store;

class TestStoreConcurrency : public QObject {
    Q_OBJECT

private slots:
    void concurrentWriterProcessesNeverSeeBusy()
    {
        QTemporaryDir dir;
        // The file does not exist yet: the writers also race to create and migrate it.
        const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
        constexpr int kWriters = 4;
        constexpr int kRunsEach = 12;
        std::vector<std::unique_ptr<QProcess>> writers;
        for (int i = 0; i < kWriters; ++i) {
            auto p = std::make_unique<QProcess>();
            p->start(QStringLiteral(STORE_RUN_WRITER),
                     { QStringLiteral("count"), dbPath, QString::number(100 + i), QString::number(kRunsEach) });
            writers.push_back(std::move(p));
        }
        for (auto& p : writers) {
            QVERIFY(p->waitForFinished(120000));
            const QByteArray err = p->readAllStandardError();
            QVERIFY2(err.isEmpty(), err.constData());
            QCOMPARE(p->exitStatus(), QProcess::NormalExit);
            QCOMPARE(p->exitCode(), 0);
        }
        const Database db = Database::open(dbPath.toStdString());
        QCOMPARE(db.integrityCheck(), std::string("ok"));
        const auto runs = listRuns(db);
        QCOMPARE(static_cast<int>(runs.size()), kWriters * kRunsEach);
        for (const auto& run : runs) {
            QVERIFY(isFinal(run.status));
            const auto problems = fixtures::halfRecordedProblems(db, run);
            QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        }
    }

    void concurrentWriterThreadsNeverSeeBusy()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        constexpr int kThreads = 4;
        constexpr int kRunsEach = 8;
        std::mutex lock;
        std::vector<std::string> failures;
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                try {
                    Database db = Database::open(path);
                    std::mt19937 rng(static_cast<unsigned>(7 + t));
                    for (int i = 0; i < kRunsEach; ++i) {
                        fixtures::recordRun(db, fixtures::randomRun(rng));
                        // Readers interleave with the writers, as the GUI does while a run records.
                        (void)listRuns(db);
                    }
                } catch (const std::exception& e) {
                    const std::lock_guard<std::mutex> guard(lock);
                    failures.emplace_back(e.what());
                }
            });
        }
        for (auto& th : threads)
            th.join();
        QVERIFY2(failures.empty(), failures.empty() ? "" : failures.front().c_str());
        const Database db = Database::open(path);
        QCOMPARE(static_cast<int>(listRuns(db).size()), kThreads * kRunsEach);
        QCOMPARE(db.integrityCheck(), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestStoreConcurrency)
#include "test_store_concurrency.moc"
