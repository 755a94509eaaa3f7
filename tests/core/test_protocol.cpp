// Behaviour of core/protocol: every event survives a round trip, malformed lines are named, and the
// order statistics match their textbook definitions.
#include "shardwise/protocol/events.hpp"
#include "shardwise/protocol/statistics.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

using namespace shardwise;
using namespace shardwise::protocol;

class TestProtocol : public QObject {
    Q_OBJECT

private slots:
    void startEventRoundTrips()
    {
        StartEvent s;
        s.rank = 1;
        s.world = 2;
        s.host = "node-a";
        s.config.model = *PresetCatalog::builtin().findModel("tiny");
        s.config.strategy = Strategy::Zero2;
        s.config.training.seqLen = 64;
        s.versions.libtorch = "1.13.1";
        s.allocator = { "expandable_segments:True", true, 40LL << 30 };
        s.launcher = "torchrun";
        const Event back = parseEvent(serialize(s));
        const auto& b = std::get<StartEvent>(back);
        QCOMPARE(b.rank, 1);
        QCOMPARE(b.allocator.memoryCapBytes, std::int64_t { 40LL << 30 });
        QCOMPARE(b.config.strategy, Strategy::Zero2);
        QCOMPARE(b.config.model.parameterCount(), s.config.model.parameterCount());
        QVERIFY(b.allocator.expandableSegments);
        QCOMPARE(b.launcher, std::string("torchrun"));
        QCOMPARE(serialize(back), serialize(s));
    }

    // The versions that tell the planner which runner measured a run survive a round trip; a start
    // event from a runner that predates a field reads as empty there (the older runner's behaviour).
    void runnerBehaviourVersionsRoundTrip()
    {
        StartEvent s;
        s.config.model = *PresetCatalog::builtin().findModel("tiny");
        s.versions.activations = kNormInputsRecomputed;
        s.versions.offloadStaging = kOffloadStagingInPlace;
        const auto line = serialize(s);
        QVERIFY(line.find(R"("offload_staging":"in-place")") != std::string::npos);
        const auto back = std::get<StartEvent>(parseEvent(line));
        QCOMPARE(back.versions.offloadStaging, std::string(kOffloadStagingInPlace));
        QCOMPARE(back.versions.activations, std::string(kNormInputsRecomputed));

        s.versions.offloadStaging.clear();
        const auto older = serialize(s);
        QVERIFY(older.find("offload_staging") == std::string::npos);
        QVERIFY(std::get<StartEvent>(parseEvent(older)).versions.offloadStaging.empty());
    }

    // The PyTorch harness's framework fields survive a round trip; the native runner's start line
    // carries none of them, and a line naming an unknown extra field still parses.
    void torchHarnessVersionsRoundTrip()
    {
        StartEvent s;
        s.config.model = *PresetCatalog::builtin().findModel("tiny");
        s.config.strategy = Strategy::Fsdp2Reshard;
        s.config.backend = RunBackend::Torch;
        s.versions.runner = "shardwise-torch 0.3.0";
        s.versions.libtorch = "2.5.1";
        s.versions.backend = kTorchBackend;
        s.versions.python = "3.11.2";
        s.versions.torch = "2.5.1";
        s.versions.transformers = "4.46.3";
        s.versions.modelImpl = "transformers";
        const auto line = serialize(s);
        for (const char* field : { R"("backend":"torch")", R"("python":"3.11.2")", R"("torch":"2.5.1")",
                                   R"("transformers":"4.46.3")", R"("model_impl":"transformers")" })
            QVERIFY2(line.find(field) != std::string::npos, field);
        const auto back = std::get<StartEvent>(parseEvent(line));
        QCOMPARE(back.versions.backend, std::string("torch"));
        QCOMPARE(back.versions.python, std::string("3.11.2"));
        QCOMPARE(back.versions.torch, std::string("2.5.1"));
        QCOMPARE(back.versions.transformers, std::string("4.46.3"));
        QCOMPARE(back.versions.modelImpl, std::string("transformers"));
        QCOMPARE(back.config.backend, RunBackend::Torch);
        QCOMPARE(serialize(back), line);

        // Without Transformers the harness reports it empty (plain PyTorch decoder).
        s.versions.transformers.clear();
        s.versions.modelImpl = "plain";
        const auto plain = std::get<StartEvent>(parseEvent(serialize(s)));
        QVERIFY(plain.versions.transformers.empty());
        QCOMPARE(plain.versions.modelImpl, std::string("plain"));

        StartEvent native;
        native.config.model = s.config.model;
        native.versions.runner = "0.9.0";
        const auto nativeLine = serialize(native);
        for (const char* field : { "\"backend\"", "\"python\"", "\"torch\"", "\"transformers\"", "\"model_impl\"" })
            QVERIFY2(nativeLine.find(field) == std::string::npos, field);
        const auto nativeBack = std::get<StartEvent>(parseEvent(nativeLine));
        QVERIFY(nativeBack.versions.backend.empty());
        QVERIFY(nativeBack.versions.torch.empty());

        // Unknown-tolerant: a field a later harness adds is ignored.
        auto j = nlohmann::json::parse(line);
        j["versions"]["accelerate"] = "1.2.0";
        j["versions"]["transformers"] = nullptr; // null reads as absent
        const auto tolerant = std::get<StartEvent>(parseEvent(j.dump()));
        QCOMPARE(tolerant.versions.torch, std::string("2.5.1"));
        QVERIFY(tolerant.versions.transformers.empty());
    }

    void stepSummaryErrorRoundTrip()
    {
        StepEvent st;
        st.rank = 3;
        st.step = 7;
        st.timed = true;
        st.loss = 5.5;
        st.memory.peakAllocated = 1 << 30;
        QCOMPARE(serialize(parseEvent(serialize(st))), serialize(st));

        SummaryEvent su;
        su.medianStepS = 0.25;
        su.tokensPerS = 8192;
        su.losses = { 5.0, 4.5 };
        su.state.deviceOptimizer = 12345;
        QCOMPARE(serialize(parseEvent(serialize(su))), serialize(su));
        QVERIFY(!std::get<SummaryEvent>(parseEvent(serialize(su))).phasePeakAllocated);
        su.phasePeakAllocated = PhasePeaks { 31LL << 30, 33LL << 30, 29LL << 30 };
        const auto phases = std::get<SummaryEvent>(parseEvent(serialize(su))).phasePeakAllocated;
        QVERIFY(phases);
        QCOMPARE(phases->forward, 31LL << 30);
        QCOMPARE(phases->backward, 33LL << 30);
        QCOMPARE(phases->optimizer, 29LL << 30);
        QCOMPARE(serialize(parseEvent(serialize(su))), serialize(su));

        ErrorEvent er;
        er.kind = ErrorKind::Oom;
        er.message = "CUDA out of memory";
        er.step = 2;
        er.memory = MemorySample {};
        er.reservedUnallocated = 3LL << 30;
        const auto back = std::get<ErrorEvent>(parseEvent(serialize(er)));
        QCOMPARE(back.kind, ErrorKind::Oom);
        QCOMPARE(back.step, std::optional<int>(2));
        QCOMPARE(back.reservedUnallocated, std::int64_t(3LL << 30));
    }

    void probeEventRoundTrips()
    {
        ProbeEvent p;
        p.rank = 1;
        p.world = 2;
        p.host = "gpu-7";
        p.deviceName = "NVIDIA H200";
        p.versions.libtorch = "2.11.0";
        p.results = { { "matmul_bf16", 0, 771.5, "TFLOP/s", 20 }, { "all_gather", 64LL << 20, 301.25, "GB/s", 10 } };
        const auto back = std::get<ProbeEvent>(parseEvent(serialize(p)));
        QCOMPARE(back.world, 2);
        QCOMPARE(back.deviceName, std::string("NVIDIA H200"));
        QCOMPARE(back.versions.libtorch, std::string("2.11.0"));
        QCOMPARE(back.results.size(), std::size_t(2));
        QCOMPARE(back.results[1].kind, std::string("all_gather"));
        QCOMPARE(back.results[1].bytes, std::int64_t(64LL << 20));
        QCOMPARE(back.results[1].value, 301.25);
        QCOMPARE(back.results[0].samples, 20);
    }

    void malformedLinesAreNamed_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not json") << QStringLiteral("{oops") << QStringLiteral("not a JSON line");
        QTest::newRow("no event") << QStringLiteral(R"({"v":1,"rank":0})") << QStringLiteral("'event'");
        QTest::newRow("unknown event") << QStringLiteral(R"({"v":1,"event":"party","rank":0})")
                                       << QStringLiteral("unknown event 'party'");
        QTest::newRow("newer version") << QStringLiteral(R"({"v":99,"event":"step","rank":0,"step":1})")
                                       << QStringLiteral("newer");
        QTest::newRow("missing rank") << QStringLiteral(R"({"v":1,"event":"step","step":1})")
                                      << QStringLiteral("'rank'");
        QTest::newRow("wrong type") << QStringLiteral(R"({"v":1,"event":"step","rank":0,"step":"x"})")
                                    << QStringLiteral("'step'");
        // Found by the protocol fuzzer: converting an out-of-range number to an integer field was
        // undefined behaviour; it is now refused by name.
        QTest::newRow("rank beyond int64")
            << QStringLiteral(R"({"v":1,"event":"step","rank":15555555555555555555555555})")
            << QStringLiteral("'rank' is not an integer");
        QTest::newRow("rank beyond int") << QStringLiteral(R"({"v":1,"event":"step","rank":4294967296,"step":1})")
                                         << QStringLiteral("'rank' is not an integer");
        QTest::newRow("fractional step") << QStringLiteral(R"({"v":1,"event":"step","rank":0,"step":2.5})")
                                         << QStringLiteral("'step' is not an integer");
        QTest::newRow("bytes beyond int64")
            << QStringLiteral(R"({"v":1,"event":"step","rank":0,"step":1,"tokens":-1.33333e107})")
            << QStringLiteral("'tokens' is not an integer");
        QTest::newRow("negative memory cap") << QStringLiteral(
            R"({"v":1,"event":"start","rank":0,"allocator":{"conf":"","expandable_segments":false,"memory_cap_bytes":-5}})")
                                             << QStringLiteral("memory_cap_bytes: -5 is negative");
        QTest::newRow("bad kind") << QStringLiteral(R"({"v":1,"event":"error","rank":0,"kind":"bad"})")
                                  << QStringLiteral("unknown kind 'bad'");
        QTest::newRow("probe results not array")
            << QStringLiteral(R"({"v":1,"event":"probe","rank":0,"results":3})") << QStringLiteral("'results'");
        QTest::newRow("probe result without value")
            << QStringLiteral(R"({"v":1,"event":"probe","rank":0,"results":[{"kind":"matmul_bf16"}]})")
            << QStringLiteral("'value'");
    }
    void malformedLinesAreNamed()
    {
        QFETCH(QString, line);
        QFETCH(QString, mentions);
        try {
            parseEvent(line.toStdString());
            QFAIL("expected ProtocolError");
        } catch (const ProtocolError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
        }
    }

    void startEventWithoutConfigRoundTrips()
    {
        // Found by the protocol fuzzer: a start event without "config" must serialise to a line that
        // parses again rather than to an invalid default config.
        const Event e = parseEvent(R"({"v":1,"event":"start","rank":2,"world":4})");
        const std::string line = serialize(e);
        QVERIFY(line.find("\"config\"") == std::string::npos);
        QCOMPARE(std::get<StartEvent>(parseEvent(line)).rank, 2);
    }

    void integralFloatsAreAcceptedAsIntegers()
    {
        // Writers that emit every number as a double (2.0, 1e3) stay readable.
        const auto s = std::get<StepEvent>(parseEvent(R"({"v":1,"event":"step","rank":1.0,"step":3,"tokens":1e3})"));
        QCOMPARE(s.rank, 1);
        QCOMPARE(s.tokens, std::int64_t { 1000 });
    }

    void foreignStdoutLinesAreSkipped()
    {
        QVERIFY(!tryParseEvent("NCCL INFO Bootstrap : Using eth0"));
        QVERIFY(!tryParseEvent(R"({"some":"other json"})"));
        QVERIFY(tryParseEvent(R"({"v":1,"event":"log","rank":0,"message":"hi"})"));
    }

    void percentilesInterpolate()
    {
        const std::vector<double> v { 4, 1, 3, 2 };
        QCOMPARE(stats::median(v), 2.5);
        QCOMPARE(stats::percentile(v, 0), 1.0);
        QCOMPARE(stats::percentile(v, 100), 4.0);
        QCOMPARE(stats::percentile(v, 10), 1.3);
        const std::vector<double> odd { 5, 1, 9 };
        QCOMPARE(stats::median(odd), 5.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats::median(std::vector<double> {}));
    }
};

QTEST_GUILESS_MAIN(TestProtocol)
#include "test_protocol.moc"
