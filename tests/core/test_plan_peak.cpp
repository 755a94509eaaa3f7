// One truth per number: the peak a plan compares with the GPU's usable memory is the figure of the
// CLI's table and JSON (the real shardwise-cli, run as a process), of the reasons, of the parts the
// memory chart stacks (peakParts), and "fits" holds exactly when it is at most the usable capacity.
// The GUI's faces of the same figure are checked in tests/gui/test_plan_figures.cpp.
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace shardwise;
using nlohmann::json;

namespace {

struct PlanCase {
    const char* name;
    const char* model;
    const char* gpu;
    int gpusPerNode;
    int seq;
    bool checkpointing;
};

// The two plans of the issue (Qwen2.5-7B on 8 x H100 at 4096 tokens, where zero0's figures once
// read 73.6, 75.4 and 82.7 GiB; on 4 x L4 with checkpointing, where zero3 read 21.5 GiB on a 22.5
// GiB GPU and "short by 1.06 GiB"), and one plan per decision step.
const PlanCase kCases[] = {
    { "7b on 8 x h100, seq 4096", "qwen2.5-7b", "h100-80gb", 8, 4096, false },
    { "7b on 4 x l4, seq 4096, checkpointing", "qwen2.5-7b", "l4", 4, 4096, true },
    { "7b on 4 x l4, seq 4096: nothing fits", "qwen2.5-7b", "l4", 4, 4096, false },
    { "72b on 8 x h200: full shard", "qwen2.5-72b", "h200", 8, 512, false },
    { "14b on 1 x l4: offload", "qwen2.5-14b", "l4", 1, 512, false },
    { "3b on 1 x h200", "qwen2.5-3b", "h200", 1, 2048, false },
};

EstimateInput inputOf(const PlanCase& c)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(c.model);
    in.gpu = *PresetCatalog::builtin().findGpu(c.gpu);
    in.cluster.gpusPerNode = c.gpusPerNode;
    in.cluster.intraNode = in.gpu.nvlinkGBps > 0 ? Interconnect::NvLink : Interconnect::Pcie;
    in.training.seqLen = c.seq;
    in.training.activationCheckpointing = c.checkpointing;
    return in;
}

QStringList cliArgs(const PlanCase& c)
{
    QStringList args { QStringLiteral("plan"),         QStringLiteral("--model"),  QString::fromLatin1(c.model),
                       QStringLiteral("--gpu"),        QString::fromLatin1(c.gpu), QStringLiteral("--gpus-per-node"),
                       QString::number(c.gpusPerNode), QStringLiteral("--seq"),    QString::number(c.seq) };
    if (c.checkpointing)
        args << QStringLiteral("--activation-checkpointing");
    return args;
}

QByteArray runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(SHARDWISE_CLI), args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        qWarning() << "shardwise-cli" << args << "failed:" << p.readAllStandardError();
    return p.readAllStandardOutput();
}

QString oneDecimal(double gib)
{
    return QString::asprintf("%.1f", gib);
}

} // namespace

class TestPlanPeak : public QObject {
    Q_OBJECT

private slots:
    void everyFaceShowsThePeakTheVerdictWeighs_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i)
            QTest::newRow(kCases[i].name) << i;
    }
    void everyFaceShowsThePeakTheVerdictWeighs()
    {
        QFETCH(int, index);
        const PlanCase& pc = kCases[index];
        const Plan plan = makePlan(inputOf(pc));

        const json cliJson
            = json::parse(runCli(cliArgs(pc) << QStringLiteral("--format") << QStringLiteral("json")).toStdString());
        const QString table = QString::fromUtf8(runCli(cliArgs(pc)));
        QVERIFY2(!table.isEmpty(), pc.name);
        QCOMPARE(cliJson.at("candidates").size(), plan.candidates.size());

        // The reasons' figures per strategy: "<id> fits: predicted peak X GiB" / "<id> does not fit: ...".
        QHash<QString, QString> reasonPeak;
        QHash<QString, QString> reasonUsable;
        static const QRegularExpression peakInReason(
            QStringLiteral(R"((\w+) (?:fits|does not fit): predicted peak ([0-9.]+) GiB .*?the usable ([0-9.]+) GiB)"));
        for (const std::string& reason : plan.recommendation.reasons) {
            auto it = peakInReason.globalMatch(QString::fromStdString(reason));
            while (it.hasNext()) {
                const QRegularExpressionMatch m = it.next();
                reasonPeak.insert(m.captured(1), m.captured(2));
                reasonUsable.insert(m.captured(1), m.captured(3));
            }
        }
        QVERIFY2(!reasonPeak.isEmpty(), qPrintable(QString::fromStdString(plan.recommendation.reasons.front())));

        for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
            const Estimate& e = plan.candidates[i].estimate;
            const QString id = QString::fromLatin1(strategyId(e.strategy).data());
            const double peak = e.memory.peakBytes();

            // The chart stacks peakParts: they sum to the peak exactly, the context as a named part.
            double stacked = 0;
            bool contextNamed = false;
            for (const PeakPart& part : peakParts(e.memory)) {
                stacked += part.bytes;
                contextNamed = contextNamed || (part.id == "runtime_context" && part.bytes == e.memory.runtimeContext);
            }
            QCOMPARE(stacked, peak);
            QVERIFY(contextNamed);

            // The verdict: fits the GPU exactly when the peak is at most the usable capacity.
            QCOMPARE(e.fitsDevice, peak <= e.deviceCapacityBytes - e.headroomBytes);
            QCOMPARE(e.usableDeviceBytes(), e.deviceCapacityBytes - e.headroomBytes);

            // The CLI's JSON: the same peak, and the capacity and headroom it was weighed against.
            const json& c = cliJson.at("candidates")[i];
            QCOMPARE(QString::fromStdString(c.at("strategy").get<std::string>()), id);
            const double jsonPeak = c.at("peak_gib").get<double>();
            QVERIFY2(std::abs(jsonPeak - peak / kGiB) <= 1e-9 * jsonPeak, qPrintable(id));
            const double jsonUsable = c.at("capacity_gib").get<double>() - c.at("headroom_gib").get<double>();
            QCOMPARE(c.at("fits_device").get<bool>(), jsonPeak <= jsonUsable);
            double jsonParts = 0;
            for (const auto& [key, value] : c.at("breakdown_gib").items())
                if (key != "fragmentation" && !key.starts_with("host_"))
                    jsonParts += value.get<double>();
            QVERIFY2(std::abs(jsonParts - jsonPeak) <= 1e-9 * jsonPeak, qPrintable(id));

            // The CLI's table: the row's peak column is the same figure to one decimal.
            static const QRegularExpression row(QStringLiteral(R"(^(\S+)\s+(yes|no: host|no|n/a)\s+([0-9.]+)\s)"),
                                                QRegularExpression::MultilineOption);
            bool rowSeen = false;
            for (auto it = row.globalMatch(table); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                if (m.captured(1) == id) {
                    QCOMPARE(m.captured(3), oneDecimal(peak / kGiB));
                    QCOMPARE(m.captured(2) == QLatin1String("yes") || m.captured(2) == QLatin1String("no: host"),
                             e.supported && e.fitsDevice);
                    rowSeen = true;
                }
            }
            QVERIFY2(rowSeen, qPrintable(id));

            // The reasons: where they speak of this strategy's peak, the same figure and usable capacity.
            if (reasonPeak.contains(id)) {
                QCOMPARE(reasonPeak.value(id), oneDecimal(peak / kGiB));
                QCOMPARE(reasonUsable.value(id), oneDecimal(e.usableDeviceBytes() / kGiB));
            }
        }
        // The table's header states the usable capacity the verdicts used.
        const Estimate& first = plan.candidates.front().estimate;
        QVERIFY2(table.contains(oneDecimal(first.usableDeviceBytes() / kGiB) + QStringLiteral(" GiB usable")),
                 qPrintable(table));
    }

    // Plans stored before the peak was defined once counted the allocator's cache in peak_gib and
    // carried no capacity: they still read, while a current plan whose peak_gib has the cache in it is
    // refused naming the field.
    void planJsonOfTheEarlierPeakReads()
    {
        const Plan plan = makePlan(inputOf(kCases[0]));
        json legacy = toJson(plan);
        for (json& c : legacy.at("candidates")) {
            const json& b = c.at("breakdown_gib");
            c.at("peak_gib") = c.at("peak_gib").get<double>() + b.at("fragmentation").get<double>();
            c.erase("capacity_gib");
            c.erase("headroom_gib");
        }
        const Plan back = planFromJson(legacy);
        QCOMPARE(back.recommendation.strategy, plan.recommendation.strategy);
        QCOMPARE(back.candidates[0].estimate.memory.peakBytes(), plan.candidates[0].estimate.memory.peakBytes());

        json mixed = toJson(plan);
        mixed.at("candidates")[0].at("peak_gib") = legacy.at("candidates")[0].at("peak_gib");
        try {
            planFromJson(mixed);
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("plan.candidates[0].peak_gib"));
        }
    }

    // A document whose fits_device contradicts its own peak and usable capacity is refused.
    void planJsonWithAVerdictAgainstItsFiguresIsRefused()
    {
        json j = toJson(makePlan(inputOf(kCases[0])));
        json& zero0 = j.at("candidates")[0];
        QVERIFY(zero0.at("fits_device").get<bool>());
        zero0.at("capacity_gib") = zero0.at("peak_gib").get<double>() - 1.0;
        zero0.at("headroom_gib") = 0.0;
        try {
            planFromJson(j);
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("plan.candidates[0].fits_device"));
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanPeak)
#include "test_plan_peak.moc"
