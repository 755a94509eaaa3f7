#include "training_run.hpp"

#include "checkpoint.hpp"
#include "communicator.hpp"
#include "decoder_model.hpp"
#include "device_metrics.hpp"
#include "event_stream.hpp"
#include "flat_buffer.hpp"
#include "fused_norm.hpp"
#include "gemm_sm_target.hpp"
#include "kernel_profile.hpp"
#include "sharding_engine.hpp"
#include "step_graph.hpp"
#include "token_source.hpp"

#include "shardwise/protocol/statistics.hpp"
#include "shardwise/spec/strategy.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <thread>

namespace shardwise::runner {

namespace {

// SHARDWISE_DETERMINISTIC: unset, empty or 0 (off) or 1 (on). Anything else is a configuration error,
// not a silent "off": a run asked to repeat bit for bit must not quietly run without it.
bool deterministicRequested()
{
    const char* env = std::getenv("SHARDWISE_DETERMINISTIC");
    const std::string v = env ? env : "";
    if (v.empty() || v == "0")
        return false;
    if (v == "1")
        return true;
    throw ConfigError("SHARDWISE_DETERMINISTIC=" + v + ": expected 0 or 1");
}

// SHARDWISE_MEMORY_CAP_GIB: unset or empty (no cap), or the GiB the caching allocator may hold (> 0).
// Anything else is a configuration error naming the value: a run meant to show whether a plan fits a
// smaller GPU must not quietly run on the whole one.
std::optional<double> memoryCapGiB()
{
    const char* env = std::getenv("SHARDWISE_MEMORY_CAP_GIB");
    if (!env || !*env)
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double gib = std::strtod(env, &end);
    if (end == env || *end != '\0' || errno == ERANGE || !std::isfinite(gib) || gib <= 0)
        throw ConfigError("SHARDWISE_MEMORY_CAP_GIB=" + std::string(env).substr(0, 64)
                          + ": expected a number of GiB greater than 0");
    return gib;
}

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
    for (const char* name : { "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF" })
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
    explicit PhaseMemory(const at::Device& d)
        : device(d)
    {
    }

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
        addrinfo hints {};
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
            throw ConfigError("MASTER_ADDR '" + address + "' does not resolve to an address (" + why
                              + "); set it to the host name or IP address of rank 0's node");
        if (std::chrono::steady_clock::now() > deadline)
            throw CommError("MASTER_ADDR '" + address + "' could not be resolved: " + why);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

} // namespace

std::unique_ptr<Communicator> connectRanks(const RunConfig& c, const LaunchEnvironment& env, int timeoutS)
{
    if (c.rehearsal()) {
#ifdef SHARDWISE_WITH_CUDA
        if (c.device == DeviceKind::Cuda)
            return createNcclRehearsalCommunicator(c.rehearseWorld, env.localRank);
#endif
        if (c.device == DeviceKind::Cpu)
            return createCpuRehearsalCommunicator(c.rehearseWorld);
        throw ConfigError("--rehearse-world on --device cuda: this runner was built without CUDA");
    }
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
    throw ConfigError(std::string("--device ") + std::string(deviceId(c.device))
                      + ": this runner was built without the matching communicator (Gloo for cpu, NCCL for cuda)");
}

at::Device prepareDevice(const RunConfig& c, const LaunchEnvironment& env)
{
    at::Device device = at::kCPU;
    if (c.device == DeviceKind::Cuda) {
        const int devices = cudaDeviceCount();
        if (devices == 0)
            throw ConfigError("--device cuda: this runner was built without CUDA or sees no GPU");
        if (env.localRank >= devices)
            throw ConfigError("LOCAL_RANK " + std::to_string(env.localRank) + " but only " + std::to_string(devices)
                              + " GPUs are visible");
        device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(env.localRank));
    }
    if (device.is_cuda()) {
        // The allocator reads its settings at the first CUDA allocation.
        if (c.training.expandableSegments && !std::getenv("PYTORCH_ALLOC_CONF")
            && !std::getenv("PYTORCH_CUDA_ALLOC_CONF"))
            setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 0);
        selectDevice(device);
    }
    return device;
}

namespace {

// One run of the runner, in the four parts runTraining calls in order: setup (device, rendezvous,
// engine, model, tokens, the start event), resume (from --checkpoint-dir's newest complete
// checkpoint, then --dump-initial-params), one call of step per optimizer step, and finish (the
// kernel profile, --dump-params, the summary event).
class TrainingRun {
public:
    TrainingRun(const RunnerOptions& options, const LaunchEnvironment& env, RunProgress& progress)
        : m_options(options)
        , m_c(options.config)
        , m_env(env)
        , m_progress(progress)
        , m_device(prepareDevice(m_c, env))
        , m_phases(m_device)
    {
    }

    void setup();
    void resume();
    int firstStep() const { return m_firstStep; }
    int totalSteps() const { return m_c.warmupSteps + m_c.timedSteps; }
    void step(int step);
    void finish();

private:
    void loadNewestCheckpoint();
    at::Tensor runStep(const at::Tensor& inputs, const at::Tensor& targets, PhaseMemory* memory);
    at::Tensor graphedOrEagerStep(int step, const at::Tensor& inputs, const at::Tensor& targets, bool timed);

    const RunnerOptions& m_options;
    const RunConfig& m_c;
    const LaunchEnvironment& m_env;
    RunProgress& m_progress;
    at::Device m_device;
    // Declared in the order they are built: the engine and the checkpoints use the communicator.
    std::unique_ptr<Communicator> m_comm;
    std::unique_ptr<ShardingEngine> m_engine;
    std::unique_ptr<DecoderModel> m_model;
    std::unique_ptr<TokenSource> m_tokens;
    std::optional<Checkpoints> m_checkpoints;
    int m_firstStep = 0;
    int m_microSteps = 1;
    std::int64_t m_tokensPerStep = 0; // per optimizer step and rank: every accumulated micro-batch's
    int m_profiled = 0;
    KernelProfile m_profile;
    PhaseMemory m_phases;
    // --cuda-graphs: two eager steps settle the schedule (the first learns which gradient ranges their
    // writers overwrite and zero3's traced order), the third is captured and every later one replays it
    // with the next batch copied into the captured step's input tensors.
    std::unique_ptr<StepGraph> m_graph;
    int m_eagerSteps = 0;
    std::int64_t m_memoryCapBytes = 0; // SHARDWISE_MEMORY_CAP_GIB as applied, 0 without a cap
    at::Tensor m_graphInputs, m_graphTargets, m_graphLoss;
    std::vector<double> m_saveTimes, m_stepTimes, m_commTimes, m_exposedTimes, m_losses;
    protocol::MemorySample m_peaks;
};

void TrainingRun::setup()
{
    // SHARDWISE_DETERMINISTIC=1: PyTorch's deterministic algorithms (flash attention's backward without
    // atomic accumulation, among others; an operation without a deterministic form fails, naming
    // itself), and cuBLAS with a fixed workspace per stream, which it needs for that.
    if (deterministicRequested()) {
        setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
        at::globalContext().setDeterministicAlgorithms(true, false);
        logLine(m_env.rank, "deterministic algorithms (SHARDWISE_DETERMINISTIC=1)");
    }
    if (const auto cap = memoryCapGiB()) {
        if (!m_device.is_cuda())
            throw ConfigError("SHARDWISE_MEMORY_CAP_GIB: a memory cap needs --device cuda (on the CPU there is no "
                              "caching allocator to cap)");
        m_memoryCapBytes = capCachingAllocator(m_device, *cap * 1073741824.0);
        logLine(m_env.rank,
                "the caching allocator may hold " + std::to_string(static_cast<double>(m_memoryCapBytes) / 1073741824.0)
                    + " GiB of this GPU (SHARDWISE_MEMORY_CAP_GIB): past that it frees its cache, retries and then "
                      "reports out of memory, as a GPU of that size would");
    }
    if (m_options.profileKernelSteps > 0 && !KernelProfile::available())
        throw ConfigError("--profile-kernels: this runner was built without the kernel profiler (CUDA builds only)");
    m_progress.device = m_device;
    const auto dtype = m_device.is_cuda() ? at::kBFloat16 : at::kFloat;
    const auto compute = at::TensorOptions().device(m_device).dtype(dtype);

    if (m_c.rehearsal())
        logLine(m_env.rank,
                "rehearsing rank 0 of world " + std::to_string(m_c.rehearseWorld)
                    + ": every buffer has its shape at that world and no data moves between ranks, so memory is "
                      "one rank's and step times hold no communication (not a measurement of that world's speed)"
                    + (m_device.is_cuda() ? ""
                                          : "; on the CPU there is no allocator to read, so only the state bytes "
                                            "(parameters, gradients, optimizer state) are measured"));
    else
        logLine(m_env.rank,
                "connecting to " + m_env.masterAddr + ":" + std::to_string(m_env.masterPort) + " as rank "
                    + std::to_string(m_env.rank) + " of " + std::to_string(m_env.world));
    m_comm = connectRanks(m_c, m_env, m_options.collectiveTimeoutS);

    EngineSettings settings;
    settings.strategy = m_c.strategy;
    settings.knobs = m_c.knobs;
    settings.precision = m_c.training.precision;
    settings.compute = compute;
    settings.seed = m_c.seed;
    settings.adamw.lr = m_c.learningRate;
    settings.capturedStep = m_c.training.cudaGraphs;
    m_engine = std::make_unique<ShardingEngine>(m_c.model, settings, *m_comm);
    std::optional<CheckpointPolicy> checkpointing;
    if (m_c.training.activationCheckpointing)
        checkpointing = m_c.training.checkpointPolicy;
    m_model = std::make_unique<DecoderModel>(m_c.model, m_c.training.seqLen, compute, checkpointing);
    m_tokens = std::make_unique<TokenSource>(m_c, m_env.rank, m_env.world, m_device);
    releaseCachedMemory(m_device);

    protocol::StartEvent start;
    start.rank = m_env.rank;
    start.world = m_env.world;
    start.localRank = m_env.localRank;
    start.host = hostName();
    start.time = unixNow();
    start.config = m_c;
    start.versions = softwareVersions();
    // What this run's engine does, not what the environment asked for: strategies that reduce in
    // buckets or offload, and an fp32 master without the runner's AdamW kernel, step after the backward
    // either way.
    if (m_engine->overlapsDeviceSteps()) {
        start.versions.offloadStaging += std::string("; ") + protocol::kDeviceStepPerUnit;
        if (m_device.is_cuda() && backwardGemmCarveout() > 0)
            start.versions.offloadStaging += "; " + backwardGemmCarveoutPart(backwardGemmCarveout());
    }
    start.allocator = allocatorSettings();
    start.allocator.memoryCapBytes = m_memoryCapBytes;
    start.launcher = m_env.launcher;
    start.deviceName = deviceName(m_device);
    emit(start);
    logLine(m_env.rank,
            std::string(strategyId(m_c.strategy)) + " on " + start.deviceName + " via " + m_comm->backendName() + ", "
                + std::to_string(m_engine->parameterCount()) + " parameters");

    if (fusedNormRunsOn(m_device))
        logLine(m_env.rank,
                "RMSNorm: the fused norm, with the residual add and the weight's gradient in its passes "
                "(SHARDWISE_FUSED_NORM=0 keeps ATen's)");

    m_microSteps = m_c.training.gradAccumulation;
    m_tokensPerStep = static_cast<std::int64_t>(m_c.training.microBatch) * m_c.training.seqLen * m_microSteps;
    m_profiled = std::min(m_options.profileKernelSteps, m_c.timedSteps);
    if (m_c.training.cudaGraphs) {
        if (!StepGraph::available())
            throw ConfigError("--cuda-graphs: this runner was built without CUDA");
        if (!m_engine->capturable())
            throw ConfigError(std::string("--cuda-graphs: ") + std::string(strategyId(m_c.strategy))
                              + " under this precision steps its optimizer outside the device");
        m_graph = std::make_unique<StepGraph>(m_device);
    }
}

void TrainingRun::resume()
{
    if (!m_options.checkpointDir.empty())
        m_checkpoints.emplace(m_options.checkpointDir, m_env.rank, m_env.world, std::string(strategyId(m_c.strategy)),
                              *m_comm, m_device);
    if (m_options.resume)
        loadNewestCheckpoint();
    if (!m_options.dumpInitialParams.empty()) {
        const auto path = m_options.dumpInitialParams + ".rank" + std::to_string(m_env.rank);
        m_engine->dumpParameters(path);
        logLine(m_env.rank, "initial parameters written to " + path);
    }
}

void TrainingRun::loadNewestCheckpoint()
{
    // Every rank looks at the same folder (shared or identical per node); rank 0's view decides.
    const auto newest = m_checkpoints->newestComplete();
    if (!newest) {
        logLine(m_env.rank, "no complete checkpoint in " + m_options.checkpointDir + ": starting fresh");
        return;
    }
    if (*newest >= totalSteps())
        throw ConfigError("--resume: the newest complete checkpoint (" + m_checkpoints->folder(*newest).string()
                          + ") is at or past this run's " + std::to_string(totalSteps()) + " steps");
    m_checkpoints->load(*newest, *m_engine);
    m_firstStep = *newest;
    logLine(m_env.rank, "resumed from " + m_checkpoints->folder(*newest).string());
}

// One optimizer step's device work: a forward and backward per micro-batch (rows i x B onwards of the
// step's batch), then the optimizer; the allocator's peak of each part (over the micro-steps) into
// `memory` when given. Returns the mean of the micro-batches' losses: the mean over the step's tokens,
// as one micro-batch of all of them would report it.
at::Tensor TrainingRun::runStep(const at::Tensor& inputs, const at::Tensor& targets, PhaseMemory* memory)
{
    const std::int64_t rows = m_c.training.microBatch;
    at::Tensor lossSum;
    for (int micro = 0; micro < m_microSteps; ++micro) {
        m_engine->beginStep(micro, m_microSteps);
        auto loss = m_model->loss(inputs.narrow(0, micro * rows, rows), targets.narrow(0, micro * rows, rows),
                                  *m_engine, 1.0 / m_microSteps);
        if (memory)
            memory->close(memory->peaks.forward);
        m_engine->beforeBackward();
        try {
            loss.backward();
        } catch (...) {
            m_progress.commFailure = m_engine->commFailure();
            throw;
        }
        m_engine->finishBackward();
        if (memory)
            memory->close(memory->peaks.backward);
        lossSum = micro == 0 ? loss.detach() : lossSum + loss.detach();
    }
    m_engine->optimizerStep();
    if (memory)
        memory->close(memory->peaks.optimizer);
    return m_microSteps == 1 ? lossSum : lossSum / m_microSteps;
}

at::Tensor TrainingRun::graphedOrEagerStep(int step, const at::Tensor& inputs, const at::Tensor& targets, bool timed)
{
    constexpr int kEagerStepsBeforeCapture = kCudaGraphWarmupSteps - 1;
    if (m_graph && m_graph->captured()) {
        m_graphInputs.copy_(inputs, /*non_blocking=*/true);
        m_graphTargets.copy_(targets, /*non_blocking=*/true);
        m_graph->replay();
        return m_graphLoss;
    }
    if (m_graph && m_eagerSteps == kEagerStepsBeforeCapture) {
        // The captured step's peaks are the replays' (a replay allocates nothing): they stand for every
        // timed step's. What the eager steps left cached goes back first, so the graph's pool is not
        // reserved beside it.
        m_graphInputs = inputs.clone(); // the replays overwrite them: never the token source's own
        m_graphTargets = targets.clone();
        m_engine->orderReleasesByStream();
        releaseCachedMemory(m_device);
        resetPeakMemory(m_device);
        m_graph->capture([&] {
            m_graphLoss = runStep(m_graphInputs, m_graphTargets, &m_phases);
            m_comm->joinCompute();
        });
        m_comm->keepCapturedTimings();
        m_graph->replay();
        logLine(m_env.rank, "step " + std::to_string(step) + " captured as a CUDA graph; later steps replay it");
        return m_graphLoss;
    }
    ++m_eagerSteps;
    return runStep(inputs, targets, timed ? &m_phases : nullptr);
}

void TrainingRun::step(int step)
{
    m_progress.step = step;
    const bool timed = step >= m_c.warmupSteps;
    if (step == std::max(m_c.warmupSteps, m_firstStep)) {
        resetPeakMemory(m_device);
        FlatBuffer::resetPeakResidentBytes();
    }
    if (m_profiled > 0 && step == totalSteps() - m_profiled)
        m_profile.start();
    synchronizeDevice(m_device);
    m_comm->takeCommTime();
    const auto begin = Clock::now();

    auto [inputs, targets] = m_tokens->batch(step);
    m_engine->advanceStep();
    const at::Tensor loss = graphedOrEagerStep(step, inputs, targets, timed);
    const double lossValue = loss.item<double>();
    m_comm->synchronize();
    synchronizeDevice(m_device);
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    const auto commTime = m_comm->takeCommTime();

    protocol::StepEvent ev;
    ev.rank = m_env.rank;
    ev.step = step;
    ev.timed = timed;
    ev.loss = lossValue;
    ev.stepTimeS = seconds;
    ev.commTimeS = commTime.total;
    ev.exposedCommS = commTime.exposed;
    ev.tokens = m_tokensPerStep;
    ev.memory = sampleMemory(m_device);
    if (timed)
        m_phases.coverWholeSteps(ev.memory);
    ev.time = unixNow();
    emit(ev);
    m_losses.push_back(lossValue);
    if (timed) {
        m_stepTimes.push_back(seconds);
        m_commTimes.push_back(commTime.total);
        m_exposedTimes.push_back(commTime.exposed);
        m_peaks = ev.memory;
    }
    if (m_options.checkpointEvery > 0 && (step + 1) % m_options.checkpointEvery == 0) {
        m_saveTimes.push_back(m_checkpoints->save(step + 1, *m_engine));
        logLine(m_env.rank,
                "checkpoint " + m_checkpoints->folder(step + 1).string() + " in " + std::to_string(m_saveTimes.back())
                    + " s");
    }
}

void TrainingRun::finish()
{
    m_progress.step.reset();
    if (m_profiled > 0)
        logLine(m_env.rank, m_profile.stop(m_profiled));

    if (!m_options.dumpParams.empty()) {
        const auto path = m_options.dumpParams + ".rank" + std::to_string(m_env.rank);
        m_engine->dumpParameters(path);
        logLine(m_env.rank, "parameters written to " + path);
    }

    protocol::SummaryEvent s;
    s.rank = m_env.rank;
    s.world = m_env.world;
    s.warmupSteps = m_c.warmupSteps;
    s.timedSteps = static_cast<int>(m_stepTimes.size()); // fewer than asked when resumed past the warm-up
    s.medianStepS = stats::median(m_stepTimes);
    s.p10StepS = stats::percentile(m_stepTimes, 10);
    s.p90StepS = stats::percentile(m_stepTimes, 90);
    // A rehearsal's step holds no communication: its tokens/s would stand for no world at all.
    s.rehearsedWorld = m_c.rehearseWorld;
    s.tokensPerS = s.medianStepS > 0 && !m_c.rehearsal()
        ? static_cast<double>(m_tokensPerStep) * m_env.world / s.medianStepS
        : 0;
    s.ncclShare = s.medianStepS > 0 ? stats::median(m_commTimes) / s.medianStepS : 0;
    s.exposedCommShare = s.medianStepS > 0 ? stats::median(m_exposedTimes) / s.medianStepS : 0;
    s.losses = m_losses;
    s.memory = m_peaks; // peak fields cover the timed steps: reset at the first of them
    if (m_device.is_cuda() && !m_stepTimes.empty())
        s.phasePeakAllocated = m_phases.peaks;
    s.state = m_engine->stateBytes();
    s.unitBufferPeak = m_stepTimes.empty() ? 0 : FlatBuffer::peakResidentBytes();
    s.checkpointSaveS = m_saveTimes.empty() ? 0 : stats::median(m_saveTimes);
    s.checkpointsWritten = static_cast<int>(m_saveTimes.size());
    s.resumedFromStep = m_options.resume && m_firstStep > 0 ? m_firstStep : -1;
    s.time = unixNow();
    emit(s);
    if (m_c.rehearsal())
        logLine(m_env.rank,
                "rehearsal of world " + std::to_string(m_c.rehearseWorld) + ": peak allocated "
                    + std::to_string(s.memory.peakAllocated) + " B, reserved " + std::to_string(s.memory.peakReserved)
                    + " B; median compute-only step " + std::to_string(s.medianStepS) + " s");
    else
        logLine(m_env.rank,
                "median step " + std::to_string(s.medianStepS) + " s, " + std::to_string(s.tokensPerS)
                    + " tokens/s, final loss " + std::to_string(m_losses.back()));
}

} // namespace

void runTraining(const RunnerOptions& options, const LaunchEnvironment& env, RunProgress& progress)
{
    TrainingRun run(options, env, progress);
    run.setup();
    run.resume();
    for (int step = run.firstStep(); step < run.totalSteps(); ++step)
        run.step(step);
    run.finish();
}

} // namespace shardwise::runner
