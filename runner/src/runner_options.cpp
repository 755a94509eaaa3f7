#include "runner_options.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/json_document.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/slurm.hpp"
#include "shardwise/spec/strategy.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdlib>
#include <fstream>

namespace shardwise::runner {

namespace {

template <typename T> T parseNumber(const std::string& text, const std::string& what)
{
    T value {};
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end)
        throw ConfigError(what + ": '" + text + "' is not a valid number");
    return value;
}

double parseDouble(const std::string& text, const std::string& what)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size())
            return v;
    } catch (const std::exception&) {
    }
    throw ConfigError(what + ": '" + text + "' is not a valid number");
}

template <typename T> T atLeast(T value, T minimum, const std::string& what)
{
    if (value < minimum)
        throw ConfigError(what + " must be >= " + std::to_string(minimum) + ", got " + std::to_string(value));
    return value;
}

std::optional<std::string> env(const char* name)
{
    const char* v = std::getenv(name);
    if (!v || !*v)
        return std::nullopt;
    return std::string(v);
}

int envInt(const char* name, std::optional<int> fallback)
{
    const auto v = env(name);
    if (!v) {
        if (fallback)
            return *fallback;
        throw ConfigError(std::string("environment variable ") + name
                          + " is not set (launch through shardwise-cli run, torchrun or srun, or set it by hand)");
    }
    return parseNumber<int>(*v, std::string("environment variable ") + name);
}

} // namespace

std::string usageText()
{
    return R"(usage: shardwise-runner [options]

One rank of a measured training run. Start one process per rank with RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR and MASTER_PORT in the environment (LOCAL_WORLD_SIZE optional), as torchrun or
shardwise-cli run --local do. Under srun (one task per rank) the unset ones come from SLURM_PROCID,
SLURM_NTASKS, SLURM_LOCALID, SLURM_TASKS_PER_NODE, the first host of SLURM_JOB_NODELIST and, for the
port, 15000 + SLURM_JOB_ID mod 20000. JSON Lines events go to stdout (docs/protocol.md), a log to
stderr.

Run description (a --config file first, then flags override it):
  --config FILE.json        a full RunConfig as Shardwise writes it
  --model PRESET|FILE.json  model preset id (e.g. tiny, qwen2.5-0.5b), Shardwise model JSON or
                            Hugging Face config.json                           (default: tiny)
  --strategy ID             one of: )"
        + strategyIdList() + R"(
                                                                               (default: zero0)
  --device cpu|cuda         cpu: fp32 + Gloo; cuda: bf16 + NCCL, GPU LOCAL_RANK (default: cpu)
  --precision P             bf16 | bf16-fp32-master (fp32 master weights + Adam moments); on cpu
                            everything is fp32 anyway                          (default: bf16)
  --steps N                 timed steps                                        (default: 15)
  --warmup N                warm-up steps before them, not timed               (default: 5)
  --seq N                   sequence length in tokens                          (default: 2048)
  --micro-batch N           sequences per rank per micro-step                  (default: 1)
  --grad-accumulation N     micro-batches per optimizer step; zero0/zero1 reduce once at the last
                            (DDP no_sync), sharded gradients are reduce-scattered every micro-batch
                            and accumulated in the shard                       (default: 1)
  --activation-checkpointing none|full|selective
                            full: each decoder layer keeps only its input and recomputes its
                            forward in backward; selective: keeps the matmul and attention outputs
                            and recomputes the cheap ops between them          (default: none)
  --seed N                  seed of weights and synthetic tokens               (default: 1234)
  --lr X                    AdamW learning rate                                (default: 0.001)
  --tokens FILE             raw little-endian int32 token ids instead of synthetic tokens
  --cuda-graphs             capture the whole step as a CUDA graph after two eager warm-up steps
                            and replay it (cuda, bf16, GPU-resident strategies, warm-up >= 3)

Schedule knobs (defaults follow DeepSpeed / FSDP2):
  --reduce-bucket N         zero1/zero2 gradient all-reduce bucket, elements   (default: 5e8)
  --allgather-bucket N      zero1/zero2 parameter all-gather bucket, elements  (default: 5e8)
  --prefetch-bucket N       zero3 prefetch bucket, elements                    (default: 5e7)
  --persistence-threshold N zero3 units with at most N elements stay gathered  (default: 1e5)
  --no-overlap-comm         issue each collective and wait for it at once

Rehearsal (does it fit at world N?):
  --rehearse-world N        run this one process as rank 0 of a world of N ranks that moves no
                            data: every buffer (shards, gathered units, buckets, offload staging) is
                            allocated as at world N, so the peaks are one rank's memory at world N;
                            step times hold no communication and the summary's tokens/s is 0. Needs
                            WORLD_SIZE 1. On cpu only the state bytes are measured (no allocator)

Runtime:
  --timeout-s N             a collective (or the rendezvous) taking longer than N seconds is a
                            comm error                                         (default: 120)
  --dump-params PATH        after the last step write the full fp32 parameters, in canonical order,
                            to PATH.rank<R>: one JSON header line, then raw little-endian float32
  --dump-initial-params PATH
                            the same, written before the first step (the initial weights; the torch
                            backend's --init-params loads them)
  --checkpoint-every N      after every N steps write a sharded checkpoint (each rank its state,
                            then a completion marker) into --checkpoint-dir
  --checkpoint-dir D        checkpoint folder (D/step-<N>/rank-<R>.state, D/step-<N>/COMPLETE)
  --resume                  start from the newest complete checkpoint in --checkpoint-dir (a
                            fresh start when there is none); incomplete ones are never loaded
  --profile-kernels N       profile the last N timed steps (CUDA) and log the kernels that took
                            the most GPU time; the timings of those steps include the profiler
  --probe                   measure the hardware instead of training: matmul rate, device copy and
                            pinned host<->device bandwidth, CPU AdamW rate, host time to issue one
                            decoder layer and, at world > 1, collective bus bandwidths; one "probe"
                            event per rank
  --probe-max-bytes N       largest buffer the probe moves                     (default: 256 MiB)
  --help                    this text
  --version                 the runner's version and the LibTorch it was built with

Exit codes: 0 ok, 1 internal error, 2 configuration error, 3 out of memory, 4 communication error.
Every failure is also reported as an "error" event on stdout.
)";
}

RunnerOptions parseOptions(const std::vector<std::string>& args)
{
    RunnerOptions o;
    // Defaults that differ from RunConfig's: the tiny preset so a bare invocation is a quick smoke run.
    std::optional<std::string> configFile;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i] == "--config" && i + 1 < args.size())
            configFile = args[i + 1];
    if (configFile) {
        std::ifstream in(*configFile);
        if (!in)
            throw ConfigError("--config: cannot read '" + *configFile + "'");
        // A key given twice is a SpecError naming it (the parser alone would keep the last silently).
        o.config = runConfigFromJson(parseJsonRejectingDuplicates(in, "", "--config '" + *configFile + "'"));
    } else {
        o.config.model = resolveModel("tiny", "--model");
    }

    auto& c = o.config;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& flag = args[i];
        if (flag == "--help" || flag == "-h") {
            o.help = true;
            continue;
        }
        if (flag == "--version") {
            o.version = true;
            continue;
        }
        if (flag == "--resume") {
            o.resume = true;
            continue;
        }
        if (flag == "--probe") {
            o.probe = true;
            continue;
        }
        if (flag == "--no-overlap-comm") {
            c.knobs.overlapComm = false;
            continue;
        }
        if (flag == "--cuda-graphs") {
            c.training.cudaGraphs = true;
            continue;
        }
        if (flag.rfind("--", 0) != 0)
            throw ConfigError("unexpected argument '" + flag + "' (see --help)");
        if (i + 1 >= args.size())
            throw ConfigError(flag + " needs a value (see --help)");
        const std::string value = args[++i];
        if (flag == "--config")
            continue;
        else if (flag == "--model")
            c.model = resolveModel(value, "--model");
        else if (flag == "--strategy")
            c.strategy = parseStrategy(value, "--strategy");
        else if (flag == "--device")
            c.device = parseDevice(value, "--device");
        else if (flag == "--precision")
            c.training.precision = parsePrecision(value, "--precision");
        else if (flag == "--steps")
            c.timedSteps = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--warmup")
            c.warmupSteps = atLeast(parseNumber<int>(value, flag), 0, flag);
        else if (flag == "--seq")
            c.training.seqLen = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--micro-batch")
            c.training.microBatch = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--grad-accumulation")
            c.training.gradAccumulation = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--activation-checkpointing") {
            c.training.activationCheckpointing = value != "none";
            if (c.training.activationCheckpointing) {
                try {
                    c.training.checkpointPolicy = parseCheckpointPolicy(value, flag);
                } catch (const SpecError&) {
                    throw ConfigError(flag + ": '" + value + "' is not one of none, full, selective");
                }
            }
        } else if (flag == "--seed")
            c.seed = parseNumber<std::uint64_t>(value, flag);
        else if (flag == "--lr")
            c.learningRate = parseDouble(value, flag);
        else if (flag == "--tokens")
            c.tokenFile = value;
        else if (flag == "--dump-params")
            o.dumpParams = value;
        else if (flag == "--dump-initial-params")
            o.dumpInitialParams = value;
        else if (flag == "--reduce-bucket")
            c.knobs.reduceBucketElements
                = atLeast<std::int64_t>(static_cast<std::int64_t>(parseDouble(value, flag)), 64, flag);
        else if (flag == "--allgather-bucket")
            c.knobs.allgatherBucketElements
                = atLeast<std::int64_t>(static_cast<std::int64_t>(parseDouble(value, flag)), 64, flag);
        else if (flag == "--prefetch-bucket")
            c.knobs.prefetchBucketElements
                = atLeast<std::int64_t>(static_cast<std::int64_t>(parseDouble(value, flag)), 0, flag);
        else if (flag == "--persistence-threshold")
            c.knobs.persistenceThreshold
                = atLeast<std::int64_t>(static_cast<std::int64_t>(parseDouble(value, flag)), 0, flag);
        else if (flag == "--checkpoint-every")
            o.checkpointEvery = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--checkpoint-dir")
            o.checkpointDir = value;
        else if (flag == "--profile-kernels")
            o.profileKernelSteps = atLeast(parseNumber<int>(value, flag), 1, flag);
        else if (flag == "--probe-max-bytes")
            o.probeMaxBytes = atLeast<std::int64_t>(static_cast<std::int64_t>(parseDouble(value, flag)), 4096, flag);
        else if (flag == "--rehearse-world") {
            const auto n = parseNumber<long long>(value, flag);
            if (n < 1 || n > kMaxRehearsedWorld)
                throw ConfigError(flag + " " + value + ": must be in [1, " + std::to_string(kMaxRehearsedWorld)
                                  + "] (the largest world whose shards the runner's padded buffers represent)");
            c.rehearseWorld = static_cast<int>(n);
        } else if (flag == "--timeout-s")
            o.collectiveTimeoutS = atLeast(parseNumber<int>(value, flag), 1, flag);
        else
            throw ConfigError("unknown option '" + flag + "' (see --help)");
    }
    if (c.rehearsal() && (o.checkpointEvery > 0 || o.resume))
        throw ConfigError("--rehearse-world: a rehearsal holds rank 0's shard of world "
                          + std::to_string(c.rehearseWorld)
                          + " alone and cannot write or resume a checkpoint of that world");
    if (c.rehearsal() && c.rehearseWorld > 1 && !o.dumpParams.empty())
        throw ConfigError("--rehearse-world " + std::to_string(c.rehearseWorld)
                          + ": --dump-params needs every rank's shard, which a rehearsal does not have");
    if (c.rehearsal() && o.probe)
        throw ConfigError("--rehearse-world with --probe: the probe measures real links; run it without a rehearsal");
    if ((o.checkpointEvery > 0 || o.resume) && o.checkpointDir.empty())
        throw ConfigError(std::string(o.resume ? "--resume" : "--checkpoint-every") + " needs --checkpoint-dir");
    if (!(c.learningRate > 0))
        throw ConfigError("--lr must be > 0");
    return o;
}

LaunchEnvironment readLaunchEnvironment()
{
    // An srun task without torchrun: Slurm's task variables fill the contract where it is unset
    // (shardwise/spec/slurm.hpp), so that the code below and the communicators read one set of names.
    try {
        for (const auto& [name, value] : torchrunFromSlurm([](const char* n) { return env(n); }))
            ::setenv(name.c_str(), value.c_str(), 0);
    } catch (const SpecError& e) {
        throw ConfigError(std::string("environment variable ") + e.what());
    }
    LaunchEnvironment e;
    e.rank = envInt("RANK", std::nullopt);
    e.world = envInt("WORLD_SIZE", std::nullopt);
    e.localRank = envInt("LOCAL_RANK", std::nullopt);
    e.localWorld = envInt("LOCAL_WORLD_SIZE", e.world);
    e.masterAddr = env("MASTER_ADDR").value_or("");
    if (e.masterAddr.empty())
        throw ConfigError("environment variable MASTER_ADDR is not set");
    e.masterPort = envInt("MASTER_PORT", std::nullopt);
    if (e.world < 1)
        throw ConfigError("WORLD_SIZE must be >= 1, got " + std::to_string(e.world));
    if (e.rank < 0 || e.rank >= e.world)
        throw ConfigError("RANK must be in [0, WORLD_SIZE), got " + std::to_string(e.rank));
    if (e.localWorld < 1 || e.localRank < 0 || e.localRank >= e.localWorld)
        throw ConfigError("LOCAL_RANK must be in [0, LOCAL_WORLD_SIZE), got " + std::to_string(e.localRank));
    if (e.world % e.localWorld != 0)
        throw ConfigError("LOCAL_WORLD_SIZE (" + std::to_string(e.localWorld) + ") must divide WORLD_SIZE ("
                          + std::to_string(e.world) + "): every node runs the same number of ranks");
    if (e.masterPort < 1 || e.masterPort > 65535)
        throw ConfigError("MASTER_PORT must be a TCP port, got " + std::to_string(e.masterPort));

    if (auto l = env("SHARDWISE_LAUNCHER"))
        e.launcher = *l;
    else if (env("TORCHELASTIC_RUN_ID"))
        e.launcher = "torchrun";
    else if (env("SLURM_PROCID"))
        e.launcher = "srun";
    else
        e.launcher = "manual";
    return e;
}

int bestEffortRank()
{
    const auto v = env("RANK");
    if (!v)
        return 0;
    int r = 0;
    const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), r);
    return ec == std::errc() && ptr == v->data() + v->size() && r >= 0 ? r : 0;
}

void reconcile(RunnerOptions& options, const LaunchEnvironment& env)
{
    auto& c = options.config;
    // A --config written for another world size describes a different run.
    if (c.worldSize != 1 && c.worldSize != env.world)
        throw ConfigError("world_size in the config is " + std::to_string(c.worldSize) + " but WORLD_SIZE is "
                          + std::to_string(env.world));
    c.worldSize = env.world;
    validate(c);
}

} // namespace shardwise::runner
