// Hardware probes end to end: the build's real shardwise-runner probes the CPU (--device cpu) on
// this machine and on an SSH node (a real sshd on loopback), through core/session and through
// `shardwise-cli nodes probe`; every rank's probe lands in a real SQLite store and
// calibrate::calibrationFromStore then names that probe as its source. A missing runner, a runner
// that fails or prints no probe, and an unreachable node each say what failed, and the store keeps
// exactly what it had.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/calibrate/from_store.hpp"
#include "shardwise/calibrate/network.hpp"
#include "shardwise/calibrate/probe.hpp"
#include "shardwise/session/probe_session.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/probes.hpp"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

using namespace shardwise;
using shardwise::testing::SshdFixture;

Q_DECLARE_METATYPE(shardwise::session::ProbeFailure)

namespace {

const std::string kRunner = std::string(SHARDWISE_BINARY_DIR) + "/bin/shardwise-runner";
// Small buffers keep a probe to seconds on a shared CPU; the figures are real, only smaller.
constexpr std::int64_t kProbeBytes = 2 << 20;

bool hasKind(const protocol::ProbeEvent& e, const std::string& kind)
{
    return std::any_of(e.results.begin(), e.results.end(), [&](const protocol::ProbeResult& r) {
        return r.kind == kind && r.value > 0 && std::isfinite(r.value);
    });
}

// The host's issue time per decoder layer: seconds, no buffer size, one figure per rank.
bool hasLayerIssueSeconds(const protocol::ProbeEvent& e)
{
    const auto n = std::count_if(e.results.begin(), e.results.end(),
                                 [](const protocol::ProbeResult& r) { return r.kind == "layer_issue"; });
    const auto r = std::find_if(e.results.begin(), e.results.end(),
                                [](const protocol::ProbeResult& x) { return x.kind == "layer_issue"; });
    // Under a second per layer: a figure that large would be a broken clock, not an issue cost.
    return n == 1 && hasKind(e, "layer_issue") && r->unit == "s" && r->bytes == 0 && r->value < 1.0 && r->samples > 0;
}

session::ProbeRequest cpuProbe(const std::string& node, int ranks)
{
    session::ProbeRequest r;
    r.node = node;
    r.device = DeviceKind::Cpu;
    r.ranks = ranks;
    r.maxBytes = kProbeBytes;
    r.timeout = std::chrono::seconds(300);
    // Gloo picks the interface its peers reach; every rank is on loopback here.
    r.env = { { "GLOO_SOCKET_IFNAME", "lo" } };
    return r;
}

std::vector<std::int64_t> probeIds(const store::Database& db)
{
    std::vector<std::int64_t> ids;
    for (const auto& p : store::listProbes(db))
        ids.push_back(p.id);
    return ids;
}

// A probe already in the store before the one under test, so "keeps what it had" has something to keep.
std::int64_t storeEarlierProbe(store::Database& db, const std::string& node)
{
    store::StoredProbe p;
    p.node = node;
    p.measuredAt = 1.0e9;
    p.event.host = "earlier-host";
    p.event.deviceName = "cpu";
    p.event.results = { { "cpu_adamw", 4096, 1.0e8, "params/s", 10 } };
    return store::saveProbe(db, p);
}

} // namespace

// Listens on `port` on every address of this machine while it lives. Where something else holds the
// port already, it stays held all the same.
class PortHolder {
public:
    explicit PortHolder(int port)
        : m_fd(::socket(AF_INET, SOCK_STREAM, 0))
    {
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_ANY);
        if (m_fd >= 0
            && (::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0
                || ::listen(m_fd, 1) != 0)) {
            ::close(m_fd);
            m_fd = -1;
        }
    }
    ~PortHolder()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    PortHolder(const PortHolder&) = delete;
    PortHolder& operator=(const PortHolder&) = delete;

private:
    int m_fd = -1;
};

class TestProbeSession : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QTemporaryDir m_tmp; // TMPDIR of this test
    std::unique_ptr<SshdFixture> m_sshd;

    std::string storePath() const { return m_dir.filePath(QStringLiteral("probes.sqlite")).toStdString(); }

    // Starts the sshd; empty when it runs, else why not (the caller skips).
    QString startSshd()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            return why;
        m_sshd = std::make_unique<SshdFixture>();
        if (const QString error = m_sshd->start(); !error.isEmpty())
            return error;
        m_sshd->trustHostKey();
        return {};
    }

    std::string writeScript(const QString& name, const QByteArray& body) const
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write("#!/bin/sh\n" + body + "\n");
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        return path.toStdString();
    }

    void addSshNode(const std::string& name, const std::string& runner, int port)
    {
        store::Database db = store::Database::open(storePath());
        store::Node node;
        node.name = name;
        node.kind = store::NodeKind::Ssh;
        node.host = "127.0.0.1";
        node.port = port;
        node.user = m_sshd->userName();
        node.auth = store::SshAuth::KeyFile;
        node.keyFile = m_sshd->keyCredentials().keyFile.string();
        // What the Nodes page's Prepare records: the runner it built on the node.
        node.facts = { { "prepared_runner", { { "path", runner } } } };
        store::addNode(db, node);
    }

    QStringList sshFlags() const
    {
        const dispatch::SshOptions ssh = m_sshd->options();
        return { QStringLiteral("--known-hosts"), QString::fromStdString(ssh.knownHosts.app.string()),
                 QStringLiteral("--user-known-hosts"), QString::fromStdString(ssh.knownHosts.user.string()) };
    }

    static void requireRunner()
    {
        if (!QFileInfo::exists(QString::fromStdString(kRunner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
    }

private slots:
    void initTestCase()
    {
        // The temporary folders of the probes' ranks: a folder a probe keeps goes with it.
        QVERIFY(m_tmp.isValid());
        qputenv("TMPDIR", m_tmp.path().toLocal8Bit());
    }
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(QString::fromStdString(storePath()));
    }
    void cleanup() { m_sshd.reset(); }

    void localCpuProbeLandsInTheStoreAndCalibratesFromIt_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::newRow("one rank: device and CPU AdamW") << 1;
        QTest::newRow("two ranks: and the collectives between them") << 2;
    }
    void localCpuProbeLandsInTheStoreAndCalibratesFromIt()
    {
        requireRunner();
        QFETCH(int, ranks);
        store::Database db = store::Database::open(storePath());
        int reported = 0;
        session::ProbeCallbacks callbacks;
        callbacks.onProbe = [&](const protocol::ProbeEvent&) { ++reported; };
        const session::ProbeSessionResult result
            = session::probeLocal(cpuProbe("local", ranks), kRunner, &db, callbacks);
        QVERIFY2(result.ok(), result.reason.c_str());
        // Stored, so its temporary log folder is gone.
        QVERIFY2(result.logLocation.empty(), result.logLocation.c_str());
        const QStringList left
            = QDir(m_tmp.path()).entryList({ QStringLiteral("shardwise-run-*") }, QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char(' '))));
        QCOMPARE(reported, ranks);
        QCOMPARE(static_cast<int>(result.events.size()), ranks);
        QCOMPARE(static_cast<int>(result.stored.size()), ranks);
        for (const auto& e : result.events) {
            QCOMPARE(e.world, ranks);
            QCOMPARE(QString::fromStdString(e.deviceName), QStringLiteral("cpu"));
            QVERIFY(hasKind(e, "cpu_adamw"));
            QVERIFY(hasKind(e, "device_copy"));
            QVERIFY(hasLayerIssueSeconds(e));
            QCOMPARE(hasKind(e, "all_reduce"), ranks > 1);
        }

        const auto stored = store::listProbes(db, std::string("local"));
        QCOMPARE(static_cast<int>(stored.size()), ranks);
        for (const auto& p : stored) {
            QVERIFY(p.gpuId.empty()); // a CPU matches no GPU preset
            QVERIFY(!p.event.results.empty());
        }
        // Rank 0 is the node's newest probe, and calibration starts from it.
        const auto newest = store::latestProbe(db, "local");
        QVERIFY(newest);
        QCOMPARE(newest->event.rank, 0);
        QCOMPARE(newest->id, result.stored.back().id);
        const calibrate::StoredCalibration c
            = calibrate::calibrationFromStore(db, resolveGpu("h200"), Interconnect::NvLink, "local");
        QVERIFY(c.probeId.has_value());
        QCOMPARE(*c.probeId, newest->id);
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node local"));
        QVERIFY(std::find(c.fitted.begin(), c.fitted.end(), "cpu_adam_params_per_s") != c.fitted.end());
        const auto adam = std::find_if(newest->event.results.begin(), newest->event.results.end(),
                                       [](const protocol::ProbeResult& r) { return r.kind == "cpu_adamw"; });
        QCOMPARE(c.calibration.cpuAdamParamsPerS, adam->value);
        // A CPU device's issue time holds its own compute: it says nothing about a GPU's launch cost.
        QVERIFY(std::find(c.fitted.begin(), c.fitted.end(), "layer_launch_s") == c.fitted.end());
    }

    void failingRunnerSaysWhatFailedAndTheStoreKeepsWhatItHad_data()
    {
        QTest::addColumn<QByteArray>("script"); // empty = no runner at all
        QTest::addColumn<session::ProbeFailure>("failure");
        QTest::addColumn<QString>("named");
        QTest::newRow("runner missing") << QByteArray() << session::ProbeFailure::RunnerMissing
                                        << QStringLiteral("no shardwise-runner at");
        QTest::newRow("exits without a probe event")
            << QByteArray("echo 'measuring nothing' >&2; exit 0") << session::ProbeFailure::ProbeAbsent
            << QStringLiteral("exited without a probe event; its log ends: measuring nothing");
        QTest::newRow("rank fails")
            << QByteArray("echo 'no device here' >&2; exit 3") << session::ProbeFailure::RanksFailed
            << QStringLiteral("rank 0 of the probe on node 'local' exited with status 3; its log ends: no device here");
        QTest::newRow("rank reports an error event") << QByteArray(
            R"(echo '{"event":"error","kind":"config","message":"unknown flag --probe","rank":0,"time":1.0,"v":1}'; exit 2)")
                                                     << session::ProbeFailure::RanksFailed
                                                     << QStringLiteral("reported a config error: unknown flag --probe");
    }
    void failingRunnerSaysWhatFailedAndTheStoreKeepsWhatItHad()
    {
        QFETCH(QByteArray, script);
        QFETCH(session::ProbeFailure, failure);
        QFETCH(QString, named);
        const std::string runner = script.isEmpty() ? m_dir.filePath(QStringLiteral("no-such-runner")).toStdString()
                                                    : writeScript(QStringLiteral("fake-runner"), script);
        QVERIFY(!runner.empty());
        store::Database db = store::Database::open(storePath());
        storeEarlierProbe(db, "local");
        const std::vector<std::int64_t> before = probeIds(db);

        const session::ProbeSessionResult result = session::probeLocal(cpuProbe("local", 1), runner, &db);
        QCOMPARE(result.failure, failure);
        QVERIFY2(QString::fromStdString(result.reason).contains(named), result.reason.c_str());
        QVERIFY(result.stored.empty());
        QCOMPARE(probeIds(db), before);
    }

    void slowProbeEndsAtItsTimeoutAndStoresNothing()
    {
        const std::string runner = writeScript(QStringLiteral("slow-runner"), "exec sleep 120");
        QVERIFY(!runner.empty());
        store::Database db = store::Database::open(storePath());
        session::ProbeRequest request = cpuProbe("local", 1);
        request.timeout = std::chrono::seconds(1);
        QElapsedTimer clock;
        clock.start();
        const session::ProbeSessionResult result = session::probeLocal(request, runner, &db);
        QVERIFY(clock.elapsed() < 60'000);
        QCOMPARE(result.failure, session::ProbeFailure::TimedOut);
        QCOMPARE(QString::fromStdString(result.reason),
                 QStringLiteral("the probe of node 'local' took longer than 1 s; nothing was stored"));
        QVERIFY(store::listProbes(db).empty());
    }

    void gpuPresetFollowsTheDeviceName_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("preset");
        QTest::newRow("H200") << QStringLiteral("NVIDIA H200") << QStringLiteral("h200");
        QTest::newRow("A100 SXM 80GB") << QStringLiteral("NVIDIA A100-SXM4-80GB") << QStringLiteral("a100-80gb");
        QTest::newRow("A100 PCIe 40GB") << QStringLiteral("NVIDIA A100-PCIE-40GB") << QStringLiteral("a100-40gb");
        QTest::newRow("A100 without its size") << QStringLiteral("NVIDIA A100") << QString();
        QTest::newRow("H100 SXM") << QStringLiteral("NVIDIA H100 80GB HBM3") << QStringLiteral("h100-80gb");
        QTest::newRow("H100 PCIe is not the SXM preset") << QStringLiteral("NVIDIA H100 PCIe") << QString();
        QTest::newRow("RTX 4090") << QStringLiteral("NVIDIA GeForce RTX 4090") << QStringLiteral("rtx4090");
        QTest::newRow("L4") << QStringLiteral("NVIDIA L4") << QStringLiteral("l4");
        QTest::newRow("CPU") << QStringLiteral("cpu") << QString();
    }
    void gpuPresetFollowsTheDeviceName()
    {
        QFETCH(QString, device);
        QFETCH(QString, preset);
        const std::string found = session::gpuPresetForDevice(device.toStdString(), PresetCatalog::builtin().gpus());
        QCOMPARE(QString::fromStdString(found), preset);
    }

    void sshCpuProbeLandsInTheStoreAndCalibratesFromIt()
    {
        requireRunner();
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        auto sessions = m_sshd->connectEach();
        store::Database db = store::Database::open(storePath());
        session::RemoteProbeTarget target;
        target.session = sessions.front().get();
        target.runnerPath = kRunner;
        target.runRoot = m_sshd->path(QStringLiteral("probes")).toStdString();
        target.masterPort = dispatch::findFreePort();
        target.pollInterval = std::chrono::milliseconds(200);
        const session::ProbeSessionResult result = session::probeRemote(cpuProbe("node-a", 2), target, &db);
        QVERIFY2(result.ok(), result.reason.c_str());
        QCOMPARE(result.stored.size(), std::size_t(2));
        QVERIFY(QFileInfo(QString::fromStdString(result.logLocation)).isDir()); // the run folder on the "node"
        for (const auto& e : result.events)
            QVERIFY(hasKind(e, "all_gather") && hasKind(e, "cpu_adamw") && hasLayerIssueSeconds(e));
        const auto newest = store::latestProbe(db, "node-a");
        QVERIFY(newest);
        QCOMPARE(newest->event.rank, 0);
        const calibrate::StoredCalibration c
            = calibrate::calibrationFromStore(db, resolveGpu("h200"), Interconnect::NvLink, "node-a");
        QCOMPARE(c.probeId, std::optional<std::int64_t>(newest->id));
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node node-a"));
    }

    void sshProbeWithoutTheRunnerOnTheNodeSaysSo()
    {
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        auto sessions = m_sshd->connectEach();
        store::Database db = store::Database::open(storePath());
        storeEarlierProbe(db, "node-a");
        const std::vector<std::int64_t> before = probeIds(db);
        session::RemoteProbeTarget target;
        target.session = sessions.front().get();
        target.runnerPath = m_sshd->path(QStringLiteral("not-built/shardwise-runner")).toStdString();
        target.runRoot = m_sshd->path(QStringLiteral("probes")).toStdString();
        const session::ProbeSessionResult result = session::probeRemote(cpuProbe("node-a", 1), target, &db);
        QCOMPARE(result.failure, session::ProbeFailure::RunnerMissing);
        QVERIFY2(result.reason == "no executable shardwise-runner at " + target.runnerPath + " on node 'node-a'",
                 result.reason.c_str());
        QCOMPARE(probeIds(db), before);
    }

    void cliProbesThisMachineIntoTheStore()
    {
        requireRunner();
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("nodes"), QStringLiteral("probe"), QStringLiteral("--local"),
                    QStringLiteral("--runner"), QString::fromStdString(kRunner), QStringLiteral("--max-bytes"),
                    QString::number(kProbeBytes), QStringLiteral("--db"), QString::fromStdString(storePath()) });
        QVERIFY(cli.waitForFinished(300000));
        const QString out = QString::fromUtf8(cli.readAllStandardOutput());
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(cli.exitCode() == 0, qPrintable(out + err));
        QVERIFY2(out.contains(QStringLiteral("cpu_adamw"))
                     && out.contains(QStringLiteral("stored 1 probe of node 'local'")),
                 qPrintable(out));
        store::Database db = store::Database::open(storePath());
        const auto probes = store::listProbes(db, std::string("local"));
        QCOMPARE(probes.size(), std::size_t(1));
        QVERIFY(out.contains(QStringLiteral("newest: probe %1").arg(probes.front().id)));
    }

    void cliProbesAStoredSshNodeWithEveryRank()
    {
        requireRunner();
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        addSshNode("node-a", kRunner, m_sshd->port());
        // torchrun's default port held on the node (this machine): without --master-port the probe's
        // rendezvous takes a free one, as the Nodes page's probes and remote runs do.
        const PortHolder torchrunDefault(29500);
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("nodes"), QStringLiteral("probe"), QStringLiteral("node-a"),
                                QStringLiteral("--ranks"), QStringLiteral("2"), QStringLiteral("--max-bytes"),
                                QString::number(kProbeBytes), QStringLiteral("--rank-env"),
                                QStringLiteral("GLOO_SOCKET_IFNAME=lo"), QStringLiteral("--run-root"),
                                m_sshd->path(QStringLiteral("cli-probes")), QStringLiteral("--db"),
                                QString::fromStdString(storePath()), QStringLiteral("--format"),
                                QStringLiteral("json") }
                      + sshFlags());
        QVERIFY(cli.waitForFinished(300000));
        const QByteArray out = cli.readAllStandardOutput();
        QVERIFY2(cli.exitCode() == 0, (out + cli.readAllStandardError()).constData());
        const auto j = nlohmann::json::parse(out.toStdString());
        QCOMPARE(j.at("launcher").get<std::string>(), std::string("ssh"));
        QCOMPARE(j.at("probes").size(), std::size_t(2));
        QCOMPARE(j.at("stored").size(), std::size_t(2));
        store::Database db = store::Database::open(storePath());
        QCOMPARE(store::listProbes(db, std::string("node-a")).size(), std::size_t(2));
        const calibrate::StoredCalibration c
            = calibrate::calibrationFromStore(db, resolveGpu("h200"), Interconnect::NvLink, "node-a");
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node node-a"));
    }

    // nodes probe A --with B: one world over both stored SSH nodes (two logins to one loopback sshd
    // stand for two machines), its collectives reported as the network's bus bandwidth with the
    // --inter-node-gbps it plans as, stored under "node-a+node-b" with no GPU preset, so neither node's
    // GPU calibration starts from collectives that crossed the network.
    void cliProbesTheNetworkBetweenTwoNodes()
    {
        requireRunner();
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        addSshNode("node-a", kRunner, m_sshd->port());
        addSshNode("node-b", kRunner, m_sshd->port());
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("nodes"), QStringLiteral("probe"), QStringLiteral("node-a"),
                                QStringLiteral("--with"), QStringLiteral("node-b"), QStringLiteral("--max-bytes"),
                                QString::number(kProbeBytes), QStringLiteral("--rank-env"),
                                QStringLiteral("GLOO_SOCKET_IFNAME=lo"), QStringLiteral("--master-port"),
                                QString::number(dispatch::findFreePort()), QStringLiteral("--run-root"),
                                m_sshd->path(QStringLiteral("net-probes")), QStringLiteral("--db"),
                                QString::fromStdString(storePath()), QStringLiteral("--format"),
                                QStringLiteral("json") }
                      + sshFlags());
        QVERIFY(cli.waitForFinished(300000));
        const QByteArray out = cli.readAllStandardOutput();
        QVERIFY2(cli.exitCode() == 0, (out + cli.readAllStandardError()).constData());
        const auto j = nlohmann::json::parse(out.toStdString());
        QCOMPARE(j.at("node").get<std::string>(), std::string("node-a+node-b"));
        QCOMPARE(j.at("network").at("nodes"), nlohmann::json({ "node-a", "node-b" }));
        QCOMPARE(j.at("probes").size(), std::size_t(2));
        for (const auto& p : j.at("probes"))
            QCOMPARE(p.at("world").get<int>(), 2);
        const double bus = j.at("network").at("bus_gbps").get<double>();
        QVERIFY2(bus > 0 && std::isfinite(bus), out.constData());
        // To 0.1 GB/s, and at least 0.1 (a loaded loopback can measure less).
        QCOMPARE(j.at("network").at("inter_node_gbps").get<double>(),
                 std::max(0.1, std::round(bus / Calibration {}.interNodeBusEfficiency * 10) / 10));

        store::Database db = store::Database::open(storePath());
        const auto stored = store::listProbes(db, std::string("node-a+node-b"));
        QCOMPARE(stored.size(), std::size_t(2));
        for (const auto& p : stored)
            QVERIFY2(p.gpuId.empty(), p.gpuId.c_str());
        // The figure printed is the one stored: the slowest collective of rank 0's probe.
        const auto rank0 = std::find_if(stored.begin(), stored.end(), [](const auto& p) { return p.event.rank == 0; });
        QVERIFY(rank0 != stored.end());
        QCOMPARE(calibrate::collectiveBusGBps(rank0->event.results), std::optional<double>(bus));
        QVERIFY(store::listProbes(db, std::string("node-a")).empty());
        QVERIFY(!store::latestProbe(db, "", "h200"));
        // The Plan page's network list reads the same figures back from the store.
        const auto networks = calibrate::measuredNetworks(db);
        QCOMPARE(networks.size(), std::size_t(1));
        QCOMPARE(networks.front().name, std::string("node-a+node-b"));
        QCOMPARE(networks.front().nodes, (std::vector<std::string> { "node-a", "node-b" }));
        QCOMPARE(networks.front().busGBps, bus);
        QCOMPARE(networks.front().probeId, rank0->id);

        // The table says the same figure.
        QProcess table;
        table.start(QStringLiteral(SHARDWISE_CLI),
                    QStringList { QStringLiteral("nodes"), QStringLiteral("probe"), QStringLiteral("node-b"),
                                  QStringLiteral("--with=node-a"), QStringLiteral("--max-bytes"),
                                  QString::number(kProbeBytes), QStringLiteral("--rank-env"),
                                  QStringLiteral("GLOO_SOCKET_IFNAME=lo"), QStringLiteral("--master-port"),
                                  QString::number(dispatch::findFreePort()), QStringLiteral("--run-root"),
                                  m_sshd->path(QStringLiteral("net-probes")), QStringLiteral("--no-store"),
                                  QStringLiteral("--db"), QString::fromStdString(storePath()) }
                        + sshFlags());
        QVERIFY(table.waitForFinished(300000));
        const QString text = QString::fromUtf8(table.readAllStandardOutput());
        QVERIFY2(table.exitCode() == 0, qPrintable(text + QString::fromUtf8(table.readAllStandardError())));
        QVERIFY2(text.contains(QStringLiteral("network between node-b+node-a: collectives reached"))
                     && text.contains(QStringLiteral("plans as --inter-node-gbps")),
                 qPrintable(text));
        QCOMPARE(store::listProbes(db).size(), std::size_t(2)); // --no-store kept nothing more
    }

    // A node of the pair without its runner is named, and nothing of the probe is stored.
    void cliNetworkProbeNamesTheNodeWithoutARunner()
    {
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        addSshNode("node-a", kRunner, m_sshd->port());
        addSshNode("node-b", m_sshd->path(QStringLiteral("absent/shardwise-runner")).toStdString(), m_sshd->port());
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("nodes"), QStringLiteral("probe"), QStringLiteral("node-a"),
                                QStringLiteral("--with"), QStringLiteral("node-b"), QStringLiteral("--db"),
                                QString::fromStdString(storePath()) }
                      + sshFlags());
        QVERIFY(cli.waitForFinished(120000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(err.contains(QStringLiteral("runner_missing: no executable shardwise-runner at "))
                     && err.contains(QStringLiteral("on node 'node-b'")),
                 qPrintable(err));
        store::Database db = store::Database::open(storePath());
        QVERIFY(store::listProbes(db).empty());
    }

    void cliNamesWhatFailed_data()
    {
        QTest::addColumn<QString>("failureCase");
        QTest::addColumn<QString>("named");
        QTest::newRow("runner missing on the node")
            << QStringLiteral("runner") << QStringLiteral("runner_missing: no executable shardwise-runner at");
        QTest::newRow("SSH refused") << QStringLiteral("ssh") << QStringLiteral("cannot connect to 'node-a'");
        QTest::newRow("unknown node") << QStringLiteral("unknown") << QStringLiteral("no node named 'node-z'");
    }
    void cliNamesWhatFailed()
    {
        QFETCH(QString, failureCase);
        QFETCH(QString, named);
        if (const QString why = startSshd(); !why.isEmpty())
            QSKIP(qPrintable(why));
        // A port nothing listens on stands for a node that refuses the connection.
        const int port = failureCase == QStringLiteral("ssh") ? dispatch::findFreePort() : m_sshd->port();
        const std::string runner = failureCase == QStringLiteral("runner")
            ? m_sshd->path(QStringLiteral("absent/shardwise-runner")).toStdString()
            : kRunner;
        addSshNode("node-a", runner, port);
        {
            store::Database db = store::Database::open(storePath());
            storeEarlierProbe(db, "node-a");
        }
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("nodes"), QStringLiteral("probe"),
                                failureCase == QStringLiteral("unknown") ? QStringLiteral("node-z")
                                                                         : QStringLiteral("node-a"),
                                QStringLiteral("--db"), QString::fromStdString(storePath()) }
                      + sshFlags());
        QVERIFY(cli.waitForFinished(120000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(err.contains(named), qPrintable(err));
        store::Database db = store::Database::open(storePath());
        QCOMPARE(store::listProbes(db).size(), std::size_t(1));
    }

    // A copy of shardwise-cli outside the build tree (as installed) finds no runner: it never falls back
    // to the runner of the tree it was built in. With the runner installed beside it, it uses that one.
    void installedCliUsesOnlyTheRunnerBesideIt()
    {
        requireRunner();
        const QString bin = m_dir.filePath(QStringLiteral("installed/bin"));
        QVERIFY(QDir().mkpath(bin));
        const QString cliCopy = bin + QStringLiteral("/shardwise-cli");
        QFile::remove(cliCopy);
        QVERIFY(QFile::copy(QStringLiteral(SHARDWISE_CLI), cliCopy));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("SHARDWISE_RUNNER"));
        const QStringList args { QStringLiteral("nodes"),       QStringLiteral("probe"),
                                 QStringLiteral("--local"),     QStringLiteral("--no-store"),
                                 QStringLiteral("--max-bytes"), QString::number(kProbeBytes) };
        QProcess alone;
        alone.setProcessEnvironment(env);
        alone.start(cliCopy, args);
        QVERIFY(alone.waitForFinished(60000));
        const QString err = QString::fromUtf8(alone.readAllStandardError());
        QVERIFY2(alone.exitCode() == 1 && err.contains(QStringLiteral("no shardwise-runner found")), qPrintable(err));

        QVERIFY(QFile::copy(QString::fromStdString(kRunner), bin + QStringLiteral("/shardwise-runner")));
        QProcess beside;
        beside.setProcessEnvironment(env);
        beside.start(cliCopy, args);
        QVERIFY(beside.waitForFinished(300000));
        const QString besideErr = QString::fromUtf8(beside.readAllStandardError());
        QVERIFY2(beside.exitCode() == 0, qPrintable(besideErr));
        QVERIFY2(besideErr.contains(QStringLiteral("runner ") + bin + QStringLiteral("/shardwise-runner")),
                 qPrintable(besideErr));
    }

    void cliRejectsBadUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("no node") << QStringList {} << QStringLiteral("NAME or --local");
        QTest::newRow("both") << QStringList { QStringLiteral("box"), QStringLiteral("--local") }
                              << QStringLiteral("choose one");
        QTest::newRow("unknown GPU preset")
            << QStringList { QStringLiteral("--local"), QStringLiteral("--gpu"), QStringLiteral("z9000") }
            << QStringLiteral("--gpu: unknown GPU preset 'z9000'");
        QTest::newRow("--with and --local")
            << QStringList { QStringLiteral("--local"), QStringLiteral("--with"), QStringLiteral("box") }
            << QStringLiteral("--with and --local");
        QTest::newRow("--with the node itself")
            << QStringList { QStringLiteral("box"), QStringLiteral("--with"), QStringLiteral("box") }
            << QStringLiteral("--with: node 'box' is named twice");
        QTest::newRow("--with and --gpu")
            << QStringList { QStringLiteral("box"), QStringLiteral("--with"), QStringLiteral("other"),
                             QStringLiteral("--gpu"), QStringLiteral("h200") }
            << QStringLiteral("--with and --gpu");
        QTest::newRow("ranks not a number")
            << QStringList { QStringLiteral("--local"), QStringLiteral("--ranks"), QStringLiteral("two") }
            << QStringLiteral("--ranks: expected a whole number");
    }
    void cliRejectsBadUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("nodes"), QStringLiteral("probe") } + args);
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 2);
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(err.contains(named), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestProbeSession)
#include "test_probe_session.moc"
