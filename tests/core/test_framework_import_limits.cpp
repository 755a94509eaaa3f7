// core/frameworks imports against hostile and malformed files (shardwise/frameworks/import_limits.hpp):
// nesting caps checked before any parser runs (JSON, TOML dotted keys and inline tables, YAML flow and
// block nesting), the size cap and special files (/dev/zero, a pipe, a directory), numbers out of range
// named by their key, echoed values cut short, duplicate keys and several YAML documents refused, empty
// files refused, and the format chosen from the extension before the text is sniffed.
#include "shardwise/frameworks/configs.hpp"
#include "shardwise/frameworks/import_limits.hpp"
#include "shardwise/spec/json.hpp"

#include <QtTest>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

using namespace shardwise;
using namespace shardwise::frameworks;
namespace fs = std::filesystem;

namespace {

struct Refusal {
    bool thrown = false;
    std::string field;
    std::string message;
};

Refusal refusal(const std::string& text, const std::string& fileName = "")
{
    try {
        importConfig(text, fileName);
    } catch (const SpecError& e) {
        return { true, e.field(), e.what() };
    }
    return {};
}

Refusal refusalOfFile(const std::string& path)
{
    try {
        importConfigFile(path);
    } catch (const SpecError& e) {
        return { true, e.field(), e.what() };
    }
    return {};
}

bool contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

std::string repeat(const std::string& s, int n)
{
    std::string out;
    out.reserve(s.size() * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        out += s;
    return out;
}

void writeFile(const fs::path& p, const std::string& text)
{
    std::ofstream f(p, std::ios::binary);
    f << text;
}

} // namespace

class TestFrameworkImportLimits : public QObject {
    Q_OBJECT

private slots:
    void deepNestingIsRefusedBeforeParsing_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("json arrays 100000 deep")
            << QStringLiteral("ds.json") << QByteArray::fromStdString(repeat("[", 100000));
        QTest::newRow("json objects 40 deep (sniffed)")
            << QString() << QByteArray::fromStdString(repeat("{\"a\": ", 40) + "1" + repeat("}", 40));
        QTest::newRow("toml 50000 dotted key parts")
            << QStringLiteral("job.toml") << QByteArray::fromStdString("a" + repeat(".a", 50000) + " = 1\n");
        QTest::newRow("toml header 40 parts")
            << QStringLiteral("job.toml") << QByteArray::fromStdString("[a" + repeat(".a", 40) + "]\nx = 1\n");
        QTest::newRow("toml inline tables")
            << QStringLiteral("job.toml")
            << QByteArray::fromStdString("x = " + repeat("{a = ", 40) + "1" + repeat("}", 40) + "\n");
        QTest::newRow("toml arrays") << QStringLiteral("job.toml")
                                     << QByteArray::fromStdString("x = " + repeat("[", 100000) + "\n");
        QTest::newRow("toml keys under a deep header")
            << QStringLiteral("job.toml")
            << QByteArray::fromStdString("[" + repeat("a.", 20) + "a]\n" + repeat("b.", 20) + "b = 1\n");
        QTest::newRow("yaml flow 100000 deep")
            << QStringLiteral("acc.yaml") << QByteArray::fromStdString("a: " + repeat("[", 100000) + "\n");
        QTest::newRow("yaml compact sequences")
            << QStringLiteral("acc.yaml") << QByteArray::fromStdString(repeat("- ", 50000) + "x\n");
        std::string indented;
        for (int i = 0; i < 40; ++i)
            indented += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
        QTest::newRow("yaml indentation 40 levels")
            << QStringLiteral("acc.yaml") << QByteArray::fromStdString(indented);
    }

    void deepNestingIsRefusedBeforeParsing()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, text);
        const Refusal r = refusal(text.toStdString(), fileName.toStdString());
        QVERIFY2(r.thrown, "no error");
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, "nests deeper than " + std::to_string(kMaxNestingDepth) + " levels"),
                 r.message.c_str());
    }

    // Real configs nest a few levels: nothing near the cap is refused for its depth.
    void ordinaryNestingIsRead()
    {
        const ImportedSettings tt = importConfig("[quantize.linear.float8]\nfilter_fqns = [\"output\"]\n"
                                                 "[quantize.grouped_mm.mx]\nfqns = [\"experts\"]\n"
                                                 "[parallelism]\ndata_parallel_shard_degree = 8\n",
                                                 "job.toml");
        QCOMPARE(tt.worldSize, std::optional<int>(8));
        const ImportedSettings yaml = importConfig("distributed_type: MULTI_GPU\nnum_processes: 4\ndescription: |\n"
                                                   "  a block scalar\n    indented\n      deeper\n        and deeper\n"
                                                   "tpu_env: [[1, [2]], {a: [3]}]\n",
                                                   "acc.yaml");
        QCOMPARE(yaml.worldSize, std::optional<int>(4));
        // 20 levels of JSON (under the cap) parse; the unknown top-level key is only a warning.
        const ImportedSettings json = importConfig("{\"x\": " + repeat("{\"a\": ", 20) + "1" + repeat("}", 20)
                                                   + ", \"bf16\": {\"enabled\": true}}");
        QCOMPARE(json.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::Bf16Fp32Master));
    }

    void largeFilesAndSpecialFilesAreRefusedUnread()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = dir.path().toStdString();

        // 50 MB (sparse: the size is what counts) is refused from its size, at once.
        const fs::path big = root / "big.json";
        writeFile(big, "{}");
        fs::resize_file(big, 50u * 1024 * 1024);
        const auto start = std::chrono::steady_clock::now();
        Refusal r = refusalOfFile(big.string());
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, std::to_string(kMaxConfigBytes) + " bytes"), r.message.c_str());

        // One byte over the cap is refused; the cap itself is read.
        const fs::path over = root / "over.json";
        writeFile(over, "{\"train_micro_batch_size_per_gpu\": 2" + std::string(kMaxConfigBytes - 36, ' ') + "}");
        QCOMPARE(fs::file_size(over), kMaxConfigBytes + 1);
        QVERIFY(refusalOfFile(over.string()).thrown);
        fs::resize_file(over, kMaxConfigBytes - 1);
        std::ofstream(over, std::ios::app) << "}";
        QCOMPARE(importConfigFile(over.string()).microBatch, std::optional<int>(2));
        // Text handed over directly has the same cap.
        QVERIFY(refusal(std::string(kMaxConfigBytes + 1, ' ') + "{}", "ds.json").thrown);

        r = refusalOfFile("/dev/zero");
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, "not a regular file (a character device)"), r.message.c_str());
        r = refusalOfFile(root.string());
        QVERIFY2(contains(r.message, "not a regular file (a directory)"), r.message.c_str());
        // A pipe with no writer: opening it would block; it is refused before that.
        const fs::path fifo = root / "pipe.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        r = refusalOfFile(fifo.string());
        QVERIFY2(contains(r.message, "not a regular file (a pipe)"), r.message.c_str());
        r = refusalOfFile((root / "missing.json").string());
        QVERIFY2(r.thrown && r.field == "file" && contains(r.message, "cannot read"), r.message.c_str());
    }

    // An Accelerate YAML's deepspeed_config_file is read with the same caps.
    void theDeepSpeedFileAYamlNamesHasTheSameCaps()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = dir.path().toStdString();
        writeFile(root / "acc.yaml",
                  "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: /dev/zero\n");
        Refusal r = refusalOfFile((root / "acc.yaml").string());
        QVERIFY2(r.thrown && contains(r.message, "not a regular file"), r.message.c_str());
        writeFile(root / "ds.json", repeat("[", 1000));
        writeFile(root / "acc.yaml",
                  "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n");
        r = refusalOfFile((root / "acc.yaml").string());
        QVERIFY2(r.thrown && contains(r.message, "nests deeper"), r.message.c_str());
    }

    void numbersOutOfRangeNameTheirKey_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("json 1e400") << QStringLiteral("ds.json") << QStringLiteral(R"({"train_batch_size": 1e400})")
                                    << QStringLiteral("train_batch_size");
        QTest::newRow("json nested -1e400")
            << QStringLiteral("ds.json")
            << QStringLiteral(R"({"zero_optimization": {"stage": 3, "reduce_bucket_size": -1e400}})")
            << QStringLiteral("zero_optimization.reduce_bucket_size");
        QTest::newRow("json in an array")
            << QStringLiteral("ds.json") << QStringLiteral(R"({"optimizer": {"params": {"betas": [0.9, 1e999]}}})")
            << QStringLiteral("optimizer.params.betas[1]");
        QTest::newRow("json integer past int64")
            << QStringLiteral("ds.json")
            << QStringLiteral(R"({"train_micro_batch_size_per_gpu": 123456789012345678901234567890})")
            << QStringLiteral("train_micro_batch_size_per_gpu");
        QTest::newRow("toml float") << QStringLiteral("job.toml") << QStringLiteral("[training]\nmax_norm = 1e400\n")
                                    << QStringLiteral("training.max_norm");
        QTest::newRow("toml integer") << QStringLiteral("job.toml")
                                      << QStringLiteral("[training]\nseq_len = 99999999999999999999\n")
                                      << QStringLiteral("training.seq_len");
        QTest::newRow("yaml") << QStringLiteral("acc.yaml")
                              << QStringLiteral("distributed_type: MULTI_GPU\nnum_processes: 1e400\n")
                              << QStringLiteral("num_processes");
    }

    void numbersOutOfRangeNameTheirKey()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, text);
        QFETCH(QString, key);
        const Refusal r = refusal(text.toStdString(), fileName.toStdString());
        QVERIFY2(r.thrown, "no error");
        QCOMPARE(QString::fromStdString(r.field), key);
    }

    // A long value (or key) is quoted at most kMaxEchoChars long, with its size.
    void echoedValuesAreCutShort_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("text");
        const std::string big(900 * 1024, 'x');
        QTest::newRow("json value") << QStringLiteral(
            "ds.json") << QByteArray::fromStdString("{\"train_micro_batch_size_per_gpu\": \"" + big + "\"}");
        QTest::newRow("json unterminated string")
            << QStringLiteral("ds.json") << QByteArray::fromStdString("{\"train_batch_size\": \"" + big);
        QTest::newRow("json key") << QStringLiteral("ds.json")
                                  << QByteArray::fromStdString("{\"zero_optimization\": {\"" + big + "\": 1}}");
        QTest::newRow("yaml value") << QStringLiteral("acc.yaml")
                                    << QByteArray::fromStdString("distributed_type: " + big + "\n");
        QTest::newRow("toml value") << QStringLiteral("job.toml")
                                    << QByteArray::fromStdString("[activation_checkpoint]\nmode = \"" + big + "\"\n");
        QTest::newRow("record field") << QStringLiteral("job.toml")
                                      << QByteArray::fromStdString("# shardwise: seq_len=" + big + "\n[training]\n");
    }

    void echoedValuesAreCutShort()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, text);
        const Refusal r = refusal(text.toStdString(), fileName.toStdString());
        QVERIFY2(r.thrown, "no error");
        QVERIFY2(r.message.size() < 1000, r.message.substr(0, 300).c_str());
        QVERIFY2(r.field.size() < 400, r.field.substr(0, 300).c_str());
        QVERIFY2(!contains(r.message, std::string(kMaxEchoChars + 1, 'x')), r.message.substr(0, 300).c_str());
    }

    void duplicateKeysAreRefused_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("json top level")
            << QStringLiteral("ds.json")
            << QStringLiteral(R"({"train_micro_batch_size_per_gpu": 1, "train_micro_batch_size_per_gpu": 2})")
            << QStringLiteral("train_micro_batch_size_per_gpu");
        QTest::newRow("json nested") << QStringLiteral("ds.json")
                                     << QStringLiteral(R"({"zero_optimization": {"stage": 1, "stage": 3}})")
                                     << QStringLiteral("zero_optimization.stage");
        QTest::newRow("yaml top level") << QStringLiteral("acc.yaml")
                                        << QStringLiteral("distributed_type: FSDP\ndistributed_type: DEEPSPEED\n")
                                        << QStringLiteral("distributed_type");
        QTest::newRow("yaml nested") << QStringLiteral("acc.yaml")
                                     << QStringLiteral(
                                            "distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 2\n"
                                            "  zero_stage: 3\n")
                                     << QStringLiteral("deepspeed_config.zero_stage");
        QTest::newRow("toml") << QStringLiteral("job.toml")
                              << QStringLiteral("[training]\nlocal_batch_size = 2\nlocal_batch_size = 4\n")
                              << QStringLiteral("training.local_batch_size");
        QTest::newRow("toml table twice")
            << QStringLiteral("job.toml") << QStringLiteral("[training]\nseq_len = 2048\n[training]\nsteps = 10\n")
            << QStringLiteral("training");
    }

    void duplicateKeysAreRefused()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, text);
        QFETCH(QString, key);
        const Refusal r = refusal(text.toStdString(), fileName.toStdString());
        QVERIFY2(r.thrown, "no error");
        QCOMPARE(QString::fromStdString(r.field), key);
    }

    // Nested YAML aliases repeat a node exponentially often ("billion laughs"): refused, not walked.
    void yamlAliasesThatExpandTooFarAreRefused()
    {
        std::string yaml = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (int i = 1; i < 9; ++i)
            yaml += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " ["
                + repeat("*l" + std::to_string(i - 1) + ", ", 9) + "*l" + std::to_string(i - 1) + "]\n";
        yaml += "distributed_type: NO\n";
        const auto start = std::chrono::steady_clock::now();
        const Refusal r = refusal(yaml, "acc.yaml");
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, "once its aliases are expanded"), r.message.c_str());
        // A key that is a list is refused, naming where.
        const Refusal list = refusal("distributed_type: NO\nfsdp_config:\n  ? [a, b]\n  : 1\n", "acc.yaml");
        QCOMPARE(list.field, std::string("fsdp_config"));
    }

    void severalYamlDocumentsAreRefused()
    {
        const Refusal r = refusal("distributed_type: FSDP\n---\ndistributed_type: DEEPSPEED\n", "acc.yaml");
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, "2 YAML documents"), r.message.c_str());
    }

    void emptyFilesAreRefused_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("text");
        QTest::newRow("empty json") << QStringLiteral("ds.json") << QString();
        QTest::newRow("blank json") << QStringLiteral("ds.json") << QStringLiteral("  \n\t\n");
        QTest::newRow("empty toml") << QStringLiteral("job.toml") << QString();
        QTest::newRow("toml of comments") << QStringLiteral("job.toml") << QStringLiteral("# nothing\n\n# here\n");
        QTest::newRow("empty yaml") << QStringLiteral("acc.yaml") << QString();
        QTest::newRow("yaml of comments") << QStringLiteral("acc.yml") << QStringLiteral("# nothing\n---\n");
        QTest::newRow("empty, no name") << QString() << QStringLiteral("\n");
    }

    void emptyFilesAreRefused()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, text);
        const Refusal r = refusal(text.toStdString(), fileName.toStdString());
        QCOMPARE(r.field, std::string("file"));
        QVERIFY2(contains(r.message, "is empty"), r.message.c_str());
    }

    // The extension decides the format; only a name without one is sniffed.
    void theExtensionChoosesTheFormat()
    {
        for (const char* bad : { "[1, 2", "zero_optimization: {stage: 2}", "train_batch_size = 8\n" }) {
            const Refusal r = refusal(bad, "ds_config.json");
            QCOMPARE(r.field, std::string("file"));
            QVERIFY2(contains(r.message, "is not valid JSON") && !contains(r.message, "YAML"), r.message.c_str());
        }
        QCOMPARE(configFormatFor("{}", "ds.JSON"), ConfigFormat::DsConfig);
        QCOMPARE(configFormatFor("{}", "acc.yaml"), ConfigFormat::Accelerate);
        QCOMPARE(configFormatFor("distributed_type: FSDP", "x.toml"), ConfigFormat::Torchtitan);
        QCOMPARE(configFormatFor("[training]\n", "acc.yml"), ConfigFormat::Accelerate);
        QCOMPARE(configFormatFor("[training]\n", "config"), ConfigFormat::Torchtitan);
        QCOMPARE(configFormatFor(" {\"a\": 1}", ""), ConfigFormat::DsConfig);
        QCOMPARE(configFormatFor("distributed_type: FSDP\n", "config"), ConfigFormat::Accelerate);
        // A .toml that is YAML is bad TOML, not an Accelerate config.
        const Refusal r = refusal("distributed_type: FSDP\n", "shardwise.toml");
        QVERIFY2(contains(r.message, "not valid TOML"), r.message.c_str());
    }

    void clipForMessageKeepsShortTextAndCutsLongText()
    {
        QCOMPARE(clipForMessage("stage"), std::string("stage"));
        QCOMPARE(clipForMessage("a\nb"), std::string("a?b"));
        const std::string cut = clipForMessage(std::string(5'000'000, 'v'));
        QCOMPARE(cut, std::string(kMaxEchoChars, 'v') + "\xe2\x80\xa6 (5000000 bytes)");
        // A multi-byte character is never cut in two.
        const std::string accents = clipForMessage(std::string(kMaxEchoChars - 1, 'v') + "\xc3\xa9\xc3\xa9");
        QCOMPARE(accents,
                 std::string(kMaxEchoChars - 1, 'v') + "\xe2\x80\xa6 (" + std::to_string(kMaxEchoChars + 3)
                     + " bytes)");
    }
};

QTEST_GUILESS_MAIN(TestFrameworkImportLimits)
#include "test_framework_import_limits.moc"
