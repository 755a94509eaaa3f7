// shardwise-runner, as real rank processes on CPU (Gloo, fp32, the "tiny" preset): every strategy ends
// up with zero0's parameters and losses, per-rank state follows the strategy, a dead peer becomes a
// comm error, and bad configurations become config errors with exit code 2.
#include "param_dump.hpp"
#include "rank_launch.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/strategy.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <map>
#include <memory>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

struct Outcome {
    std::vector<RankRun> ranks;
    std::vector<ParamDump> dumps;
};

const QStringList kSmallRun {
    QStringLiteral("--model"),       QStringLiteral("tiny"), QStringLiteral("--seq"),    QStringLiteral("32"),
    QStringLiteral("--micro-batch"), QStringLiteral("2"),    QStringLiteral("--warmup"), QStringLiteral("1"),
    QStringLiteral("--steps"),       QStringLiteral("2"),    QStringLiteral("--seed"),   QStringLiteral("7"),
    QStringLiteral("--lr"),          QStringLiteral("0.01")
};

} // namespace

class TestRunner : public QObject {
    Q_OBJECT

    QTemporaryDir m_dumps;
    std::map<std::pair<int, QString>, Outcome> m_cache;

    // Runs (once per test binary) `strategy` at `world` with extra flags, asserting a clean exit.
    const Outcome* run(int world, const QString& strategy, const QStringList& extra = {})
    {
        const auto key = std::make_pair(world, strategy + extra.join(QLatin1Char(' ')));
        if (auto it = m_cache.find(key); it != m_cache.end())
            return &it->second;
        const QString dump = m_dumps.filePath(QStringLiteral("w%1-%2-%3").arg(world).arg(strategy).arg(m_cache.size()));
        QStringList args = kSmallRun;
        args << QStringLiteral("--strategy") << strategy << QStringLiteral("--dump-params") << dump << extra;
        Outcome o;
        o.ranks = runRanks(world, args);
        for (int r = 0; r < world; ++r) {
            const auto& rr = o.ranks[static_cast<std::size_t>(r)];
            if (rr.exitCode != 0) {
                qWarning().noquote() << "rank" << r << "log:\n" << rr.log;
                return nullptr;
            }
            o.dumps.push_back(readParamDump(dump + QStringLiteral(".rank%1").arg(r)));
        }
        return &m_cache.emplace(key, std::move(o)).first->second;
    }

    static SummaryEvent summaryOf(const RankRun& r)
    {
        const auto s = eventsOf<SummaryEvent>(r);
        return s.empty() ? SummaryEvent {} : s.back();
    }

private slots:
    void everyStrategyMatchesZero0_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<QString>("strategy");
        for (int world : { 1, 2, 4 })
            for (const auto& t : allStrategies())
                QTest::addRow("w%d-%s", world, std::string(t.id).c_str())
                    << world << QString::fromUtf8(t.id.data(), static_cast<qsizetype>(t.id.size()));
    }

    void everyStrategyMatchesZero0()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        const auto* reference = run(world, QStringLiteral("zero0"));
        QVERIFY(reference);
        const auto* candidate = run(world, strategy);
        QVERIFY(candidate);
        for (int r = 0; r < world; ++r) {
            const auto& got = candidate->dumps[static_cast<std::size_t>(r)];
            const auto& want = reference->dumps[static_cast<std::size_t>(r)];
            QVERIFY2(!want.values.empty(), "zero0 wrote no parameter dump");
            QVERIFY(got.header.contains("\"format\":\"shardwise-params\""));
            // Three optimizer steps (one warm-up + two timed) moved the weights away from the init.
            QVERIFY(std::string_view(got.header.constData()).find("\"step\":3") != std::string_view::npos);
            const auto mismatch = firstMismatch(got.values, want.values, 1e-5, 1e-7);
            QVERIFY2(mismatch.isEmpty(), qPrintable(QStringLiteral("rank %1: %2").arg(r).arg(mismatch)));
            // Replicas agree: every rank ends with rank 0's parameters.
            QVERIFY2(firstMismatch(got.values, candidate->dumps[0].values, 0, 0).isEmpty(),
                     qPrintable(QStringLiteral("rank %1 differs from rank 0").arg(r)));

            const auto gotLoss = summaryOf(candidate->ranks[static_cast<std::size_t>(r)]).losses;
            const auto wantLoss = summaryOf(reference->ranks[static_cast<std::size_t>(r)]).losses;
            QCOMPARE(gotLoss.size(), std::size_t { 3 });
            QCOMPARE(wantLoss.size(), gotLoss.size());
            for (std::size_t s = 0; s < gotLoss.size(); ++s)
                QVERIFY2(std::abs(gotLoss[s] - wantLoss[s]) <= 1e-5 * std::abs(wantLoss[s]),
                         qPrintable(QStringLiteral("rank %1 step %2 loss %3 vs %4")
                                        .arg(r)
                                        .arg(s)
                                        .arg(gotLoss[s])
                                        .arg(wantLoss[s])));
        }
        // The runs trained: the loss moved between the first and the last step.
        const auto losses = summaryOf(candidate->ranks[0]).losses;
        QVERIFY(losses.front() != losses.back());
    }

    void deterministicSettingRunsAndChangesNothingOnCpu()
    {
        // SHARDWISE_DETERMINISTIC=1 turns on PyTorch's deterministic algorithms: every operation of a
        // run must have a deterministic form (one without fails the run), and on the CPU, where the
        // runner's steps are deterministic anyway, the parameters must come out the same bytes.
        const auto* plain = run(2, QStringLiteral("zero3"));
        QVERIFY(plain);
        QTemporaryDir dir;
        const QString dump = dir.filePath(QStringLiteral("det"));
        QStringList args = kSmallRun;
        args << QStringLiteral("--strategy") << QStringLiteral("zero3") << QStringLiteral("--dump-params") << dump;
        const auto ranks = runRanks(2, args, 300000, { { "SHARDWISE_DETERMINISTIC", "1" } });
        for (int r = 0; r < 2; ++r) {
            const auto& rr = ranks[static_cast<std::size_t>(r)];
            QVERIFY2(rr.exitCode == 0, qPrintable(rr.log));
            QVERIFY2(rr.log.contains(QStringLiteral("deterministic algorithms (SHARDWISE_DETERMINISTIC=1)")),
                     qPrintable(rr.log));
            const auto dumped = readParamDump(dump + QStringLiteral(".rank%1").arg(r));
            QCOMPARE(firstMismatch(dumped.values, plain->dumps[static_cast<std::size_t>(r)].values, 0, 0), QString());
        }
        // A value other than 0 or 1 is a configuration error that names the setting, not a quiet "off".
        const auto refused = runRanks(1, kSmallRun, 300000, { { "SHARDWISE_DETERMINISTIC", "yes" } });
        QCOMPARE(refused[0].exitCode, 2);
        QVERIFY2(refused[0].log.contains(QStringLiteral("SHARDWISE_DETERMINISTIC=yes: expected 0 or 1")),
                 qPrintable(refused[0].log));
    }

    // SHARDWISE_MEMORY_CAP_GIB caps the CUDA caching allocator; on the CPU there is none, and a value that
    // is not a size is refused by name rather than run without the cap it asked for.
    void memoryCapIsRefusedWhereItCannotApply()
    {
        const auto cpu = runRanks(1, kSmallRun, 300000, { { "SHARDWISE_MEMORY_CAP_GIB", "4" } });
        QCOMPARE(cpu[0].exitCode, 2);
        QVERIFY2(cpu[0].log.contains(QStringLiteral("a memory cap needs --device cuda")), qPrintable(cpu[0].log));
        for (const char* bad : { "0", "-1", "lots", "4GiB", "nan" }) {
            const auto refused = runRanks(1, kSmallRun, 300000, { { "SHARDWISE_MEMORY_CAP_GIB", bad } });
            QCOMPARE(refused[0].exitCode, 2);
            QVERIFY2(
                refused[0].log.contains(
                    QStringLiteral("SHARDWISE_MEMORY_CAP_GIB=%1: expected a number of GiB").arg(QLatin1String(bad))),
                qPrintable(refused[0].log));
        }
    }

    void dumpsDifferFromInitialisation()
    {
        // Guards the equivalence test against comparing untouched weights: zero steps vs three.
        const auto* trained = run(1, QStringLiteral("zero0"));
        QVERIFY(trained);
        QTemporaryDir dir;
        const QString dump = dir.filePath(QStringLiteral("init"));
        QStringList args = kSmallRun;
        args << QStringLiteral("--strategy") << QStringLiteral("zero0") << QStringLiteral("--lr")
             << QStringLiteral("1e-30") << QStringLiteral("--dump-params") << dump;
        const auto ranks = runRanks(1, args);
        QCOMPARE(ranks[0].exitCode, 0);
        const auto init = readParamDump(dump + QStringLiteral(".rank0"));
        QVERIFY(!firstMismatch(trained->dumps[0].values, init.values, 1e-3, 0).isEmpty());
    }

    void stateBytesFollowTheStrategy_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<QString>("strategy");
        for (int world : { 2, 4 })
            for (const auto& t : allStrategies())
                QTest::addRow("w%d-%s", world, std::string(t.id).c_str())
                    << world << QString::fromUtf8(t.id.data(), static_cast<qsizetype>(t.id.size()));
    }

    void stateBytesFollowTheStrategy()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        const auto id = strategy.toStdString();
        const auto& t = traits(*strategyFromId(id));
        const QStringList noPersistence { QStringLiteral("--persistence-threshold"), QStringLiteral("0") };
        const auto* reference = run(world, QStringLiteral("zero0"), noPersistence);
        const auto* candidate = run(world, strategy, noPersistence);
        QVERIFY(reference && candidate);
        const auto full = summaryOf(reference->ranks[0]).state;
        QVERIFY(full.deviceParams > 0 && full.deviceGrads == full.deviceParams);
        QCOMPARE(full.deviceOptimizer, 2 * full.deviceParams); // fp32 Adam moments, no separate master on CPU
        QCOMPARE(full.hostParams + full.hostGrads + full.hostOptimizer, std::int64_t { 0 });
        for (int r = 0; r < world; ++r) {
            const auto s = summaryOf(candidate->ranks[static_cast<std::size_t>(r)]).state;
            const auto W = static_cast<std::int64_t>(world);
            // Parameters between steps: replicated, or one shard (fsdp2 offload keeps even that on the host).
            const std::int64_t deviceParams = !t.shardsParameters ? full.deviceParams
                : t.offloadsParameters                            ? 0
                                                                  : full.deviceParams / W;
            QCOMPARE(s.deviceParams, deviceParams);
            // Gradients: the full buffer (zero0/zero1), a device shard, or a host shard (offload).
            const std::int64_t deviceGrads = !t.shardsGradients ? full.deviceGrads
                : t.offloadsOptimizer                           ? 0
                                                                : full.deviceGrads / W;
            QCOMPARE(s.deviceGrads, deviceGrads);
            QCOMPARE(s.hostGrads, t.offloadsOptimizer ? full.deviceGrads / W : 0);
            if (t.offloadsOptimizer) {
                // fp32 master + two moments per shard element, all in host memory.
                QCOMPARE(s.deviceOptimizer, std::int64_t { 0 });
                const auto hostMaster = full.deviceParams / W;
                QCOMPARE(s.hostOptimizer + s.hostParams, full.deviceOptimizer / W + hostMaster);
                QCOMPARE(s.hostParams, t.offloadsParameters ? hostMaster : 0);
            } else {
                QCOMPARE(s.deviceOptimizer, t.shardsOptimizer ? full.deviceOptimizer / W : full.deviceOptimizer);
                QCOMPARE(s.hostOptimizer + s.hostParams, std::int64_t { 0 });
            }
        }
    }

    void persistenceThresholdKeepsSmallUnitsGathered()
    {
        // Every unit of "tiny" is below DeepSpeed's default threshold of 1e5 elements, so zero3 keeps
        // them all gathered; with threshold 0 it holds one shard.
        const auto* kept = run(2, QStringLiteral("zero3"));
        const auto* sharded
            = run(2, QStringLiteral("zero3"), { QStringLiteral("--persistence-threshold"), QStringLiteral("0") });
        QVERIFY(kept && sharded);
        const auto keptState = summaryOf(kept->ranks[0]).state;
        const auto shardedState = summaryOf(sharded->ranks[0]).state;
        QCOMPARE(keptState.deviceParams, shardedState.deviceParams * 3); // full buffers + the shard
        QCOMPARE(keptState.deviceOptimizer, shardedState.deviceOptimizer);
    }

    void killedRankMakesPeersReportCommError()
    {
        const int world = 3;
        const int port = freeTcpPort();
        QStringList args { QStringLiteral("--model"), QStringLiteral("tiny"),        QStringLiteral("--seq"),
                           QStringLiteral("64"),      QStringLiteral("--warmup"),    QStringLiteral("0"),
                           QStringLiteral("--steps"), QStringLiteral("100000"),      QStringLiteral("--strategy"),
                           QStringLiteral("zero3"),   QStringLiteral("--timeout-s"), QStringLiteral("30") };
        std::vector<std::unique_ptr<RankProcess>> ranks;
        for (int r = 0; r < world; ++r)
            ranks.push_back(std::make_unique<RankProcess>(args, rankEnvironment(r, world, port)));
        // Wait until the victim is inside the step loop, then kill it without warning.
        QTRY_VERIFY_WITH_TIMEOUT(ranks[1]->stdoutSoFar().contains("\"event\":\"step\""), 120000);
        QElapsedTimer sinceKill;
        ::kill(static_cast<pid_t>(ranks[1]->process.processId()), SIGKILL);
        sinceKill.start();
        for (int r : { 0, 2 }) {
            const auto outcome = ranks[static_cast<std::size_t>(r)]->finish(60000);
            QVERIFY2(sinceKill.elapsed() < 60000, "a surviving rank needed more than 60 s to give up");
            QCOMPARE(outcome.exitCode, 4);
            const auto errors = eventsOf<ErrorEvent>(outcome);
            QCOMPARE(errors.size(), std::size_t { 1 });
            QCOMPARE(errors[0].kind, ErrorKind::Comm);
            QCOMPARE(errors[0].rank, r);
            QVERIFY(errors[0].step.has_value());
        }
        ranks[1]->finish(1000);
    }

    // A run killed after a checkpoint and resumed ends with exactly the parameters of an uninterrupted run.
    void resumeAfterKillMatchesUninterruptedRun()
    {
        QTemporaryDir work;
        const QStringList common { QStringLiteral("--model"),       QStringLiteral("tiny"),
                                   QStringLiteral("--seq"),         QStringLiteral("64"),
                                   QStringLiteral("--micro-batch"), QStringLiteral("2"),
                                   QStringLiteral("--warmup"),      QStringLiteral("0"),
                                   QStringLiteral("--steps"),       QStringLiteral("400"),
                                   QStringLiteral("--strategy"),    QStringLiteral("zero3"),
                                   QStringLiteral("--seed"),        QStringLiteral("5"),
                                   QStringLiteral("--lr"),          QStringLiteral("0.01") };
        const QString straightDump = work.filePath(QStringLiteral("straight"));
        const auto straight = runOnce(common + QStringList { QStringLiteral("--dump-params"), straightDump },
                                      rankEnvironment(0, 1, freeTcpPort()), 300000);
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.log));

        const QString dir = work.filePath(QStringLiteral("ckpt"));
        const QStringList checkpointing { QStringLiteral("--checkpoint-every"), QStringLiteral("7"),
                                          QStringLiteral("--checkpoint-dir"), dir };
        {
            RankProcess victim(common + checkpointing, rankEnvironment(0, 1, freeTcpPort()));
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + QStringLiteral("/step-00000007/COMPLETE")), 120000);
            ::kill(static_cast<pid_t>(victim.process.processId()), SIGKILL);
            victim.finish(10000);
        }
        const QString resumedDump = work.filePath(QStringLiteral("resumed"));
        const auto resumed
            = runOnce(common + checkpointing
                          + QStringList { QStringLiteral("--resume"), QStringLiteral("--dump-params"), resumedDump },
                      rankEnvironment(0, 1, freeTcpPort()), 300000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.log));
        const auto summary = summaryOf(resumed);
        QVERIFY2(summary.resumedFromStep >= 7 && summary.resumedFromStep % 7 == 0, qPrintable(resumed.log));
        QCOMPARE(summary.timedSteps, 400 - summary.resumedFromStep);
        QVERIFY(summary.checkpointsWritten > 0 && summary.checkpointSaveS > 0);
        const auto a = readParamDump(straightDump + QStringLiteral(".rank0"));
        const auto b = readParamDump(resumedDump + QStringLiteral(".rank0"));
        QVERIFY(!a.values.empty());
        QVERIFY2(a.values == b.values, qPrintable(firstMismatch(b.values, a.values, 0, 0)));
    }

    // Two ranks: a 10-step run checkpointed at 5 and 10, extended to 16 steps by --resume, equals 16
    // uninterrupted steps on every rank; the summary says where it started. The offload strategies
    // (reduced in place and copied to the host, their host state in the checkpoint) bit for bit.
    void resumeAcrossRanksMatchesUninterruptedRun_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("fsdp2_reshard_offload") << QStringLiteral("fsdp2_reshard_offload");
        QTest::newRow("zero3_offload") << QStringLiteral("zero3_offload");
        QTest::newRow("zero2_offload") << QStringLiteral("zero2_offload");
    }
    void resumeAcrossRanksMatchesUninterruptedRun()
    {
        QFETCH(QString, strategy);
        QTemporaryDir work;
        const QString dir = work.filePath(QStringLiteral("ckpt"));
        auto args = [&](int steps, const QString& dump, bool checkpoint) {
            QStringList a { QStringLiteral("--model"),       QStringLiteral("tiny"),
                            QStringLiteral("--seq"),         QStringLiteral("32"),
                            QStringLiteral("--warmup"),      QStringLiteral("0"),
                            QStringLiteral("--steps"),       QString::number(steps),
                            QStringLiteral("--strategy"),    strategy,
                            QStringLiteral("--dump-params"), dump };
            if (checkpoint)
                a << QStringLiteral("--checkpoint-every") << QStringLiteral("5") << QStringLiteral("--checkpoint-dir")
                  << dir << QStringLiteral("--resume");
            return a;
        };
        const auto straight = runRanks(2, args(16, work.filePath(QStringLiteral("straight")), false));
        const auto first = runRanks(2, args(10, work.filePath(QStringLiteral("first")), true));
        const auto second = runRanks(2, args(16, work.filePath(QStringLiteral("second")), true));
        for (int r = 0; r < 2; ++r) {
            for (const auto* run : { &straight, &first, &second })
                QVERIFY2((*run)[static_cast<std::size_t>(r)].exitCode == 0,
                         qPrintable((*run)[static_cast<std::size_t>(r)].log));
            QCOMPARE(summaryOf(first[static_cast<std::size_t>(r)]).resumedFromStep, -1);
            QCOMPARE(summaryOf(second[static_cast<std::size_t>(r)]).resumedFromStep, 10);
            const auto a = readParamDump(work.filePath(QStringLiteral("straight.rank%1").arg(r)));
            const auto b = readParamDump(work.filePath(QStringLiteral("second.rank%1").arg(r)));
            QVERIFY(!a.values.empty());
            QVERIFY2(a.values == b.values, qPrintable(firstMismatch(b.values, a.values, 0, 0)));
        }
    }

    void incompleteCheckpointIsNeverLoaded()
    {
        QTemporaryDir work;
        const QString dir = work.filePath(QStringLiteral("ckpt"));
        const QStringList base { QStringLiteral("--seq"),
                                 QStringLiteral("16"),
                                 QStringLiteral("--warmup"),
                                 QStringLiteral("0"),
                                 QStringLiteral("--checkpoint-every"),
                                 QStringLiteral("5"),
                                 QStringLiteral("--checkpoint-dir"),
                                 dir };
        const auto first = runOnce(base + QStringList { QStringLiteral("--steps"), QStringLiteral("5") },
                                   rankEnvironment(0, 1, freeTcpPort()));
        QVERIFY2(first.exitCode == 0, qPrintable(first.log));
        // A newer checkpoint cut short: state written, no completion marker.
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/step-00000009")));
        QFile junk(dir + QStringLiteral("/step-00000009/rank-0.state"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{\"format\":\"shardwise-checkpoint\"}\ngarbage");
        junk.close();
        const auto resumed = runOnce(
            base + QStringList { QStringLiteral("--steps"), QStringLiteral("12"), QStringLiteral("--resume") },
            rankEnvironment(0, 1, freeTcpPort()));
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.log));
        QCOMPARE(summaryOf(resumed).resumedFromStep, 5);
        QVERIFY(resumed.log.contains(QStringLiteral("step-00000005")));

        // A complete checkpoint whose file was damaged afterwards is a config error naming the file.
        QFile state(dir + QStringLiteral("/step-00000010/rank-0.state"));
        QVERIFY(state.exists());
        QVERIFY(state.resize(state.size() - 3));
        const auto damaged = runOnce(
            base + QStringList { QStringLiteral("--steps"), QStringLiteral("14"), QStringLiteral("--resume") },
            rankEnvironment(0, 1, freeTcpPort()));
        QCOMPARE(damaged.exitCode, 2);
        const auto errors = eventsOf<ErrorEvent>(damaged);
        QCOMPARE(errors.size(), std::size_t { 1 });
        QVERIFY2(QString::fromStdString(errors[0].message).contains(QStringLiteral("damaged")),
                 errors[0].message.c_str());
    }

    void badConfigIsAConfigError_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("envOverrides"); // NAME=VALUE, or NAME= to remove it
        QTest::addColumn<QString>("mentions");
        QTest::addRow("unknown strategy") << QStringList { QStringLiteral("--strategy"), QStringLiteral("zero9") }
                                          << QStringList {} << QStringLiteral("--strategy");
        QTest::addRow("unknown model") << QStringList { QStringLiteral("--model"), QStringLiteral("no-such-model") }
                                       << QStringList {} << QStringLiteral("--model");
        QTest::addRow("unknown flag") << QStringList { QStringLiteral("--frobnicate"), QStringLiteral("1") }
                                      << QStringList {} << QStringLiteral("--frobnicate");
        QTest::addRow("bad number") << QStringList { QStringLiteral("--steps"), QStringLiteral("many") }
                                    << QStringList {} << QStringLiteral("--steps");
        QTest::addRow("sequence longer than the model allows")
            << QStringList { QStringLiteral("--seq"), QStringLiteral("100000") } << QStringList {}
            << QStringLiteral("seq_len");
        QTest::addRow("missing RANK") << QStringList {} << QStringList { QStringLiteral("RANK=") }
                                      << QStringLiteral("RANK");
        QTest::addRow("missing MASTER_PORT")
            << QStringList {} << QStringList { QStringLiteral("MASTER_PORT=") } << QStringLiteral("MASTER_PORT");
        QTest::addRow("local world not dividing world")
            << QStringList {} << QStringList { QStringLiteral("WORLD_SIZE=3"), QStringLiteral("LOCAL_WORLD_SIZE=2") }
            << QStringLiteral("LOCAL_WORLD_SIZE");
        QTest::addRow("rank outside world")
            << QStringList {} << QStringList { QStringLiteral("RANK=5") } << QStringLiteral("RANK");
        QTest::addRow("cuda without a GPU build") << QStringList { QStringLiteral("--device"), QStringLiteral("cuda") }
                                                  << QStringList {} << QStringLiteral("cuda");
        QTest::addRow("kernel profile without a GPU build")
            << QStringList { QStringLiteral("--profile-kernels"), QStringLiteral("1") } << QStringList {}
            << QStringLiteral("--profile-kernels");
        QTest::addRow("cuda graphs on the cpu")
            << QStringList { QStringLiteral("--cuda-graphs") } << QStringList {} << QStringLiteral("cuda_graphs");
        QTest::addRow("cuda graphs of an offload strategy")
            << QStringList { QStringLiteral("--cuda-graphs"), QStringLiteral("--device"), QStringLiteral("cuda"),
                             QStringLiteral("--strategy"), QStringLiteral("zero3_offload") }
            << QStringList {} << QStringLiteral("zero3_offload");
        QTest::addRow("mixture-of-experts config.json")
            << QStringList { QStringLiteral("--model"),
                             QStringLiteral(SHARDWISE_TEST_DATA_DIR "/model_configs/mixtral-8x7b/config.json") }
            << QStringList {}
            << QStringLiteral(
                   "config.json.model_type: 'mixtral' is a mixture-of-experts model (num_local_experts = 8)");
        QTest::addRow("sliding-window config.json")
            << QStringList { QStringLiteral("--model"),
                             QStringLiteral(SHARDWISE_TEST_DATA_DIR "/model_configs/mistral-7b-v0.1/config.json") }
            << QStringList {} << QStringLiteral("config.json.sliding_window");
        QTest::addRow("checkpoints without a folder")
            << QStringList { QStringLiteral("--checkpoint-every"), QStringLiteral("3") } << QStringList {}
            << QStringLiteral("--checkpoint-dir");
    }

    void badConfigIsAConfigError()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, envOverrides);
        QFETCH(QString, mentions);
#ifdef SHARDWISE_TEST_HAVE_CUDA
        if (args.contains(QStringLiteral("cuda")))
            QSKIP("GPU build: this runner has CUDA, so it has no --device cuda refusal to show");
#endif
        auto env = rankEnvironment(0, 1, freeTcpPort());
        env.remove(QStringLiteral("SHARDWISE_LAUNCHER"));
        for (const auto& o : envOverrides) {
            const auto name = o.section(QLatin1Char('='), 0, 0);
            const auto value = o.section(QLatin1Char('='), 1);
            if (value.isEmpty())
                env.remove(name);
            else
                env.insert(name, value);
        }
        const auto outcome = runOnce(args
                                         + QStringList { QStringLiteral("--steps"), QStringLiteral("1"),
                                                         QStringLiteral("--warmup"), QStringLiteral("0") },
                                     env);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.events.size(), std::size_t { 1 });
        const auto errors = eventsOf<ErrorEvent>(outcome);
        QCOMPARE(errors.size(), std::size_t { 1 });
        QCOMPARE(errors[0].kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors[0].message).contains(mentions), errors[0].message.c_str());
    }

    // A config.json with Llama 3 rope scaling runs, its start event carries the scaling, and the
    // scaled rotary tables change the loss against the same model without it.
    void ropeScaledConfigRuns()
    {
        const QString scaled = QStringLiteral(SHARDWISE_TEST_DATA_DIR "/model_configs/tiny-llama3-rope/config.json");
        QTemporaryDir dir;
        const QString plain = dir.filePath(QStringLiteral("config.json"));
        {
            QFile in(scaled);
            QVERIFY(in.open(QIODevice::ReadOnly));
            auto j = nlohmann::json::parse(in.readAll().toStdString());
            j.erase("rope_scaling");
            QFile out(plain);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(j.dump()));
        }
        std::vector<double> firstLoss;
        for (const QString& model : { scaled, plain }) {
            auto env = rankEnvironment(0, 1, freeTcpPort());
            const auto outcome
                = runOnce({ QStringLiteral("--model"), model, QStringLiteral("--seq"), QStringLiteral("32"),
                            QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--warmup"),
                            QStringLiteral("0"), QStringLiteral("--seed"), QStringLiteral("7") },
                          env);
            QCOMPARE(outcome.exitCode, 0);
            const auto starts = eventsOf<StartEvent>(outcome);
            QCOMPARE(starts.size(), std::size_t { 1 });
            QCOMPARE(starts[0].config.model.ropeScaling.kind,
                     model == scaled ? RopeScalingKind::Llama3 : RopeScalingKind::None);
            const auto summaries = eventsOf<SummaryEvent>(outcome);
            QCOMPARE(summaries.size(), std::size_t { 1 });
            QVERIFY(!summaries[0].losses.empty());
            firstLoss.push_back(summaries[0].losses.front());
        }
        QVERIFY2(firstLoss[0] != firstLoss[1], qPrintable(QString::number(firstLoss[0], 'g', 17)));
    }

    // A --config file that gives a key twice is refused naming the key (a JSON parser alone keeps the
    // last value silently).
    void duplicateKeyInConfigIsAConfigError()
    {
        RunConfig c;
        c.model = resolveModel("tiny", "model");
        c.training.seqLen = 16;
        const std::string text = toJson(c).dump();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString("{\"seed\": 5, " + text.substr(1)));
        }
        const auto outcome = runOnce({ QStringLiteral("--config"), path }, rankEnvironment(0, 1, freeTcpPort()));
        QCOMPARE(outcome.exitCode, 2);
        const auto errors = eventsOf<ErrorEvent>(outcome);
        QCOMPARE(errors.size(), std::size_t { 1 });
        QCOMPARE(errors[0].kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors[0].message).startsWith(QStringLiteral("seed: duplicate key")),
                 errors[0].message.c_str());
    }

    void startEventRecordsLauncherAndConfig()
    {
        auto env = rankEnvironment(0, 1, freeTcpPort());
        env.insert(QStringLiteral("TORCHELASTIC_RUN_ID"), QStringLiteral("test"));
        env.remove(QStringLiteral("SHARDWISE_LAUNCHER"));
        const auto outcome = runOnce({ QStringLiteral("--seq"), QStringLiteral("16"), QStringLiteral("--steps"),
                                       QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1"),
                                       QStringLiteral("--strategy"), QStringLiteral("fsdp2_reshard") },
                                     env);
        QCOMPARE(outcome.exitCode, 0);
        const auto starts = eventsOf<StartEvent>(outcome);
        QCOMPARE(starts.size(), std::size_t { 1 });
        QCOMPARE(starts[0].launcher, std::string("torchrun"));
        QCOMPARE(starts[0].config.strategy, Strategy::Fsdp2Reshard);
        QCOMPARE(starts[0].config.training.seqLen, 16);
        QCOMPARE(starts[0].deviceName, std::string("cpu"));
        QVERIFY(!starts[0].versions.libtorch.empty());
        // The planner predicts this runner's offload buffers from these (EstimateInput's flags).
        QCOMPARE(starts[0].versions.activations, std::string(kNormInputsRecomputed));
        QCOMPARE(starts[0].versions.offloadStaging, std::string(kOffloadStagingInPlaceHostStepOverlapped));
        const auto steps = eventsOf<StepEvent>(outcome);
        QCOMPARE(steps.size(), std::size_t { 3 });
        QVERIFY(!steps[0].timed && steps[1].timed && steps[2].timed);
        QCOMPARE(steps[1].tokens, std::int64_t { 16 });
        QVERIFY(steps[1].stepTimeS > 0 && steps[1].memory.hostPeakRss > 0);
        const auto summaries = eventsOf<SummaryEvent>(outcome);
        QCOMPARE(summaries.size(), std::size_t { 1 });
        QCOMPARE(summaries[0].timedSteps, 2);
        QVERIFY(summaries[0].tokensPerS > 0);
        QCOMPARE(summaries[0].losses.size(), std::size_t { 3 });
    }

    void probeMeasuresHostAndCollectives_data()
    {
        QTest::addColumn<int>("world");
        QTest::newRow("one rank: no collectives") << 1;
        QTest::newRow("two ranks") << 2;
    }
    void probeMeasuresHostAndCollectives()
    {
        QFETCH(int, world);
        const auto ranks = runRanks(
            world, { QStringLiteral("--probe"), QStringLiteral("--probe-max-bytes"), QStringLiteral("1e6") });
        QCOMPARE(ranks.size(), std::size_t(world));
        for (const auto& r : ranks) {
            QVERIFY2(r.exitCode == 0, qPrintable(r.log));
            const auto probes = eventsOf<ProbeEvent>(r);
            QCOMPARE(probes.size(), std::size_t { 1 });
            QVERIFY(eventsOf<StepEvent>(r).empty());
            QCOMPARE(probes[0].world, world);
            QCOMPARE(probes[0].deviceName, std::string("cpu"));
            std::map<std::string, int> kinds;
            for (const auto& result : probes[0].results) {
                QVERIFY2(result.value > 0 && std::isfinite(result.value), result.kind.c_str());
                QCOMPARE(result.samples, 10);
                ++kinds[result.kind];
            }
            QCOMPARE(kinds["matmul_fp32"], 1);
            QCOMPARE(kinds["device_copy"], 1);
            QCOMPARE(kinds["cpu_adamw"], 1);
            QCOMPARE(kinds["layer_issue"], 1);
            QCOMPARE(kinds.count("h2d_pinned"), std::size_t { 0 }); // no GPU, nothing to copy to
            // 1 MiB is above the 1e6-byte budget, so only the largest size is measured.
            for (const char* collective : { "all_gather", "reduce_scatter", "all_reduce" })
                QCOMPARE(kinds[collective], world > 1 ? 1 : 0);
        }
    }

    void helpDocumentsEveryFlag()
    {
        const auto outcome = runOnce({ QStringLiteral("--help") }, QProcessEnvironment::systemEnvironment());
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.events.empty());
        for (const char* flag : { "--model",
                                  "--config",
                                  "--strategy",
                                  "--device",
                                  "--steps",
                                  "--warmup",
                                  "--seq",
                                  "--micro-batch",
                                  "--precision",
                                  "--seed",
                                  "--lr",
                                  "--tokens",
                                  "--dump-params",
                                  "--reduce-bucket",
                                  "--allgather-bucket",
                                  "--prefetch-bucket",
                                  "--persistence-threshold",
                                  "--timeout-s",
                                  "--probe",
                                  "--probe-max-bytes",
                                  "--profile-kernels",
                                  "--checkpoint-every",
                                  "--checkpoint-dir",
                                  "--resume",
                                  "--help" })
            QVERIFY2(outcome.out.contains(flag), flag);
        for (const auto& t : allStrategies())
            QVERIFY(outcome.out.contains(QByteArray(t.id.data(), static_cast<qsizetype>(t.id.size()))));
    }
};

QTEST_GUILESS_MAIN(TestRunner)
#include "test_runner.moc"
