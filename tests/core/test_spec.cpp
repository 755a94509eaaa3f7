// Behaviour of core/spec: exact parameter counts, the strategy table, JSON round trips and the
// errors bad input produces.
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/slurm.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

using namespace shardwise;
using nlohmann::json;

class TestSpec : public QObject {
    Q_OBJECT

private slots:
    void presetParameterCountIsExact_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("params");
        // Published totals (Hugging Face model cards / safetensors headers).
        QTest::newRow("qwen2.5-0.5b") << QStringLiteral("qwen2.5-0.5b") << qint64(494'032'768);
        QTest::newRow("qwen2.5-1.5b") << QStringLiteral("qwen2.5-1.5b") << qint64(1'543'714'304);
        QTest::newRow("qwen2.5-3b") << QStringLiteral("qwen2.5-3b") << qint64(3'085'938'688);
        QTest::newRow("qwen2.5-7b") << QStringLiteral("qwen2.5-7b") << qint64(7'615'616'512);
        QTest::newRow("qwen2.5-14b") << QStringLiteral("qwen2.5-14b") << qint64(14'770'033'664);
        QTest::newRow("qwen2.5-32b") << QStringLiteral("qwen2.5-32b") << qint64(32'763'876'352);
        QTest::newRow("qwen2.5-72b") << QStringLiteral("qwen2.5-72b") << qint64(72'706'203'648);
        QTest::newRow("llama-3.1-8b") << QStringLiteral("llama-3.1-8b") << qint64(8'030'261'248);
        QTest::newRow("llama-3.1-70b") << QStringLiteral("llama-3.1-70b") << qint64(70'553'706'496);
        QTest::newRow("mistral-7b") << QStringLiteral("mistral-7b") << qint64(7'241'732'096);
    }
    void presetParameterCountIsExact()
    {
        QFETCH(QString, preset);
        QFETCH(qint64, params);
        const ModelSpec* m = PresetCatalog::builtin().findModel(preset.toStdString());
        QVERIFY2(m, qPrintable(preset));
        QCOMPARE(qint64(m->parameterCount()), params);
    }

    void everyRequiredPresetExists()
    {
        const auto& c = PresetCatalog::builtin();
        for (const char* id : { "tiny", "qwen2.5-0.5b", "qwen2.5-72b", "llama-3.1-70b", "mistral-7b" })
            QVERIFY2(c.findModel(id), id);
        for (const char* id : { "a100-40gb", "a100-80gb", "l4", "h100-80gb", "h200", "rtx4090" })
            QVERIFY2(c.findGpu(id), id);
        QCOMPARE(c.findGpu("h200")->memoryMiB, std::int64_t(143771));
    }

    void rootAndLayerCountsAddUp()
    {
        const ModelSpec* m = PresetCatalog::builtin().findModel("qwen2.5-3b");
        QVERIFY(m);
        QCOMPARE(m->layerParams(), std::int64_t(77'076'992));
        QCOMPARE(m->rootParams(), std::int64_t(151936LL * 2048 + 2048));
        QCOMPARE(m->layers * m->layerParams() + m->rootParams(), m->parameterCount());
    }

    void strategyTableHasNineDistinctIds()
    {
        std::set<std::string_view> ids;
        std::set<int> orders;
        for (const auto& t : allStrategies()) {
            ids.insert(t.id);
            orders.insert(t.sortOrder);
            QCOMPARE(strategyFromId(t.id), std::optional<Strategy>(t.strategy));
            QCOMPARE(traits(t.strategy).id, t.id);
        }
        QCOMPARE(ids.size(), std::size_t(9));
        QCOMPARE(orders.size(), std::size_t(9));
        QVERIFY(!strategyFromId("zero4"));
    }

    void pairedStrategiesStayDistinct()
    {
        // zero3 vs fsdp2_reshard and zero2 vs fsdp2_noreshard are different schedules, never aliases.
        QVERIFY(traits(Strategy::Zero3).family != traits(Strategy::Fsdp2Reshard).family);
        QVERIFY(traits(Strategy::Zero2).shardsParameters != traits(Strategy::Fsdp2NoReshard).shardsParameters);
        QVERIFY(traits(Strategy::Zero2).reduction != traits(Strategy::Fsdp2NoReshard).reduction);
        QVERIFY(traits(Strategy::Fsdp2ReshardOffload).offloadsParameters);
        QVERIFY(!traits(Strategy::Zero3Offload).offloadsParameters);
        // ZeRO-Offload: zero2's placement with the optimizer on the host, the lightest offload.
        const StrategyTraits& z2o = traits(Strategy::Zero2Offload);
        QCOMPARE(z2o.id, std::string_view("zero2_offload"));
        QVERIFY(z2o.offloadsOptimizer && !z2o.offloadsParameters);
        QVERIFY(z2o.shardsOptimizer && z2o.shardsGradients && !z2o.shardsParameters);
        QVERIFY(z2o.reduction == traits(Strategy::Zero2).reduction);
        QVERIFY(z2o.sortOrder > traits(Strategy::Fsdp2Reshard).sortOrder);
        QVERIFY(z2o.sortOrder < traits(Strategy::Zero3Offload).sortOrder);
        QVERIFY(frameworkSupports(Framework::DeepSpeed, Strategy::Zero2Offload));
        QVERIFY(!frameworkSupports(Framework::Fsdp2, Strategy::Zero2Offload));
        QVERIFY(!frameworkSupports(Framework::Torchtitan, Strategy::Zero2Offload));
    }

    void modelRoundTripsThroughJson()
    {
        for (const auto& m : PresetCatalog::builtin().models()) {
            const ModelSpec back = modelFromJson(toJson(m));
            QCOMPARE(toJson(back), toJson(m));
            QCOMPARE(back.parameterCount(), m.parameterCount());
        }
    }

    void gpuRoundTripsThroughJson()
    {
        for (const auto& g : PresetCatalog::builtin().gpus()) {
            QCOMPARE(toJson(gpuFromJson(toJson(g))), toJson(g));
            QVERIFY2(!g.architecture.empty(), qPrintable(QString::fromStdString(g.id)));
        }
    }

    // The architecture decides which attention kernels run near the peak: an unknown one is refused
    // with its field, an absent one reads as not stated.
    void gpuArchitectureIsOneOfTheKnownGenerations()
    {
        json j = toJson(*PresetCatalog::builtin().findGpu("h100-80gb"));
        j["architecture"] = "volta";
        try {
            gpuFromJson(j, "gpu");
            QFAIL("an unknown architecture was accepted");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("gpu.architecture"));
            QVERIFY(std::string(e.what()).find("volta") != std::string::npos);
        }
        j.erase("architecture");
        QVERIFY(gpuFromJson(j).architecture.empty());
    }

    void runConfigRoundTripsThroughJson()
    {
        RunConfig r;
        r.model = *PresetCatalog::builtin().findModel("tiny");
        r.strategy = Strategy::Fsdp2ReshardOffload;
        r.training.precision = PrecisionPolicy::Bf16Fp32Master;
        r.training.microBatch = 3;
        r.training.seqLen = 64;
        r.training.expandableSegments = true;
        r.knobs.prefetchBucketElements = 1234;
        r.device = DeviceKind::Cuda;
        r.worldSize = 4;
        r.seed = 99;
        const json j = toJson(r);
        QCOMPARE(toJson(runConfigFromJson(j)), j);
        QCOMPARE(runConfigFromJson(j).strategy, Strategy::Fsdp2ReshardOffload);
    }

    // cuda_graphs is written only when on, so configurations from before it read back unchanged.
    void cudaGraphsRoundTripAndStayOutWhenOff()
    {
        TrainingSpec t;
        QVERIFY(!toJson(t).contains("cuda_graphs"));
        QVERIFY(!trainingFromJson(toJson(t)).cudaGraphs);
        t.cudaGraphs = true;
        QCOMPARE(toJson(t).at("cuda_graphs").get<bool>(), true);
        QVERIFY(trainingFromJson(toJson(t)).cudaGraphs);
    }

    void cudaGraphsNeedACapturableRun_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<int>("warmup");
        QTest::addColumn<QString>("mentions"); // empty: valid
        QTest::newRow("zero3 on cuda") << "zero3"
                                       << "cuda"
                                       << "bf16" << 5 << "";
        QTest::newRow("fsdp2_noreshard at the least warm-up") << "fsdp2_noreshard"
                                                              << "cuda"
                                                              << "bf16" << 3 << "";
        QTest::newRow("cpu") << "zero0"
                             << "cpu"
                             << "bf16" << 5 << "device cuda";
        QTest::newRow("zero3_offload") << "zero3_offload"
                                       << "cuda"
                                       << "bf16" << 5 << "zero3_offload";
        QTest::newRow("fsdp2_reshard_offload") << "fsdp2_reshard_offload"
                                               << "cuda"
                                               << "bf16" << 5 << "fsdp2_reshard_offload";
        QTest::newRow("fp32 master") << "zero1"
                                     << "cuda"
                                     << "bf16-fp32-master" << 5 << "precision bf16";
        QTest::newRow("two warm-up steps") << "zero2"
                                           << "cuda"
                                           << "bf16" << 2 << "at least 3 warm-up";
    }
    void cudaGraphsNeedACapturableRun()
    {
        QFETCH(QString, strategy);
        QFETCH(QString, device);
        QFETCH(QString, precision);
        QFETCH(int, warmup);
        QFETCH(QString, mentions);
        RunConfig r;
        r.model = *PresetCatalog::builtin().findModel("tiny");
        json j = toJson(r);
        j["strategy"] = strategy.toStdString();
        j["device"] = device.toStdString();
        j["warmup_steps"] = warmup;
        j["training"]["precision"] = precision.toStdString();
        j["training"]["cuda_graphs"] = true;
        try {
            const RunConfig read = runConfigFromJson(j);
            QVERIFY2(mentions.isEmpty(), "expected SpecError");
            QVERIFY(read.training.cudaGraphs);
        } catch (const SpecError& e) {
            QVERIFY2(!mentions.isEmpty(), e.what());
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("training.cuda_graphs"));
            QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
        }
    }

    void clusterAndTrainingRoundTrip()
    {
        ClusterSpec c;
        c.gpusPerNode = 8;
        c.nodes = 2;
        c.intraNode = Interconnect::Pcie;
        c.intraNodeGBps = 25;
        QCOMPARE(toJson(clusterFromJson(toJson(c))), toJson(c));
        TrainingSpec t;
        t.activationCheckpointing = true;
        t.seqLen = 8192;
        QCOMPARE(toJson(trainingFromJson(toJson(t))), toJson(t));
    }

    void badValueNamesFieldAndRange_data()
    {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("seq too long") << QStringLiteral(R"({"seq_len": 0})") << QStringLiteral("training.seq_len")
                                      << QStringLiteral("[1, 1048576]");
        QTest::newRow("micro batch type") << QStringLiteral(R"({"micro_batch": "two"})")
                                          << QStringLiteral("training.micro_batch") << QStringLiteral("integer");
        QTest::newRow("precision") << QStringLiteral(R"({"precision": "fp8"})") << QStringLiteral("training.precision")
                                   << QStringLiteral("bf16-fp32-master");
        QTest::newRow("unknown field") << QStringLiteral(R"({"seq_length": 10})")
                                       << QStringLiteral("training.seq_length") << QStringLiteral("seq_len");
    }
    void badValueNamesFieldAndRange()
    {
        QFETCH(QString, document);
        QFETCH(QString, field);
        QFETCH(QString, mentions);
        try {
            trainingFromJson(json::parse(document.toStdString()), "training");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
            QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
        }
    }

    // A ClusterSpec built in code (the GUI's form, the CLI) is checked with the JSON reader's bounds.
    void clusterValidateChecksHostRam()
    {
        ClusterSpec c;
        validate(c, "cluster");
        c.hostRamGiB = 0.5;
        try {
            validate(c, "cluster");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("cluster.host_ram_gib"));
        }
        c.hostRamGiB = 128;
        validate(c, "cluster");
    }

    void badModelShapeIsRejected_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::newRow("kv heads not dividing heads") << QStringLiteral("kv_heads") << 3;
        QTest::newRow("odd head dim") << QStringLiteral("head_dim") << 15;
        QTest::newRow("zero layers") << QStringLiteral("layers") << 0;
    }
    void badModelShapeIsRejected()
    {
        QFETCH(QString, key);
        QFETCH(int, value);
        json j = toJson(*PresetCatalog::builtin().findModel("tiny"));
        j[key.toStdString()] = value;
        try {
            modelFromJson(j, "model");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("model.") + key);
        }
    }

    void unknownStrategyListsAllowedIds()
    {
        try {
            parseStrategy("zero4", "strategy");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("fsdp2_reshard_offload")));
        }
    }

    void huggingFaceConfigLoads()
    {
        // The published config.json of Qwen2.5-3B.
        const json hf = json::parse(R"({
          "architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 2048,
          "intermediate_size": 11008, "max_position_embeddings": 32768, "model_type": "qwen2",
          "num_attention_heads": 16, "num_hidden_layers": 36, "num_key_value_heads": 2,
          "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": true,
          "torch_dtype": "bfloat16", "vocab_size": 151936})");
        const ModelSpec m = modelFromHuggingFaceConfig(hf, "Qwen2.5-3B");
        QCOMPARE(m.parameterCount(), std::int64_t(3'085'938'688));
        QCOMPARE(m.headDim, std::int64_t(128));
        QVERIFY(m.qkvBias);
    }

    void huggingFaceConfigMissingFieldIsNamed()
    {
        const json hf = json::parse(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2})");
        try {
            modelFromHuggingFaceConfig(hf, "x");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("config.json.intermediate_size"));
        }
    }

    void huggingFaceConfigOptionalKeyOfTheWrongTypeIsNamed_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("model_type") << "model_type"
                                    << "5";
        QTest::newRow("hidden_act") << "hidden_act"
                                    << "[]";
        QTest::newRow("tie_word_embeddings") << "tie_word_embeddings"
                                             << "\"yes\"";
        QTest::newRow("attention_bias") << "attention_bias"
                                        << "1";
        QTest::newRow("num_key_value_heads") << "num_key_value_heads"
                                             << "\"2\"";
        QTest::newRow("head_dim") << "head_dim"
                                  << "16.5";
        QTest::newRow("rope_theta") << "rope_theta"
                                    << "\"1e6\"";
        QTest::newRow("rms_norm_eps") << "rms_norm_eps"
                                      << "[]";
        QTest::newRow("max_position_embeddings") << "max_position_embeddings"
                                                 << "true";
        QTest::newRow("rope_scaling") << "rope_scaling"
                                      << "8";
    }

    void huggingFaceConfigOptionalKeyOfTheWrongTypeIsNamed()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        json hf = json::parse(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
            "intermediate_size": 128, "num_attention_heads": 4, "vocab_size": 100})");
        hf[key.toStdString()] = json::parse(value.toStdString());
        try {
            modelFromHuggingFaceConfig(hf, "x");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("config.json.") + key);
        }
    }

    void resolveModelReadsConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        std::ofstream(path.toStdString()) << R"({"hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 128,
            "num_attention_heads": 4, "vocab_size": 100, "model_type": "llama"})";
        const ModelSpec m = resolveModel(path.toStdString());
        QCOMPARE(m.layers, std::int64_t(2));
        QCOMPARE(m.kvHeads, std::int64_t(4));
        QCOMPARE(m.parameterCount(), std::int64_t(2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 2 * 100 * 64 + 64));
    }

    void firstSlurmHostIsTheListsFirstHost_data()
    {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QString>("host");
        QTest::newRow("one host") << QStringLiteral("node7") << QStringLiteral("node7");
        QTest::newRow("plain list") << QStringLiteral("a1,b2") << QStringLiteral("a1");
        QTest::newRow("range, padding kept") << QStringLiteral("gpu[007-010,3],login1") << QStringLiteral("gpu007");
        QTest::newRow("list in brackets") << QStringLiteral("gpu[3,5-6]") << QStringLiteral("gpu3");
        QTest::newRow("two bracket groups") << QStringLiteral("rack[1-2]-n[01-04]") << QStringLiteral("rack1-n01");
        QTest::newRow("suffix after bracket") << QStringLiteral("n[10-12].ib,x") << QStringLiteral("n10.ib");
    }
    void firstSlurmHostIsTheListsFirstHost()
    {
        QFETCH(QString, list);
        QFETCH(QString, host);
        QCOMPARE(QString::fromStdString(firstSlurmHost(list.toStdString())), host);
    }

    void badSlurmNodeListsAreRefused()
    {
        for (const char* bad : { "gpu[1-2", "gpu1-2]", "[[1]]", "" })
            QVERIFY_THROWS_EXCEPTION(SpecError, firstSlurmHost(bad));
    }

    void tasksPerNodeIsOneCountOrNone()
    {
        QCOMPARE(uniformTasksPerNode("8"), std::optional<int>(8));
        QCOMPARE(uniformTasksPerNode("8(x2)"), std::optional<int>(8));
        QCOMPARE(uniformTasksPerNode("4(x3),4"), std::optional<int>(4));
        QCOMPARE(uniformTasksPerNode("4,2"), std::optional<int>());
        for (const char* bad : { "", "x", "4(x)", "4(2)", "0", "4,,4" })
            QVERIFY_THROWS_EXCEPTION(SpecError, uniformTasksPerNode(bad));
    }

    // srun's variables fill the torchrun contract; torchrun's own win; outside Slurm nothing changes.
    void slurmVariablesFillTheTorchrunContract()
    {
        std::map<std::string, std::string> env { { "SLURM_PROCID", "9" },
                                                 { "SLURM_NTASKS", "16" },
                                                 { "SLURM_LOCALID", "1" },
                                                 { "SLURM_TASKS_PER_NODE", "8(x2)" },
                                                 { "SLURM_JOB_NODELIST", "h[04-05]" },
                                                 { "SLURM_JOB_ID", "123456" } };
        const auto lookup = [&](const char* n) -> std::optional<std::string> {
            const auto it = env.find(n);
            return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        };
        const std::map<std::string, std::string> want {
            { "RANK", "9" },          { "WORLD_SIZE", "16" },
            { "LOCAL_RANK", "1" },    { "LOCAL_WORLD_SIZE", "8" },
            { "MASTER_ADDR", "h04" }, { "MASTER_PORT", std::to_string(15000 + 123456 % 20000) }
        };
        QVERIFY(torchrunFromSlurm(lookup) == want);

        env["MASTER_PORT"] = "2222";
        env["RANK"] = "3";
        const auto kept = torchrunFromSlurm(lookup);
        QVERIFY(!kept.count("MASTER_PORT") && !kept.count("RANK"));
        QCOMPARE(kept.at("WORLD_SIZE"), std::string("16"));

        env["SLURM_NTASKS"] = "-1";
        env.erase("RANK");
        try {
            torchrunFromSlurm(lookup);
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("SLURM_NTASKS"));
        }

        env.erase("SLURM_PROCID");
        QVERIFY(torchrunFromSlurm(lookup).empty());
    }

    void unknownPresetListsKnownOnes()
    {
        try {
            resolveGpu("v100");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("gpu"));
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("h200")));
        }
        QVERIFY_THROWS_EXCEPTION(SpecError, resolveModel("gpt-5"));
    }
};

QTEST_GUILESS_MAIN(TestSpec)
#include "test_spec.moc"
