// core/frameworks imports beyond ds_config.json: torchtitan job-config TOML (its documented keys,
// unknown keys as warnings, bad values as errors naming the key, the export -> import round trip,
// every golden TOML back to its case) and the batch settings of the Accelerate export (the keys and
// comments that say where micro-batch and accumulation live, and the "# shardwise:" record that
// brings them back).
#include "framework_cases.hpp"
#include "shardwise/frameworks/configs.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardwise;
using namespace shardwise::frameworks;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path& kCases = test::kFrameworkCases;
using test::readFile;

// A torchtitan train config as its llama3 train_configs write one (torchtitan/models/llama3/train_configs).
const char* kLlama3Toml = R"(# torchtitan Config.toml
[job]
dump_folder = "./outputs"
description = "Llama 3 8B training"

[profiling]
enable_profiling = true

[model]
name = "llama3"
flavor = "8B"
tokenizer_path = "./assets/tokenizer/original/tokenizer.model"

[optimizer]
name = "AdamW"
lr = 3e-4

[training]
local_batch_size = 2
global_batch_size = 512
seq_len = 8192
max_norm = 1.0
steps = 1000
dataset = "c4"
mixed_precision_param = "bfloat16"

[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = 64
tensor_parallel_degree = 1
pipeline_parallel_degree = 1
context_parallel_degree = 1

[checkpoint]
enable_checkpoint = false

[activation_checkpoint]
mode = "selective"
selective_ac_option = "op"

[compile]
enable = true
components = ["model", "loss"]
)";

EstimateInput baseInput()
{
    EstimateInput in;
    in.model = resolveModel("llama-3.1-8b", "model");
    in.gpu = resolveGpu("h200", "gpu");
    in.cluster.gpusPerNode = 8;
    in.cluster.nodes = 2;
    return in;
}

bool hasWarning(const ImportedSettings& s, const std::string& key)
{
    return std::any_of(s.warnings.begin(), s.warnings.end(), [&](const ConfigWarning& w) { return w.key == key; });
}

} // namespace

class TestFrameworkImport : public QObject {
    Q_OBJECT

private slots:
    void tomlReadsTorchtitansKeys()
    {
        const ImportedSettings s = importConfig(kLlama3Toml);
        QCOMPARE(s.format, ConfigFormat::Torchtitan);
        QCOMPARE(s.framework, Framework::Torchtitan);
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Fsdp2Reshard));
        QCOMPARE(s.worldSize, std::optional<int>(64));
        QCOMPARE(s.microBatch, std::optional<int>(2));
        QCOMPARE(s.gradAccumulation, std::optional<int>(4)); // 512 / (2 x 64)
        QCOMPARE(s.seqLen, std::optional<int>(8192));
        QCOMPARE(s.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::Bf16Fp32Master));
        QCOMPARE(s.activationCheckpointing, std::optional<bool>(true));
        QCOMPARE(s.checkpointPolicy, std::optional<CheckpointPolicy>(CheckpointPolicy::Selective));
        QCOMPARE(s.compiled, std::optional<bool>(true));
        QVERIFY2(s.warnings.empty(), s.warnings.empty() ? "" : s.warnings.front().key.c_str());
        QCOMPARE(configFormatId(s.format), std::string_view("torchtitan"));

        EstimateInput in = baseInput();
        in.cluster.nodes = 8;
        applyImported(s, in);
        QCOMPARE(in.cluster.worldSize(), 64);
        QCOMPARE(in.training.gradAccumulation, 4);
        QCOMPARE(in.framework.framework, Framework::Torchtitan);
    }

    void tomlVariantsMapToTheirStrategy()
    {
        // DDP: replicate only; never resharding; offload; [training] dtype bf16 is pure bf16; the
        // pre-[compile] key; a shard degree of -1 leaves the world to the plan.
        ImportedSettings s
            = importConfig("[parallelism]\ndata_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n");
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Zero0));
        QCOMPARE(s.worldSize, std::optional<int>(8));
        s = importConfig("[parallelism]\nfsdp_reshard_after_forward = \"never\"\n[training]\ndtype = "
                         "\"bfloat16\"\ncompile = true\n");
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Fsdp2NoReshard));
        QCOMPARE(s.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::PureBf16));
        QCOMPARE(s.compiled, std::optional<bool>(true));
        QVERIFY(!s.worldSize);
        s = importConfig("[training]\nenable_cpu_offload = true\nlocal_batch_size = 2\nglobal_batch_size = 64\n",
                         "job.toml");
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Fsdp2ReshardOffload));
        QCOMPARE(s.trainBatchSize, std::optional<std::int64_t>(64));
        EstimateInput in = baseInput(); // 16 GPUs: 64 / (2 x 16) = 2 accumulation steps
        applyImported(s, in);
        QCOMPARE(in.training.gradAccumulation, 2);
        // torchtitan's default selective option checkpoints every 2nd layer whole: planned as full, said.
        s = importConfig("[activation_checkpoint]\nmode = \"selective\"\n");
        QCOMPARE(s.checkpointPolicy, std::optional<CheckpointPolicy>(CheckpointPolicy::Full));
        QVERIFY(hasWarning(s, "activation_checkpoint.selective_ac_option"));
    }

    void tomlUnknownKeysAreWarningsNamingTheKey()
    {
        const ImportedSettings s
            = importConfig(std::string(kLlama3Toml)
                               + "\n[experimental_thing]\nx = 1\n[float8]\nrecipe_name = \"rowwise\"\n"
                                 "[mx]\n[fault_tolerance]\nenable = false\n",
                           "job.toml");
        QVERIFY(hasWarning(s, "experimental_thing"));
        QVERIFY(hasWarning(s, "float8.recipe_name"));
        const ImportedSettings t
            = importConfig("[training]\nlocal_batch_size = 1\nmystery = 3\n[parallelism]\nfoo = true\n");
        QVERIFY(hasWarning(t, "training.mystery"));
        QVERIFY(hasWarning(t, "parallelism.foo"));
        QCOMPARE(t.warnings.size(), std::size_t(2));
    }

    void tomlBadValuesAreErrorsNamingTheKey_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::newRow("shard 0") << "[parallelism]\ndata_parallel_shard_degree = 0\n"
                                 << "parallelism.data_parallel_shard_degree";
        QTest::newRow("tp") << "[parallelism]\ntensor_parallel_degree = 2\n"
                            << "parallelism.tensor_parallel_degree";
        QTest::newRow("pp") << "[parallelism]\npipeline_parallel_degree = 4\n"
                            << "parallelism.pipeline_parallel_degree";
        QTest::newRow("hsdp") << "[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 4\n"
                              << "parallelism.data_parallel_replicate_degree";
        QTest::newRow("reshard value") << "[parallelism]\nfsdp_reshard_after_forward = \"sometimes\"\n"
                                       << "parallelism.fsdp_reshard_after_forward";
        QTest::newRow("mode") << "[activation_checkpoint]\nmode = \"partial\"\n"
                              << "activation_checkpoint.mode";
        QTest::newRow("local string") << "[training]\nlocal_batch_size = \"2\"\n"
                                      << "training.local_batch_size";
        QTest::newRow("local 0") << "[training]\nlocal_batch_size = 0\n"
                                 << "training.local_batch_size";
        QTest::newRow("seq float") << "[training]\nseq_len = 2048.5\n"
                                   << "training.seq_len";
        QTest::newRow("global indivisible") << "[training]\nlocal_batch_size = 3\nglobal_batch_size = 100\n"
                                               "[parallelism]\ndata_parallel_shard_degree = 8\n"
                                            << "training.global_batch_size";
        QTest::newRow("offload never")
            << "[training]\nenable_cpu_offload = true\n[parallelism]\nfsdp_reshard_after_forward = \"never\"\n"
            << "training.enable_cpu_offload";
        QTest::newRow("compile") << "[compile]\nenable = \"yes\"\n"
                                 << "compile.enable";
        QTest::newRow("section not a table") << "training = 3\n"
                                             << "training";
        // TOML toml++ does not parse names the key on the line it reports.
        QTest::newRow("syntax") << "[training]\nlocal_batch_size = = 2\n"
                                << "training.local_batch_size";
        QTest::newRow("duplicate") << "[training]\nseq_len = 1\nseq_len = 2\n"
                                   << "training.seq_len";
        QTest::newRow("syntax, no key") << "[training\n"
                                        << "training";
        QTest::newRow("syntax in a comment line") << "[training]\nseq_len = 1\n\"unterminated\n"
                                                  << "file";
        QTest::newRow("record") << "# shardwise: micro_batch=0\n[training]\n"
                                << "shardwise.micro_batch";
        QTest::newRow("record precision") << "# shardwise: precision=fp8\n[training]\n"
                                          << "shardwise.precision";
    }

    void tomlBadValuesAreErrorsNamingTheKey()
    {
        QFETCH(QString, text);
        QFETCH(QString, field);
        try {
            importConfig(text.toStdString(), "job.toml");
            QFAIL("no error");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }

    void torchtitanRoundTripKeepsTheSettings_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("llama3 8b") << QString::fromUtf8(kLlama3Toml);
        QTest::newRow("ddp") << QStringLiteral(
            "[training]\nlocal_batch_size = 4\nseq_len = 2048\n"
            "[parallelism]\ndata_parallel_replicate_degree = 16\ndata_parallel_shard_degree = 1\n"
            "[activation_checkpoint]\nmode = \"none\"\n");
        QTest::newRow("pure bf16 noreshard full") << QStringLiteral(
            "[training]\ndtype = \"bfloat16\"\nlocal_batch_size = 1\nglobal_batch_size = 48\nseq_len = 4096\n"
            "[parallelism]\ndata_parallel_shard_degree = 16\nfsdp_reshard_after_forward = \"never\"\n"
            "[activation_checkpoint]\nmode = \"full\"\n");
        QTest::newRow("offload") << QStringLiteral("[training]\nenable_cpu_offload = true\nlocal_batch_size = 2\n"
                                                   "[parallelism]\ndata_parallel_shard_degree = 16\n");
    }

    void torchtitanRoundTripKeepsTheSettings()
    {
        QFETCH(QString, text);
        const ImportedSettings first = importConfig(text.toStdString(), "job.toml");
        EstimateInput in = baseInput();
        applyImported(first, in);
        const Strategy s = first.strategy.value();
        const ImportedSettings second = importConfig(exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s)));
        QVERIFY2(second.warnings.empty(), second.warnings.empty() ? "" : second.warnings.front().key.c_str());
        // What the user's file left to torchtitan's defaults the export states: compare those with the plan.
        ImportedSettings expected = first;
        expected.precision = in.training.precision;
        expected.compiled = in.framework.compiled;
        expected.activationCheckpointing = in.training.activationCheckpointing;
        expected.checkpointPolicy = in.training.activationCheckpointing ? std::optional(in.training.checkpointPolicy)
                                                                        : first.checkpointPolicy;
        expected.seqLen = in.training.seqLen;
        expected.microBatch = in.training.microBatch;
        expected.gradAccumulation = in.training.gradAccumulation;
        expected.worldSize = in.cluster.worldSize();
        expected.nodes = in.cluster.nodes; // the export records the node count
        expected.trainBatchSize.reset();
        ImportedSettings got = second;
        if (!got.activationCheckpointing.value_or(false))
            got.checkpointPolicy = expected.checkpointPolicy;
        QVERIFY2(expected.sameSettings(got), qPrintable(text));
        // And the plan the second file makes is the first plan.
        EstimateInput again = baseInput();
        applyImported(second, again);
        QCOMPARE(again.training.precision, in.training.precision);
        QCOMPARE(again.training.microBatch, in.training.microBatch);
        QCOMPARE(again.training.gradAccumulation, in.training.gradAccumulation);
        QCOMPARE(again.training.seqLen, in.training.seqLen);
        QCOMPARE(again.cluster.worldSize(), in.cluster.worldSize());
    }

    void goldenTomlsAndYamlsImportBackToTheirCase()
    {
        int tomls = 0;
        for (const auto& e : fs::directory_iterator(kCases)) {
            if (!fs::exists(e.path() / "input.json"))
                continue;
            const json j = json::parse(readFile(e.path() / "input.json"));
            const json t = j.value("training", json::object());
            const int micro = t.value("micro_batch", 1);
            const int accumulation = t.value("grad_accumulation", 1);
            const int seq = t.value("seq_len", 2048);
            const json c = j.value("cluster", json::object());
            const int world = c.value("gpus_per_node", 1) * c.value("nodes", 1);
            const Strategy strategy = parseStrategy(j.at("strategy").get<std::string>(), "strategy");
            for (const char* file : { "shardwise.toml", "accelerate.yaml" }) {
                const fs::path p = e.path() / file;
                if (!fs::exists(p))
                    continue;
                const ImportedSettings s = importConfigFile(p.string());
                const std::string where = e.path().filename().string() + "/" + file;
                QVERIFY2(s.warnings.empty(),
                         (where + ": " + (s.warnings.empty() ? "" : s.warnings.front().key)).c_str());
                QVERIFY2(s.strategy == strategy, where.c_str());
                QVERIFY2(s.worldSize == world, where.c_str());
                QVERIFY2(s.microBatch == micro, where.c_str());
                QVERIFY2(s.gradAccumulation == accumulation, where.c_str());
                QVERIFY2(s.seqLen == seq, where.c_str());
                // Accelerate hands a ZeRO stage's DeepSpeed only bf16.enabled: pure bf16 runs, and is
                // recorded, with DeepSpeed's fp32 master there.
                const PrecisionPolicy asked = parsePrecision(t.value("precision", std::string("bf16")), "precision");
                const bool zeroStage = traits(strategy).family == StrategyFamily::DeepSpeedZero
                    && strategy != Strategy::Zero0 && std::string(file) == "accelerate.yaml";
                QVERIFY2(s.precision == (zeroStage ? PrecisionPolicy::Bf16Fp32Master : asked), where.c_str());
                tomls += std::string(file) == "shardwise.toml";
            }
        }
        QVERIFY(tomls >= 3);
    }

    void accelerateExportSaysWhereTheBatchSettingsLive()
    {
        EstimateInput in = baseInput();
        in.training.microBatch = 3;
        in.training.gradAccumulation = 5;
        in.framework.framework = Framework::Fsdp2;
        const std::string fsdp = exportConfig(ConfigKind::Accelerate, in, Strategy::Fsdp2Reshard,
                                              planIdentity(in, Strategy::Fsdp2Reshard));
        QVERIFY(fsdp.find("per_device_train_batch_size=3") != std::string::npos);
        QVERIFY(fsdp.find("ACCELERATE_GRADIENT_ACCUMULATION_STEPS=5") != std::string::npos);
        const std::string launch
            = exportConfig(ConfigKind::Launch, in, Strategy::Fsdp2Reshard, planIdentity(in, Strategy::Fsdp2Reshard));
        QVERIFY(launch.find("ACCELERATE_GRADIENT_ACCUMULATION_STEPS=5 accelerate launch") != std::string::npos);
        // The YAML reads back with its micro-batch and accumulation, which no Accelerate key holds.
        ImportedSettings s = importConfig(fsdp);
        QCOMPARE(s.microBatch, std::optional<int>(3));
        QCOMPARE(s.gradAccumulation, std::optional<int>(5));
        QCOMPARE(s.seqLen, std::optional<int>(in.training.seqLen));
        // DeepSpeed through Accelerate: the accumulation is a deepspeed_config key.
        in.framework.framework = Framework::DeepSpeed;
        const std::string ds
            = exportConfig(ConfigKind::Accelerate, in, Strategy::Zero2, planIdentity(in, Strategy::Zero2));
        QVERIFY(ds.find("  gradient_accumulation_steps: 5\n") != std::string::npos);
        QVERIFY(ds.find("train_micro_batch_size_per_gpu") != std::string::npos);
        s = importConfig(ds);
        QCOMPARE(s.microBatch, std::optional<int>(3));
        QCOMPARE(s.gradAccumulation, std::optional<int>(5));
        // A user's own YAML without the record states neither.
        s = importConfig("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n");
        QVERIFY(!s.microBatch && !s.gradAccumulation);
    }

    // Accelerate's parallelism_config beyond plain sharding (its own examples tp_hsdp.yaml and cp.yaml,
    // examples/torch_native_parallelism/configs) is refused naming the size; sizes of 1 are read quietly.
    void accelerateParallelismBeyondShardingIsAnError_data()
    {
        QTest::addColumn<QString>("parallelism");
        QTest::addColumn<QString>("key");
        QTest::newRow("tp_hsdp.yaml") << QStringLiteral("  parallelism_config_cp_size: 1\n"
                                                        "  parallelism_config_dp_replicate_size: 2\n"
                                                        "  parallelism_config_dp_shard_size: 2\n"
                                                        "  parallelism_config_tp_size: 2\n")
                                      << QStringLiteral("parallelism_config.parallelism_config_dp_replicate_size");
        QTest::newRow("cp.yaml") << QStringLiteral("  parallelism_config_cp_size: 8\n"
                                                   "  parallelism_config_dp_replicate_size: 1\n"
                                                   "  parallelism_config_dp_shard_size: 1\n"
                                                   "  parallelism_config_tp_size: 1\n")
                                 << QStringLiteral("parallelism_config.parallelism_config_cp_size");
        QTest::newRow("tp") << QStringLiteral("  parallelism_config_tp_size: 4\n")
                            << QStringLiteral("parallelism_config.parallelism_config_tp_size");
        QTest::newRow("sp") << QStringLiteral(
            "  parallelism_config_sp_size: 2\n  parallelism_config_sp_backend: deepspeed\n")
                            << QStringLiteral("parallelism_config.parallelism_config_sp_size");
    }

    void accelerateParallelismBeyondShardingIsAnError()
    {
        QFETCH(QString, parallelism);
        QFETCH(QString, key);
        const std::string yaml = "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nfsdp_config:\n"
                                 "  fsdp_reshard_after_forward: true\n  fsdp_version: 2\nmixed_precision: bf16\n"
                                 "num_machines: 1\nnum_processes: 8\nparallelism_config:\n"
            + parallelism.toStdString();
        try {
            importConfig(yaml, "acc.yaml");
            QFAIL("no error");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), key);
            QVERIFY2(std::string(e.what()).find("not planned") != std::string::npos, e.what());
        }
    }

    void accelerateParallelismOfOnesIsPlainFsdp()
    {
        const ImportedSettings s = importConfig(
            "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\nnum_processes: 8\nparallelism_config:\n"
            "  parallelism_config_cp_size: 1\n  parallelism_config_dp_replicate_size: 1\n"
            "  parallelism_config_dp_shard_size: 8\n  parallelism_config_tp_size: 1\n"
            "  parallelism_config_cp_backend: torch\n",
            "acc.yaml");
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Fsdp2Reshard));
        QVERIFY2(s.warnings.empty(), s.warnings.empty() ? "" : s.warnings.front().key.c_str());
    }

    // Accelerate runs FSDP1 when fsdp_version is left out (FullyShardedDataParallelPlugin's default):
    // refused, like fsdp_version: 1, with the way to FSDP2.
    void accelerateFsdpWithoutAVersionIsFsdp1AndRefused()
    {
        for (const char* yaml : { "distributed_type: FSDP\nfsdp_config:\n  fsdp_reshard_after_forward: false\n",
                                  "distributed_type: FSDP\nnum_processes: 8\n" }) {
            try {
                importConfig(yaml, "acc.yaml");
                QFAIL(yaml);
            } catch (const SpecError& e) {
                QCOMPARE(e.field(), std::string("fsdp_config.fsdp_version"));
                QVERIFY2(std::string(e.what()).find("FSDP1") != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("fsdp_version: 2") != std::string::npos, e.what());
            }
        }
    }

    // DeepSpeed's older spelling "bfloat16" means bf16 (BFLOAT16_OLD, runtime/precision_config.py), and
    // bf16 wins when both are there.
    void deepSpeedReadsTheLegacyBfloat16Key()
    {
        ImportedSettings s = importConfig(R"({"bfloat16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
        QCOMPARE(s.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::Bf16Fp32Master));
        QVERIFY2(s.warnings.empty(), s.warnings.empty() ? "" : s.warnings.front().key.c_str());
        s = importConfig(R"({"bfloat16": {"enabled": true, "bf16_master_weights_and_grads": true,
            "bf16_optimizer_states": true}, "zero_optimization": {"stage": 1}})");
        QCOMPARE(s.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::PureBf16));
        s = importConfig(
            R"({"bf16": {"enabled": false}, "bfloat16": {"enabled": true}, "_shardwise": {"precision": "bf16"}})");
        QCOMPARE(s.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::PureBf16)); // bf16 off: the record
        QVERIFY(hasWarning(s, "bfloat16"));
    }

    // DeepSpeed's ZeRO, offload and (from 0.17.1) precision sections forbid unknown keys; such a file
    // is refused, saying DeepSpeed refuses it. Top-level keys DeepSpeed ignores stay warnings.
    void keysDeepSpeedRefusesAreErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("zero") << QStringLiteral(R"({"zero_optimization": {"stage": 2, "mystery": 1}})")
                              << QStringLiteral("zero_optimization.mystery");
        QTest::newRow("a typo") << QStringLiteral(R"({"zero_optimization": {"stage": 3, "stage3_prefetch_bucket": 5}})")
                                << QStringLiteral("zero_optimization.stage3_prefetch_bucket");
        QTest::newRow("offload optimizer") << QStringLiteral(
            R"({"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin": true}}})")
                                           << QStringLiteral("zero_optimization.offload_optimizer.pin");
        QTest::newRow("offload param") << QStringLiteral(
            R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "none", "x": 1}}})")
                                       << QStringLiteral("zero_optimization.offload_param.x");
        QTest::newRow("bf16") << QStringLiteral(R"({"bf16": {"enabled": true, "master_weights": true}})")
                              << QStringLiteral("bf16.master_weights");
        QTest::newRow("fp16") << QStringLiteral(R"({"fp16": {"enabled": true, "scale": 2}})")
                              << QStringLiteral("fp16.scale");
    }

    void keysDeepSpeedRefusesAreErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        try {
            importConfig(text.toStdString(), "ds_config.json");
            QFAIL("no error");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), key);
            QVERIFY2(std::string(e.what()).find("DeepSpeed refuses this file") != std::string::npos, e.what());
        }
    }

    void keysDeepSpeedAcceptsAreRead()
    {
        // Fields of DeepSpeedZeroConfig under either spelling, and the offload fields of later releases.
        const ImportedSettings s = importConfig(R"({"bf16": {"enabled": true, "check_grad_overflow": true},
            "zero_optimization": {"stage": 3, "allgather_sequential": false, "stage3_module_granularity_threshold": 0,
              "model_persistence_threshold": 100, "leaf_module": {}, "offload_optimizer": {"device": "cpu",
              "super_offload": false, "cpuadam_cores_perc": 0.8}},
            "my_top_key": 1})",
                                                "ds_config.json");
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Zero3Offload));
        QCOMPARE(s.warnings.size(), std::size_t(1));
        QCOMPARE(s.warnings.front().key, std::string("my_top_key"));
        // Fields DeepSpeed reads that change what the plan would predict are warnings, not refusals.
        const ImportedSettings q = importConfig(
            R"({"zero_optimization": {"stage": 3, "zero_hpz_partition_size": 8, "zero_quantized_weights": true}})");
        QVERIFY(hasWarning(q, "zero_optimization.zero_hpz_partition_size"));
        QVERIFY(hasWarning(q, "zero_optimization.zero_quantized_weights"));
    }

    // torchtitan's [quantize] (Quantize in torchtitan/config/job_config.py) is a known section.
    void torchtitanQuantizeIsAKnownSection()
    {
        const ImportedSettings s
            = importConfig(std::string(kLlama3Toml)
                               + "\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n"
                                 "recipe_name = \"tensorwise\"\nfilter_fqns = [\"output\"]\n"
                                 "[quantize.grouped_mm.mx]\nfqns = [\"experts\"]\n"
                                 "[debug]\nseed = 1\n",
                           "llama3_8b.toml");
        QVERIFY2(s.warnings.empty(), s.warnings.empty() ? "" : s.warnings.front().key.c_str());
        // The other keys of 0.2.2's Parallelism, Training and ActivationCheckpoint are read quietly too
        // (torchtitan's own train configs state expert_tensor_parallel_degree = 1).
        const ImportedSettings keys = importConfig(
            "[parallelism]\nexpert_tensor_parallel_degree = 1\nexpert_parallel_comm_backend = \"standard\"\n"
            "context_parallel_load_balancer = \"headtail\"\nmodule_fqns_per_model_part = []\n"
            "[training.dataloader]\nnum_workers = 2\n"
            "[activation_checkpoint]\nmode = \"full\"\nearly_stop = false\npreserve_rng_state = false\n",
            "job.toml");
        QVERIFY2(keys.warnings.empty(), keys.warnings.empty() ? "" : keys.warnings.front().key.c_str());
        QVERIFY_THROWS_EXCEPTION(SpecError,
                                 importConfig("[parallelism]\nexpert_tensor_parallel_degree = 2\n", "job.toml"));
        const ImportedSettings budget = importConfig("[activation_checkpoint]\nmode = \"memory_budget\"\n", "job.toml");
        QCOMPARE(budget.checkpointPolicy, std::optional<CheckpointPolicy>(CheckpointPolicy::Full));
        QVERIFY(hasWarning(budget, "activation_checkpoint.mode"));
        const ImportedSettings t = importConfig("[quantize.conv]\nx = 1\n[quantize.linear.fp4]\ny = 2\n", "job.toml");
        QVERIFY(hasWarning(t, "quantize.conv"));
        QVERIFY(hasWarning(t, "quantize.linear.fp4"));
    }

    // A 2-node export reads back as 2 nodes: the torchtitan TOML and the ds_config record the node count.
    void roundTripsKeepTheNodeCount()
    {
        EstimateInput in = baseInput(); // 2 nodes x 8
        in.framework.framework = Framework::Torchtitan;
        for (const auto& [kind, strategy] : { std::pair { ConfigKind::Torchtitan, Strategy::Fsdp2Reshard },
                                              std::pair { ConfigKind::DsConfig, Strategy::Zero3 },
                                              std::pair { ConfigKind::Accelerate, Strategy::Fsdp2Reshard } }) {
            const ImportedSettings s = importConfig(exportConfig(kind, in, strategy, planIdentity(in, strategy)));
            QCOMPARE(s.nodes, std::optional<int>(2));
            EstimateInput back = baseInput();
            back.cluster.nodes = 1;
            back.cluster.gpusPerNode = 1;
            applyImported(s, back);
            QCOMPARE(back.cluster.nodes, 2);
            QCOMPARE(back.cluster.gpusPerNode, 8);
        }
    }

    // torchtitan after 0.2.2 has no TOML job config (pytorch/torchtitan PR #2386): the export, and the
    // launch lines that would run one, are refused naming the release; 0.2.2 and earlier are written.
    void torchtitanAfter022IsRefused()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::Torchtitan;
        const Strategy s = Strategy::Fsdp2Reshard;
        for (const char* version : { "0.3", "0.2.3", "1.0" }) {
            in.framework.version = version;
            for (ConfigKind kind : { ConfigKind::Torchtitan, ConfigKind::Launch, ConfigKind::Sbatch }) {
                QVERIFY(!exportSupports(kind, in, s));
                const std::string why = unsupportedReason(kind, in, s);
                QVERIFY2(why.find(std::string("torchtitan ") + version + " has no TOML job config")
                             != std::string::npos,
                         why.c_str());
                QVERIFY2(why.find("0.2.2") != std::string::npos && why.find("#2386") != std::string::npos, why.c_str());
                QVERIFY_THROWS_EXCEPTION(SpecError, exportConfig(kind, in, s, planIdentity(in, s)));
            }
            QVERIFY(exportSupports(ConfigKind::Fsdp2Python, in, s));
        }
        for (const char* version : { "0.2.2", "0.2", "0.1.0", "" }) {
            in.framework.version = version;
            QVERIFY2(exportSupports(ConfigKind::Torchtitan, in, s), version);
            QVERIFY(exportSupports(ConfigKind::Launch, in, s));
        }
        // A DeepSpeed plan's version is DeepSpeed's: its torchtitan export is torchtitan 0.2's.
        in.framework.framework = Framework::DeepSpeed;
        in.framework.version = "0.18.3";
        QVERIFY(exportSupports(ConfigKind::Torchtitan, in, s));
        QVERIFY(exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s)).find("torchtitan 0.2 job config")
                != std::string::npos);
    }

    // Pure bf16 outside DeepSpeed is mixed_precision 'no': with bf16 Accelerate's fsdp2_prepare_model upcasts
    // every trainable parameter to fp32. An FSDP YAML with bf16 and a pure-bf16 record is an fp32 master.
    void acceleratePureBf16IsMixedPrecisionNo()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::Fsdp2;
        in.training.precision = PrecisionPolicy::PureBf16;
        for (Strategy s :
             { Strategy::Fsdp2Reshard, Strategy::Fsdp2NoReshard, Strategy::Fsdp2ReshardOffload, Strategy::Zero0 }) {
            const std::string yaml = exportConfig(ConfigKind::Accelerate, in, s, planIdentity(in, s));
            QVERIFY2(yaml.find("\nmixed_precision: 'no'\n") != std::string::npos, yaml.c_str());
            const ImportedSettings back = importConfig(yaml, "accelerate.yaml");
            QVERIFY(back.precision == PrecisionPolicy::PureBf16);
            QVERIFY2(back.warnings.empty(), back.warnings.empty() ? "" : back.warnings[0].message.c_str());
        }
        const std::string fsdp = exportConfig(ConfigKind::Accelerate, in, Strategy::Fsdp2Reshard,
                                              planIdentity(in, Strategy::Fsdp2Reshard));
        QVERIFY(fsdp.find("fsdp2_prepare_model") != std::string::npos);
        // The ZeRO stages keep bf16: Accelerate hands DeepSpeed bf16.enabled from it.
        in.framework.framework = Framework::DeepSpeed;
        const std::string zero
            = exportConfig(ConfigKind::Accelerate, in, Strategy::Zero2, planIdentity(in, Strategy::Zero2));
        QVERIFY(zero.find("\nmixed_precision: bf16\n") != std::string::npos);
        // fp32 master: bf16.
        in.framework.framework = Framework::Fsdp2;
        in.training.precision = PrecisionPolicy::Bf16Fp32Master;
        QVERIFY(
            exportConfig(ConfigKind::Accelerate, in, Strategy::Fsdp2Reshard, planIdentity(in, Strategy::Fsdp2Reshard))
                .find("\nmixed_precision: bf16\n")
            != std::string::npos);
        // A file that asks for pure bf16 in its record but bf16 mixed precision runs with an fp32 master.
        const std::string old = "# shardwise: micro_batch=1 grad_accumulation=1 seq_len=4096 precision=bf16 "
                                "activation_checkpointing=off\n"
                                "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\nmixed_precision: bf16\n"
                                "num_processes: 16\n";
        ImportedSettings back = importConfig(old, "accelerate.yaml");
        QVERIFY(back.precision == PrecisionPolicy::Bf16Fp32Master);
        QVERIFY(hasWarning(back, "mixed_precision"));
        // 'no' without a record leaves the plan's precision, with a warning.
        back = importConfig("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\nmixed_precision: 'no'\n",
                            "accelerate.yaml");
        QVERIFY(!back.precision);
        QVERIFY(hasWarning(back, "mixed_precision"));
    }

    // Accelerate's FSDP2 plugin reduces in mixed_precision's dtype (set_mixed_precision: reduce_dtype = bf16);
    // the plan counts float32 reduction, and the export says so and how to get it.
    void accelerateFsdpSaysItReducesInBf16()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::Fsdp2;
        in.training.precision = PrecisionPolicy::Bf16Fp32Master;
        const std::string yaml = exportConfig(ConfigKind::Accelerate, in, Strategy::Fsdp2Reshard,
                                              planIdentity(in, Strategy::Fsdp2Reshard));
        QVERIFY(yaml.find("reduce_dtype=bf16") != std::string::npos);
        QVERIFY(yaml.find("reduce_dtype=torch.float32") != std::string::npos);
        QVERIFY(yaml.find("FullyShardedDataParallelPlugin(mixed_precision_policy=") != std::string::npos);
        // DDP's gradients are the fp32 parameters' own: nothing to say there.
        QVERIFY(exportConfig(ConfigKind::Accelerate, in, Strategy::Zero0, planIdentity(in, Strategy::Zero0))
                    .find("reduce_dtype")
                == std::string::npos);
    }

    // torchtitan trains [model]'s name and flavor, llama3 / debugmodel when the file has none.
    void torchtitanExportNamesTheModelAndItsDtype()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::Torchtitan;
        const Strategy s = Strategy::Fsdp2Reshard;
        auto section = [](const std::string& toml, const std::string& name) {
            const std::size_t at = toml.find("\n[" + name + "]\n");
            if (at == std::string::npos)
                return std::string();
            const std::size_t end = toml.find("\n[", at + 1);
            return toml.substr(at, end == std::string::npos ? std::string::npos : end - at);
        };
        in.training.precision = PrecisionPolicy::PureBf16;
        std::string toml = exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s));
        QCOMPARE(section(toml, "model"), std::string("\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n"));
        QVERIFY2(section(toml, "training").find("\ndtype = \"bfloat16\"\n") != std::string::npos, toml.c_str());
        QVERIFY(importConfig(toml, "shardwise.toml").precision == PrecisionPolicy::PureBf16);
        in.model = resolveModel("llama-3.1-70b", "model");
        QVERIFY(section(exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s)), "model").find("\"70B\"")
                != std::string::npos);
        // A model torchtitan has no train spec for is named by its id, so torchtitan stops instead of training
        // its debug model.
        in.model = resolveModel("qwen2.5-7b", "model");
        toml = exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s));
        QCOMPARE(section(toml, "model"), std::string("\n[model]\nname = \"qwen2.5-7b\"\nflavor = \"qwen2.5-7b\"\n"));
        QVERIFY(toml.find("get_train_spec") != std::string::npos);
        const ImportedSettings back = importConfig(toml, "shardwise.toml");
        QVERIFY(back.warnings.empty());
        // fp32 master: dtype float32, stated.
        in.training.precision = PrecisionPolicy::Bf16Fp32Master;
        toml = exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s));
        QVERIFY(section(toml, "training").find("\ndtype = \"float32\"\n") != std::string::npos);
        // torchtitan 0.1 has no [training] dtype: no key, and pure bf16 is recorded as the fp32 master it runs.
        in.training.precision = PrecisionPolicy::PureBf16;
        in.framework.version = "0.1.0";
        toml = exportConfig(ConfigKind::Torchtitan, in, s, planIdentity(in, s));
        QVERIFY(section(toml, "training").find("\ndtype") == std::string::npos);
        QVERIFY(toml.find("precision=bf16-fp32-master") != std::string::npos);
    }

    // DeepSpeed's own scripts parse --deepspeed as a flag and --deepspeed_config FILE
    // (deepspeed.add_config_arguments); accelerate launch runs the user's Accelerator script.
    void launchLinesFollowTheScriptsConvention()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::DeepSpeed;
        std::string launch = exportConfig(ConfigKind::Launch, in, Strategy::Zero3, planIdentity(in, Strategy::Zero3));
        // No command line (the comments name the Trainer's convention) passes the config as --deepspeed's value.
        for (std::size_t at = 0; (at = launch.find("--deepspeed ds_config.json", at)) != std::string::npos; ++at) {
            const std::size_t start = launch.rfind('\n', at) + 1;
            QVERIFY2(launch.compare(start, 1, "#") == 0, launch.substr(start, at - start).c_str());
        }
        std::size_t n = 0;
        for (std::size_t at = 0;
             (at = launch.find("train.py --deepspeed --deepspeed_config ds_config.json", at)) != std::string::npos;
             ++at)
            ++n;
        QCOMPARE(n, std::size_t(3)); // deepspeed, torchrun, srun
        QVERIFY(launch.find("add_config_arguments") != std::string::npos);
        in.framework.framework = Framework::Fsdp2;
        launch = exportConfig(ConfigKind::Launch, in, Strategy::Fsdp2Reshard, planIdentity(in, Strategy::Fsdp2Reshard));
        const std::size_t accel = launch.find(" accelerate launch --config_file");
        QVERIFY(accel != std::string::npos);
        const std::string accelLine = launch.substr(accel, launch.find('\n', accel) - accel);
        QVERIFY2(accelLine.size() > 9 && accelLine.substr(accelLine.size() - 9) == " train.py", accelLine.c_str());
        QVERIFY(launch.find("accelerate.Accelerator()") != std::string::npos);
        QVERIFY(launch.find("--rdzv-id shardwise train_fsdp2.py") != std::string::npos);
    }

    // DeepSpeed turns overlap_comm on for stage 3 only (DeepSpeedZeroConfig.overlap_comm_valid): stages 1
    // and 2 state it only when the plan's settings asked for it; offload configs name their optimizer.
    void dsConfigKeepsDeepSpeedsDefaultsAndNamesTheOffloadOptimizer()
    {
        EstimateInput in = baseInput();
        in.framework.framework = Framework::DeepSpeed;
        const auto zero
            = [&](Strategy s) { return json::parse(exportConfig(ConfigKind::DsConfig, in, s, planIdentity(in, s))); };
        QVERIFY(!zero(Strategy::Zero1).at("zero_optimization").contains("overlap_comm"));
        QVERIFY(!zero(Strategy::Zero2).at("zero_optimization").contains("overlap_comm"));
        QVERIFY(!zero(Strategy::Zero2Offload).at("zero_optimization").contains("overlap_comm"));
        QCOMPARE(zero(Strategy::Zero3).at("zero_optimization").at("overlap_comm").get<bool>(), true);
        QVERIFY(!zero(Strategy::Zero0).at("zero_optimization").contains("overlap_comm"));
        // A ds_config that states it at stage 2 keeps it through a round trip.
        for (bool on : { true, false }) {
            const ImportedSettings stated = importConfig(
                std::string(R"({"zero_optimization": {"stage": 2, "overlap_comm": )") + (on ? "true" : "false") + "}}");
            EstimateInput again = baseInput();
            applyImported(stated, again);
            const json back = json::parse(
                exportConfig(ConfigKind::DsConfig, again, Strategy::Zero2, planIdentity(again, Strategy::Zero2)));
            QCOMPARE(back.at("zero_optimization").at("overlap_comm").get<bool>(), on);
        }
        // ZeRO-Offload: DeepSpeedCPUAdam from an optimizer block (a torch optimizer stops with
        // ZeRORuntimeException outside the Hugging Face Trainer).
        for (Strategy s : { Strategy::Zero2Offload, Strategy::Zero3Offload }) {
            const json j = zero(s);
            QCOMPARE(j.at("optimizer").at("type").get<std::string>(), std::string("AdamW"));
            QVERIFY(j.at("optimizer").at("params").at("lr").is_number());
            QVERIFY(j.at("_shardwise").at("optimizer_note").get<std::string>().find("DeepSpeedCPUAdam")
                    != std::string::npos);
            QVERIFY(importConfig(j.dump()).warnings.empty());
        }
        for (Strategy s : { Strategy::Zero1, Strategy::Zero2, Strategy::Zero3 })
            QVERIFY(!zero(s).contains("optimizer"));
    }
};

QTEST_GUILESS_MAIN(TestFrameworkImport)
#include "test_framework_import.moc"
