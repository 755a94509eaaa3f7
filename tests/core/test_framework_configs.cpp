// core/frameworks: golden exports per case folder (tests/data/framework_configs/<case>/: input.json and
// one expected file per export kind; a kind without its file must be one the case's strategy cannot be
// expressed in), each export checked against the keys and types its framework documents; imports of
// unknown keys, bad values and "auto"; the round trip in -> settings -> out -> in.
//
// SHARDWISE_UPDATE_GOLDEN=1 rewrites the expected files from the current exports.
#include "framework_cases.hpp"
#include "shardwise/estimate/deepspeed_precision.hpp"
#include "shardwise/frameworks/configs.hpp"
#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using nlohmann::json;
using namespace shardwise;
using namespace shardwise::frameworks;
namespace fs = std::filesystem;

namespace {

const fs::path& kCases = test::kFrameworkCases;
using test::readFile;

struct Case {
    std::string name;
    EstimateInput in;
    Strategy strategy = Strategy::Zero0;
};

Case loadCase(const fs::path& dir)
{
    const json j = json::parse(readFile(dir / "input.json"));
    Case c;
    c.name = dir.filename().string();
    c.in.model = resolveModel(j.at("model").get<std::string>(), "model");
    c.in.gpu = resolveGpu(j.at("gpu").get<std::string>(), "gpu");
    c.in.cluster = clusterFromJson(j.value("cluster", json::object()), "cluster");
    c.in.training = trainingFromJson(j.value("training", json::object()), "training");
    c.in.knobs = knobsFromJson(j.value("knobs", json::object()), "knobs");
    // A case that states overlap_comm asks for it (ds_config writes it at stages 1 and 2 only then).
    c.in.knobs.overlapCommStated = j.value("knobs", json::object()).contains("overlap_comm");
    const json f = j.value("framework", json::object());
    c.in.framework.framework = parseFramework(f.value("id", std::string("native")), "framework.id");
    c.in.framework.version = f.value("version", std::string());
    c.in.framework.compiled = f.value("compiled", false);
    c.strategy = parseStrategy(j.at("strategy").get<std::string>(), "strategy");
    return c;
}

std::vector<Case> allCases()
{
    std::vector<Case> cases;
    for (const auto& e : fs::directory_iterator(kCases))
        if (e.is_directory() && fs::exists(e.path() / "input.json"))
            cases.push_back(loadCase(e.path()));
    std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    return cases;
}

// ds_config keys and types from DeepSpeed's configuration reference (docs/_pages/config-json.md) and
// deepspeed/runtime/zero/config.py, offload_config.py; "_shardwise" is Shardwise's own top-level record.
enum class T { Int, Bool, Number, String, Object };
const std::map<std::string, T>& dsKeyTable()
{
    static const std::map<std::string, T> table {
        { "_shardwise", T::Object },
        { "train_batch_size", T::Int },
        { "train_micro_batch_size_per_gpu", T::Int },
        { "gradient_accumulation_steps", T::Int },
        { "gradient_clipping", T::Number },
        { "bf16", T::Object },
        { "bf16.enabled", T::Bool },
        { "bf16.bf16_master_weights_and_grads", T::Bool }, // 0.18.3 and later (runtime/precision_config.py)
        { "bf16.bf16_optimizer_states", T::Bool },
        { "zero_optimization", T::Object },
        { "zero_optimization.stage", T::Int },
        { "zero_optimization.overlap_comm", T::Bool },
        { "zero_optimization.contiguous_gradients", T::Bool },
        { "zero_optimization.reduce_bucket_size", T::Int },
        { "zero_optimization.allgather_bucket_size", T::Int },
        { "zero_optimization.stage3_prefetch_bucket_size", T::Int },
        { "zero_optimization.stage3_param_persistence_threshold", T::Int },
        { "zero_optimization.stage3_max_live_parameters", T::Int },
        { "zero_optimization.stage3_max_reuse_distance", T::Int },
        { "zero_optimization.offload_optimizer", T::Object },
        { "zero_optimization.offload_optimizer.device", T::String },
        { "zero_optimization.offload_optimizer.pin_memory", T::Bool },
        // The offload configs' optimizer block (docs/_pages/config-json.md, "Optimizer Parameters"): its
        // params are the optimizer's constructor arguments (DeepSpeedCPUAdam's for offload).
        { "optimizer", T::Object },
        { "optimizer.type", T::String },
        { "optimizer.params", T::Object },
        { "activation_checkpointing", T::Object },
        { "activation_checkpointing.partition_activations", T::Bool },
        { "activation_checkpointing.cpu_checkpointing", T::Bool },
        { "activation_checkpointing.contiguous_memory_optimization", T::Bool },
        { "activation_checkpointing.synchronize_checkpoint_boundary", T::Bool },
    };
    return table;
}

bool hasType(const json& v, T t)
{
    switch (t) {
    case T::Int:
        return v.is_number_integer();
    case T::Bool:
        return v.is_boolean();
    case T::Number:
        return v.is_number();
    case T::String:
        return v.is_string();
    case T::Object:
        return v.is_object();
    }
    return false;
}

void checkDsKeys(const json& j, const std::string& path, const std::string& caseName)
{
    for (const auto& [k, v] : j.items()) {
        const std::string key = path.empty() ? k : path + "." + k;
        const auto it = dsKeyTable().find(key);
        QVERIFY2(it != dsKeyTable().end(), (caseName + ": ds_config key not in DeepSpeed's table: " + key).c_str());
        QVERIFY2(hasType(v, it->second), (caseName + ": ds_config key of the wrong type: " + key).c_str());
        if (v.is_object() && key != "_shardwise" && key != "optimizer.params")
            checkDsKeys(v, key, caseName);
    }
}

// Accelerate's ClusterConfig fields (config_args.py) and the FSDP2 / DeepSpeed plugin keys with their types.
const std::map<std::string, T>& accelerateKeyTable()
{
    static const std::map<std::string, T> table {
        { "compute_environment", T::String },
        { "debug", T::Bool },
        { "distributed_type", T::String },
        { "downcast_bf16", T::String },
        { "enable_cpu_affinity", T::Bool },
        { "machine_rank", T::Int },
        { "main_process_ip", T::String },
        { "main_process_port", T::Int },
        { "main_training_function", T::String },
        { "mixed_precision", T::String },
        { "num_machines", T::Int },
        { "num_processes", T::Int },
        { "rdzv_backend", T::String },
        { "same_network", T::Bool },
        { "use_cpu", T::Bool },
        { "dynamo_config", T::Object },
        { "dynamo_config.dynamo_backend", T::String },
        { "fsdp_config", T::Object },
        { "fsdp_config.fsdp_activation_checkpointing", T::Bool },
        { "fsdp_config.fsdp_auto_wrap_policy", T::String },
        { "fsdp_config.fsdp_cpu_ram_efficient_loading", T::Bool },
        { "fsdp_config.fsdp_offload_params", T::Bool },
        { "fsdp_config.fsdp_reshard_after_forward", T::Bool },
        { "fsdp_config.fsdp_state_dict_type", T::String },
        { "fsdp_config.fsdp_transformer_layer_cls_to_wrap", T::String },
        { "fsdp_config.fsdp_version", T::Int },
        { "deepspeed_config", T::Object },
        { "deepspeed_config.gradient_accumulation_steps", T::Int },
        { "deepspeed_config.gradient_clipping", T::Number },
        { "deepspeed_config.offload_optimizer_device", T::String },
        { "deepspeed_config.offload_param_device", T::String },
        { "deepspeed_config.zero3_init_flag", T::Bool },
        { "deepspeed_config.zero3_save_16bit_model", T::Bool },
        { "deepspeed_config.zero_stage", T::Int },
    };
    return table;
}

bool yamlHasType(const YAML::Node& n, T t)
{
    if (t == T::Object)
        return n.IsMap();
    if (!n.IsScalar())
        return false;
    const std::string& s = n.Scalar();
    switch (t) {
    case T::Int:
        return n.Tag() != "!" && !s.empty() && s.find_first_not_of("-0123456789") == std::string::npos;
    case T::Bool:
        return n.Tag() != "!" && (s == "true" || s == "false");
    case T::Number:
        return n.Tag() != "!" && s.find_first_not_of("-0123456789.e") == std::string::npos;
    default:
        return true;
    }
}

void checkAccelerateKeys(const YAML::Node& n, const std::string& path, const std::string& caseName)
{
    for (const auto& kv : n) {
        const std::string k = kv.first.as<std::string>();
        const std::string key = path.empty() ? k : path + "." + k;
        const auto it = accelerateKeyTable().find(key);
        QVERIFY2(it != accelerateKeyTable().end(), (caseName + ": Accelerate key not in its table: " + key).c_str());
        QVERIFY2(yamlHasType(kv.second, it->second), (caseName + ": Accelerate key of the wrong type: " + key).c_str());
        if (kv.second.IsMap())
            checkAccelerateKeys(kv.second, key, caseName);
    }
}

EstimateInput baseInput()
{
    EstimateInput in;
    in.model = resolveModel("qwen2.5-7b", "model");
    in.gpu = resolveGpu("h200", "gpu");
    in.cluster.gpusPerNode = 8;
    return in;
}

ImportedSettings roundTrip(const ImportedSettings& first, ConfigKind kind)
{
    EstimateInput in = baseInput();
    applyImported(first, in);
    const Strategy s = first.strategy.value();
    return importConfig(exportConfig(kind, in, s, planIdentity(in, s)));
}

bool hasWarning(const ImportedSettings& s, const std::string& key)
{
    return std::any_of(s.warnings.begin(), s.warnings.end(), [&](const ConfigWarning& w) { return w.key == key; });
}

} // namespace

class TestFrameworkConfigs : public QObject {
    Q_OBJECT

private slots:
    void goldenExportsMatchAndCarryThePlan()
    {
        const bool update = qEnvironmentVariableIsSet("SHARDWISE_UPDATE_GOLDEN");
        const std::vector<Case> cases = allCases();
        QVERIFY(cases.size() >= 5);
        for (const Case& c : cases) {
            const PlanIdentity id = planIdentity(c.in, c.strategy);
            for (ConfigKind kind : allConfigKinds()) {
                const fs::path expected = kCases / c.name / std::string(configKindFileName(kind));
                const std::string what = c.name + "/" + std::string(configKindFileName(kind));
                if (!exportSupports(kind, c.in, c.strategy)) {
                    QVERIFY2(!fs::exists(expected),
                             (what + ": the strategy cannot be expressed, yet a file exists").c_str());
                    try {
                        exportConfig(kind, c.in, c.strategy, id);
                        QFAIL((what + ": an unsupported export did not throw").c_str());
                    } catch (const SpecError& e) {
                        QCOMPARE(e.field(), std::string("strategy"));
                        // The message says which framework can express it.
                        const std::string m = e.what();
                        QVERIFY2(m.find("--framework") != std::string::npos || m.find("export") != std::string::npos,
                                 m.c_str());
                    }
                    continue;
                }
                const std::string text = exportConfig(kind, c.in, c.strategy, id);
                if (update) {
                    std::ofstream(expected, std::ios::binary | std::ios::trunc) << text;
                    continue;
                }
                QVERIFY2(fs::exists(expected), (what + ": missing golden file").c_str());
                QCOMPARE(QString::fromStdString(text), QString::fromStdString(readFile(expected)));
                // Every export names the plan it came from.
                QVERIFY2(text.find(id.description) != std::string::npos, what.c_str());
            }
        }
    }

    // The ds_config writes the precision DeepSpeed allocates for the plan's request: pure bf16 at a ZeRO
    // stage that keeps an fp32 master enables bf16, records bf16-fp32-master and says why; from 0.18.3
    // stages 1-3 without offload get the bf16 master keys; stage 0's pure bf16 turns bf16 off.
    void dsConfigWritesWhatDeepSpeedAllocates_data()
    {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<QString>("release");
        QTest::addColumn<bool>("bf16Enabled");
        QTest::addColumn<bool>("bf16MasterKeys");
        QTest::addColumn<QString>("recorded");
        QTest::addColumn<QString>("noteStart");
        const QString master = QStringLiteral("bf16-fp32-master");
        const QString pure = QStringLiteral("bf16");
        const QString asked = QStringLiteral("pure bf16 was asked for, but DeepSpeed ");
        QTest::newRow("zero0 0.16") << int(Strategy::Zero0) << QString() << false << false << pure
                                    << QStringLiteral("pure bf16: load the model in torch.bfloat16");
        for (Strategy s :
             { Strategy::Zero1, Strategy::Zero2, Strategy::Zero3, Strategy::Zero2Offload, Strategy::Zero3Offload })
            QTest::addRow("%s 0.16", strategyId(s).data()) << int(s) << QString() << true << false << master << asked;
        for (Strategy s : { Strategy::Zero1, Strategy::Zero2, Strategy::Zero3 })
            QTest::addRow("%s 0.19.6", strategyId(s).data())
                << int(s) << QStringLiteral("0.19.6") << true << true << pure
                << QStringLiteral("pure bf16: bf16 master weights, gradient partition and Adam moments");
        QTest::newRow("zero3_offload 0.19.6")
            << int(Strategy::Zero3Offload) << QStringLiteral("0.19.6") << true << false << master << asked;
    }
    void dsConfigWritesWhatDeepSpeedAllocates()
    {
        QFETCH(int, strategy);
        QFETCH(QString, release);
        QFETCH(bool, bf16Enabled);
        QFETCH(bool, bf16MasterKeys);
        QFETCH(QString, recorded);
        QFETCH(QString, noteStart);
        const auto s = static_cast<Strategy>(strategy);
        EstimateInput in = baseInput();
        in.framework.framework = Framework::DeepSpeed;
        in.framework.version = release.toStdString();
        in.training.precision = PrecisionPolicy::PureBf16;
        const PlanIdentity id = planIdentity(in, s);
        const json j = json::parse(exportConfig(ConfigKind::DsConfig, in, s, id));
        checkDsKeys(j, "", "pure bf16");
        QCOMPARE(j.at("bf16").at("enabled").get<bool>(), bf16Enabled);
        QCOMPARE(j.at("bf16").contains("bf16_master_weights_and_grads"), bf16MasterKeys);
        QCOMPARE(j.at("bf16").contains("bf16_optimizer_states"), bf16MasterKeys);
        QCOMPARE(QString::fromStdString(j.at("_shardwise").at("precision").get<std::string>()), recorded);
        QVERIFY2(QString::fromStdString(j.at("_shardwise").at("note").get<std::string>()).startsWith(noteStart),
                 j.dump().c_str());
        // The plan's description names the fp32 master where it is one, and the file reads back to it.
        QCOMPARE(id.description.find("pure bf16 asked for; DeepSpeed keeps an fp32 master") != std::string::npos,
                 recorded == QStringLiteral("bf16-fp32-master"));
        const ImportedSettings back = importConfig(j.dump());
        QVERIFY(back.warnings.empty());
        QCOMPARE(QString::fromStdString(std::string(precisionId(back.precision.value()))), recorded);
        // Accelerate hands DeepSpeed only bf16.enabled: its ZeRO stages keep the fp32 master, and say so.
        if (s != Strategy::Zero0) {
            const std::string yaml = exportConfig(ConfigKind::Accelerate, in, s, id);
            QVERIFY2(yaml.find("precision=bf16-fp32-master") != std::string::npos, yaml.c_str());
            QVERIFY2(yaml.find("# Precision: pure bf16") != std::string::npos, yaml.c_str());
        }
    }

    void dsConfigsUseDeepSpeedKeysAndTypes()
    {
        int checked = 0;
        for (const Case& c : allCases()) {
            const fs::path p = kCases / c.name / "ds_config.json";
            if (!fs::exists(p))
                continue;
            const json j = json::parse(readFile(p));
            checkDsKeys(j, "", c.name);
            const int world = c.in.cluster.worldSize();
            QCOMPARE(j.at("train_batch_size").get<int>(),
                     j.at("train_micro_batch_size_per_gpu").get<int>() * j.at("gradient_accumulation_steps").get<int>()
                         * world);
            const int stage = j.at("zero_optimization").at("stage").get<int>();
            QVERIFY(stage >= 0 && stage <= 3);
            if (stage == 3)
                QVERIFY(!j.at("zero_optimization").contains("allgather_bucket_size"));
            if (stage == 1 || stage == 2)
                QVERIFY(!j.at("zero_optimization").contains("stage3_max_live_parameters"));
            QCOMPARE(j.at("zero_optimization").contains("offload_optimizer"), traits(c.strategy).offloadsOptimizer);
            if (c.strategy == Strategy::Zero2Offload) // ZeRO-Offload: stage 2, optimizer to pinned host memory
                QCOMPARE(j.at("zero_optimization"),
                         (json { { "stage", 2 },
                                 { "overlap_comm", c.in.knobs.overlapComm },
                                 { "contiguous_gradients", true },
                                 { "reduce_bucket_size", c.in.knobs.reduceBucketElements },
                                 { "allgather_bucket_size", c.in.knobs.allgatherBucketElements },
                                 { "offload_optimizer", { { "device", "cpu" }, { "pin_memory", true } } } }));
            ++checked;
        }
        QVERIFY(checked >= 2);
    }

    // A Slurm batch script asks for the plan's nodes and GPUs; the native runner runs one task per rank
    // (it reads Slurm's variables), a framework one torchrun per node; every directive precedes the
    // first command, as sbatch reads directives only until then.
    void sbatchScriptsAskForThePlansAllocation()
    {
        int checked = 0;
        for (const Case& c : allCases()) {
            if (!exportSupports(ConfigKind::Sbatch, c.in, c.strategy))
                continue;
            const std::string text = exportConfig(ConfigKind::Sbatch, c.in, c.strategy, planIdentity(c.in, c.strategy));
            const bool native = c.in.framework.framework == Framework::Native;
            const int gpus = c.in.cluster.gpusPerNode;
            QVERIFY2(text.find("#SBATCH --nodes=" + std::to_string(c.in.cluster.nodes) + "\n") != std::string::npos,
                     c.name.c_str());
            QVERIFY2(text.find("#SBATCH --gpus-per-node=" + std::to_string(gpus) + "\n") != std::string::npos,
                     c.name.c_str());
            QVERIFY2(text.find("#SBATCH --ntasks-per-node=" + std::to_string(native ? gpus : 1) + "\n")
                         != std::string::npos,
                     c.name.c_str());
            QVERIFY2(text.find(native ? "srun --ntasks-per-node=" + std::to_string(gpus) + " --gpus-per-node="
                                      : std::string("srun --ntasks-per-node=1 --gpus-per-node="))
                         != std::string::npos,
                     c.name.c_str());
            QCOMPARE(text.find("torchrun") != std::string::npos, !native);
            std::size_t lastDirective = text.rfind("#SBATCH");
            std::size_t firstCommand = text.find("\nset -euo pipefail");
            QVERIFY(lastDirective < firstCommand);
            ++checked;
        }
        QVERIFY(checked >= 3);
    }

    void accelerateConfigsUseAccelerateKeysAndTypes()
    {
        int checked = 0;
        for (const Case& c : allCases()) {
            const fs::path p = kCases / c.name / "accelerate.yaml";
            if (!fs::exists(p))
                continue;
            const YAML::Node n = YAML::LoadFile(p.string());
            QVERIFY(n.IsMap());
            checkAccelerateKeys(n, "", c.name);
            QCOMPARE(n["num_processes"].as<int>(), c.in.cluster.worldSize());
            QCOMPARE(n["num_machines"].as<int>(), c.in.cluster.nodes);
            const std::string type = n["distributed_type"].as<std::string>();
            if (traits(c.strategy).family == StrategyFamily::Fsdp2) {
                QCOMPARE(type, std::string("FSDP"));
                QCOMPARE(n["fsdp_config"]["fsdp_version"].as<int>(), 2);
                QCOMPARE(n["fsdp_config"]["fsdp_transformer_layer_cls_to_wrap"].as<std::string>(),
                         decoderLayerClass(c.in.model));
            } else {
                QCOMPARE(type, std::string(c.strategy == Strategy::Zero0 ? "MULTI_GPU" : "DEEPSPEED"));
            }
            ++checked;
        }
        QVERIFY(checked >= 3);
    }

    void decoderLayerClassFollowsTheFamily()
    {
        QCOMPARE(decoderLayerClass(resolveModel("qwen2.5-7b", "model")), std::string("Qwen2DecoderLayer"));
        QCOMPARE(decoderLayerClass(resolveModel("llama-3.1-8b", "model")), std::string("LlamaDecoderLayer"));
        QCOMPARE(decoderLayerClass(resolveModel("mistral-7b", "model")), std::string("MistralDecoderLayer"));
    }

    void unknownKeysAreWarningsNamingTheKey()
    {
        // An unknown key inside a DeepSpeed section is refused (test_framework_import,
        // keysDeepSpeedRefusesAreErrors); at the top level DeepSpeed ignores it, and the import warns.
        const ImportedSettings ds = importConfig(R"({"train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true},
            "zero_optimization": {"stage": 2, "zero_hpz_partition_size": 8}, "my_top_key": true})");
        QVERIFY(hasWarning(ds, "zero_optimization.zero_hpz_partition_size"));
        QVERIFY(hasWarning(ds, "my_top_key"));
        QCOMPARE(ds.strategy, std::optional<Strategy>(Strategy::Zero2));
        QCOMPARE(ds.microBatch, std::optional<int>(2));

        const ImportedSettings acc
            = importConfig("distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\n"
                           "fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n"
                           "  fsdp_magic: 3\nsomething_else: x\n");
        QVERIFY(hasWarning(acc, "fsdp_config.fsdp_magic"));
        QVERIFY(hasWarning(acc, "something_else"));
        QCOMPARE(acc.strategy, std::optional<Strategy>(Strategy::Fsdp2NoReshard));
        QCOMPARE(acc.framework, Framework::Fsdp2);
        QCOMPARE(acc.worldSize, std::optional<int>(8));
    }

    void badValuesAreErrorsNamingTheKey_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("stage out of range")
            << QStringLiteral(R"({"zero_optimization": {"stage": 4}})") << QStringLiteral("zero_optimization.stage");
        QTest::newRow("micro-batch a string") << QStringLiteral(R"({"train_micro_batch_size_per_gpu": "two"})")
                                              << QStringLiteral("train_micro_batch_size_per_gpu");
        QTest::newRow("bucket negative") << QStringLiteral(
            R"({"zero_optimization": {"stage": 3, "reduce_bucket_size": -5}})")
                                         << QStringLiteral("zero_optimization.reduce_bucket_size");
        QTest::newRow("overlap not bool") << QStringLiteral(R"({"zero_optimization": {"stage": 1, "overlap_comm": 1}})")
                                          << QStringLiteral("zero_optimization.overlap_comm");
        QTest::newRow("nvme offload") << QStringLiteral(
            R"({"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "nvme"}}})")
                                      << QStringLiteral("zero_optimization.offload_optimizer.device");
        QTest::newRow("stage 1 offload") << QStringLiteral(
            R"({"zero_optimization": {"stage": 1, "offload_optimizer": {"device": "cpu"}}})")
                                         << QStringLiteral("zero_optimization.offload_optimizer.device");
        QTest::newRow("accelerate stage 0 offload")
            << QStringLiteral("distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 0\n"
                              "  offload_optimizer_device: cpu\n")
            << QStringLiteral("deepspeed_config.offload_optimizer_device");
        QTest::newRow("batch does not divide") << QStringLiteral(
            R"({"train_batch_size": 10, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1})")
                                               << QStringLiteral("train_batch_size");
        QTest::newRow("fsdp1") << QStringLiteral("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 1\n")
                               << QStringLiteral("fsdp_config.fsdp_version");
        QTest::newRow("reshard not bool") << QStringLiteral(
            "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: FULL_SHARD\n")
                                          << QStringLiteral("fsdp_config.fsdp_reshard_after_forward");
        QTest::newRow("processes quoted")
            << QStringLiteral("distributed_type: MULTI_GPU\nnum_processes: '8'\n") << QStringLiteral("num_processes");
        QTest::newRow("unknown type") << QStringLiteral("distributed_type: XLA\n")
                                      << QStringLiteral("distributed_type");
        QTest::newRow("zero stage missing")
            << QStringLiteral("distributed_type: DEEPSPEED\ndeepspeed_config:\n  gradient_accumulation_steps: 2\n")
            << QStringLiteral("deepspeed_config.zero_stage");
    }

    void badValuesAreErrorsNamingTheKey()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        try {
            importConfig(text.toStdString());
            QFAIL("no error");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), key);
        }
    }

    // DeepSpeed's ZeRO-Offload setup, stage 2 with offload_optimizer cpu, reads back as zero2_offload from
    // a ds_config and from an Accelerate config; stage 2 ignores offload_param, and the import says so.
    void stage2OptimizerOffloadIsZero2Offload()
    {
        const ImportedSettings ds = importConfig(R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2,
            "offload_optimizer": {"device": "cpu", "pin_memory": true}}})");
        QCOMPARE(ds.strategy, std::optional<Strategy>(Strategy::Zero2Offload));
        QCOMPARE(ds.framework, Framework::DeepSpeed);
        QVERIFY(!hasWarning(ds, "zero_optimization.offload_param.device"));

        const ImportedSettings both = importConfig(R"({"zero_optimization": {"stage": 2,
            "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}})");
        QCOMPARE(both.strategy, std::optional<Strategy>(Strategy::Zero2Offload));
        QVERIFY(hasWarning(both, "zero_optimization.offload_param.device"));

        const ImportedSettings none = importConfig(R"({"zero_optimization": {"stage": 2,
            "offload_optimizer": {"device": "none"}}})");
        QCOMPARE(none.strategy, std::optional<Strategy>(Strategy::Zero2));

        const ImportedSettings acc = importConfig("distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n"
                                                  "  zero_stage: 2\n  offload_optimizer_device: cpu\n"
                                                  "  offload_param_device: none\n");
        QCOMPARE(acc.strategy, std::optional<Strategy>(Strategy::Zero2Offload));

        // The exports read back as the strategy they were made for.
        EstimateInput in = baseInput();
        in.framework.framework = Framework::DeepSpeed;
        for (ConfigKind kind : { ConfigKind::DsConfig, ConfigKind::Accelerate })
            QCOMPARE(
                importConfig(exportConfig(kind, in, Strategy::Zero2Offload, planIdentity(in, Strategy::Zero2Offload)))
                    .strategy,
                std::optional<Strategy>(Strategy::Zero2Offload));
    }

    void autoLeavesThePlansValue()
    {
        const ImportedSettings s
            = importConfig(R"({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto", "bf16": {"enabled": "auto"},
            "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                                  "stage3_param_persistence_threshold": "auto"}})");
        QVERIFY(s.warnings.empty() || !hasWarning(s, "train_batch_size"));
        QCOMPARE(s.autoKeys.size(), std::size_t(7));
        QVERIFY(!s.microBatch && !s.gradAccumulation && !s.trainBatchSize && !s.reduceBucketElements);
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Zero3));
        EstimateInput in = baseInput();
        in.training.microBatch = 3;
        applyImported(s, in);
        QCOMPARE(in.training.microBatch, 3);
        QCOMPARE(in.knobs.reduceBucketElements, TuningKnobs {}.reduceBucketElements);
        QCOMPARE(in.framework.framework, Framework::DeepSpeed);
    }

    void bf16WithoutFp32CopiesIsPureBf16()
    {
        const ImportedSettings pure = importConfig(R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
            "bf16_optimizer_states": true, "immediate_grad_update": true}, "zero_optimization": {"stage": 1}})");
        QCOMPARE(pure.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::PureBf16));
        QVERIFY(pure.warnings.empty());
        const ImportedSettings master
            = importConfig(R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 1}})");
        QCOMPARE(master.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::Bf16Fp32Master));
        const ImportedSettings fp16 = importConfig(R"({"fp16": {"enabled": true, "loss_scale": 0}})");
        QCOMPARE(fp16.precision, std::optional<PrecisionPolicy>(PrecisionPolicy::Bf16Fp32Master));
        QVERIFY(hasWarning(fp16, "fp16.enabled"));
    }

    void accelerateReadsTheDeepSpeedFileItNames()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = dir.path().toStdString();
        std::ofstream(root / "ds.json") << R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 8,
            "bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"},
            "stage3_max_live_parameters": 100000000, "zero_hpz_partition_size": 8}, "odd_key": 1})";
        std::ofstream(root / "accelerate.yaml")
            << "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\n"
               "deepspeed_config:\n  deepspeed_config_file: ds.json\n";
        const ImportedSettings s = importConfigFile((root / "accelerate.yaml").string());
        QCOMPARE(s.framework, Framework::DeepSpeed);
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Zero3Offload));
        QCOMPARE(s.gradAccumulation, std::optional<int>(8));
        QCOMPARE(s.maxLiveParameters, std::optional<std::int64_t>(100'000'000));
        QCOMPARE(s.worldSize, std::optional<int>(8));
        QVERIFY(hasWarning(s, "ds.json: odd_key"));
        QVERIFY(hasWarning(s, "ds.json: zero_optimization.zero_hpz_partition_size"));

        std::ofstream(root / "missing.yaml")
            << "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: nowhere.json\n";
        const ImportedSettings m = importConfigFile((root / "missing.yaml").string());
        QVERIFY(!m.strategy);
        QVERIFY(hasWarning(m, "deepspeed_config.deepspeed_config_file"));

        std::ofstream(root / "bad.json") << R"({"zero_optimization": {"stage": 9}})";
        std::ofstream(root / "bad.yaml")
            << "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: bad.json\n";
        try {
            importConfigFile((root / "bad.yaml").string());
            QFAIL("no error");
        } catch (const SpecError& e) {
            QCOMPARE(e.field(), std::string("bad.json: zero_optimization.stage"));
        }
    }

    void importedSettingsReachThePlanInput()
    {
        const ImportedSettings s = importConfig(R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
            "gradient_accumulation_steps": 2, "bf16": {"enabled": true},
            "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
                                  "stage3_max_live_parameters": 3e8, "overlap_comm": false},
            "activation_checkpointing": {"partition_activations": false}})");
        QCOMPARE(s.worldSize, std::optional<int>(16));
        EstimateInput in = baseInput();
        in.cluster.nodes = 2;
        applyImported(s, in);
        QCOMPARE(in.cluster.gpusPerNode, 8);
        QCOMPARE(in.training.microBatch, 2);
        QCOMPARE(in.training.gradAccumulation, 2);
        QCOMPARE(in.training.precision, PrecisionPolicy::Bf16Fp32Master);
        QVERIFY(in.training.activationCheckpointing);
        QCOMPARE(in.knobs.maxLiveParameters, std::int64_t(300'000'000));
        QVERIFY(!in.knobs.overlapComm);
        QCOMPARE(s.strategy, std::optional<Strategy>(Strategy::Zero3Offload));
    }

    void roundTripKeepsTheSettings_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::newRow("ds zero3 offload") << QStringLiteral(
            R"({"train_batch_size": 128, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4,
                "bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "overlap_comm": true,
                "reduce_bucket_size": 200000000, "stage3_prefetch_bucket_size": 40000000,
                "stage3_param_persistence_threshold": 10000, "stage3_max_live_parameters": 500000000,
                "stage3_max_reuse_distance": 500000000, "offload_optimizer": {"device": "cpu"}},
                "activation_checkpointing": {}})")
                                          << static_cast<int>(ConfigKind::DsConfig);
        QTest::newRow("ds zero1") << QStringLiteral(
            R"({"train_batch_size": 16, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 2,
                "bf16": {"enabled": true}, "zero_optimization": {"stage": 1, "overlap_comm": false,
                "reduce_bucket_size": 100000000, "allgather_bucket_size": 100000000}})")
                                  << static_cast<int>(ConfigKind::DsConfig);
        QTest::newRow("accelerate fsdp offload") << QStringLiteral(
            "distributed_type: FSDP\nmixed_precision: bf16\nnum_machines: 2\nnum_processes: 16\n"
            "dynamo_config:\n  dynamo_backend: INDUCTOR\n"
            "fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n  fsdp_offload_params: true\n"
            "  fsdp_activation_checkpointing: true\n")
                                                 << static_cast<int>(ConfigKind::Accelerate);
        QTest::newRow("accelerate deepspeed") << QStringLiteral(
            "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n"
            "deepspeed_config:\n  zero_stage: 2\n  gradient_accumulation_steps: 4\n  offload_optimizer_device: none\n"
            "  offload_param_device: none\n") << static_cast<int>(ConfigKind::Accelerate);
        QTest::newRow("accelerate ddp") << QStringLiteral(
            "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 4\n")
                                        << static_cast<int>(ConfigKind::Accelerate);
    }

    void roundTripKeepsTheSettings()
    {
        QFETCH(QString, text);
        QFETCH(int, kind);
        const ImportedSettings first = importConfig(text.toStdString());
        ImportedSettings second = roundTrip(first, static_cast<ConfigKind>(kind));
        // Shardwise's own exports import without a warning.
        QVERIFY2(second.warnings.empty(), second.warnings.empty() ? "" : second.warnings.front().key.c_str());
        // The export records the plan's sequence length and node count (and, in an Accelerate YAML,
        // micro-batch, accumulation and checkpointing), which the user's config did not state.
        if (!first.seqLen)
            second.seqLen.reset();
        if (!first.nodes)
            second.nodes.reset();
        if (!first.microBatch)
            second.microBatch.reset();
        if (!first.gradAccumulation)
            second.gradAccumulation.reset();
        if (!first.activationCheckpointing) {
            second.activationCheckpointing.reset();
            second.checkpointPolicy.reset();
        }
        QVERIFY2(first.sameSettings(second), qPrintable(text));
    }

    void goldenConfigsImportBackToTheirCase()
    {
        for (const Case& c : allCases()) {
            for (const char* file : { "ds_config.json", "accelerate.yaml" }) {
                const fs::path p = kCases / c.name / file;
                if (!fs::exists(p))
                    continue;
                const ImportedSettings s = importConfigFile(p.string());
                const std::string where
                    = c.name + "/" + file + ": " + (s.warnings.empty() ? "" : s.warnings.front().key);
                QVERIFY2(s.warnings.empty(), where.c_str());
                QCOMPARE(s.strategy, std::optional<Strategy>(c.strategy));
                QCOMPARE(s.worldSize, std::optional<int>(c.in.cluster.worldSize()));
                if (std::string(file) == "ds_config.json") {
                    // What DeepSpeed allocates: pure bf16 at a ZeRO stage that keeps an fp32 master is
                    // written (and read back) as bf16-fp32-master.
                    QCOMPARE(s.precision,
                             std::optional<PrecisionPolicy>(deepSpeedAllocatedPrecision(
                                 deepSpeedRelease(c.in.framework), c.strategy, c.in.training.precision)));
                    QCOMPARE(s.microBatch, std::optional<int>(c.in.training.microBatch));
                    QCOMPARE(s.gradAccumulation, std::optional<int>(c.in.training.gradAccumulation));
                    QCOMPARE(s.seqLen, std::optional<int>(c.in.training.seqLen));
                }
            }
        }
    }

    void interNodePresetsArePerNodeGBps()
    {
        QCOMPARE(interNodePreset("ib-8x400")->gbps, 400.0);
        QCOMPARE(interNodePreset("ib-8x200")->gbps, 200.0);
        QCOMPARE(interNodePreset("ib-4x200")->gbps, 100.0);
        QCOMPARE(interNodePreset("100gbe")->gbps, 12.5);
        QCOMPARE(interNodePresetFor(12.5)->id, std::string_view("100gbe"));
        QVERIFY(!interNodePreset("token-ring"));
    }
};

QTEST_GUILESS_MAIN(TestFrameworkConfigs)
#include "test_framework_configs.moc"
