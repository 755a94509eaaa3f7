#pragma once
// Records runs shaped like what shardwise-runner reports (start, warm-up and timed steps, summary or
// an error per rank), through the same RunRecorder the `run` subcommand uses. The numbers are made
// up; the tests that use this check storage, not measurement.

#include "shardwise/store/run_recorder.hpp"

#include <random>

namespace shardwise::store::fixtures {

enum class Outcome { Completed, Oom, CommFailure };

inline ModelSpec syntheticModel()
{
    ModelSpec m;
    m.id = "synthetic-2l";
    m.name = "Synthetic 2-layer";
    m.family = "llama";
    m.layers = 2;
    m.hidden = 64;
    m.ffn = 128;
    m.heads = 4;
    m.kvHeads = 4;
    m.headDim = 16;
    m.vocab = 256;
    return m;
}

inline RunConfig syntheticConfig(Strategy strategy, int worldSize, int warmup, int timed)
{
    RunConfig c;
    c.model = syntheticModel();
    c.strategy = strategy;
    c.worldSize = worldSize;
    c.warmupSteps = warmup;
    c.timedSteps = timed;
    c.training.seqLen = 64;
    return c;
}

struct SyntheticRun {
    RunConfig config;
    Outcome outcome = Outcome::Completed;
    int failingRank = 0;
    int failingStep = 0;
    std::string node = "local";
    std::string gpuName = "Synthetic GPU";
};

inline SyntheticRun randomRun(std::mt19937& rng)
{
    std::uniform_int_distribution<int> world(1, 4), steps(1, 6), strategy(0, kStrategyCount - 1), dice(0, 99);
    SyntheticRun r;
    r.config = syntheticConfig(allStrategies()[static_cast<std::size_t>(strategy(rng))].strategy, world(rng),
                               steps(rng), steps(rng));
    const int d = dice(rng);
    r.outcome = d < 70 ? Outcome::Completed : d < 85 ? Outcome::Oom : Outcome::CommFailure;
    r.failingRank = std::uniform_int_distribution<int>(0, r.config.worldSize - 1)(rng);
    r.failingStep = std::uniform_int_distribution<int>(0, r.config.warmupSteps + r.config.timedSteps - 1)(rng);
    return r;
}

inline protocol::MemorySample memoryAt(int rank, int step)
{
    protocol::MemorySample m;
    m.allocated = (1LL << 30) + rank * (1LL << 20) + step * 4096;
    m.reserved = m.allocated + (256LL << 20);
    m.peakAllocated = m.allocated + (512LL << 20);
    m.peakReserved = m.reserved + (512LL << 20);
    m.deviceTotal = 80LL << 30;
    m.deviceFree = m.deviceTotal - m.reserved;
    m.hostPeakRss = 2LL << 30;
    return m;
}

// Records one run from start to finish and returns its id.
inline std::int64_t recordRun(Database& db, const SyntheticRun& run)
{
    RunOrigin origin;
    origin.nodes = { { run.node, std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuName = run.gpuName;
    origin.interconnect = "pcie";
    RunRecorder recorder(db, run.config, origin);
    const int world = run.config.worldSize;
    const int total = run.config.warmupSteps + run.config.timedSteps;
    for (int rank = 0; rank < world; ++rank) {
        protocol::StartEvent s;
        s.rank = rank;
        s.world = world;
        s.localRank = rank;
        s.host = run.node;
        s.config = run.config;
        s.versions.runner = "0.1.0";
        s.versions.libtorch = "1.13.1";
        s.launcher = "shardwise";
        s.deviceName = run.gpuName;
        recorder.record(s);
    }
    for (int step = 0; step < total; ++step) {
        for (int rank = 0; rank < world; ++rank) {
            if (run.outcome != Outcome::Completed && rank == run.failingRank && step == run.failingStep) {
                protocol::ErrorEvent e;
                e.rank = rank;
                e.kind = run.outcome == Outcome::Oom ? protocol::ErrorKind::Oom : protocol::ErrorKind::Comm;
                e.message = run.outcome == Outcome::Oom ? "CUDA out of memory. Tried to allocate 2.00 GiB"
                                                        : "NCCL watchdog timeout in ALLREDUCE";
                e.step = step;
                e.memory = memoryAt(rank, step);
                e.reservedUnallocated = 3LL << 30;
                recorder.record(e);
                recorder.recordLog(rank, "rank " + std::to_string(rank) + " stopped: " + e.message);
                recorder.finish(recorder.statusFromEvents());
                return recorder.runId();
            }
            protocol::StepEvent st;
            st.rank = rank;
            st.step = step;
            st.timed = step >= run.config.warmupSteps;
            st.loss = 5.5 - 0.1 * step;
            st.stepTimeS = 0.25 + 0.01 * rank;
            st.commTimeS = 0.05;
            st.exposedCommS = 0.01;
            st.tokens = run.config.training.seqLen * run.config.training.microBatch;
            st.memory = memoryAt(rank, step);
            recorder.record(st);
        }
    }
    for (int rank = 0; rank < world; ++rank) {
        protocol::SummaryEvent su;
        su.rank = rank;
        su.world = world;
        su.warmupSteps = run.config.warmupSteps;
        su.timedSteps = run.config.timedSteps;
        su.medianStepS = 0.25;
        su.p10StepS = 0.24;
        su.p90StepS = 0.27;
        su.tokensPerS = world * 64 / 0.25;
        su.ncclShare = 0.2;
        su.exposedCommShare = 0.04;
        su.losses.assign(static_cast<std::size_t>(total), 5.0);
        su.memory = memoryAt(rank, total);
        su.state.deviceParams = 1 << 20;
        recorder.record(su);
    }
    recorder.finish(recorder.statusFromEvents());
    return recorder.runId();
}

} // namespace shardwise::store::fixtures
