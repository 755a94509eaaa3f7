// shardwise-cli plan and presets, run as real processes: output shapes, and exit status 2 with a
// message naming the flag for every kind of bad input.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), args);
    if (!p.waitForFinished(60'000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
             QString::fromUtf8(p.readAllStandardError()) };
}

} // namespace

class TestCliPlan : public QObject {
    Q_OBJECT

private slots:
    void planJsonHasTheDocumentedShape()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"),
                                     QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--format"),
                                     QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("recommendation").at("strategy").get<std::string>(), std::string("zero0"));
        QCOMPARE(j.at("recommendation").at("step").get<int>(), 1);
        QVERIFY(!j.at("recommendation").at("reasons").empty());
        QCOMPARE(j.at("candidates").size(), std::size_t(9));
        for (const json& c : j.at("candidates")) {
            for (const char* key : { "strategy", "fits", "peak_gib", "breakdown_gib", "tokens_per_s", "step_time_s",
                                     "mfu", "nccl_share" })
                QVERIFY2(c.contains(key), key);
            QVERIFY(c.at("peak_gib").get<double>() > 0);
        }
    }

    // A mistyped model, GPU, strategy, flag, choice or command: exit 2 naming the nearest known one.
    void mistypedNamesGetADidYouMean_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("suggestion");
        const QStringList plan { QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"),
                                 QStringLiteral("--gpu"), QStringLiteral("h200") };
        QTest::newRow("model") << QStringList { QStringLiteral("plan"), QStringLiteral("--model"),
                                                QStringLiteral("qwen2.5-3bb"), QStringLiteral("--gpu"),
                                                QStringLiteral("h200") }
                               << QStringLiteral("did you mean 'qwen2.5-3b' or 'qwen2.5-32b'?"); // as near
        QTest::newRow("gpu") << QStringList { QStringLiteral("plan"), QStringLiteral("--model"),
                                              QStringLiteral("qwen2.5-3b"), QStringLiteral("--gpu"),
                                              QStringLiteral("h2000") }
                             << QStringLiteral("did you mean 'h200'?");
        QTest::newRow("flag") << (plan + QStringList { QStringLiteral("--gpus-per-nod"), QStringLiteral("2") })
                              << QStringLiteral("--gpus-per-nod: unknown option; did you mean '--gpus-per-node'?");
        QTest::newRow("strategy") << (plan + QStringList { QStringLiteral("--strategy"), QStringLiteral("zero_3") })
                                  << QStringLiteral("did you mean 'zero3'?");
        QTest::newRow("choice") << (plan + QStringList { QStringLiteral("--format"), QStringLiteral("jsno") })
                                << QStringLiteral("did you mean 'json'?");
        QTest::newRow("command") << QStringList { QStringLiteral("plna") } << QStringLiteral("did you mean 'plan'?");
    }
    void mistypedNamesGetADidYouMean()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, suggestion);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(suggestion), qPrintable(r.err));
    }

    // Nothing is suggested for a name far from every known one.
    void unrelatedNamesGetNoSuggestion()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"),
                                     QStringLiteral("--gpu"), QStringLiteral("mainframe") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("unknown GPU 'mainframe'")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("did you mean")), qPrintable(r.err));
    }

    void planFlagsReachThePlanner()
    {
        // 72B on eight PCIe-linked H200s at sequence 512: only the full shards fit (step 2), and on
        // PCIe the rule picks ZeRO-3 and asks to measure FSDP2 too.
        const CliResult r
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model=qwen2.5-72b"), QStringLiteral("--gpu=h200"),
                       QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--nodes"),
                       QStringLiteral("1"), QStringLiteral("--interconnect"), QStringLiteral("pcie"),
                       QStringLiteral("--seq"), QStringLiteral("512"), QStringLiteral("--micro-batch"),
                       QStringLiteral("1"), QStringLiteral("--precision"), QStringLiteral("bf16"),
                       QStringLiteral("--expandable-segments"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("recommendation").at("strategy").get<std::string>(), std::string("zero3"));
        QCOMPARE(j.at("recommendation").at("step").get<int>(), 2);
        QCOMPARE(j.at("recommendation").at("also_measure"), json::array({ "fsdp2_reshard" }));
    }

    // Qwen2.5-0.5B at 1024 tokens on one H200: the host issuing every kernel sets the pace, so a step
    // replayed as one graph launch is predicted faster for the GPU-resident strategies; the offload
    // strategies cannot be captured and keep their prediction.
    void cudaGraphsSpeedUpTheGpuResidentStrategies()
    {
        const QStringList base { QStringLiteral("plan"),  QStringLiteral("--model"),  QStringLiteral("qwen2.5-0.5b"),
                                 QStringLiteral("--gpu"), QStringLiteral("h200"),     QStringLiteral("--seq"),
                                 QStringLiteral("1024"),  QStringLiteral("--format"), QStringLiteral("json") };
        const CliResult eager = runCli(base);
        const CliResult graphed = runCli(base + QStringList { QStringLiteral("--cuda-graphs") });
        QCOMPARE(eager.exitCode, 0);
        QVERIFY2(graphed.exitCode == 0, qPrintable(graphed.err));
        const json e = json::parse(eager.out.toStdString())["candidates"];
        const json g = json::parse(graphed.out.toStdString())["candidates"];
        QCOMPARE(g.size(), e.size());
        for (std::size_t i = 0; i < g.size(); ++i) {
            const std::string id = g[i]["strategy"].get<std::string>();
            const double before = e[i]["tokens_per_s"].get<double>();
            const double after = g[i]["tokens_per_s"].get<double>();
            if (id.find("offload") != std::string::npos)
                QVERIFY2(after == before, id.c_str());
            else
                QVERIFY2(after > before, id.c_str());
            QCOMPARE(g[i]["peak_gib"], e[i]["peak_gib"]);
        }
    }

    void cudaGraphsAreShownInTheTable()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-0.5b"),
                                     QStringLiteral("--gpu"), QStringLiteral("h200"), QStringLiteral("--seq"),
                                     QStringLiteral("1024"), QStringLiteral("--cuda-graphs") });
        QCOMPARE(r.exitCode, 0);
        const QString header = r.out.section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(header.contains(QStringLiteral("sequence 1024 tokens, bf16, CUDA graphs")), qPrintable(header));
        QVERIFY2(r.out.contains(QStringLiteral(
                     "Runs worth validating (1 GPU, micro-batch 1, sequence 1024 tokens): zero0 (CUDA graphs)")),
                 qPrintable(r.out));
        QVERIFY(
            r.out.contains(QStringLiteral("the offload strategies run their optimizer on the host and stay eager")));
        const CliResult eager
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-0.5b"),
                       QStringLiteral("--gpu"), QStringLiteral("h200") });
        QCOMPARE(eager.exitCode, 0);
        QVERIFY(!eager.out.contains(QStringLiteral("CUDA graphs")));
    }

    void precisionChangesTheOptimizerState()
    {
        const QStringList base { QStringLiteral("plan"),  QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                                 QStringLiteral("--gpu"), QStringLiteral("h200"),    QStringLiteral("--format"),
                                 QStringLiteral("json") };
        const CliResult bf16 = runCli(base);
        const CliResult master
            = runCli(base + QStringList { QStringLiteral("--precision"), QStringLiteral("bf16-fp32-master") });
        QCOMPARE(bf16.exitCode, 0);
        QCOMPARE(master.exitCode, 0);
        const double a = json::parse(bf16.out.toStdString())["candidates"][0]["breakdown_gib"]["device_optimizer"];
        const double b = json::parse(master.out.toStdString())["candidates"][0]["breakdown_gib"]["device_optimizer"];
        QCOMPARE(b, 3.0 * a); // 12 against 4 bytes per parameter
    }

    void planTableShowsEveryStrategyWithUnits()
    {
        const CliResult r
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                       QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"),
                       QStringLiteral("8"), QStringLiteral("--seq"), QStringLiteral("8192") });
        QCOMPARE(r.exitCode, 0);
        for (const char* id : { "zero0", "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload", "fsdp2_noreshard",
                                "fsdp2_reshard", "fsdp2_reshard_offload" })
            QVERIFY2(r.out.contains(QLatin1String(id)), id);
        for (const char* header : { "peak GiB", "tokens/s", "step s", "MFU %", "NCCL %" })
            QVERIFY2(r.out.contains(QLatin1String(header)), header);
        QVERIFY(r.out.contains(QStringLiteral("Recommendation: zero1 (step 1: lightest_fits)")));
        QVERIFY(r.out.contains(QStringLiteral("zero0 does not fit")));
        QVERIFY(r.out.contains(QStringLiteral("Runs worth validating")));
    }

    void planAcceptsAHuggingFaceConfig()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Qwen2.5-0.5B's published config.json, trimmed to what the reader needs.
        f.write(R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":896,
                  "intermediate_size":4864,"num_hidden_layers":24,"num_attention_heads":14,
                  "num_key_value_heads":2,"vocab_size":151936,"tie_word_embeddings":true,
                  "rms_norm_eps":1e-06,"rope_theta":1000000.0,"max_position_embeddings":32768})");
        f.close();
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), path, QStringLiteral("--gpu"),
                                     QStringLiteral("l4"), QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const CliResult preset = runCli({ QStringLiteral("plan"), QStringLiteral("--model"),
                                          QStringLiteral("qwen2.5-0.5b"), QStringLiteral("--gpu"), QStringLiteral("l4"),
                                          QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json::parse(r.out.toStdString())["candidates"], json::parse(preset.out.toStdString())["candidates"]);
    }

    // A config the runner cannot build is refused before anything is planned or stored: exit 2, the
    // field named on stderr, nothing on stdout, and the store SHARDWISE_DB names neither created
    // (absent before) nor touched (present before; --calibrated would read it).
    void planRefusesAnUnbuildableConfigAndStoresNothing_data()
    {
        QTest::addColumn<QString>("modelCase");
        QTest::addColumn<QString>("message");
        QTest::newRow("Mixtral") << QStringLiteral("mixtral-8x7b/config.json")
                                 << QStringLiteral("--model: config.json.model_type: 'mixtral' is a mixture-of-experts "
                                                   "model (num_local_experts = 8); Shardwise plans dense decoders: "
                                                   "qwen2, llama, mistral");
        QTest::newRow("Gemma 2") << QStringLiteral("gemma2-9b/config.json")
                                 << QStringLiteral("--model: config.json.model_type: 'gemma2' is not a family");
        QTest::newRow("overflowing sizes")
            << QStringLiteral("overflow-hidden-and-vocab/config.json")
            << QStringLiteral("--model: config.json.hidden_size: must be in [1, 131072]");
        QTest::newRow("duplicate key") << QStringLiteral("duplicate-key/config.json")
                                       << QStringLiteral("--model: config.json.hidden_size: duplicate key");
        QTest::newRow("Shardwise model file") << QStringLiteral("shardwise-layers-1e9/model.json")
                                              << QStringLiteral("--model: model.layers: must be in [1, 1024]");
    }
    void planRefusesAnUnbuildableConfigAndStoresNothing()
    {
        QFETCH(QString, modelCase);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = QStringLiteral(SHARDWISE_TEST_DATA_DIR "/model_configs/") + modelCase;
        const QString absent = dir.filePath(QStringLiteral("absent.sqlite"));
        const QString present = dir.filePath(QStringLiteral("present.sqlite"));
        const QByteArray before("not a store: planning must leave these bytes alone");
        {
            QFile f(present);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(before);
        }
        for (const QString& db : { absent, present }) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("SHARDWISE_DB"), db);
            for (const QStringList& extra : { QStringList {}, QStringList { QStringLiteral("--calibrated") } }) {
                const CliResult r = runCli(QStringList { QStringLiteral("plan"), QStringLiteral("--model"), model,
                                                         QStringLiteral("--gpu"), QStringLiteral("h200") }
                                               + extra,
                                           env);
                QCOMPARE(r.exitCode, 2);
                QVERIFY(r.out.isEmpty());
                QVERIFY2(r.err.startsWith(QStringLiteral("shardwise-cli plan: ") + message), qPrintable(r.err));
            }
        }
        QVERIFY(!QFileInfo::exists(absent));
        QFile f(present);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
    }

    // Qwen2.5-14B on one H200 with 128 GiB of RAM (102.4 usable): the offload strategies fit the GPU but
    // their ~110 GiB of host state does not fit the node; the table, the note and the JSON say so.
    void hostRamDecidesTheOffloadStrategies()
    {
        const QStringList base { QStringLiteral("plan"),  QStringLiteral("--model"), QStringLiteral("qwen2.5-14b"),
                                 QStringLiteral("--gpu"), QStringLiteral("h200"),    QStringLiteral("--seq"),
                                 QStringLiteral("1024") };
        const CliResult small = runCli(base + QStringList { QStringLiteral("--host-ram-gib"), QStringLiteral("128") });
        QCOMPARE(small.exitCode, 0);
        QVERIFY2(small.out.contains(QStringLiteral("host RAM 128 GiB per node, 102.4 GiB usable")),
                 qPrintable(small.out));
        for (const QString& line : small.out.split(QLatin1Char('\n')))
            if (line.startsWith(QStringLiteral("zero3_offload"))
                || line.startsWith(QStringLiteral("fsdp2_reshard_offload")))
                QVERIFY2(line.contains(QStringLiteral("no: host")), qPrintable(line));
        QVERIFY(small.out.contains(QStringLiteral("exceeds the node's usable RAM")));
        const CliResult big = runCli(base + QStringList { QStringLiteral("--format"), QStringLiteral("json") });
        const CliResult smallJson = runCli(
            base
            + QStringList { QStringLiteral("--host-ram-gib=128"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(big.exitCode, 0);
        QCOMPARE(smallJson.exitCode, 0);
        const json b = json::parse(big.out.toStdString());
        const json s = json::parse(smallJson.out.toStdString());
        for (std::size_t i = 0; i < s["candidates"].size(); ++i) {
            const json& c = s["candidates"][i];
            const bool offload = c["strategy"].get<std::string>().find("offload") != std::string::npos;
            QCOMPARE(c["fits_host"].get<bool>(), !offload);
            QVERIFY(b["candidates"][i]["fits_host"].get<bool>());
            QCOMPARE(c["host_usable_gib_per_node"].get<double>(), 128 * 0.8);
            QCOMPARE(b["candidates"][i]["host_usable_gib_per_node"].get<double>(), 512 * 0.8);
            if (offload) {
                QVERIFY(c["fits_device"].get<bool>());
                QVERIFY(!c["fits"].get<bool>());
                QVERIFY(c["host_gib_per_node"].get<double>() > 102.4);
                QVERIFY(b["candidates"][i]["fits"].get<bool>());
            }
        }
    }

    void nothingFitsStillExitsZeroWithRemedies()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-72b"),
                                     QStringLiteral("--gpu"), QStringLiteral("a100-40gb"),
                                     QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--seq"),
                                     QStringLiteral("4096"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(j["recommendation"]["strategy"].is_null());
        QCOMPARE(j["recommendation"]["step"].get<int>(), 0);
        QVERIFY(!j["recommendation"]["remedies"].empty());
    }

    void badInputExitsTwoNamingTheFlag_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");
        const QStringList ok { QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"), QStringLiteral("--gpu"),
                               QStringLiteral("h200") };
        auto with = [&](std::initializer_list<const char*> extra) {
            QStringList a = ok;
            for (const char* e : extra)
                a << QString::fromLatin1(e);
            return a;
        };
        QTest::newRow("sequence not a number") << with({ "--seq", "abc" }) << QStringLiteral("--seq");
        QTest::newRow("sequence zero") << with({ "--seq", "0" }) << QStringLiteral("--seq");
        QTest::newRow("micro-batch trailing text")
            << with({ "--micro-batch", "4x" }) << QStringLiteral("--micro-batch");
        QTest::newRow("no nodes") << with({ "--nodes", "0" }) << QStringLiteral("--nodes");
        QTest::newRow("too many GPUs per node")
            << with({ "--gpus-per-node", "65" }) << QStringLiteral("--gpus-per-node");
        QTest::newRow("missing value") << with({ "--gpus-per-node" }) << QStringLiteral("--gpus-per-node");
        QTest::newRow("unknown interconnect")
            << with({ "--interconnect", "infiniband" }) << QStringLiteral("--interconnect");
        QTest::newRow("NVLink on L4") << QStringList { QStringLiteral("--model"),         QStringLiteral("qwen2.5-3b"),
                                                       QStringLiteral("--gpu"),           QStringLiteral("l4"),
                                                       QStringLiteral("--gpus-per-node"), QStringLiteral("4"),
                                                       QStringLiteral("--interconnect"),  QStringLiteral("nvlink") }
                                      << QStringLiteral("--interconnect");
        QTest::newRow("host RAM not a number")
            << with({ "--host-ram-gib", "lots" }) << QStringLiteral("--host-ram-gib");
        QTest::newRow("host RAM below 1 GiB") << with({ "--host-ram-gib", "0.5" }) << QStringLiteral("--host-ram-gib");
        QTest::newRow("unknown precision") << with({ "--precision", "fp8" }) << QStringLiteral("--precision");
        QTest::newRow("unknown format") << with({ "--format", "xml" }) << QStringLiteral("--format");
        QTest::newRow("switch with a value")
            << with({ "--expandable-segments=yes" }) << QStringLiteral("--expandable-segments");
        QTest::newRow("graphs switch with a value") << with({ "--cuda-graphs=on" }) << QStringLiteral("--cuda-graphs");
        QTest::newRow("graphs with fp32 master weights")
            << with({ "--cuda-graphs", "--precision", "bf16-fp32-master" }) << QStringLiteral("--cuda-graphs");
        QTest::newRow("unknown option") << with({ "--bogus" }) << QStringLiteral("--bogus");
        QTest::newRow("unknown model") << QStringList { QStringLiteral("--model"), QStringLiteral("gpt-7"),
                                                        QStringLiteral("--gpu"), QStringLiteral("h200") }
                                       << QStringLiteral("--model");
        QTest::newRow("unknown GPU") << QStringList { QStringLiteral("--model"), QStringLiteral("qwen2.5-3b"),
                                                      QStringLiteral("--gpu"), QStringLiteral("v100") }
                                     << QStringLiteral("--gpu");
        QTest::newRow("no model") << QStringList { QStringLiteral("--gpu"), QStringLiteral("h200") }
                                  << QStringLiteral("--model");
        QTest::newRow("no GPU") << QStringList { QStringLiteral("--model"), QStringLiteral("qwen2.5-3b") }
                                << QStringLiteral("--gpu");
        QTest::newRow("model file that is not JSON")
            << QStringList { QStringLiteral("--model"), QStringLiteral(SHARDWISE_SOURCE_DIR "/CMakeLists.txt"),
                             QStringLiteral("--gpu"), QStringLiteral("h200") }
            << QStringLiteral("--model");
    }
    void badInputExitsTwoNamingTheFlag()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        const CliResult r = runCli(QStringList { QStringLiteral("plan") } + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith(QStringLiteral("shardwise-cli plan: ") + flag), qPrintable(r.err));
    }

    void planHelpDescribesEveryFlag()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        for (const char* flag :
             { "--model", "--gpu", "--gpus-per-node", "--nodes", "--interconnect", "--host-ram-gib", "--seq",
               "--micro-batch", "--precision", "--expandable-segments", "--cuda-graphs", "--format" })
            QVERIFY2(r.out.contains(QLatin1String(flag)), flag);
    }

    void presetsListsModelsAndGpus()
    {
        const CliResult r = runCli({ QStringLiteral("presets") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("qwen2.5-3b")));
        QVERIFY(r.out.contains(QStringLiteral("3.09 B")));
        QVERIFY(r.out.contains(QStringLiteral("h200")));
        QVERIFY(r.out.contains(QStringLiteral("140.4 GiB")));
    }

    void presetsJsonCarriesParameterCounts()
    {
        const CliResult r = runCli({ QStringLiteral("presets"), QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        bool found = false;
        for (const json& m : j.at("models"))
            if (m.at("id") == "qwen2.5-3b") {
                QCOMPARE(m.at("parameters").get<std::int64_t>(), std::int64_t(3'085'938'688));
                found = true;
            }
        QVERIFY(found);
        QVERIFY(!j.at("gpus").empty());
    }

    void presetsRejectsBadFlags_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");
        QTest::newRow("unknown option") << QStringList { QStringLiteral("--all") } << QStringLiteral("--all");
        QTest::newRow("unknown format") << QStringList { QStringLiteral("--format"), QStringLiteral("csv") }
                                        << QStringLiteral("--format");
        QTest::newRow("missing format") << QStringList { QStringLiteral("--format") } << QStringLiteral("--format");
    }
    void presetsRejectsBadFlags()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        const CliResult r = runCli(QStringList { QStringLiteral("presets") } + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(QStringLiteral("shardwise-cli presets: ") + flag), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliPlan)
#include "test_cli_plan.moc"
