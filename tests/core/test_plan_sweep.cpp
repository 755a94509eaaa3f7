// What-if sweeps (core/plan, shardwise/plan/sweep.hpp): facts the planner's figures must obey across a
// grid (a longer sequence never lowers a strategy's peak; more GPUs never raise a sharded strategy's
// peak per GPU), every point equal to a single plan at its input, the grid's order, its JSON and CSV,
// and bad axes refused with a message naming the value.
#include "estimate_input.hpp"

#include "shardwise/plan/sweep.hpp"
#include "shardwise/spec/json.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <charconv>
#include <sstream>

using namespace shardwise;

namespace {

SweepAxisValues axis(SweepAxis a, std::vector<int> values)
{
    return { a, std::move(values) };
}

bool shardsState(Strategy s)
{
    const StrategyTraits& t = traits(s);
    return t.shardsOptimizer || t.shardsGradients || t.shardsParameters;
}

// The SpecError `f` throws: its field and text; empty when it throws none.
template <typename F> std::pair<std::string, std::string> specErrorOf(F&& f)
{
    try {
        f();
    } catch (const SpecError& e) {
        return { e.field(), e.what() };
    }
    return {};
}

std::vector<std::string> splitLine(const std::string& line)
{
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            return fields;
        start = comma + 1;
    }
}

double parsed(const std::string& text)
{
    double x = 0;
    std::from_chars(text.data(), text.data() + text.size(), x);
    return x;
}

} // namespace

class TestPlanSweep : public QObject {
    Q_OBJECT

private slots:
    // The same strategy at a longer sequence keeps more activations and a larger logits chunk: its
    // planned peak is never lower. Where the recommendation stays the same, neither is the point's.
    void longerSequenceNeverLowersThePeak()
    {
        for (const char* model : { "qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-32b" }) {
            const EstimateInput base = input(model, "h100-80gb", 8);
            const SweepResult s
                = runSweep(base, { axis(SweepAxis::SeqLen, { 256, 512, 1024, 2048, 4096, 8192, 16384, 32768 }) });
            QCOMPARE(s.points.size(), std::size_t(8));
            for (std::size_t i = 1; i < s.points.size(); ++i) {
                const SweepPoint& shorter = s.points[i - 1];
                const SweepPoint& longer = s.points[i];
                QVERIFY(longer.seqLen > shorter.seqLen);
                for (std::size_t k = 0; k < kStrategyCount; ++k)
                    QVERIFY2(longer.candidatePeakBytes[k] >= shorter.candidatePeakBytes[k],
                             qPrintable(QStringLiteral("%1 %2 at seq %3")
                                            .arg(QLatin1String(model), QLatin1String(allStrategies()[k].id))
                                            .arg(longer.seqLen)));
                if (longer.strategy == shorter.strategy)
                    QVERIFY(longer.peakBytes >= shorter.peakBytes);
            }
        }
    }

    // Sharding divides state by the world: more GPUs per node or more nodes never raise a sharded
    // strategy's peak per GPU. Compared between distributed worlds: a single GPU has no NCCL buffers in
    // its CUDA context (runtime_context), which the first step to two GPUs adds whatever the sharding.
    void moreGpusNeverRaiseAShardedPeak()
    {
        for (const char* model : { "qwen2.5-7b", "qwen2.5-72b" }) {
            const EstimateInput base = input(model, "h200", 1);
            const SweepResult s = runSweep(
                base, { axis(SweepAxis::Nodes, { 1, 2, 4, 16 }), axis(SweepAxis::GpusPerNode, { 1, 2, 4, 8 }) });
            QCOMPARE(s.points.size(), std::size_t(16));
            for (const SweepPoint& a : s.points)
                for (const SweepPoint& b : s.points) {
                    if (a.worldSize() < 2
                        || !(b.worldSize() > a.worldSize() && b.nodes >= a.nodes && b.gpusPerNode >= a.gpusPerNode))
                        continue;
                    for (std::size_t k = 0; k < kStrategyCount; ++k) {
                        if (!shardsState(allStrategies()[k].strategy))
                            continue;
                        QVERIFY2(b.candidatePeakBytes[k] <= a.candidatePeakBytes[k],
                                 qPrintable(QStringLiteral("%1 %2: %3x%4 above %5x%6")
                                                .arg(QLatin1String(model), QLatin1String(allStrategies()[k].id))
                                                .arg(b.nodes)
                                                .arg(b.gpusPerNode)
                                                .arg(a.nodes)
                                                .arg(a.gpusPerNode)));
                    }
                }
        }
    }

    // Every point is what makePlan says at that input, bit for bit: one peak, one definition.
    void everyPointEqualsASinglePlan()
    {
        // 72B on 40 GB A100s: nothing fits on few GPUs at long sequences, something on more.
        EstimateInput base = input("qwen2.5-72b", "a100-40gb", 8);
        base.training.activationCheckpointing = true;
        const std::vector<SweepAxisValues> axes { axis(SweepAxis::SeqLen, { 1024, 4096 }),
                                                  axis(SweepAxis::MicroBatch, { 1, 2 }),
                                                  axis(SweepAxis::GpusPerNode, { 4, 8 }),
                                                  axis(SweepAxis::Nodes, { 1, 4 }) };
        const SweepResult s = runSweep(base, axes);
        QCOMPARE(s.points.size(), std::size_t(16));
        int fitting = 0;
        for (const SweepPoint& p : s.points) {
            EstimateInput in = base;
            in.training.seqLen = p.seqLen;
            in.training.microBatch = p.microBatch;
            in.cluster.gpusPerNode = p.gpusPerNode;
            in.cluster.nodes = p.nodes;
            const Plan plan = makePlan(in);
            QCOMPARE(p.recommended, plan.recommendation.strategy);
            QCOMPARE(p.fits, plan.recommendation.strategy.has_value());
            const Estimate& e = plan.candidate(p.strategy).estimate;
            QCOMPARE(p.peakBytes, e.memory.peakBytes());
            QCOMPARE(p.tokensPerS, e.throughput.tokensPerS);
            for (std::size_t k = 0; k < kStrategyCount; ++k)
                QCOMPARE(p.candidatePeakBytes[k], plan.candidates[k].estimate.memory.peakBytes());
            if (p.fits) {
                ++fitting;
                QCOMPARE(p.strategy, *plan.recommendation.strategy);
            } else {
                // The figures are the supported candidate's that comes closest.
                for (const Candidate& c : plan.candidates)
                    if (c.estimate.supported)
                        QVERIFY(p.peakBytes <= c.estimate.memory.peakBytes());
            }
        }
        QVERIFY(fitting > 0);
        QVERIFY(fitting < 16); // the grid shows both
    }

    // The first axis varies slowest, the last fastest; an axis not swept keeps the input's value.
    void pointsFollowTheAxesOrder()
    {
        EstimateInput base = input("qwen2.5-3b", "h200", 2);
        base.cluster.nodes = 3;
        const SweepResult s
            = runSweep(base, { axis(SweepAxis::MicroBatch, { 4, 1 }), axis(SweepAxis::SeqLen, { 512, 1024, 2048 }) });
        QCOMPARE(s.points.size(), std::size_t(6));
        const int expected[6][2] = { { 4, 512 }, { 4, 1024 }, { 4, 2048 }, { 1, 512 }, { 1, 1024 }, { 1, 2048 } };
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(s.points[i].microBatch, expected[i][0]);
            QCOMPARE(s.points[i].seqLen, expected[i][1]);
            QCOMPARE(s.points[i].gpusPerNode, 2);
            QCOMPARE(s.points[i].nodes, 3);
            QCOMPARE(s.points[i].worldSize(), 6);
        }
        QCOMPARE(s.at({ 1, 2 }), &s.points[5]);
        QCOMPARE(s.at({ 0, 1 }), &s.points[1]);
        QVERIFY(s.at({ 2, 0 }) == nullptr);
        QVERIFY(s.at({ 0 }) == nullptr);

        // No axis at all: one point, the input's own plan.
        const SweepResult one = runSweep(base, {});
        QCOMPARE(one.points.size(), std::size_t(1));
        QCOMPARE(one.points.front().peakBytes,
                 makePlan(base).candidate(one.points.front().strategy).estimate.memory.peakBytes());
    }

    void jsonAndCsvCarryEveryPoint()
    {
        EstimateInput base = input("qwen2.5-14b", "l4", 1, Interconnect::Pcie);
        const SweepResult s
            = runSweep(base, { axis(SweepAxis::SeqLen, { 512, 8192 }), axis(SweepAxis::GpusPerNode, { 1, 4 }) });
        const nlohmann::json j = toJson(s);
        QCOMPARE(j.at("axes").size(), std::size_t(2));
        QCOMPARE(j.at("axes")[0].at("axis").get<std::string>(), std::string("seq"));
        QCOMPARE(j.at("axes")[1].at("values"), nlohmann::json({ 1, 4 }));
        QCOMPARE(j.at("points").size(), s.points.size());

        const std::string csv = toCsv(s);
        std::istringstream lines(csv);
        std::string line;
        std::getline(lines, line);
        QCOMPARE(line,
                 std::string("seq_len,micro_batch,gpus_per_node,nodes,world_size,recommended,strategy,fits,peak_gib,"
                             "tokens_per_s"));
        std::size_t row = 0;
        bool sawNothingFits = false;
        while (std::getline(lines, line)) {
            QVERIFY(row < s.points.size());
            const SweepPoint& p = s.points[row];
            const nlohmann::json& jp = j.at("points")[row];
            const std::vector<std::string> f = splitLine(line);
            QCOMPARE(f.size(), std::size_t(10));
            QCOMPARE(f[0], std::to_string(p.seqLen));
            QCOMPARE(f[2], std::to_string(p.gpusPerNode));
            QCOMPARE(f[4], std::to_string(p.worldSize()));
            QCOMPARE(f[6], std::string(strategyId(p.strategy)));
            QCOMPARE(f[7], std::string(p.fits ? "true" : "false"));
            // The same double in both, read back exactly.
            QCOMPARE(parsed(f[8]), p.peakBytes / kGiB);
            QCOMPARE(jp.at("peak_gib").get<double>(), p.peakBytes / kGiB);
            QCOMPARE(parsed(f[9]), p.tokensPerS);
            QCOMPARE(jp.at("tokens_per_s").get<double>(), p.tokensPerS);
            if (p.fits) {
                QCOMPARE(f[5], std::string(strategyId(*p.recommended)));
                QCOMPARE(jp.at("recommended").get<std::string>(), f[5]);
            } else {
                sawNothingFits = true;
                QVERIFY(f[5].empty());
                QVERIFY(jp.at("recommended").is_null());
            }
            ++row;
        }
        QCOMPARE(row, s.points.size());
        QVERIFY(sawNothingFits); // 14B at 8192 tokens on one 24 GB L4
    }

    void badAxesAreRefusedNamingTheValue_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("names");
        QTest::newRow("empty list") << QStringLiteral("seq=") << QStringLiteral("sweep.seq")
                                    << QStringLiteral("no values");
        QTest::newRow("empty value") << QStringLiteral("seq=1024,,2048") << QStringLiteral("sweep.seq")
                                     << QStringLiteral("'1024,,2048'");
        QTest::newRow("trailing comma") << QStringLiteral("nodes=1,2,") << QStringLiteral("sweep.nodes")
                                        << QStringLiteral("'1,2,'");
        QTest::newRow("zero") << QStringLiteral("micro-batch=1,0") << QStringLiteral("sweep.micro-batch")
                              << QStringLiteral("got '0'");
        QTest::newRow("negative") << QStringLiteral("nodes=-2") << QStringLiteral("sweep.nodes")
                                  << QStringLiteral("got '-2'");
        QTest::newRow("not a number") << QStringLiteral("seq=2k") << QStringLiteral("sweep.seq")
                                      << QStringLiteral("got '2k'");
        QTest::newRow("fraction") << QStringLiteral("gpus-per-node=1.5") << QStringLiteral("sweep.gpus-per-node")
                                  << QStringLiteral("got '1.5'");
        QTest::newRow("words") << QStringLiteral("seq=long") << QStringLiteral("sweep.seq")
                               << QStringLiteral("got 'long'");
        QTest::newRow("above bound") << QStringLiteral("gpus-per-node=8,128") << QStringLiteral("sweep.gpus-per-node")
                                     << QStringLiteral("[1, 64], got '128'");
        QTest::newRow("overflow") << QStringLiteral("seq=99999999999999999999") << QStringLiteral("sweep.seq")
                                  << QStringLiteral("got '99999999999999999999'");
        QTest::newRow("twice") << QStringLiteral("seq=2048,1024,2048") << QStringLiteral("sweep.seq")
                               << QStringLiteral("'2048' is given twice");
        QTest::newRow("unknown axis") << QStringLiteral("sequence=1024") << QStringLiteral("sweep")
                                      << QStringLiteral("unknown axis 'sequence'");
        QTest::newRow("mistyped axis") << QStringLiteral("node=1,2") << QStringLiteral("sweep")
                                       << QStringLiteral("did you mean 'nodes'?");
        QTest::newRow("no axis") << QStringLiteral("1024,2048") << QStringLiteral("sweep")
                                 << QStringLiteral("got '1024,2048'");
    }

    void badAxesAreRefusedNamingTheValue()
    {
        QFETCH(QString, text);
        QFETCH(QString, field);
        QFETCH(QString, names);
        const auto [f, what] = specErrorOf([&] { parseSweepAxis(text.toStdString()); });
        QCOMPARE(QString::fromStdString(f), field);
        QVERIFY2(QString::fromStdString(what).contains(names), what.c_str());
    }

    // Axes built in code (the desktop app's) are checked as a whole before anything is planned.
    void runSweepChecksTheAxes()
    {
        const EstimateInput base = input("qwen2.5-3b", "h200");
        auto [f, what] = specErrorOf([&] { runSweep(base, { axis(SweepAxis::Nodes, {}) }); });
        QCOMPARE(f, std::string("sweep.nodes"));
        std::tie(f, what) = specErrorOf([&] { runSweep(base, { axis(SweepAxis::SeqLen, { 1024, 0 }) }); });
        QCOMPARE(f, std::string("sweep.seq"));
        QVERIFY(what.find("got '0'") != std::string::npos);
        std::tie(f, what) = specErrorOf([&] {
            runSweep(base, { axis(SweepAxis::SeqLen, { 1024 }), axis(SweepAxis::SeqLen, { 2048 }) });
        });
        QCOMPARE(f, std::string("sweep.seq"));
        QVERIFY(what.find("given twice") != std::string::npos);
        std::vector<int> many(100);
        for (int i = 0; i < 100; ++i)
            many[static_cast<std::size_t>(i)] = i + 1;
        std::tie(f, what) = specErrorOf([&] {
            runSweep(base, { axis(SweepAxis::SeqLen, many), axis(SweepAxis::MicroBatch, many) });
        });
        QCOMPARE(f, std::string("sweep"));
        QVERIFY(what.find("more than 4096 points") != std::string::npos);
    }

    // A point the planner cannot take is refused naming the point and the planner's field.
    void aPointThePlannerRefusesIsNamed()
    {
        const EstimateInput base = input("qwen2.5-3b", "l4", 1, Interconnect::NvLink); // no NVLink on an L4
        const auto [f, what] = specErrorOf([&] { runSweep(base, { axis(SweepAxis::GpusPerNode, { 1, 4 }) }); });
        QCOMPARE(f, std::string("cluster.intra_node"));
        QVERIFY2(what.find("at seq=2048, micro-batch=1, gpus-per-node=4, nodes=1: ") != std::string::npos,
                 what.c_str());
    }
};

QTEST_APPLESS_MAIN(TestPlanSweep)
#include "test_plan_sweep.moc"
