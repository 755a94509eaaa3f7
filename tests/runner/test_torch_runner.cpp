// shardwise-torch-runner (runner/torch), as real rank processes on CPU (Gloo, fp32; CI's torch is
// Debian's 1.13): it takes the native runner's run description (a core/spec RunConfig file is echoed
// back in start), its stdout parses with core/protocol in the native runner's order, DDP trains and
// keeps its replicas equal, a dead peer is a comm error, what PyTorch does not express is a config
// error, and from the native runner's initial weights (--dump-initial-params -> --init-params) both
// backends compute the same losses.
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <arpa/inet.h>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <netinet/in.h>
#include <optional>
#include <sys/socket.h>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::protocol;

namespace {

constexpr const char* kHarness = SHARDWISE_TORCH_RUNNER_PATH;
constexpr const char* kNative = SHARDWISE_RUNNER_PATH;

struct ParamDump {
    QByteArray header;
    std::vector<float> values;
};

ParamDump readDump(const QString& path)
{
    ParamDump d;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return d;
    d.header = f.readLine();
    const auto raw = f.readAll();
    d.values.resize(static_cast<std::size_t>(raw.size()) / sizeof(float));
    std::memcpy(d.values.data(), raw.constData(), d.values.size() * sizeof(float));
    return d;
}

dispatch::LaunchResult launch(const char* program, int world, const QStringList& args)
{
    dispatch::LocalLaunch l;
    l.runner = program;
    for (const auto& a : args)
        l.args.push_back(a.toStdString());
    l.ranks = world;
    // Two cores in CI: one intra-op thread per rank.
    l.env = { { "OMP_NUM_THREADS", "1" } };
    l.timeout = std::chrono::seconds(300);
    // Logs in a folder removed on return (describe() reads their tails from the result).
    QTemporaryDir logs;
    l.logDir = logs.path().toStdString();
    return dispatch::launchLocal(l);
}

template <typename E> std::vector<E> eventsOf(const dispatch::RankOutcome& r)
{
    std::vector<E> out;
    for (const auto& e : r.events)
        if (const auto* p = std::get_if<E>(&e))
            out.push_back(*p);
    return out;
}

// Token ids where each one determines the next (an affine map of full period 256). `count` = seq + 2
// leaves one window, so every step trains on the same batch.
QString writeLearnableTokens(const QString& path, std::size_t count)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    std::vector<std::int32_t> ids(count);
    std::int32_t t = 11;
    for (auto& id : ids) {
        id = t;
        t = (5 * t + 3) % 256;
    }
    f.write(reinterpret_cast<const char*>(ids.data()), static_cast<qint64>(ids.size() * sizeof(std::int32_t)));
    return path;
}

QStringList smallRun(const QString& tokens, int steps)
{
    return { QStringLiteral("--model"),       QStringLiteral("tiny"), QStringLiteral("--seq"),    QStringLiteral("32"),
             QStringLiteral("--micro-batch"), QStringLiteral("2"),    QStringLiteral("--warmup"), QStringLiteral("1"),
             QStringLiteral("--steps"),       QString::number(steps), QStringLiteral("--seed"),   QStringLiteral("7"),
             QStringLiteral("--lr"),          QStringLiteral("0.01"), QStringLiteral("--tokens"), tokens };
}

QString describe(const dispatch::RankOutcome& r)
{
    return QStringLiteral("rank %1 exit %2, log:\n%3")
        .arg(r.rank)
        .arg(r.exitCode)
        .arg(QString::fromStdString(r.logTail));
}

// The one error event of a run refused before it started, checked for kind, exit code and silence.
ErrorEvent refusal(const dispatch::LaunchResult& result)
{
    const auto& r = result.ranks.at(0);
    const auto errors = eventsOf<ErrorEvent>(r);
    if (r.exitCode != 2 || errors.size() != 1 || r.events.size() != 1 || errors[0].kind != ErrorKind::Config)
        qWarning().noquote() << describe(r);
    return errors.empty() ? ErrorEvent {} : errors[0];
}

} // namespace

class TestTorchRunner : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_tokens;   // 4096 tokens: a different batch every step
    QString m_oneBatch; // one window of 32 + 1 tokens: the same batch every step

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_tokens = writeLearnableTokens(m_dir.filePath(QStringLiteral("tokens.i32")), 4096);
        m_oneBatch = writeLearnableTokens(m_dir.filePath(QStringLiteral("one-batch.i32")), 34);
        QVERIFY(!m_tokens.isEmpty() && !m_oneBatch.isEmpty());
    }

    void versionNamesTheHarnessAndItsTorch()
    {
        QProcess p;
        p.start(QString::fromUtf8(kHarness), { QStringLiteral("--version") });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const auto out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.startsWith(QStringLiteral("shardwise-torch " SHARDWISE_VERSION " ")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("torch not importable")),
                 "python3 cannot import torch: install python3-torch (packaging/bootstrap.sh does)");
    }

    void helpListsTheRunDescription()
    {
        QProcess p;
        p.start(QString::fromUtf8(kHarness), { QStringLiteral("--help") });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const auto out = QString::fromUtf8(p.readAllStandardOutput());
        for (const char* flag : { "--config", "--model", "--strategy", "--device", "--precision", "--steps", "--warmup",
                                  "--seq", "--micro-batch", "--seed", "--lr", "--tokens", "--timeout-s",
                                  "--dump-params", "--init-params", "--compile", "--version" })
            QVERIFY2(out.contains(QLatin1String(flag)), flag);
    }

    // A RunConfig as core/spec writes it (what the app hands a rank): the start event echoes it, with
    // the backend that ran it.
    void configFileIsEchoedInStart()
    {
        RunConfig c;
        c.model = resolveModel("tiny", "model");
        c.strategy = Strategy::Zero0;
        c.backend = RunBackend::Torch;
        c.training.seqLen = 16;
        c.training.microBatch = 1;
        c.warmupSteps = 0;
        c.timedSteps = 2;
        c.seed = 99;
        c.learningRate = 0.002;
        const QString path = m_dir.filePath(QStringLiteral("config.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(toJson(c).dump()));
        }
        const auto result = launch(kHarness, 1, { QStringLiteral("--config"), path });
        const auto& r = result.ranks.at(0);
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto start = std::get<StartEvent>(r.events.front());
        c.worldSize = 1;
        QCOMPARE(QString::fromStdString(toJson(start.config).dump()), QString::fromStdString(toJson(c).dump()));
        QCOMPARE(eventsOf<StepEvent>(r).size(), std::size_t { 2 });
    }

    // A peer that dies mid-run is a comm error (exit 4) on the rank left behind, named in an event.
    void deadPeerIsACommError()
    {
        const int port = dispatch::findFreePort();
        std::array<std::unique_ptr<QProcess>, 2> ranks;
        for (int rank = 0; rank < 2; ++rank) {
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("RANK"), QString::number(rank));
            env.insert(QStringLiteral("WORLD_SIZE"), QStringLiteral("2"));
            env.insert(QStringLiteral("LOCAL_RANK"), QString::number(rank));
            env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("127.0.0.1"));
            env.insert(QStringLiteral("MASTER_PORT"), QString::number(port));
            env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
            auto& p = ranks[static_cast<std::size_t>(rank)];
            p = std::make_unique<QProcess>();
            p->setProcessEnvironment(env);
            p->setStandardErrorFile(m_dir.filePath(QStringLiteral("dead-peer-rank%1.log").arg(rank)));
            // Rank 1's events are not read: a file, so a full pipe never stalls it (and rank 0 with it).
            if (rank == 1)
                p->setStandardOutputFile(m_dir.filePath(QStringLiteral("dead-peer-rank1.jsonl")));
            p->start(QString::fromUtf8(kHarness),
                     { QStringLiteral("--seq"), QStringLiteral("32"), QStringLiteral("--warmup"), QStringLiteral("0"),
                       QStringLiteral("--steps"), QStringLiteral("100000"), QStringLiteral("--timeout-s"),
                       QStringLiteral("30") });
        }
        // Rank 1 dies once both train (rank 0's stdout holds step events).
        QElapsedTimer waited;
        waited.start();
        QByteArray out;
        while (!out.contains("\"event\":\"step\"") && waited.elapsed() < 120000) {
            QVERIFY(ranks[0]->waitForReadyRead(1000) || ranks[0]->state() == QProcess::Running);
            out += ranks[0]->readAllStandardOutput();
        }
        QVERIFY2(out.contains("\"event\":\"step\""), "rank 0 never started stepping");
        ranks[1]->kill();
        ranks[1]->waitForFinished();
        QVERIFY(ranks[0]->waitForFinished(120000));
        out += ranks[0]->readAllStandardOutput();
        QCOMPARE(ranks[0]->exitCode(), 4);
        const auto lines = out.trimmed().split('\n');
        const auto last
            = parseEvent(std::string_view(lines.back().constData(), static_cast<std::size_t>(lines.back().size())));
        const auto* error = std::get_if<ErrorEvent>(&last);
        QVERIFY2(error && error->kind == ErrorKind::Comm, lines.back().constData());
        QVERIFY(error->step.has_value());
    }

    // Ranks started by Shardwise's launcher on one machine meet through the FileStore in the run folder,
    // never a TCP store: with their MASTER_PORT held by another listener on every interface (no TCP
    // store could bind it), two ranks still train, and the store's file is gone afterwards.
    void localRanksMeetWithoutATcpStore()
    {
        const int held = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(held >= 0);
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        socklen_t len = sizeof addr;
        QVERIFY(::bind(held, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
        QVERIFY(::listen(held, 16) == 0);
        QVERIFY(::getsockname(held, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        QTemporaryDir runFolder;
        dispatch::LocalLaunch l;
        l.runner = kHarness;
        const QStringList args = smallRun(m_tokens, 1) << QStringLiteral("--timeout-s") << QStringLiteral("30");
        for (const auto& a : args)
            l.args.push_back(a.toStdString());
        l.ranks = 2;
        l.env = { { "OMP_NUM_THREADS", "1" } };
        l.masterPort = ntohs(addr.sin_port);
        l.logDir = runFolder.path().toStdString();
        l.peerGrace = std::chrono::seconds(5);
        l.timeout = std::chrono::seconds(120);
        const auto result = dispatch::launchLocal(l);
        ::close(held);
        QCOMPARE(result.masterPort, l.masterPort);
        for (const auto& r : result.ranks) {
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            QCOMPARE(eventsOf<SummaryEvent>(r).size(), std::size_t { 1 });
        }
        QVERIFY(!QFileInfo::exists(runFolder.filePath(QString::fromUtf8(dispatch::kRendezvousFileName))));
    }

    void zero0TrainsAtWorldOne()
    {
        // One learnable batch again and again at a fixed learning rate: every step must lower the loss
        // (different batches would each start from their own loss and hide the trend).
        const auto result = launch(kHarness, 1,
                                   smallRun(m_oneBatch, 5) << QStringLiteral("--strategy") << QStringLiteral("zero0")
                                                           << QStringLiteral("--lr") << QStringLiteral("0.001"));
        const auto& r = result.ranks.at(0);
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.protocolErrors.empty(), r.protocolErrors.empty() ? "" : r.protocolErrors[0].c_str());
        QCOMPARE(r.foreignLines, std::size_t { 0 }); // nothing but events on stdout

        // start, one step per step (warm-up first), summary; nothing else.
        QCOMPARE(r.events.size(), std::size_t { 8 });
        QCOMPARE(eventName(r.events.front()), std::string_view("start"));
        QCOMPARE(eventName(r.events.back()), std::string_view("summary"));
        const auto start = std::get<StartEvent>(r.events.front());
        QCOMPARE(start.world, 1);
        QCOMPARE(start.deviceName, std::string("cpu"));
        QVERIFY(start.config.backend == RunBackend::Torch);
        QVERIFY(start.config.strategy == Strategy::Zero0);
        QCOMPARE(start.config.model.id, std::string("tiny"));
        QVERIFY2(start.versions.runner.rfind("shardwise-torch ", 0) == 0, start.versions.runner.c_str());
        QVERIFY(!start.versions.libtorch.empty());

        const auto steps = eventsOf<StepEvent>(r);
        QCOMPARE(steps.size(), std::size_t { 6 });
        std::vector<double> losses;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps[i].step, static_cast<int>(i));
            QCOMPARE(steps[i].timed, i >= 1);
            QCOMPARE(steps[i].tokens, std::int64_t { 64 });
            QVERIFY(steps[i].stepTimeS > 0);
            QVERIFY(steps[i].memory.hostPeakRss > 0);
            QCOMPARE(steps[i].memory.deviceTotal, std::int64_t { -1 });
            QVERIFY2(std::isfinite(steps[i].loss), qPrintable(QString::number(steps[i].loss)));
            losses.push_back(steps[i].loss);
        }
        for (std::size_t i = 1; i < losses.size(); ++i)
            QVERIFY2(losses[i] < losses[i - 1],
                     qPrintable(QStringLiteral("step %1: %2 after %3").arg(i).arg(losses[i]).arg(losses[i - 1])));

        const auto s = std::get<SummaryEvent>(r.events.back());
        QCOMPARE(s.losses, losses);
        QCOMPARE(s.timedSteps, 5);
        QCOMPARE(s.warmupSteps, 1);
        QVERIFY(s.medianStepS > 0 && s.p10StepS <= s.medianStepS && s.medianStepS <= s.p90StepS);
        QVERIFY(std::abs(s.tokensPerS - 64.0 / s.medianStepS) < 1e-6 * s.tokensPerS);
        QCOMPARE(s.ncclShare, 0.0);
        QVERIFY(!s.phasePeakAllocated); // GPU runs only
        // fp32 parameters, gradients and two AdamW moments of the tiny preset, all on the (CPU) device.
        const std::int64_t paramBytes = std::int64_t { 119360 } * 4;
        QCOMPARE(s.state.deviceParams, paramBytes);
        QCOMPARE(s.state.deviceGrads, paramBytes);
        QCOMPARE(s.state.deviceOptimizer, 2 * paramBytes);
        QCOMPARE(s.state.hostParams + s.state.hostGrads + s.state.hostOptimizer, std::int64_t { 0 });
    }

    void zero0ReplicasAgreeAtWorldTwo()
    {
        const QString dump = m_dir.filePath(QStringLiteral("w2"));
        const auto result = launch(kHarness, 2,
                                   smallRun(m_tokens, 2) << QStringLiteral("--strategy") << QStringLiteral("zero0")
                                                         << QStringLiteral("--dump-params") << dump);
        QVERIFY(result.ranks.size() == 2);
        std::array<ParamDump, 2> dumps;
        for (const auto& r : result.ranks) {
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            QVERIFY(r.protocolErrors.empty());
            QCOMPARE(eventName(r.events.front()), std::string_view("start"));
            QCOMPARE(std::get<StartEvent>(r.events.front()).world, 2);
            const auto summaries = eventsOf<SummaryEvent>(r);
            QCOMPARE(summaries.size(), std::size_t { 1 });
            QCOMPARE(summaries[0].world, 2);
            QCOMPARE(summaries[0].losses.size(), std::size_t { 3 });
            QVERIFY(r.rank == 0 || r.rank == 1);
            dumps[static_cast<std::size_t>(r.rank)] = readDump(dump + QStringLiteral(".rank%1").arg(r.rank));
        }
        for (const auto& d : dumps) {
            QVERIFY(d.header.contains("\"format\":\"shardwise-params\""));
            QVERIFY(d.header.contains("\"world\":2"));
            QVERIFY(d.header.contains("\"step\":3"));
            QVERIFY(d.header.contains("\"numel\":119360"));
            QCOMPARE(d.values.size(), std::size_t { 119360 });
        }
        // The ranks saw different tokens but averaged their gradients: one set of weights.
        QVERIFY(dumps[0].values == dumps[1].values);
    }

    void deepSpeedStagesAreConfigErrors_data()
    {
        QTest::addColumn<QString>("strategy");
        for (const char* s : { "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload" })
            QTest::newRow(s) << QString::fromLatin1(s);
    }

    void deepSpeedStagesAreConfigErrors()
    {
        QFETCH(QString, strategy);
        const auto result = launch(kHarness, 1, smallRun(m_tokens, 1) << QStringLiteral("--strategy") << strategy);
        QCOMPARE(result.ranks.at(0).exitCode, 2);
        const auto e = refusal(result);
        QVERIFY(e.kind == ErrorKind::Config);
        const auto message = QString::fromStdString(e.message);
        QVERIFY2(message.contains(strategy) && message.contains(QStringLiteral("zero0 (DDP)"))
                     && message.contains(QStringLiteral("fsdp2_reshard_offload")),
                 qPrintable(message));
    }

    void flagsItDoesNotKnowAreConfigErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("unknown") << QStringList { QStringLiteral("--bogus"), QStringLiteral("1") }
                                 << QStringLiteral("--bogus");
        QTest::newRow("native only") << QStringList { QStringLiteral("--cuda-graphs") }
                                     << QStringLiteral("--cuda-graphs");
        QTest::newRow("bad number") << QStringList { QStringLiteral("--steps"), QStringLiteral("x") }
                                    << QStringLiteral("--steps");
    }

    void flagsItDoesNotKnowAreConfigErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        const auto result = launch(kHarness, 1, args);
        QCOMPARE(result.ranks.at(0).exitCode, 2);
        const auto message = QString::fromStdString(refusal(result).message);
        QVERIFY2(message.contains(named), qPrintable(message));
    }

    void fsdp2NeedsFullyShard()
    {
        const auto result = launch(
            kHarness, 1, smallRun(m_tokens, 1) << QStringLiteral("--strategy") << QStringLiteral("fsdp2_reshard"));
        const auto& r = result.ranks.at(0);
        if (r.exitCode == 0) {
            // A PyTorch with FSDP2 runs it.
            QCOMPARE(eventsOf<SummaryEvent>(r).size(), std::size_t { 1 });
            return;
        }
        // Debian's torch 1.13 has no fully_shard: a config error saying so, before any rendezvous.
        QCOMPARE(r.exitCode, 2);
        const auto message = QString::fromStdString(refusal(result).message);
        QVERIFY2(message.contains(QStringLiteral("FSDP2")) && message.contains(QStringLiteral("lacks")),
                 qPrintable(message));
    }

private:
    // Two ranks of zero0 (DDP) with `extra` on synthetic tokens, as the native runner's tests use: each
    // rank's dump, losses and step events.
    struct TwoRanks {
        std::array<ParamDump, 2> dumps;
        std::array<std::vector<double>, 2> losses;
        std::array<std::vector<StepEvent>, 2> steps;
    };
    std::optional<TwoRanks> ddpRun(const QString& name, const QStringList& extra)
    {
        const QString dump = m_dir.filePath(name);
        const auto result = launch(
            kHarness, 2,
            QStringList { QStringLiteral("--model"), QStringLiteral("tiny"), QStringLiteral("--seq"),
                          QStringLiteral("32"), QStringLiteral("--warmup"), QStringLiteral("1"),
                          QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--seed"), QStringLiteral("7"),
                          QStringLiteral("--strategy"), QStringLiteral("zero0"), QStringLiteral("--dump-params"), dump }
                + extra);
        TwoRanks out;
        for (const auto& r : result.ranks) {
            if (r.exitCode != 0 || r.rank < 0 || r.rank > 1) {
                qWarning().noquote() << describe(r);
                return std::nullopt;
            }
            const auto i = static_cast<std::size_t>(r.rank);
            out.dumps[i] = readDump(dump + QStringLiteral(".rank%1").arg(r.rank));
            out.losses[i] = eventsOf<SummaryEvent>(r).at(0).losses;
            out.steps[i] = eventsOf<StepEvent>(r);
        }
        return out;
    }

    static QString mismatch(const TwoRanks& got, const TwoRanks& want, double rtol, double atol)
    {
        for (std::size_t r = 0; r < 2; ++r) {
            if (got.dumps[r].values.size() != want.dumps[r].values.size() || got.dumps[r].values.empty())
                return QStringLiteral("rank %1: dump sizes differ").arg(r);
            for (std::size_t i = 0; i < got.dumps[r].values.size(); ++i) {
                const double a = got.dumps[r].values[i], b = want.dumps[r].values[i];
                if (!(std::abs(a - b) <= atol + rtol * std::abs(b)))
                    return QStringLiteral("rank %1 element %2: %3 vs %4")
                        .arg(r)
                        .arg(i)
                        .arg(a, 0, 'g', 9)
                        .arg(b, 0, 'g', 9);
            }
            if (got.losses[r].size() != want.losses[r].size())
                return QStringLiteral("rank %1: loss counts differ").arg(r);
            for (std::size_t s = 0; s < got.losses[r].size(); ++s)
                if (!(std::abs(got.losses[r][s] - want.losses[r][s]) <= rtol * std::abs(want.losses[r][s])))
                    return QStringLiteral("rank %1 step %2 loss %3 vs %4")
                        .arg(r)
                        .arg(s)
                        .arg(got.losses[r][s], 0, 'g', 9)
                        .arg(want.losses[r][s], 0, 'g', 9);
        }
        return {};
    }

private slots:
    // torch.utils.checkpoint around each decoder layer recomputes the same ops: DDP trains to the same
    // weights and losses. Selective needs torch >= 2.4; an older PyTorch refuses it by name.
    void activationCheckpointingChangesNoNumber_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::newRow("full") << QStringLiteral("full");
        QTest::newRow("selective") << QStringLiteral("selective");
    }
    void activationCheckpointingChangesNoNumber()
    {
        QFETCH(QString, policy);
        const QStringList common { QStringLiteral("--micro-batch"), QStringLiteral("2"), QStringLiteral("--lr"),
                                   QStringLiteral("0.01") };
        const auto plain = ddpRun(QStringLiteral("ddp-plain"), common);
        QVERIFY(plain);
        const QStringList withPolicy = QStringList(common) << QStringLiteral("--activation-checkpointing") << policy;
        if (policy == QStringLiteral("selective")) {
            const auto refused = launch(kHarness, 1, smallRun(m_tokens, 1) << withPolicy);
            if (refused.ranks.at(0).exitCode != 0) {
                const auto message = QString::fromStdString(refusal(refused).message);
                QVERIFY2(message.contains(QStringLiteral("create_selective_checkpoint_contexts")), qPrintable(message));
                return;
            }
        }
        const auto checkpointed = ddpRun(QStringLiteral("ddp-") + policy, withPolicy);
        QVERIFY(checkpointed);
        const auto diff = mismatch(*checkpointed, *plain, 1e-5, 1e-7);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(plain->losses[0].front() != plain->losses[0].back()); // it trained
    }

    // N micro-batches of one sequence per optimizer step (DDP no_sync until the last) train as one
    // micro-batch of N. At lr 1e-4, as in the native runner's test: AdamW turns the rounding of
    // near-zero gradient elements into whole steps, which a larger rate would amplify past 1e-5.
    void accumulatedMicroBatchesEqualOneLargerBatch()
    {
        const QStringList lr { QStringLiteral("--lr"), QStringLiteral("1e-4") };
        const auto larger = ddpRun(QStringLiteral("ddp-mb2"),
                                   QStringList(lr) << QStringLiteral("--micro-batch") << QStringLiteral("2"));
        QVERIFY(larger);
        const auto accumulated
            = ddpRun(QStringLiteral("ddp-ga2"),
                     QStringList(lr) << QStringLiteral("--micro-batch") << QStringLiteral("1")
                                     << QStringLiteral("--grad-accumulation") << QStringLiteral("2"));
        QVERIFY(accumulated);
        const auto diff = mismatch(*accumulated, *larger, 1e-5, 1e-7);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        for (const auto& steps : accumulated->steps) {
            QCOMPARE(steps.size(), std::size_t { 3 });
            for (const auto& s : steps)
                QCOMPARE(s.tokens, std::int64_t { 64 }); // the optimizer step's: 2 x 1 x 32
        }
        // Half the tokens (one micro-batch of one) is not the same training: the comparison can fail.
        const auto half = ddpRun(QStringLiteral("ddp-mb1"),
                                 QStringList(lr) << QStringLiteral("--micro-batch") << QStringLiteral("1"));
        QVERIFY(half);
        QVERIFY(!mismatch(*half, *accumulated, 1e-5, 1e-7).isEmpty());
    }

    // The native runner writes the weights it starts from; the harness loads them and, on the same
    // tokens, computes the same losses (fp32 on both sides). Without --init-params it draws the same
    // weights itself from the seed.
    // A dump whose header puts a parameter before the values (a negative offset) would be read from
    // the header's own bytes: a config error naming the parameter and the offset, before any step.
    void negativeOffsetInInitParamsIsAConfigError()
    {
        const QString dumped = m_dir.filePath(QStringLiteral("offsets"));
        const auto made = launch(kHarness, 1, smallRun(m_oneBatch, 1) << QStringLiteral("--dump-params") << dumped);
        QVERIFY2(made.ranks.at(0).exitCode == 0, qPrintable(describe(made.ranks.at(0))));
        QFile in(dumped + QStringLiteral(".rank0"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject header = QJsonDocument::fromJson(in.readLine()).object();
        const QByteArray values = in.readAll();
        QJsonArray params = header.value(QStringLiteral("params")).toArray();
        QVERIFY(params.size() > 1);
        QJsonObject second = params.at(1).toObject();
        const QString name = second.value(QStringLiteral("name")).toString();
        second.insert(QStringLiteral("offset"), -4);
        params.replace(1, second);
        header.insert(QStringLiteral("params"), params);
        const QString hostile = m_dir.filePath(QStringLiteral("negative-offset"));
        QFile out(hostile);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n' + values);
        out.close();

        const auto result = launch(kHarness, 1, smallRun(m_oneBatch, 1) << QStringLiteral("--init-params") << hostile);
        QCOMPARE(result.ranks.at(0).exitCode, 2);
        const ErrorEvent e = refusal(result);
        const std::string expected = name.toStdString() + " has offset -4, not a whole number >= 0";
        QVERIFY2(e.message.find(expected) != std::string::npos, e.message.c_str());
        QVERIFY(eventsOf<StepEvent>(result.ranks.at(0)).empty());
    }

    void lossesMatchTheNativeRunner()
    {
        const QString initial = m_dir.filePath(QStringLiteral("native-initial"));
        const QStringList args = smallRun(m_tokens, 3) << QStringLiteral("--strategy") << QStringLiteral("zero0");
        const QString nativeFinal = m_dir.filePath(QStringLiteral("native-final"));
        const QString torchFinal = m_dir.filePath(QStringLiteral("torch-final"));
        const auto native = launch(kNative, 1,
                                   QStringList(args) << QStringLiteral("--dump-initial-params") << initial
                                                     << QStringLiteral("--dump-params") << nativeFinal);
        QVERIFY2(native.ranks.at(0).exitCode == 0, qPrintable(describe(native.ranks.at(0))));
        const auto dump = readDump(initial + QStringLiteral(".rank0"));
        QVERIFY2(dump.header.contains("\"step\":0"), dump.header.constData());
        QCOMPARE(dump.values.size(), std::size_t { 119360 });

        const auto loaded = launch(kHarness, 1,
                                   QStringList(args) << QStringLiteral("--init-params") << initial
                                                     << QStringLiteral("--dump-params") << torchFinal);
        const auto drawn = launch(kHarness, 1, args);
        const auto want = eventsOf<SummaryEvent>(native.ranks.at(0)).at(0).losses;
        for (const auto* run : { &loaded, &drawn }) {
            const auto& r = run->ranks.at(0);
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            const auto got = eventsOf<SummaryEvent>(r).at(0).losses;
            QCOMPARE(got.size(), want.size());
            // Step 0 is the forward pass on identical weights; the later steps add one AdamW update each.
            for (std::size_t s = 0; s < got.size(); ++s)
                QVERIFY2(
                    std::abs(got[s] - want[s]) <= 1e-4 * std::abs(want[s]),
                    qPrintable(QStringLiteral("%1 step %2: torch %3, native %4")
                                   .arg(run == &loaded ? QStringLiteral("--init-params") : QStringLiteral("seeded"))
                                   .arg(s)
                                   .arg(got[s], 0, 'g', 9)
                                   .arg(want[s], 0, 'g', 9)));
        }
        // The two backends' dumps are one format: the same header, byte for byte, and the same size.
        const auto nativeDump = readDump(nativeFinal + QStringLiteral(".rank0"));
        const auto torchDump = readDump(torchFinal + QStringLiteral(".rank0"));
        QVERIFY(!nativeDump.header.isEmpty());
        QCOMPARE(torchDump.header, nativeDump.header);
        QCOMPARE(torchDump.values.size(), nativeDump.values.size());
    }
};

QTEST_GUILESS_MAIN(TestTorchRunner)
#include "test_torch_runner.moc"
