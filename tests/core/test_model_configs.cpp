// Model configs as files: every folder under tests/data/model_configs holds one config.json (a Hugging
// Face config) or model.json (Shardwise's own format) and an expect.json saying what resolveModel
// must make of it: the published parameter count and the fields carried into the ModelSpec, or the
// SpecError's field and the words its message must contain. Besides: the rotary frequencies with
// Llama 3 scaling against Transformers' formula, counts that cannot wrap, and duplicate keys.
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/json_document.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace shardwise;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path caseRoot()
{
    return fs::path(SHARDWISE_TEST_DATA_DIR) / "model_configs";
}

json readJson(const fs::path& p)
{
    std::ifstream in(p);
    return json::parse(in);
}

// The model file of a case folder: config.json or model.json.
fs::path modelFile(const fs::path& dir)
{
    return fs::exists(dir / "config.json") ? dir / "config.json" : dir / "model.json";
}

} // namespace

class TestModelConfigs : public QObject {
    Q_OBJECT

private slots:
    void caseFolder_data()
    {
        QTest::addColumn<QString>("dir");
        std::vector<fs::path> dirs;
        for (const auto& e : fs::directory_iterator(caseRoot()))
            if (e.is_directory())
                dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        QVERIFY(dirs.size() >= 20);
        for (const auto& d : dirs)
            QTest::newRow(d.filename().string().c_str()) << QString::fromStdString(d.string());
    }
    void caseFolder()
    {
        QFETCH(QString, dir);
        const fs::path folder = dir.toStdString();
        const json expect = readJson(folder / "expect.json");
        const fs::path file = modelFile(folder);
        QVERIFY2(fs::exists(file), file.c_str());
        if (expect.value("accept", false)) {
            ModelSpec m;
            try {
                m = resolveModel(file.string(), "model");
            } catch (const SpecError& e) {
                QFAIL(e.what());
            }
            QCOMPARE(m.family, expect.at("family").get<std::string>());
            QCOMPARE(m.parameterCount(), expect.at("parameters").get<std::int64_t>());
            QCOMPARE(m.headDim, expect.at("head_dim").get<std::int64_t>());
            QCOMPARE(m.kvHeads, expect.at("kv_heads").get<std::int64_t>());
            QCOMPARE(m.qkvBias, expect.at("qkv_bias").get<bool>());
            QCOMPARE(m.tiedEmbeddings, expect.at("tied_embeddings").get<bool>());
            QCOMPARE(m.ropeTheta, expect.at("rope_theta").get<double>());
            QCOMPARE(m.maxPosition, expect.at("max_position").get<std::int64_t>());
            QCOMPARE(std::string(ropeScalingId(m.ropeScaling.kind)), expect.at("rope_scaling").get<std::string>());
            if (expect.contains("rope_factor")) {
                QCOMPARE(m.ropeScaling.factor, expect.at("rope_factor").get<double>());
                QCOMPARE(m.ropeScaling.originalMaxPosition, expect.at("original_max_position").get<std::int64_t>());
            }
            // What was read survives Shardwise's own format (a run's config.json carries it to the runner).
            const ModelSpec back = modelFromJson(toJson(m), "model");
            QCOMPARE(toJson(back), toJson(m));
            QVERIFY(back.ropeScaling == m.ropeScaling);
            return;
        }
        try {
            const ModelSpec m = resolveModel(file.string(), "model");
            QFAIL(qPrintable(QStringLiteral("accepted, %1 parameters").arg(m.parameterCount())));
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QString::fromStdString(expect.at("field").get<std::string>()));
            // The message starts with the field it names, so the CLI's and the runner's one line says where.
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(e.field() + ": ")), e.what());
            for (const auto& words : expect.at("mentions"))
                QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(words.get<std::string>())),
                         e.what());
        }
    }

    // Transformers' _compute_llama3_parameters for Llama 3.1 (head_dim 128, theta 5e5, factor 8, low 1,
    // high 4, 8192 tokens pretrained): high frequencies kept, low ones divided by 8, the band whose
    // wavelength lies between 2048 and 8192 blended. Values from that formula in double precision.
    void llama3RopeScalingMatchesTransformers()
    {
        ModelSpec m = resolveModel((caseRoot() / "llama-3.1-8b" / "config.json").string());
        const std::vector<double> inv = rotaryInverseFrequencies(m);
        QCOMPARE(inv.size(), std::size_t(64));
        const std::pair<std::size_t, double> expected[] = { { 0, 1.0 },
                                                            { 28, 0.0032114459947525913 },
                                                            { 30, 0.0013718935677611381 },
                                                            { 33, 0.00031269375038406517 },
                                                            { 35, 9.556212353964683e-05 },
                                                            { 63, 3.068925988914511e-07 } };
        for (const auto& [i, want] : expected)
            QVERIFY2(
                std::abs(inv[i] - want) <= 1e-12 * want,
                qPrintable(QStringLiteral("index %1: %2 vs %3").arg(i).arg(inv[i], 0, 'g', 17).arg(want, 0, 'g', 17)));
        // Without scaling the frequencies are theta^(-2i/d) exactly; linear divides every one.
        m.ropeScaling = {};
        QCOMPARE(rotaryInverseFrequencies(m)[35], std::pow(500000.0, -70.0 / 128.0));
        m.ropeScaling.kind = RopeScalingKind::Linear;
        m.ropeScaling.factor = 4;
        QCOMPARE(rotaryInverseFrequencies(m)[35], std::pow(500000.0, -70.0 / 128.0) / 4);
    }

    // A ModelSpec built in code is not bounded by a reader: its counts saturate instead of wrapping
    // to a negative number, and validate() refuses it by name.
    void countsSaturateInsteadOfWrapping()
    {
        ModelSpec m = *PresetCatalog::builtin().findModel("tiny");
        m.hidden = 4'000'000'000;
        m.vocab = 9'000'000'000'000'000'000;
        QCOMPARE(m.embeddingParams(), std::numeric_limits<std::int64_t>::max());
        QCOMPARE(m.parameterCount(), std::numeric_limits<std::int64_t>::max());
        QVERIFY(m.parameterCount() > 0);
        try {
            validate(m, "model");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("model.hidden"));
        }
        m = *PresetCatalog::builtin().findModel("tiny");
        m.layers = 1'000'000'000;
        QVERIFY(m.parameterCount() > 0);
        QVERIFY_THROWS_EXCEPTION(SpecError, validate(m, "model"));
    }

    // The largest preset stays far below the ceiling; every preset passes the bounds.
    void presetsAreWithinTheBounds()
    {
        for (const auto& m : PresetCatalog::builtin().models()) {
            validate(m, "model");
            QVERIFY(m.parameterCount() < kMaxModelParameters / 10);
        }
    }

    void duplicateKeysAreFoundWherever_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("duplicate");
        QTest::newRow("none") << QStringLiteral(R"({"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})") << QString();
        QTest::newRow("top level") << QStringLiteral(R"({"a": 1, "b": 2, "a": 1})") << QStringLiteral("a");
        QTest::newRow("nested") << QStringLiteral(R"({"model": {"hidden": 1, "hidden": 2}})")
                                << QStringLiteral("model.hidden");
        QTest::newRow("in an array") << QStringLiteral(R"({"runs": [{"x": 1}, 7, {"y": 1, "y": 2}]})")
                                     << QStringLiteral("runs[2].y");
        QTest::newRow("first of two") << QStringLiteral(R"({"p": {"q": 1, "q": 2}, "r": 1, "r": 2})")
                                      << QStringLiteral("p.q");
    }
    void duplicateKeysAreFoundWherever()
    {
        QFETCH(QString, text);
        QFETCH(QString, duplicate);
        const JsonDocument doc = parseJsonDocument(text.toStdString());
        QCOMPARE(QString::fromStdString(doc.duplicateKey), duplicate);
        // The value is what nlohmann makes of the text either way.
        QCOMPARE(doc.value, json::parse(text.toStdString()));
        std::istringstream in(text.toStdString());
        if (duplicate.isEmpty()) {
            QCOMPARE(parseJsonRejectingDuplicates(in, "run", "x.json"), doc.value);
        } else {
            try {
                parseJsonRejectingDuplicates(in, "run", "x.json");
                QFAIL("expected SpecError");
            } catch (const SpecError& e) {
                QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("run.") + duplicate);
                QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("duplicate key in x.json")));
            }
        }
    }

    void runConfigCarriesRopeScaling()
    {
        RunConfig r;
        r.model = resolveModel((caseRoot() / "shardwise-llama3-rope" / "model.json").string());
        r.training.seqLen = 64;
        const json j = toJson(r);
        QCOMPARE(j.at("model").at("rope_scaling").at("type").get<std::string>(), std::string("llama3"));
        const RunConfig back = runConfigFromJson(j);
        QVERIFY(back.model.ropeScaling == r.model.ropeScaling);
        // Without scaling the field stays out, so model files from before it read the same.
        QVERIFY(!toJson(*PresetCatalog::builtin().findModel("llama-3.1-8b")).contains("rope_scaling"));
    }

    void badRopeScalingInAModelFileIsNamed_data()
    {
        QTest::addColumn<QString>("scaling");
        QTest::addColumn<QString>("field");
        QTest::newRow("unknown type") << QStringLiteral(R"({"type": "yarn", "factor": 4})")
                                      << QStringLiteral("model.rope_scaling.type");
        QTest::newRow("factor below one")
            << QStringLiteral(R"({"type": "linear", "factor": 0.5})") << QStringLiteral("model.rope_scaling.factor");
        QTest::newRow("llama3 without its context") << QStringLiteral(R"({"type": "llama3", "factor": 8,
            "low_freq_factor": 1, "high_freq_factor": 4})")
                                                    << QStringLiteral("model.rope_scaling.original_max_position");
        QTest::newRow("llama3 high not above low") << QStringLiteral(R"({"type": "llama3", "factor": 8,
            "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position": 8192})")
                                                   << QStringLiteral("model.rope_scaling.high_freq_factor");
        QTest::newRow("unknown key") << QStringLiteral(R"({"type": "linear", "factor": 2, "beta_fast": 32})")
                                     << QStringLiteral("model.rope_scaling.beta_fast");
    }
    void badRopeScalingInAModelFileIsNamed()
    {
        QFETCH(QString, scaling);
        QFETCH(QString, field);
        json j = toJson(*PresetCatalog::builtin().findModel("tiny"));
        j["rope_scaling"] = json::parse(scaling.toStdString());
        try {
            modelFromJson(j, "model");
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }
};

QTEST_GUILESS_MAIN(TestModelConfigs)
#include "test_model_configs.moc"
