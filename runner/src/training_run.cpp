#include "training_run.hpp"

#include "communicator.hpp"
#include "decoder_model.hpp"
#include "device_metrics.hpp"
#include "checkpoint.hpp"
#include "event_stream.hpp"
#include "kernel_profile.hpp"
#include "sharding_engine.hpp"
#include "step_graph.hpp"
#include "token_source.hpp"

#include "shardwise/protocol/statistics.hpp"
#include "shardwise/spec/strategy.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <cstdlib>

namespace shardwise::runner {

namespace {

using Clock = std::chrono::steady_clock;

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "unknown";
    return buf;
}

protocol::AllocatorSettings allocatorSettings()
{
    protocol::AllocatorSettings a;
    // PyTorch 2.x reads PYTORCH_ALLOC_CONF first and falls back to PYTORCH_CUDA_ALLOC_CONF.
    for (const char* name : {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"})
        if (const char* v = std::getenv(name); v && *v) {
            a.conf = v;
            break;
        }
    a.expandableSegments = a.conf.find("expandable_segments:True") != std::string::npos;
    return a;
}

// Peak allocated bytes per part of the timed steps. The allocator keeps one peak, so each part resets
// it when it ends; the step's whole-run peaks are kept here as the maximum over the parts.
struct PhaseMemory {
    explicit PhaseMemory(const at::Device& d) : device(d) {}

    at::Device device;
    protocol::PhasePeaks peaks;
    std::int64_t peakAllocated = 0;
    std::int64_t peakReserved = 0;

    void close(std::int64_t& phase)
    {
        const auto m = allocatorPeaks(device);
        phase = std::max(phase, m.allocated);
        peakAllocated = std::max(peakAllocated, m.allocated);
        peakReserved = std::max(peakReserved, m.reserved);
        resetPeakMemory(device);
    }

    void coverWholeSteps(protocol::MemorySample& m) const
    {
        m.peakAllocated = std::max(m.peakAllocated, peakAllocated);
        m.peakReserved = std::max(m.peakReserved, peakReserved);
    }
};

} // namespace

namespace {

// c10d's TCPStore retries a name that does not resolve until the rendezvous timeout (minutes), so a
// typo in MASTER_ADDR would look like a hung peer. A name the resolver says does not exist fails at
// once; a resolver that is only unreachable (EAI_AGAIN) gets a few seconds before it counts as a
// communication failure.
void requireResolvableMaster(const std::string& address, int timeoutS)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::min(timeoutS, 10));
    for (;;) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* found = nullptr;
        const int rc = ::getaddrinfo(address.c_str(), nullptr, &hints, &found);
        if (found)
            ::freeaddrinfo(found);
        if (rc == 0)
            return;
        const std::string why = ::gai_strerror(rc);
        if (rc != EAI_AGAIN)
            throw ConfigError("MASTER_ADDR '" + address + "' does not resolve to an address (" + why +
                              "); set it to the host name or IP address of rank 0's node");
        if (std::chrono::steady_clock::now() > deadline)
            throw CommError("MASTER_ADDR '" + address + "' could not be resolved: " + why);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

} // namespace

std::unique_ptr<Communicator> connectRanks(const RunConfig& c, const LaunchEnvironment& env, int timeoutS)
{
    requireResolvableMaster(env.masterAddr, timeoutS);
    Rendezvous rv;
    rv.rank = env.rank;
    rv.world = env.world;
    rv.localRank = env.localRank;
    rv.masterAddr = env.masterAddr;
    rv.masterPort = env.masterPort;
    rv.timeout = std::chrono::seconds(timeoutS);
#ifdef SHARDWISE_WITH_CUDA
    if (c.device == DeviceKind::Cuda)
        return createNcclCommunicator(rv);
#endif
#ifdef SHARDWISE_WITH_GLOO
    if (c.device == DeviceKind::Cpu)
        return createGlooCommunicator(rv);
#endif
    throw ConfigError(std::string("--device ") + std::string(deviceId(c.device)) +
                      ": this runner was built without the matching communicator (Gloo for cpu, NCCL for cuda)");
}

at::Device prepareDevice(const RunConfig& c, const LaunchEnvironment& env)
{
    at::Device device = at::kCPU;
    if (c.device == DeviceKind::Cuda) {
        const int devices = cudaDeviceCount();
        if (devices == 0)
            throw ConfigError("--device cuda: this runner was built without CUDA or sees no GPU");
        if (env.localRank >= devices)
            throw ConfigError("LOCAL_RANK " + std::to_string(env.localRank) + " but only " + std::to_string(devices) +
                              " GPUs are visible");
        device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(env.localRank));
    }
    if (device.is_cuda()) {
        // The allocator reads its settings at the first CUDA allocation.
        if (c.training.expandableSegments && !std::getenv("PYTORCH_ALLOC_CONF") &&
            !std::getenv("PYTORCH_CUDA_ALLOC_CONF"))
            setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 0);
        selectDevice(device);
    }
    return device;
}

void runTraining(const RunnerOptions& options, const LaunchEnvironment& env, RunProgress& progress)
{
    const auto& c = options.config;
    if (options.profileKernelSteps > 0 && !KernelProfile::available())
        throw ConfigError("--profile-kernels: this runner was built without the kernel profiler (CUDA builds only)");
    const at::Device device = prepareDevice(c, env);
    progress.device = device;
    const auto dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
    const auto compute = at::TensorOptions().device(device).dtype(dtype);

    logLine(env.rank, "connecting to " + env.masterAddr + ":" + std::to_string(env.masterPort) + " as rank " +
                          std::to_string(env.rank) + " of " + std::to_string(env.world));
    auto comm = connectRanks(c, env, options.collectiveTimeoutS);

    EngineSettings settings;
    settings.strategy = c.strategy;
    settings.knobs = c.knobs;
    settings.precision = c.training.precision;
    settings.compute = compute;
    settings.seed = c.seed;
    settings.adamw.lr = c.learningRate;
    ShardingEngine engine(c.model, settings, *comm);
    std::optional<CheckpointPolicy> checkpointing;
    if (c.training.activationCheckpointing)
        checkpointing = c.training.checkpointPolicy;
    DecoderModel model(c.model, c.training.seqLen, compute, checkpointing);
    TokenSource tokens(c, env.rank, env.world, device);
    releaseCachedMemory(device);

    protocol::StartEvent start;
    start.rank = env.rank;
    start.world = env.world;
    start.localRank = env.localRank;
    start.host = hostName();
    start.time = unixNow();
    start.config = c;
    start.versions = softwareVersions();
    start.allocator = allocatorSettings();
    start.launcher = env.launcher;
    start.deviceName = deviceName(device);
    emit(start);
    logLine(env.rank, std::string(strategyId(c.strategy)) + " on " + start.deviceName + " via " +
                          comm->backendName() + ", " + std::to_string(engine.parameterCount()) + " parameters");

    const int total = c.warmupSteps + c.timedSteps;
    std::optional<Checkpoints> checkpoints;
    if (!options.checkpointDir.empty())
        checkpoints.emplace(options.checkpointDir, env.rank, env.world, std::string(strategyId(c.strategy)), *comm,
                            device);
    int firstStep = 0;
    if (options.resume) {
        // Every rank looks at the same folder (shared or identical per node); rank 0's view decides.
        const auto newest = checkpoints->newestComplete();
        if (newest) {
            if (*newest >= total)
                throw ConfigError("--resume: the newest complete checkpoint (" + checkpoints->folder(*newest).string() +
                                  ") is at or past this run's " + std::to_string(total) + " steps");
            checkpoints->load(*newest, engine);
            firstStep = *newest;
            logLine(env.rank, "resumed from " + checkpoints->folder(*newest).string());
        } else {
            logLine(env.rank, "no complete checkpoint in " + options.checkpointDir + ": starting fresh");
        }
    }
    std::vector<double> saveTimes;
    std::vector<double> stepTimes, commTimes, exposedTimes, losses;
    protocol::MemorySample peaks;
    // Per optimizer step and rank: every accumulated micro-batch's tokens.
    const int microSteps = c.training.gradAccumulation;
    const std::int64_t tokensPerStep =
        static_cast<std::int64_t>(c.training.microBatch) * c.training.seqLen * microSteps;
    const int profiled = std::min(options.profileKernelSteps, c.timedSteps);
    KernelProfile profile;
    PhaseMemory phases(device);

    // One optimizer step's device work: a forward and backward per micro-batch (rows i x B onwards of
    // the step's batch), then the optimizer; the allocator's peak of each part (over the micro-steps)
    // into `memory` when given. Returns the mean of the micro-batches' losses: the mean over the step's
    // tokens, as one micro-batch of all of them would report it.
    auto runStep = [&](const at::Tensor& inputs, const at::Tensor& targets, PhaseMemory* memory) {
        const std::int64_t rows = c.training.microBatch;
        at::Tensor lossSum;
        for (int micro = 0; micro < microSteps; ++micro) {
            engine.beginStep(micro, microSteps);
            auto loss = model.loss(inputs.narrow(0, micro * rows, rows), targets.narrow(0, micro * rows, rows),
                                   engine, 1.0 / microSteps);
            if (memory)
                memory->close(memory->peaks.forward);
            engine.beforeBackward();
            try {
                loss.backward();
            } catch (...) {
                progress.commFailure = engine.commFailure();
                throw;
            }
            engine.finishBackward();
            if (memory)
                memory->close(memory->peaks.backward);
            lossSum = micro == 0 ? loss.detach() : lossSum + loss.detach();
        }
        engine.optimizerStep();
        if (memory)
            memory->close(memory->peaks.optimizer);
        return microSteps == 1 ? lossSum : lossSum / microSteps;
    };

    // --cuda-graphs: two eager steps settle the schedule (the first learns which gradient ranges
    // their writers overwrite and zero3's traced order), the third is captured and every later one
    // replays it with the next batch copied into the captured step's input tensors.
    std::unique_ptr<StepGraph> graph;
    constexpr int kEagerStepsBeforeCapture = kCudaGraphWarmupSteps - 1;
    int eagerSteps = 0;
    at::Tensor graphInputs, graphTargets, graphLoss;
    if (c.training.cudaGraphs) {
        if (!StepGraph::available())
            throw ConfigError("--cuda-graphs: this runner was built without CUDA");
        if (!engine.capturable())
            throw ConfigError(std::string("--cuda-graphs: ") + std::string(strategyId(c.strategy)) +
                              " under this precision steps its optimizer outside the device");
        graph = std::make_unique<StepGraph>(device);
    }

    if (!options.dumpInitialParams.empty()) {
        const auto path = options.dumpInitialParams + ".rank" + std::to_string(env.rank);
        engine.dumpParameters(path);
        logLine(env.rank, "initial parameters written to " + path);
    }

    for (int step = firstStep; step < total; ++step) {
        progress.step = step;
        const bool timed = step >= c.warmupSteps;
        if (step == std::max(c.warmupSteps, firstStep))
            resetPeakMemory(device);
        if (profiled > 0 && step == total - profiled)
            profile.start();
        synchronizeDevice(device);
        comm->takeCommTime();
        const auto begin = Clock::now();

        auto [inputs, targets] = tokens.batch(step);
        engine.advanceStep();
        at::Tensor loss;
        if (graph && graph->captured()) {
            graphInputs.copy_(inputs, /*non_blocking=*/true);
            graphTargets.copy_(targets, /*non_blocking=*/true);
            graph->replay();
            loss = graphLoss;
        } else if (graph && eagerSteps == kEagerStepsBeforeCapture) {
            // The captured step's peaks are the replays' (a replay allocates nothing): they stand for
            // every timed step's. What the eager steps left cached goes back first, so the graph's
            // pool is not reserved beside it.
            graphInputs = inputs.clone(); // the replays overwrite them: never the token source's own
            graphTargets = targets.clone();
            engine.orderReleasesByStream();
            releaseCachedMemory(device);
            resetPeakMemory(device);
            graph->capture([&] {
                graphLoss = runStep(graphInputs, graphTargets, &phases);
                comm->joinCompute();
            });
            comm->keepCapturedTimings();
            graph->replay();
            loss = graphLoss;
            logLine(env.rank, "step " + std::to_string(step) + " captured as a CUDA graph; later steps replay it");
        } else {
            loss = runStep(inputs, targets, timed ? &phases : nullptr);
            ++eagerSteps;
        }
        const double lossValue = loss.item<double>();
        comm->synchronize();
        synchronizeDevice(device);
        const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
        const auto commTime = comm->takeCommTime();

        protocol::StepEvent ev;
        ev.rank = env.rank;
        ev.step = step;
        ev.timed = timed;
        ev.loss = lossValue;
        ev.stepTimeS = seconds;
        ev.commTimeS = commTime.total;
        ev.exposedCommS = commTime.exposed;
        ev.tokens = tokensPerStep;
        ev.memory = sampleMemory(device);
        if (timed)
            phases.coverWholeSteps(ev.memory);
        ev.time = unixNow();
        emit(ev);
        losses.push_back(lossValue);
        if (timed) {
            stepTimes.push_back(seconds);
            commTimes.push_back(commTime.total);
            exposedTimes.push_back(commTime.exposed);
            peaks = ev.memory;
        }
        if (options.checkpointEvery > 0 && (step + 1) % options.checkpointEvery == 0) {
            saveTimes.push_back(checkpoints->save(step + 1, engine));
            logLine(env.rank, "checkpoint " + checkpoints->folder(step + 1).string() + " in " +
                                  std::to_string(saveTimes.back()) + " s");
        }
    }
    progress.step.reset();
    if (profiled > 0)
        logLine(env.rank, profile.stop(profiled));

    if (!options.dumpParams.empty()) {
        const auto path = options.dumpParams + ".rank" + std::to_string(env.rank);
        engine.dumpParameters(path);
        logLine(env.rank, "parameters written to " + path);
    }

    protocol::SummaryEvent s;
    s.rank = env.rank;
    s.world = env.world;
    s.warmupSteps = c.warmupSteps;
    s.timedSteps = static_cast<int>(stepTimes.size()); // fewer than asked when resumed past the warm-up
    s.medianStepS = stats::median(stepTimes);
    s.p10StepS = stats::percentile(stepTimes, 10);
    s.p90StepS = stats::percentile(stepTimes, 90);
    s.tokensPerS = s.medianStepS > 0 ? static_cast<double>(tokensPerStep) * env.world / s.medianStepS : 0;
    s.ncclShare = s.medianStepS > 0 ? stats::median(commTimes) / s.medianStepS : 0;
    s.exposedCommShare = s.medianStepS > 0 ? stats::median(exposedTimes) / s.medianStepS : 0;
    s.losses = losses;
    s.memory = peaks; // peak fields cover the timed steps: reset at the first of them
    if (device.is_cuda() && !stepTimes.empty())
        s.phasePeakAllocated = phases.peaks;
    s.state = engine.stateBytes();
    s.checkpointSaveS = saveTimes.empty() ? 0 : stats::median(saveTimes);
    s.checkpointsWritten = static_cast<int>(saveTimes.size());
    s.resumedFromStep = options.resume && firstStep > 0 ? firstStep : -1;
    s.time = unixNow();
    emit(s);
    logLine(env.rank, "median step " + std::to_string(s.medianStepS) + " s, " + std::to_string(s.tokensPerS) +
                          " tokens/s, final loss " + std::to_string(losses.back()));
}

} // namespace shardwise::runner
