// shardwise-runner's activation checkpointing and gradient accumulation, as real rank processes on CPU
// (Gloo, fp32, the "tiny" preset): recomputing activations changes no number, N accumulated
// micro-batches of B sequences train as one micro-batch of N x B, the step events count the optimizer
// step's tokens, and both options arrive through --config as the app writes it.
#include "param_dump.hpp"
#include "rank_launch.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/strategy.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

struct Outcome {
    std::vector<RankRun> ranks;
    std::vector<std::vector<float>> dumps;
};

const QStringList kBase { QStringLiteral("--model"), QStringLiteral("tiny"),     QStringLiteral("--seq"),
                          QStringLiteral("32"),      QStringLiteral("--warmup"), QStringLiteral("1"),
                          QStringLiteral("--steps"), QStringLiteral("2"),        QStringLiteral("--seed"),
                          QStringLiteral("7") };

QString id(Strategy s)
{
    const auto text = strategyId(s);
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::vector<double> lossesOf(const RankRun& r)
{
    const auto s = eventsOf<SummaryEvent>(r);
    return s.empty() ? std::vector<double> {} : s.back().losses;
}

QString lossMismatch(const std::vector<double>& got, const std::vector<double>& want, double rtol)
{
    if (got.size() != want.size() || got.empty())
        return QStringLiteral("%1 losses vs %2").arg(got.size()).arg(want.size());
    for (std::size_t s = 0; s < got.size(); ++s)
        if (!(std::abs(got[s] - want[s]) <= rtol * std::abs(want[s])))
            return QStringLiteral("step %1 loss %2 vs %3").arg(s).arg(got[s], 0, 'g', 9).arg(want[s], 0, 'g', 9);
    return {};
}

} // namespace

class TestRunnerTrainingOptions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dumps;
    std::map<QString, Outcome> m_cache;

    // Runs `world` ranks with kBase + `extra` (once per binary), asserting a clean exit on every rank;
    // `env` adds to the ranks' environment.
    const Outcome* run(int world, const QStringList& extra, const std::map<std::string, std::string>& env = {})
    {
        QString key = QString::number(world) + QLatin1Char(' ') + extra.join(QLatin1Char(' '));
        for (const auto& [name, value] : env)
            key += QStringLiteral(" %1=%2").arg(QString::fromStdString(name), QString::fromStdString(value));
        if (auto it = m_cache.find(key); it != m_cache.end())
            return &it->second;
        const QString dump = m_dumps.filePath(QStringLiteral("run%1").arg(m_cache.size()));
        Outcome o;
        o.ranks = runRanks(world, kBase + extra + QStringList { QStringLiteral("--dump-params"), dump }, 300000, env);
        for (int r = 0; r < world; ++r) {
            const auto& rr = o.ranks[static_cast<std::size_t>(r)];
            if (rr.exitCode != 0) {
                qWarning().noquote() << key << "rank" << r << "exit" << rr.exitCode << "log:\n" << rr.log;
                return nullptr;
            }
            o.dumps.push_back(readParamDump(dump + QStringLiteral(".rank%1").arg(r)).values);
        }
        return &m_cache.emplace(key, std::move(o)).first->second;
    }

    // Every rank of `got` against the same rank of `want`: parameters and every step's loss.
    static void expectSameTraining(const Outcome& got, const Outcome& want, double rtol, double atol)
    {
        QCOMPARE(got.ranks.size(), want.ranks.size());
        for (std::size_t r = 0; r < got.ranks.size(); ++r) {
            const auto params = firstMismatch(got.dumps[r], want.dumps[r], rtol, atol);
            QVERIFY2(params.isEmpty(), qPrintable(QStringLiteral("rank %1 parameters: %2").arg(r).arg(params)));
            const auto losses = lossMismatch(lossesOf(got.ranks[r]), lossesOf(want.ranks[r]), rtol);
            QVERIFY2(losses.isEmpty(), qPrintable(QStringLiteral("rank %1: %2").arg(r).arg(losses)));
        }
    }

    // zero0, zero3 and fsdp2_reshard (the schedules that keep, re-gather in backward, and prefetch one
    // unit behind) at one rank; every strategy at two.
    static void addStrategyRows(const char* column2, const QStringList& values)
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>(column2);
        for (const auto& t : allStrategies())
            for (int world : { 1, 2 }) {
                if (world == 1 && t.strategy != Strategy::Zero0 && t.strategy != Strategy::Zero3
                    && t.strategy != Strategy::Fsdp2Reshard)
                    continue;
                for (const auto& v : values)
                    QTest::addRow("w%d-%s-%s", world, std::string(t.id).c_str(), qPrintable(v))
                        << world << id(t.strategy) << v;
            }
    }

private slots:
    void checkpointedStepsEqualPlainSteps_data()
    {
        addStrategyRows("policy", { QStringLiteral("full"), QStringLiteral("selective") });
    }

    void checkpointedStepsEqualPlainSteps()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        QFETCH(QString, policy);
        const QStringList common { QStringLiteral("--strategy"),    strategy,
                                   QStringLiteral("--micro-batch"), QStringLiteral("2"),
                                   QStringLiteral("--lr"),          QStringLiteral("0.01") };
        const auto* plain = run(world, common);
        QVERIFY(plain);
        const auto* checkpointed
            = run(world, common + QStringList { QStringLiteral("--activation-checkpointing"), policy });
        QVERIFY(checkpointed);
        // Recomputation runs the forward's own ops on the same inputs: the fp32 bound.
        expectSameTraining(*checkpointed, *plain, 1e-5, 1e-7);
        // The runs trained: the loss moved over the three steps.
        const auto losses = lossesOf(checkpointed->ranks[0]);
        QVERIFY(losses.front() != losses.back());
        // The start event echoes the options the run used.
        const auto starts = eventsOf<StartEvent>(checkpointed->ranks[0]);
        QCOMPARE(starts.size(), std::size_t { 1 });
        QVERIFY(starts[0].config.training.activationCheckpointing);
        QCOMPARE(QString::fromUtf8(checkpointPolicyId(starts[0].config.training.checkpointPolicy).data()), policy);
    }

    // SHARDWISE_FUSED_NORM=1: the norms write their weights' gradients into the units' buffers and the
    // post-attention norm takes the residual add (fused_norm.hpp; on the CPU the kernels' maths as ATen
    // ops). Plain, checkpointed and accumulated steps, sharded and offloaded, train as the plain norm.
    void fusedNormStepsEqualPlainSteps_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QStringList>("options");
        const QStringList none;
        const QStringList full { QStringLiteral("--activation-checkpointing"), QStringLiteral("full") };
        const QStringList selective { QStringLiteral("--activation-checkpointing"), QStringLiteral("selective") };
        const QStringList accumulation { QStringLiteral("--grad-accumulation"), QStringLiteral("2") };
        QTest::addRow("w1-zero0") << 1 << QStringLiteral("zero0") << none;
        QTest::addRow("w1-zero0-full") << 1 << QStringLiteral("zero0") << full;
        QTest::addRow("w1-zero3-selective") << 1 << QStringLiteral("zero3") << selective;
        QTest::addRow("w1-zero0-accumulation") << 1 << QStringLiteral("zero0") << accumulation;
        QTest::addRow("w2-zero1") << 2 << QStringLiteral("zero1") << none;
        QTest::addRow("w2-zero2_offload") << 2 << QStringLiteral("zero2_offload") << none;
        QTest::addRow("w2-zero3-full") << 2 << QStringLiteral("zero3") << full;
        QTest::addRow("w2-fsdp2_reshard-accumulation") << 2 << QStringLiteral("fsdp2_reshard") << accumulation;
    }

    void fusedNormStepsEqualPlainSteps()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        QFETCH(QStringList, options);
        const QStringList common = QStringList { QStringLiteral("--strategy"),    strategy,
                                                 QStringLiteral("--micro-batch"), QStringLiteral("2"),
                                                 QStringLiteral("--lr"),          QStringLiteral("0.01") }
            + options;
        const auto* plain = run(world, common);
        QVERIFY(plain);
        const auto* fused = run(world, common, { { "SHARDWISE_FUSED_NORM", "1" } });
        QVERIFY(fused);
        QVERIFY2(fused->ranks[0].log.contains(QStringLiteral("the fused norm")), qPrintable(fused->ranks[0].log));
        QVERIFY(!plain->ranks[0].log.contains(QStringLiteral("the fused norm")));
        // The same maths in another order of fp32 operations: the losses agree to fp32 rounding. AdamW
        // turns a gradient near its eps into a step of up to lr either way, so the parameters are held
        // to 1 % of lr (0.01): a missing, misplaced or sign-flipped gradient moves them by about lr.
        // test_runner_math checks the gradients themselves.
        expectSameTraining(*fused, *plain, 1e-5, 1e-4);
        const auto losses = lossesOf(fused->ranks[0]);
        QVERIFY(losses.front() != losses.back());
    }

    void accumulatedStepsEqualOneLargerMicroBatch_data() { addStrategyRows("accumulation", { QStringLiteral("2") }); }

    void accumulatedStepsEqualOneLargerMicroBatch()
    {
        QFETCH(int, world);
        QFETCH(QString, strategy);
        QFETCH(QString, accumulation);
        // AdamW divides each gradient element by its own magnitude, so an element whose gradient is
        // nearly zero (a sum that cancels; k_proj's bias, whose exact gradient is zero because softmax
        // ignores a per-row shift) turns fp32 rounding into a full step of either sign. Summing two
        // micro-batches' gradients rounds differently from one GEMM over both, so at lr 0.01 such
        // elements differ by ~5e-6 after three steps. A smaller rate bounds that amplification (it
        // scales with lr) while the weights still move (checked below).
        const QStringList common { QStringLiteral("--strategy"), strategy, QStringLiteral("--lr"),
                                   QStringLiteral("1e-4") };
        const auto* accumulated = run(world,
                                      common
                                          + QStringList { QStringLiteral("--micro-batch"), QStringLiteral("1"),
                                                          QStringLiteral("--grad-accumulation"), accumulation });
        QVERIFY(accumulated);
        const auto* larger = run(world, common + QStringList { QStringLiteral("--micro-batch"), accumulation });
        QVERIFY(larger);
        expectSameTraining(*accumulated, *larger, 1e-5, 1e-7);

        // Against one micro-batch of one sequence (half the tokens) the same comparison fails: it
        // compares something.
        const auto* half = run(world, common + QStringList { QStringLiteral("--micro-batch"), QStringLiteral("1") });
        QVERIFY(half);
        QVERIFY(!lossMismatch(lossesOf(half->ranks[0]), lossesOf(accumulated->ranks[0]), 1e-5).isEmpty());
        // ... and the weights moved from their initialisation.
        const auto* untrained
            = run(world,
                  QStringList { QStringLiteral("--strategy"), strategy, QStringLiteral("--lr"), QStringLiteral("1e-30"),
                                QStringLiteral("--micro-batch"), QStringLiteral("2") });
        QVERIFY(untrained);
        QVERIFY(!firstMismatch(accumulated->dumps[0], untrained->dumps[0], 1e-3, 0).isEmpty());

        // Step events count the optimizer step's tokens on this rank: N micro-batches x 1 x 32; the
        // summary's rate counts every rank's.
        const std::int64_t tokens = accumulation.toInt() * 32;
        for (const auto& rank : accumulated->ranks) {
            const auto steps = eventsOf<StepEvent>(rank);
            QCOMPARE(steps.size(), std::size_t { 3 });
            for (const auto& s : steps)
                QCOMPARE(s.tokens, tokens);
            const auto summary = eventsOf<SummaryEvent>(rank);
            QCOMPARE(summary.size(), std::size_t { 1 });
            QVERIFY(summary[0].medianStepS > 0);
            QVERIFY(std::abs(summary[0].tokensPerS - static_cast<double>(tokens) * world / summary[0].medianStepS)
                    <= 1e-9 * summary[0].tokensPerS);
        }
    }

    void accumulationWithCheckpointingEqualsPlainAccumulation()
    {
        // The two options together: checkpointed micro-steps of a sharded schedule change nothing.
        const QStringList common { QStringLiteral("--strategy"),
                                   QStringLiteral("zero3"),
                                   QStringLiteral("--micro-batch"),
                                   QStringLiteral("1"),
                                   QStringLiteral("--grad-accumulation"),
                                   QStringLiteral("3"),
                                   QStringLiteral("--lr"),
                                   QStringLiteral("0.01") };
        const auto* plain = run(2, common);
        QVERIFY(plain);
        for (const char* policy : { "full", "selective" }) {
            const auto* checkpointed = run(
                2, common + QStringList { QStringLiteral("--activation-checkpointing"), QString::fromLatin1(policy) });
            QVERIFY(checkpointed);
            expectSameTraining(*checkpointed, *plain, 1e-5, 1e-7);
        }
    }

    void configFileCarriesBothOptions()
    {
        // What the app writes: a whole RunConfig with grad_accumulation and a checkpointing policy.
        QTemporaryDir dir;
        RunConfig c;
        c.model = resolveModel("tiny", "model");
        c.strategy = Strategy::Fsdp2Reshard;
        c.device = DeviceKind::Cpu;
        c.training.seqLen = 16;
        c.training.microBatch = 1;
        c.training.gradAccumulation = 2;
        c.training.activationCheckpointing = true;
        c.training.checkpointPolicy = CheckpointPolicy::Selective;
        c.warmupSteps = 0;
        c.timedSteps = 2;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        std::ofstream(path.toStdString()) << toJson(c).dump();
        const auto ranks = runRanks(2, { QStringLiteral("--config"), path });
        for (const auto& r : ranks) {
            QVERIFY2(r.exitCode == 0, qPrintable(r.log));
            const auto starts = eventsOf<StartEvent>(r);
            QCOMPARE(starts.size(), std::size_t { 1 });
            QCOMPARE(starts[0].config.training.gradAccumulation, 2);
            QVERIFY(starts[0].config.training.activationCheckpointing);
            QVERIFY(starts[0].config.training.checkpointPolicy == CheckpointPolicy::Selective);
            const auto steps = eventsOf<StepEvent>(r);
            QCOMPARE(steps.size(), std::size_t { 2 });
            QCOMPARE(steps[0].tokens, std::int64_t { 32 });
        }
    }

    void badValuesAreConfigErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("policy") << QStringList {
            QStringLiteral("--activation-checkpointing"), QStringLiteral("sometimes")
        } << QStringLiteral("--activation-checkpointing: 'sometimes' is not one of none, full, selective");
        QTest::newRow("zero micro-batches")
            << QStringList { QStringLiteral("--grad-accumulation"), QStringLiteral("0") }
            << QStringLiteral("--grad-accumulation must be >= 1, got 0");
        QTest::newRow("not a number") << QStringList { QStringLiteral("--grad-accumulation"), QStringLiteral("two") }
                                      << QStringLiteral("--grad-accumulation: 'two' is not a valid number");
    }

    void badValuesAreConfigErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runOnce(args, rankEnvironment(0, 1, freeTcpPort()));
        QCOMPARE(r.exitCode, 2);
        const auto errors = eventsOf<ErrorEvent>(r);
        QCOMPARE(errors.size(), std::size_t { 1 });
        QCOMPARE(errors[0].kind, ErrorKind::Config);
        QVERIFY2(QString::fromStdString(errors[0].message).contains(message), errors[0].message.c_str());
    }

    void helpDocumentsBothOptions()
    {
        const auto r = runOnce({ QStringLiteral("--help") }, QProcessEnvironment::systemEnvironment());
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("--grad-accumulation N"));
        QVERIFY(r.out.contains("--activation-checkpointing none|full|selective"));
    }
};

QTEST_GUILESS_MAIN(TestRunnerTrainingOptions)
#include "test_runner_training_options.moc"
