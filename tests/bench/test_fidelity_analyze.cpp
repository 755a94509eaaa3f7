// shardwise-bench-fidelity analyze on two results folders written here as the runner writes them:
// a timed batch (completed runs and an OOM) and a memory-only batch measured with another runner
// binary (a completed run with an absurd tokens/s, and an OOM the presets predict to fit). Checks
// the errors against the estimate, which cells count for which statistic, and the OOM verdicts.
// A third batch carries the probe the CPU runner takes (`--probe`, run here): every fold then starts
// from its per-layer issue time and keeps it.
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/presets.hpp"

#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace shardwise;

namespace {

const std::string kTimedCommit(40, 'a');
const std::string kMemoryOnlyCommit(40, 'b');
constexpr double kAbsurdTokensPerS = 999999.0; // from the memory-only batch: must never be compared

struct CellSpec {
    const char* model;
    Strategy strategy;
    int seq;
    std::optional<double> tokensPerS; // completed with this; none: ran out of memory
    double peakGiB = 0;
};

RunConfig runConfig(const CellSpec& c)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel(c.model);
    rc.strategy = c.strategy;
    rc.training.seqLen = c.seq;
    rc.training.microBatch = 1;
    rc.training.precision = PrecisionPolicy::PureBf16;
    rc.device = DeviceKind::Cuda;
    rc.worldSize = 1;
    rc.warmupSteps = 2;
    rc.timedSteps = 4;
    return rc;
}

// The timed batch is written as a runner from before versions.activations writes its events (it kept
// the norm outputs), the memory-only batch as the current runner does; the analyzer must predict each
// cell for the runner that measured it.
constexpr bool kTimedRunnerKeptNormInputs = true;
constexpr bool kMemoryOnlyRunnerKeptNormInputs = false;

// The versions a batch's start events report: neither lists versions.offload_staging, so both ran
// the device AdamW after the backward, as runners before "device step per unit" did.
protocol::SoftwareVersions writtenVersions(bool normInputsKept)
{
    protocol::SoftwareVersions v;
    if (!normInputsKept)
        v.activations = protocol::kNormInputsRecomputed;
    return v;
}

// What the analyzer predicts with the presets for a cell: the GPU preset and world 1 the folder says,
// for the runner behaviour its start event reports.
EstimateInput estimateInput(const CellSpec& c, bool normInputsKept)
{
    const RunConfig rc = runConfig(c);
    EstimateInput in;
    in.model = rc.model;
    in.gpu = *PresetCatalog::builtin().findGpu("h200");
    in.cluster.gpusPerNode = 1;
    in.cluster.nodes = 1;
    in.training = rc.training;
    in.knobs = rc.knobs;
    applyRunnerBehaviour(in, writtenVersions(normInputsKept));
    return in;
}

void writeCell(const std::filesystem::path& dir, const CellSpec& c, bool normInputsKept)
{
    std::filesystem::create_directories(dir / "cells");
    std::ofstream out(dir / "cells"
                      / (std::string(c.model) + "__" + std::string(strategyId(c.strategy)) + "__"
                         + std::to_string(c.seq) + ".jsonl"));
    protocol::StartEvent start;
    start.config = runConfig(c);
    start.deviceName = "NVIDIA H200";
    start.launcher = "shardwise";
    start.versions = writtenVersions(normInputsKept);
    out << protocol::serialize(start) << '\n';
    if (c.tokensPerS) {
        protocol::SummaryEvent s;
        s.warmupSteps = 2;
        s.timedSteps = 4;
        s.tokensPerS = *c.tokensPerS;
        s.medianStepS = c.seq / *c.tokensPerS;
        s.memory.peakAllocated = static_cast<std::int64_t>(c.peakGiB * kGiB);
        s.memory.peakReserved = s.memory.peakAllocated + (1LL << 30);
        s.memory.reserved = s.memory.peakReserved;
        s.memory.deviceTotal = 150'109'880'320;
        s.memory.deviceFree = s.memory.deviceTotal - s.memory.reserved - (1LL << 30) * 13 / 10;
        out << protocol::serialize(s) << '\n';
    } else {
        protocol::ErrorEvent e;
        e.kind = protocol::ErrorKind::Oom;
        e.message = "CUDA out of memory. Tried to allocate 1.16 GiB";
        e.step = 0;
        out << protocol::serialize(e) << '\n';
    }
}

void writeDeviceTxt(const std::filesystem::path& dir, const std::string& commit)
{
    std::ofstream(dir / "device.txt") << "# one call\n2026-12-03T07:45:00Z\n"
                                      << commit << "\nNVIDIA H200, 143771 MiB, 580.159.04\n";
}

const CellSpec kSmallTimed { "qwen2.5-0.5b", Strategy::Zero0, 1024, 40000.0, 5.6 };
const CellSpec kMediumTimed { "qwen2.5-1.5b", Strategy::Zero0, 1024, 25000.0, 15.0 };
const CellSpec kLargeOomTimed { "qwen2.5-14b", Strategy::Zero0, 8192, std::nullopt, 0 };
const CellSpec kMemoryOnlyCompleted { "qwen2.5-1.5b", Strategy::Zero1, 2048, kAbsurdTokensPerS, 16.5 };
const CellSpec kMemoryOnlyOom { "qwen2.5-0.5b", Strategy::Zero0, 2048, std::nullopt, 0 };

const nlohmann::json* findCell(const nlohmann::json& report, const CellSpec& c)
{
    for (const auto& cell : report.at("cells"))
        if (cell.at("model") == c.model && cell.at("strategy") == strategyId(c.strategy) && cell.at("seq") == c.seq)
            return &cell;
    return nullptr;
}

const QString kRunner = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-runner");

// A TCP port nothing listens on now, for the probe's single-rank rendezvous.
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

std::string readText(const QString& file)
{
    std::ifstream in(file.toStdString());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestFidelityAnalyze : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::filesystem::path m_timed;
    std::filesystem::path m_memoryOnly;
    nlohmann::json m_report;
    std::string m_markdown;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const std::filesystem::path root = m_dir.path().toStdString();
        m_timed = root / "timed";
        m_memoryOnly = root / "memory-only";
        for (const CellSpec& c : { kSmallTimed, kMediumTimed, kLargeOomTimed })
            writeCell(m_timed, c, kTimedRunnerKeptNormInputs);
        for (const CellSpec& c : { kMemoryOnlyCompleted, kMemoryOnlyOom })
            writeCell(m_memoryOnly, c, kMemoryOnlyRunnerKeptNormInputs);
        writeDeviceTxt(m_timed, kTimedCommit);
        writeDeviceTxt(m_memoryOnly, kMemoryOnlyCommit);

        const QString out = QString::fromStdString((root / "report").string());
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(m_timed.string()),
                  QStringLiteral("--memory-only-results"), QString::fromStdString(m_memoryOnly.string()),
                  QStringLiteral("--out"), out });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        std::ifstream json((out + QStringLiteral(".json")).toStdString());
        m_report = nlohmann::json::parse(json);
        std::ifstream md((out + QStringLiteral(".md")).toStdString());
        std::stringstream text;
        text << md.rdbuf();
        m_markdown = text.str();
    }

    void timedCellsAreComparedWithThePresets_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("qwen2.5-0.5b") << 0;
        QTest::newRow("qwen2.5-1.5b") << 1;
    }
    void timedCellsAreComparedWithThePresets()
    {
        QFETCH(int, which);
        const CellSpec& spec = which == 0 ? kSmallTimed : kMediumTimed;
        const nlohmann::json* cell = findCell(m_report, spec);
        QVERIFY(cell);
        const Estimate e = estimate(estimateInput(spec, kTimedRunnerKeptNormInputs), spec.strategy);
        QCOMPARE(cell->at("memory_only").get<bool>(), false);
        QCOMPARE(cell->at("completed").get<bool>(), true);
        QCOMPARE(cell->at("measured_tokens_per_s").get<double>(), *spec.tokensPerS);
        const double tokensError = cell->at("presets").at("tokens_error").get<double>();
        QVERIFY(std::fabs(tokensError - (e.throughput.tokensPerS / *spec.tokensPerS - 1.0)) < 1e-9);
        const double measuredPeak = static_cast<double>(static_cast<std::int64_t>(spec.peakGiB * kGiB));
        const double peakError = cell->at("presets").at("peak_error").get<double>();
        QVERIFY(std::fabs(peakError - (e.memory.allocatedPeak() / measuredPeak - 1.0)) < 1e-9);
        QVERIFY(cell->at("calibrated").at("tokens_error").is_number());
    }

    void memoryOnlyBatchCountsForPeakNotTokens()
    {
        const nlohmann::json& summary = m_report.at("summary");
        // Tokens/s: the two completed timed cells only.
        QCOMPARE(summary.at("presets").at("tokens").at("cells").get<int>(), 2);
        QCOMPARE(summary.at("calibrated").at("tokens").at("cells").get<int>(), 2);
        // Peak allocated: those two and the memory-only completed cell; the timed batches alone: two.
        QCOMPARE(summary.at("presets").at("peak").at("cells").get<int>(), 3);
        QCOMPARE(summary.at("timed_batches").at("presets").at("peak").at("cells").get<int>(), 2);

        const nlohmann::json* cell = findCell(m_report, kMemoryOnlyCompleted);
        QVERIFY(cell);
        QCOMPARE(cell->at("memory_only").get<bool>(), true);
        QVERIFY(cell->at("measured_tokens_per_s").is_null());
        QVERIFY(cell->at("presets").at("tokens_error").is_null());
        QVERIFY(cell->at("calibrated").at("tokens_error").is_null());
        const Estimate e = estimate(estimateInput(kMemoryOnlyCompleted, kMemoryOnlyRunnerKeptNormInputs),
                                    kMemoryOnlyCompleted.strategy);
        const double measuredPeak = static_cast<double>(static_cast<std::int64_t>(kMemoryOnlyCompleted.peakGiB * kGiB));
        QVERIFY(std::fabs(cell->at("presets").at("peak_error").get<double>()
                          - (e.memory.allocatedPeak() / measuredPeak - 1.0))
                < 1e-9);

        // The report names the batch and its runner, and the other binary's speed appears nowhere.
        QVERIFY(m_markdown.find("## Memory and verdicts only: `" + m_memoryOnly.string() + "` (runner "
                                + kMemoryOnlyCommit + ")")
                != std::string::npos);
        QVERIFY(
            m_markdown.find("`" + m_timed.string() + "` (runner " + kTimedCommit + "): tokens/s, memory and verdicts")
            != std::string::npos);
        QVERIFY(m_markdown.find("| 999999 |") == std::string::npos);
        QVERIFY(m_markdown.find("| 1000000 |") == std::string::npos);
        // The cell has one row, in its batch's section, not in the timed per-cell table.
        const std::string row = "| qwen2.5-1.5b | zero1 | 2048 |";
        const auto first = m_markdown.find(row);
        QVERIFY(first != std::string::npos && m_markdown.find(row, first + 1) == std::string::npos);
        QVERIFY(first > m_markdown.find("## Memory and verdicts only"));
    }

    void oomEventsAreMeasuredVerdicts()
    {
        const nlohmann::json& summary = m_report.at("summary");
        QCOMPARE(summary.at("ooms").get<int>(), 2);
        // The 14B OOM was predicted not to fit (right); the memory-only 0.5B OOM at 2048 tokens was
        // predicted to fit (wrong): a memory-only batch's verdicts count.
        const nlohmann::json* large = findCell(m_report, kLargeOomTimed);
        const nlohmann::json* small = findCell(m_report, kMemoryOnlyOom);
        QVERIFY(large && small);
        QCOMPARE(large->at("oom").get<bool>(), true);
        QCOMPARE(large->at("presets").at("predicted_fits").get<bool>(), false);
        QCOMPARE(small->at("oom").get<bool>(), true);
        QCOMPARE(small->at("presets").at("predicted_fits").get<bool>(), true);
        QVERIFY(small->at("presets").at("peak_error").is_null());
        QCOMPARE(summary.at("presets").at("wrong_verdicts").get<int>(), 1);
        QVERIFY(m_markdown.find("- qwen2.5-0.5b zero0 seq 2048 (memory-only batch): wrong verdict")
                != std::string::npos);
    }

    void missingBatchFolderIsNamed()
    {
        const QString missing = m_dir.filePath(QStringLiteral("no-such-batch"));
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(m_timed.string()),
                  QStringLiteral("--memory-only-results"), missing });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("--memory-only-results")) && err.contains(missing), qPrintable(err));
    }

    void presetsFittedElsewhereAreCalledOutOfSample()
    {
        // Without --presets-fitted-on the report says the presets were fitted on these runs.
        QVERIFY(m_markdown.find("figures are in-sample") != std::string::npos);
        const QString out = m_dir.filePath(QStringLiteral("elsewhere"));
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(m_timed.string()),
                  QStringLiteral("--presets-fitted-on"), QStringLiteral("the runs of batch A"), QStringLiteral("--out"),
                  out });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        std::ifstream md((out + QStringLiteral(".md")).toStdString());
        std::stringstream text;
        text << md.rdbuf();
        const std::string report = text.str();
        QVERIFY(
            report.find("fitted to other runs (the runs of batch A), so the presets' figures here are out of sample")
            != std::string::npos);
        QVERIFY(report.find("figures are in-sample") == std::string::npos);
    }

    // run.sh's probe, taken by the real CPU runner: its layer_issue figure becomes every fold's
    // layer_launch_s (within calibrationFromJson's range), the fits keep it, and the report says so.
    void probeSeedsEveryFoldWithTheMeasuredIssueTime()
    {
        if (!QFileInfo(kRunner).isExecutable())
            QSKIP("shardwise-runner is not built (SHARDWISE_BUILD_RUNNER=OFF)");
        const std::filesystem::path probed = std::filesystem::path(m_dir.path().toStdString()) / "probed";
        for (const CellSpec& c : { kSmallTimed, kMediumTimed, kLargeOomTimed })
            writeCell(probed, c, kTimedRunnerKeptNormInputs);
        QProcess runner;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("RANK"), QStringLiteral("0"));
        env.insert(QStringLiteral("WORLD_SIZE"), QStringLiteral("1"));
        env.insert(QStringLiteral("LOCAL_RANK"), QStringLiteral("0"));
        env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("127.0.0.1"));
        env.insert(QStringLiteral("MASTER_PORT"), QString::number(freePort()));
        runner.setProcessEnvironment(env);
        runner.setStandardOutputFile(QString::fromStdString((probed / "probe.jsonl").string()));
        runner.start(kRunner,
                     { QStringLiteral("--probe"), QStringLiteral("--device"), QStringLiteral("cpu"),
                       QStringLiteral("--probe-max-bytes"), QStringLiteral("1e6") });
        QVERIFY(runner.waitForFinished(300000));
        QVERIFY2(runner.exitCode() == 0, runner.readAllStandardError().constData());

        std::optional<protocol::ProbeResult> issue;
        std::ifstream events(probed / "probe.jsonl");
        for (std::string line; std::getline(events, line);)
            if (const auto e = protocol::tryParseEvent(line))
                if (const auto* p = std::get_if<protocol::ProbeEvent>(&*e))
                    for (const protocol::ProbeResult& r : p->results)
                        if (r.kind == "layer_issue")
                            issue = r;
        QVERIFY2(issue && issue->value > 0 && std::isfinite(issue->value), "the probe measured no layer_issue");
        const double expected = std::min(issue->value, 0.1); // calibrationFromJson's upper bound

        const QString out = m_dir.filePath(QStringLiteral("probed-report"));
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(probed.string()),
                  QStringLiteral("--out"), out });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const nlohmann::json report = nlohmann::json::parse(readText(out + QStringLiteral(".json")));
        const std::string markdown = readText(out + QStringLiteral(".md"));

        QCOMPARE(report.at("folds").size(), std::size_t { 3 });
        for (const auto& fold : report.at("folds")) {
            QCOMPARE(fold.at("calibration").at("layer_launch_s").get<double>(), expected);
            const auto& fitted = fold.at("fitted");
            QVERIFY(std::find(fitted.begin(), fitted.end(), "layer_launch_s") == fitted.end());
        }
        QCOMPARE(report.at("calibration_all_models").at("layer_launch_s").get<double>(), expected);
        QCOMPARE(report.at("probe").at("held_fixed").at("layer_launch_s").get<double>(), expected);
        QCOMPARE(report.at("probe").at("device_name").get<std::string>(), std::string("cpu"));
        QVERIFY2(markdown.find("Probe: `" + (probed / "probe.jsonl").string() + "` (cpu)") != std::string::npos,
                 markdown.c_str());
        QVERIFY(markdown.find(") and hold fixed: layer_launch_s = ") != std::string::npos);
        QVERIFY(report.at("probe").at("started_from").contains("layer_launch_s"));
        QVERIFY(markdown.find("layer_launch_s = ") != std::string::npos);

        // The same cells without a probe: the folds fit the launch cost from zero, and nothing is
        // said about a probe.
        QVERIFY(!m_report.contains("probe"));
        QVERIFY(m_markdown.find("Probe: ") == std::string::npos);
        bool anyFoldDiffers = false;
        for (const auto& fold : m_report.at("folds"))
            anyFoldDiffers = anyFoldDiffers || fold.at("calibration").at("layer_launch_s").get<double>() != expected;
        QVERIFY(anyFoldDiffers);
    }

    // `analyze --probe DIR`: the probe of a call that only probed the device seeds every fold, held
    // coefficients included (a GPU probe's layer_kernel too), and the report names that call's binary.
    void probeOfACallOfItsOwnSeedsEveryFold()
    {
        const std::filesystem::path root = std::filesystem::path(m_dir.path().toStdString()) / "probe-call";
        for (const CellSpec& c : { kSmallTimed, kMediumTimed, kLargeOomTimed })
            writeCell(root / "cells", c, kTimedRunnerKeptNormInputs);
        std::filesystem::create_directories(root / "probe");
        std::ofstream(root / "probe" / "probe.jsonl")
            << R"({"device_name":"NVIDIA H200","event":"probe","host":"vm","rank":0,"results":[)"
            << R"({"bytes":0,"kind":"layer_issue","samples":10,"unit":"s","value":0.0007},)"
            << R"({"bytes":0,"kind":"layer_kernel","samples":10,"unit":"s","value":0.000109}],"time":1.0,"v":1,"world":1})"
            << '\n';
        const std::string digest(64, 'c');
        std::ofstream(root / "probe" / "device.txt") << "runner sha256 " << digest << "\n";
        const auto analyze = [&](const QStringList& extra) {
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                    QStringList { QStringLiteral("analyze"), QStringLiteral("--results"),
                                  QString::fromStdString((root / "cells").string()), QStringLiteral("--out"),
                                  QString::fromStdString((root / "report").string()) }
                        + extra);
            p.waitForFinished(120000);
            return std::make_pair(p.exitCode(), QString::fromUtf8(p.readAllStandardError()));
        };
        const auto [code, err]
            = analyze({ QStringLiteral("--probe"), QString::fromStdString((root / "probe").string()) });
        QVERIFY2(code == 0, qPrintable(err));
        const nlohmann::json report
            = nlohmann::json::parse(readText(QString::fromStdString((root / "report.json").string())));
        QCOMPARE(report.at("probe").at("batch").get<std::string>(), (root / "probe").string());
        QCOMPARE(report.at("probe").at("runner_sha256").get<std::string>(), digest);
        QCOMPARE(report.at("probe").at("held_fixed").at("layer_launch_s").get<double>(), 0.0007);
        QCOMPARE(report.at("probe").at("held_fixed").at("layer_kernel_s").get<double>(), 0.000109);
        for (const auto& fold : report.at("folds"))
            QCOMPARE(fold.at("calibration").at("layer_kernel_s").get<double>(), 0.000109);
        const std::string markdown = readText(QString::fromStdString((root / "report.md").string()));
        QVERIFY2(markdown.find("in a call of its own (runner sha256 " + digest + ")") != std::string::npos,
                 markdown.c_str());

        // A folder without a probe is refused by name.
        const auto [badCode, badErr]
            = analyze({ QStringLiteral("--probe"), QString::fromStdString((root / "cells").string()) });
        QCOMPARE(badCode, 2);
        QVERIFY2(badErr.contains(QStringLiteral("--probe")) && badErr.contains(QStringLiteral("no probe.jsonl")),
                 qPrintable(badErr));
    }

    void probeFileWithoutAProbeEventIsNamed()
    {
        const std::filesystem::path dir = std::filesystem::path(m_dir.path().toStdString()) / "bad-probe";
        writeCell(dir, kSmallTimed, kTimedRunnerKeptNormInputs);
        writeCell(dir, kMediumTimed, kTimedRunnerKeptNormInputs);
        std::ofstream(dir / "probe.jsonl")
            << R"({"event":"log","level":"info","message":"probing","rank":0,"time":1.0,"v":1})" << '\n';
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(dir.string()),
                  QStringLiteral("--out"), m_dir.filePath(QStringLiteral("bad-probe-report")) });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QString::fromStdString((dir / "probe.jsonl").string()))
                     && err.contains(QStringLiteral("no probe event")),
                 qPrintable(err));
    }

    // zero0 and zero1 at world 1 are the same work: their tokens/s spread is the machine's
    // repeatability, reported beside the targets and beside each miss at that model and sequence.
    void sameWorkPairsGiveTheRepeatability()
    {
        const std::filesystem::path root = m_dir.path().toStdString();
        const std::filesystem::path batch = root / "pairs";
        const CellSpec zero0 { "qwen2.5-0.5b", Strategy::Zero0, 1024, 40000.0, 5.6 };
        const CellSpec zero1 { "qwen2.5-0.5b", Strategy::Zero1, 1024, 32000.0, 5.6 };
        for (const CellSpec& c : { zero0, zero1, kMediumTimed })
            writeCell(batch, c, false);
        writeDeviceTxt(batch, kTimedCommit);
        // kMediumTimed's zero1 twin measured by another runner binary: no pair with a timed run.
        const std::filesystem::path otherRunner = root / "pairs-memory-only";
        writeCell(otherRunner, { "qwen2.5-1.5b", Strategy::Zero1, 1024, 20000.0, 15.0 }, false);
        writeDeviceTxt(otherRunner, kMemoryOnlyCommit);
        const QString out = QString::fromStdString((root / "pairs-report").string());
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("analyze"), QStringLiteral("--results"), QString::fromStdString(batch.string()),
                  QStringLiteral("--memory-only-results"), QString::fromStdString(otherRunner.string()),
                  QStringLiteral("--out"), out });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const nlohmann::json report = nlohmann::json::parse(readText(out + QStringLiteral(".json")));
        const std::string markdown = readText(out + QStringLiteral(".md"));

        // 1.5B at 1024 has both, its zero1 only in the memory-only batch: a pair needs timed runs.
        const auto& pairs = report.at("repeatability");
        QCOMPARE(pairs.size(), std::size_t { 1 });
        QCOMPARE(pairs[0].at("model").get<std::string>(), std::string("qwen2.5-0.5b"));
        QCOMPARE(pairs[0].at("seq").get<int>(), 1024);
        QCOMPARE(pairs[0].at("spread").get<double>(), 0.25);
        QVERIFY2(markdown.find("Over 1 such pairs: median 25.0 %, widest 25.0 % (qwen2.5-0.5b seq 1024); 1 differ "
                               "by more than the 15 % target.")
                     != std::string::npos,
                 markdown.c_str());
        // Every tokens/s miss of 0.5B at 1024 tokens carries the pair; 1.5B's have none to carry.
        std::istringstream lines(markdown);
        int smallMisses = 0;
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("- qwen2.5-0.5b", 0) == 0 && line.find("tokens/s") != std::string::npos) {
                ++smallMisses;
                QVERIFY2(line.find("zero0 and zero1 here: 40000 and 32000 tokens/s, 25.0 % apart") != std::string::npos,
                         line.c_str());
            }
            if (line.rfind("- qwen2.5-1.5b", 0) == 0)
                QVERIFY2(line.find("zero0 and zero1 here") == std::string::npos, line.c_str());
        }
        QVERIFY2(smallMisses > 0, "the two 0.5B cells 25 % apart cannot both be within 15 % of one prediction");
        QVERIFY(m_report.at("repeatability").empty());
        QVERIFY(m_markdown.find("Repeatability: ") == std::string::npos);
    }

    // A cell that several timed batches of one runner measured counts once, at the median of their
    // tokens/s; a memory-only batch's measurement of it stays apart.
    void repeatedCellsCountOnceAtTheirMedian()
    {
        const std::filesystem::path root = m_dir.path().toStdString();
        QStringList args { QStringLiteral("analyze") };
        int pass = 0;
        for (double tokens : { 40000.0, 30000.0, 36000.0 }) {
            const std::filesystem::path batch = root / ("pass" + std::to_string(++pass));
            writeCell(batch, { "qwen2.5-0.5b", Strategy::Zero0, 1024, tokens, 5.6 }, false);
            if (pass == 1)
                writeCell(batch, kMediumTimed, false);
            writeDeviceTxt(batch, kTimedCommit);
            args << QStringLiteral("--results") << QString::fromStdString(batch.string());
        }
        const std::filesystem::path otherRunner = root / "repeat-memory-only";
        writeCell(otherRunner, { "qwen2.5-0.5b", Strategy::Zero0, 1024, 1000.0, 5.6 }, false);
        writeDeviceTxt(otherRunner, kMemoryOnlyCommit);
        const QString out = QString::fromStdString((root / "repeat-report").string());
        args << QStringLiteral("--memory-only-results") << QString::fromStdString(otherRunner.string())
             << QStringLiteral("--out") << out;
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY), args);
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const nlohmann::json report = nlohmann::json::parse(readText(out + QStringLiteral(".json")));

        int timedSmall = 0;
        int memoryOnlySmall = 0;
        for (const auto& cell : report.at("cells")) {
            if (cell.at("model") != "qwen2.5-0.5b") {
                QVERIFY(cell.at("repeat_tokens_per_s").empty());
                continue;
            }
            if (cell.at("memory_only").get<bool>()) {
                ++memoryOnlySmall;
                QVERIFY(cell.at("repeat_tokens_per_s").empty());
                continue;
            }
            ++timedSmall;
            QCOMPARE(cell.at("measured_tokens_per_s").get<double>(), 36000.0);
            QCOMPARE(cell.at("repeat_tokens_per_s").get<std::vector<double>>(),
                     (std::vector<double> { 40000.0, 30000.0, 36000.0 }));
        }
        QCOMPARE(timedSmall, 1);
        QCOMPARE(memoryOnlySmall, 1);
        QCOMPARE(report.at("summary").at("timed_batches").at("calibrated").at("tokens").at("cells").get<int>(), 2);
    }

    void matrixGivesShortStepsMoreTimedSteps()
    {
        // A step of a few tens of milliseconds (Qwen2.5-0.5B at 1024 tokens) gets 20 timed steps after
        // 5 warm-up; a step of a second or more (14B at 8192) keeps the default 4 after 2.
        QProcess p;
        p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                { QStringLiteral("matrix"), QStringLiteral("--models"), QStringLiteral("qwen2.5-0.5b,qwen2.5-14b"),
                  QStringLiteral("--seqs"), QStringLiteral("1024,8192") });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        int checked = 0;
        for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
            const auto f = line.split('\t');
            if (line.startsWith('#') || f.size() < 7 || f[1] != "zero0")
                continue;
            if (f[0] == "qwen2.5-0.5b" && f[2] == "1024") {
                QCOMPARE(f[5].toInt(), 5);
                QCOMPARE(f[6].toInt(), 20);
                ++checked;
            }
            if (f[0] == "qwen2.5-14b" && f[2] == "8192") {
                QCOMPARE(f[5].toInt(), 2);
                QCOMPARE(f[6].toInt(), 4);
                ++checked;
            }
        }
        QCOMPARE(checked, 2);
    }

    // The analysis predicts every cell for the measuring machine's host RAM: a 14B zero3_offload cell
    // is predicted to fit a 512 GiB node and not to fit one of 125.8 GiB (its host state does not).
    void analysisTakesTheMachinesHostRam()
    {
        const std::filesystem::path dir = std::filesystem::path(m_dir.path().toStdString()) / "offload";
        const CellSpec offload { "qwen2.5-14b", Strategy::Zero3Offload, 1024, 300.0, 47.0 };
        const CellSpec small { "qwen2.5-0.5b", Strategy::Zero0, 1024, 40000.0, 5.6 };
        writeCell(dir, offload, false);
        writeCell(dir, small, false);
        writeDeviceTxt(dir, kTimedCommit);
        std::map<QString, nlohmann::json> reports;
        for (const QString& ram : { QString(), QStringLiteral("125.8") }) {
            const QString out = QString::fromStdString((dir / ("report" + ram.toStdString())).string());
            QStringList args { QStringLiteral("analyze"), QStringLiteral("--results"),
                               QString::fromStdString(dir.string()), QStringLiteral("--out"), out };
            if (!ram.isEmpty())
                args << QStringLiteral("--host-ram-gib") << ram;
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY), args);
            QVERIFY(p.waitForFinished(120000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            reports[ram] = nlohmann::json::parse(readText(out + QStringLiteral(".json")));
            QVERIFY(
                readText(out + QStringLiteral(".md"))
                    .find("Host RAM per node: " + (ram.isEmpty() ? std::string("512.0") : ram.toStdString()) + " GiB")
                != std::string::npos);
        }
        QCOMPARE(reports[QString()].at("host_ram_gib").get<double>(), 512.0);
        QCOMPARE(reports[QStringLiteral("125.8")].at("host_ram_gib").get<double>(), 125.8);
        QCOMPARE(findCell(reports[QString()], offload)->at("presets").at("predicted_fits").get<bool>(), true);
        QCOMPARE(findCell(reports[QStringLiteral("125.8")], offload)->at("presets").at("predicted_fits").get<bool>(),
                 false);
        QCOMPARE(findCell(reports[QStringLiteral("125.8")], small)->at("presets").at("predicted_fits").get<bool>(),
                 true);
    }

    // run.sh records the runner binary's SHA-256: timed batches of two different binaries are named in
    // the report (their tokens/s would otherwise merge as one binary's); batches of one binary are not.
    void timedBatchesOfDifferentBinariesAreNamed()
    {
        const std::filesystem::path root = std::filesystem::path(m_dir.path().toStdString()) / "binaries";
        const std::string first(64, 'a');
        const std::string second = std::string(63, 'a') + "b";
        std::map<std::string, std::string> digests { { "one", first }, { "same", first }, { "other", second } };
        for (const auto& [name, digest] : digests) {
            writeCell(root / name, kSmallTimed, false);
            writeCell(root / name, kMediumTimed, false);
            writeDeviceTxt(root / name, kTimedCommit);
            std::ofstream(root / name / "device.txt", std::ios::app) << "runner sha256 " << digest << "\n";
        }
        const auto analyze = [&](const std::string& a, const std::string& b) {
            const QString out = QString::fromStdString((root / ("report-" + a + "-" + b)).string());
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                    { QStringLiteral("analyze"), QStringLiteral("--results"),
                      QString::fromStdString((root / a).string()), QStringLiteral("--results"),
                      QString::fromStdString((root / b).string()), QStringLiteral("--out"), out });
            p.waitForFinished(120000);
            return std::make_tuple(p.exitCode(), readText(out + QStringLiteral(".md")),
                                   readText(out + QStringLiteral(".json")));
        };
        const auto [sameExit, sameMd, sameJson] = analyze("one", "same");
        QCOMPARE(sameExit, 0);
        QVERIFY(sameMd.find("different runner binaries") == std::string::npos);
        QVERIFY(sameMd.find("binary sha256 aaaaaaaaaaaa") != std::string::npos);
        QCOMPARE(nlohmann::json::parse(sameJson).at("batches")[0].at("runner_sha256").get<std::string>(), first);
        const auto [otherExit, otherMd, otherJson] = analyze("one", "other");
        QCOMPARE(otherExit, 0);
        QVERIFY2(
            otherMd.find("The timed batches recorded 2 different runner binaries (sha256 " + first + " " + second + ")")
                != std::string::npos,
            otherMd.c_str());
        QCOMPARE(nlohmann::json::parse(otherJson).at("batches")[1].at("runner_sha256").get<std::string>(), second);
    }

    // bench/rehearsal/run.py's cells (rank 0 of world W, `--rehearse-world W`) given as
    // --rehearsal-results: memory results only, predicted as one rank of W GPUs of the rehearsal's
    // preset, out of the world-1 table and its tokens/s, each predicted by the fold that left its model
    // out; a folder of ordinary runs given that way is refused.
    void rehearsedRanksAreMemoryResultsOfWorldN()
    {
        const std::filesystem::path root = std::filesystem::path(m_dir.path().toStdString()) / "rehearsal";
        writeCell(root / "timed", kSmallTimed, false);
        writeCell(root / "timed", kMediumTimed, false);
        writeDeviceTxt(root / "timed", kTimedCommit);
        struct Rehearsed {
            CellSpec cell;
            int world;
            double reservedGiB;
        };
        const std::vector<Rehearsed> rehearsals { { { "qwen2.5-1.5b", Strategy::Zero3, 2048, 0.0, 6.0 }, 8, 7.5 },
                                                  { { "qwen2.5-3b", Strategy::Zero3, 2048, 0.0, 9.0 }, 64, 10.0 } };
        const std::filesystem::path dir = root / "rehearsed";
        std::filesystem::create_directories(dir / "cells");
        for (const Rehearsed& r : rehearsals) {
            std::ofstream out(
                dir / "cells"
                / ("native__" + std::string(r.cell.model) + "__zero3__w" + std::to_string(r.world) + ".jsonl"));
            protocol::StartEvent start;
            start.config = runConfig(r.cell);
            start.config.rehearseWorld = r.world;
            start.deviceName = "NVIDIA H100 80GB HBM3";
            start.launcher = "shardwise";
            start.versions = writtenVersions(false);
            out << protocol::serialize(start) << '\n';
            protocol::SummaryEvent s;
            s.warmupSteps = 1;
            s.timedSteps = 2;
            s.tokensPerS = 0; // a rehearsal reports none
            s.medianStepS = 0.5;
            s.rehearsedWorld = r.world;
            s.memory.peakAllocated = static_cast<std::int64_t>(r.cell.peakGiB * kGiB);
            s.memory.peakReserved = static_cast<std::int64_t>(r.reservedGiB * kGiB);
            out << protocol::serialize(s) << '\n';
        }
        const auto analyze = [&](const QStringList& extra, const std::string& name) {
            const QString out = QString::fromStdString((root / name).string());
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                    QStringList { QStringLiteral("analyze"), QStringLiteral("--results"),
                                  QString::fromStdString((root / "timed").string()), QStringLiteral("--out"), out }
                        + extra);
            p.waitForFinished(120000);
            return std::make_tuple(p.exitCode(), QString::fromUtf8(p.readAllStandardError()), out);
        };
        const auto [code, err, out]
            = analyze({ QStringLiteral("--rehearsal-results"), QString::fromStdString(dir.string()),
                        QStringLiteral("--rehearsal-gpu"), QStringLiteral("h100-80gb") },
                      "with-rehearsals");
        QVERIFY2(code == 0, qPrintable(err));
        const nlohmann::json report = nlohmann::json::parse(readText(out + QStringLiteral(".json")));
        // The world-1 table holds the two timed cells only.
        QCOMPARE(report.at("cells").size(), std::size_t(2));
        const nlohmann::json& cells = report.at("rehearsed_cells");
        QCOMPARE(cells.size(), rehearsals.size());
        for (const Rehearsed& r : rehearsals) {
            const auto found = std::find_if(cells.begin(), cells.end(),
                                            [&](const nlohmann::json& j) { return j.at("model") == r.cell.model; });
            QVERIFY(found != cells.end());
            QCOMPARE(found->at("rehearsed_world").get<int>(), r.world);
            QCOMPARE(found->at("target").get<std::string>(), std::string("native"));
            QVERIFY(!found->contains("measured_tokens_per_s"));
            // The presets' prediction is one rank of W H100s: the plan's peak less its CUDA context.
            EstimateInput in = estimateInput(r.cell, false);
            in.gpu = *PresetCatalog::builtin().findGpu("h100-80gb");
            in.cluster.gpusPerNode = 1;
            in.cluster.nodes = r.world;
            const Estimate e = estimate(in, r.cell.strategy, Calibration {});
            const double expected = (e.memory.peakBytes() - e.memory.runtimeContext) / kGiB;
            const nlohmann::json& presets = found->at("presets");
            QVERIFY2(std::abs(presets.at("less_context_gib").get<double>() - expected) < 1e-9,
                     qPrintable(QString::number(presets.at("less_context_gib").get<double>())));
            QVERIFY(std::abs(presets.at("error_vs_reserved").get<double>() - (expected - r.reservedGiB) / r.reservedGiB)
                    < 1e-9);
            // A rank of world 8 or 64 holds far less than the whole model's state: the plan's world is W.
            const Estimate one = estimate(estimateInput(r.cell, false), r.cell.strategy, Calibration {});
            QVERIFY(expected < (one.memory.peakBytes() - one.memory.runtimeContext) / kGiB);
            QVERIFY(found->at("model_held_out").at("error_vs_reserved").is_number());
        }
        QCOMPARE(report.at("rehearsed_summary").at("native").at("presets").at("compared").get<int>(), 2);
        const std::string markdown = readText(out + QStringLiteral(".md"));
        QVERIFY(markdown.find("## Rehearsed ranks of world N (memory only)") != std::string::npos);
        QVERIFY(markdown.find("`h100-80gb` preset") != std::string::npos);
        // The rehearsals are memory samples of the fit on all models: its memory fit differs from the
        // timed batch's alone.
        const auto [aloneCode, aloneErr, aloneOut] = analyze({}, "without-rehearsals");
        QVERIFY2(aloneCode == 0, qPrintable(aloneErr));
        const nlohmann::json alone = nlohmann::json::parse(readText(aloneOut + QStringLiteral(".json")));
        QVERIFY(!alone.contains("rehearsed_cells"));
        QVERIFY(alone.at("calibration_all_models") != report.at("calibration_all_models"));
        // Ordinary runs given as rehearsals: refused, naming the file.
        const auto [badCode, badErr, badOut] = analyze(
            { QStringLiteral("--rehearsal-results"), QString::fromStdString((root / "timed").string()) }, "bad");
        QCOMPARE(badCode, 2);
        QVERIFY2(badErr.contains(QStringLiteral("is no rehearsal")), qPrintable(badErr));
    }

    // The H200 machine has 125.8 GiB of RAM. Qwen2.5-14B's offload cells fit its GPU, but their
    // page-locked host state (about 110 GiB) exceeds the usable 80 % of that RAM: with the machine's
    // RAM given they are predicted not to fit and not run (not even as OOM proofs, which are for
    // device shortfalls only), while 7B's (about 57 GiB) still run. With the planner's default
    // 512 GiB node both run.
    void matrixTakesTheMachinesHostRam()
    {
        const auto offloadCells = [](const QStringList& extra) {
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_BENCH_FIDELITY),
                    QStringList { QStringLiteral("matrix"), QStringLiteral("--models"),
                                  QStringLiteral("qwen2.5-7b,qwen2.5-14b"), QStringLiteral("--seqs"),
                                  QStringLiteral("1024") }
                        + extra);
            p.waitForFinished(120000);
            std::map<std::string, std::pair<std::string, std::string>> out; // model -> (predicted, run)
            for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
                const auto f = line.split('\t');
                if (!line.startsWith('#') && f.size() >= 5 && f[1] == "zero3_offload")
                    out[f[0].toStdString()] = { f[3].toStdString(), f[4].toStdString() };
            }
            return std::make_pair(p.exitCode(), out);
        };
        const auto [machineExit, machine] = offloadCells({ QStringLiteral("--host-ram-gib"), QStringLiteral("125.8") });
        QCOMPARE(machineExit, 0);
        QCOMPARE(machine.at("qwen2.5-14b"), std::make_pair(std::string("host_oom"), std::string("no")));
        QCOMPARE(machine.at("qwen2.5-7b"), std::make_pair(std::string("fits"), std::string("yes")));
        const auto [defaultExit, node512] = offloadCells({});
        QCOMPARE(defaultExit, 0);
        QCOMPARE(node512.at("qwen2.5-14b"), std::make_pair(std::string("fits"), std::string("yes")));
        const auto [badExit, bad] = offloadCells({ QStringLiteral("--host-ram-gib"), QStringLiteral("lots") });
        QCOMPARE(badExit, 2);
        QVERIFY(bad.empty());
    }
};

QTEST_GUILESS_MAIN(TestFidelityAnalyze)
#include "test_fidelity_analyze.moc"
