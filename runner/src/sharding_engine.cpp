// Placement of training state per strategy, initialisation, the optimizer step, state accounting and
// parameter dumps. The per-unit gather / free / reduce schedule lives in unit_schedule.cpp.
#include "sharding_engine.hpp"

#include "compat.hpp"
#include "cpu_adamw.hpp"
#include "step_schedule.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

namespace shardwise::runner {

namespace {

// Hugging Face's initializer_range for Qwen2 and Llama configs.
constexpr double kInitStd = 0.02;

std::uint64_t unitSeed(std::uint64_t seed, std::size_t unit)
{
    // splitmix64 of (seed, unit): every unit gets its own stream, independent of world size.
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(unit) + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

} // namespace

ShardingEngine::ShardingEngine(const ModelSpec& model, const EngineSettings& settings, Communicator& comm)
    : m_traits(traits(settings.strategy))
    , m_settings(settings)
    , m_comm(comm)
    , m_rank(comm.rank())
    , m_world(comm.world())
    , m_sharded(m_traits.shardsParameters)
{
    const bool lowPrecision = settings.compute.dtype() != at::kFloat;
    // On fp32 compute (CPU) a separate fp32 master would be a bit-identical copy, so only bf16 compute
    // with the master-weights policy, or any offload (CPU AdamW always runs in fp32), keeps one.
    m_useMaster = m_traits.offloadsOptimizer || (lowPrecision && settings.precision == PrecisionPolicy::Bf16Fp32Master);

    auto layouts = buildUnitLayouts(model, m_world);
    m_units.resize(layouts.size());
    for (std::size_t i = 0; i < layouts.size(); ++i)
        m_units[i].layout = std::move(layouts[i]);
    for (std::size_t i = 0; i < m_units.size(); ++i) {
        allocateUnit(m_units[i], i);
        initialiseUnit(m_units[i], i);
    }
    m_comm.synchronize();
    if (m_traits.offloadsOptimizer && hostStepPerUnit())
        m_hostSteps = std::make_unique<HostStepPipeline>(m_units.size());
    // Eager steps by default (step_schedule.hpp; docs/runner.md).
    // An fp32 master needs the runner's own kernel, which writes the master's bf16 copy in its pass.
    const bool oneKernelPerUnit
        = !m_traits.offloadsOptimizer && (m_useMaster ? deviceAdamWAppliesToEveryUnit() : compat::kHasFusedAdamW);
    if (oneKernelPerUnit && m_traits.reduction != GradReduction::BucketAllReduce
        && deviceStepPerUnit(settings.capturedStep))
        m_deviceSteps = SideStream::create(settings.compute.device());
}

void ShardingEngine::allocateUnit(Unit& u, std::size_t /*index*/)
{
    const auto& L = u.layout;
    const auto& compute = m_settings.compute;
    // Offloaded state keeps the policy's precision: bf16 parameters and moments under pure bf16 (as
    // FSDP2's CPUOffloadPolicy does with bf16 parameters), fp32 with fp32 master weights.
    const bool bf16Host = compute.dtype() == at::kBFloat16 && m_settings.precision == PrecisionPolicy::PureBf16;
    const auto host = at::TensorOptions().dtype(bf16Host ? at::kBFloat16 : at::kFloat).device(at::kCPU);
    // Buffers that cross PCIe are page-locked so the copies run asynchronously on the comm stream.
    const auto transfer = compute.device().is_cuda() ? host.pinned_memory(true) : host;

    u.overwritten.assign(L.params.size(), { 0, 0 });
    u.unwritten = std::make_unique<std::uint8_t[]>(L.params.size());
    u.params.allocate(L.padded, compute);
    u.grads.allocate(L.padded, compute);
    u.views = u.params.views(L);
    auto gradViews = u.grads.views(L);
    for (std::size_t p = 0; p < u.views.size(); ++p) {
        u.views[p].requires_grad_(true);
        u.views[p].mutable_grad() = gradViews[p];
    }

    if (m_sharded && !m_traits.offloadsParameters)
        u.paramShard = at::empty({ L.shard }, compute);
    if (m_traits.shardsGradients && !m_traits.offloadsOptimizer)
        u.gradShard = at::empty({ L.shard }, compute);
    if (m_traits.offloadsOptimizer)
        u.hostGrad = at::empty({ L.shard }, transfer.dtype(compute.dtype()));

    const auto optimizerNumel = m_traits.shardsOptimizer ? L.shard : L.padded;
    const auto optimizerPlace
        = m_traits.offloadsOptimizer ? host : compute.dtype(m_useMaster ? at::kFloat : compute.dtype().toScalarType());
    if (m_useMaster)
        u.master = at::empty({ optimizerNumel }, m_traits.offloadsOptimizer ? transfer : optimizerPlace);
    u.expAvg = at::zeros({ optimizerNumel }, optimizerPlace);
    u.expAvgSq = at::zeros({ optimizerNumel }, optimizerPlace);

    u.persistent = m_settings.strategy == Strategy::Zero3 && L.numel <= m_settings.knobs.persistenceThreshold;
}

void ShardingEngine::initialiseUnit(Unit& u, std::size_t index)
{
    // Generated in fp32 from (seed, unit) on the compute device, the whole unit on every rank, so every
    // strategy and world size starts from the same weights. On a GPU the device's Philox generator
    // draws them (a 7B model on the CPU generator took most of a run's start-up); weights therefore
    // differ between CPU and CUDA runs of the same seed, never between strategies on one device.
    const auto& device = m_settings.compute.device();
    at::Generator gen;
    if (device.is_cuda()) {
        gen = at::globalContext().defaultGenerator(device).clone();
        gen.set_current_seed(unitSeed(m_settings.seed, index));
    } else {
        gen = at::make_generator<at::CPUGeneratorImpl>(unitSeed(m_settings.seed, index));
    }
    auto full = at::zeros({ u.layout.padded }, at::TensorOptions().dtype(at::kFloat).device(device));
    for (const auto& slot : u.layout.params) {
        if (slot.numel == 0)
            continue;
        auto dst = full.narrow(0, slot.offset, slot.numel);
        switch (slot.init) {
        case ParamInit::Normal:
            dst.normal_(0.0, kInitStd, gen);
            break;
        case ParamInit::Ones:
            dst.fill_(1.0);
            break;
        case ParamInit::Zeros:
            dst.zero_();
            break;
        }
    }
    const auto mine = full.narrow(0, m_rank * u.layout.shard, u.layout.shard);
    u.params.tensor().copy_(full);
    u.grads.tensor().zero_();
    if (u.paramShard.defined())
        u.paramShard.copy_(mine);
    if (u.master.defined())
        u.master.copy_(u.master.numel() == u.layout.padded ? full : mine);

    if (m_sharded) {
        if (!u.persistent)
            u.params.release();
        u.gathered = u.persistent;
    }
    if (m_traits.strategy != Strategy::Zero0 && m_traits.strategy != Strategy::Zero1)
        u.grads.release();
}

std::int64_t ShardingEngine::parameterCount() const
{
    std::int64_t n = 0;
    for (const auto& u : m_units)
        n += u.layout.numel;
    return n;
}

std::vector<std::pair<std::string, at::Tensor>> ShardingEngine::checkpointTensors()
{
    settleHostSteps(); // what is written, or overwritten by a restore, is no host step's any more
    std::vector<std::pair<std::string, at::Tensor>> out;
    for (std::size_t i = 0; i < m_units.size(); ++i) {
        auto& u = m_units[i];
        const std::string unit = u.layout.name + ".";
        if (!m_sharded)
            out.emplace_back(unit + "params", u.params.tensor());
        if (u.paramShard.defined())
            out.emplace_back(unit + "param_shard", u.paramShard);
        if (u.master.defined())
            out.emplace_back(unit + "master", u.master);
        out.emplace_back(unit + "exp_avg", u.expAvg);
        out.emplace_back(unit + "exp_avg_sq", u.expAvgSq);
    }
    return out;
}

void ShardingEngine::restoredFromCheckpoint(std::int64_t optimizerSteps)
{
    m_step = optimizerSteps;
    for (auto& u : m_units)
        if (m_sharded && u.persistent)
            m_comm.computeWaits(m_comm.allGather(u.paramShard, u.params.tensor()));
    m_comm.synchronize();
}

at::Tensor ShardingEngine::steppedParam(Unit& u)
{
    if (u.master.defined())
        return u.master;
    if (u.paramShard.defined())
        return u.paramShard;
    if (m_traits.shardsOptimizer)
        return u.params.tensor().narrow(0, m_rank * u.layout.shard, u.layout.shard);
    return u.params.tensor();
}

at::Tensor ShardingEngine::steppedGrad(Unit& u)
{
    if (u.hostGrad.defined())
        return u.hostGrad;
    if (u.gradShard.defined())
        return u.gradShard;
    if (m_traits.shardsOptimizer)
        return u.grads.tensor().narrow(0, m_rank * u.layout.shard, u.layout.shard);
    return u.grads.tensor();
}

void ShardingEngine::advanceStep()
{
    ++m_step;
    if (!m_settings.compute.device().is_cuda())
        return;
    if (!m_stepTensor.defined())
        m_stepTensor = at::zeros({}, m_settings.compute.dtype(at::kFloat));
    m_stepTensor.fill_(static_cast<double>(m_step));
}

bool ShardingEngine::capturable() const
{
    return m_settings.compute.device().is_cuda() && !m_traits.offloadsOptimizer && !m_useMaster;
}

void ShardingEngine::stepHostUnit(std::size_t index, std::int64_t step, bool sumMicroSteps)
{
    // On the pipeline's thread: the unit's gradient shard has arrived in hostGrad.
    auto& u = m_units[index];
    if (sumMicroSteps) { // the last micro-step's shard joins the sum of the earlier ones
        u.hostGradSum.add_(u.hostGrad);
        u.hostGrad.copy_(u.hostGradSum);
    }
    if (m_settings.compute.device().is_cuda())
        cpuAdamWStep(u.master, u.hostGrad, u.expAvg, u.expAvgSq, step, m_settings.adamw);
    else // a CPU-only run keeps zero0's arithmetic (see optimizerStep)
        adamwStep(u.master, u.hostGrad, u.expAvg, u.expAvgSq, step, m_settings.adamw);
}

void ShardingEngine::submitHostStep(std::size_t index, const CommTicket& arrival)
{
    const auto step = m_step;
    const bool sum = m_microSteps > 1;
    m_hostSteps->submit(index, arrival, [this, index, step, sum] { stepHostUnit(index, step, sum); });
}

bool ShardingEngine::hostStepSettled(std::size_t index, bool wait)
{
    if (!m_hostSteps)
        return true;
    if (!wait && !m_hostSteps->idle(index))
        return false; // a prefetch does not hold the forward up; the unit's own gather waits
    m_hostSteps->waitFor(index);
    auto& u = m_units[index];
    if (u.uploadPending) {
        // zero3_offload: up on the comm stream, ahead of the gather that reads it.
        m_comm.copyAfterComm(u.paramShard, u.master);
        u.uploadPending = false;
    }
    return true;
}

void ShardingEngine::settleHostSteps()
{
    if (!m_hostSteps)
        return;
    for (std::size_t i = 0; i < m_units.size(); ++i)
        hostStepSettled(i, true);
    m_hostSteps->waitAll();
}

void ShardingEngine::optimizerStep()
{
    bool masterCopied = false; // the device AdamW wrote the masters' bf16 copies itself
    if (m_hostSteps) {
        // The host steps are running already (submitted as the gradients went down). zero2_offload's
        // replicas are gathered in buckets right after the step, so each unit goes up as soon as the
        // host is done with it, in forward order, which is the order the host takes them in now; the
        // sharded offload strategies leave each unit to the gather that next needs it.
        if (!m_sharded) {
            for (std::size_t i = 0; i < m_units.size(); ++i) {
                m_hostSteps->waitFor(i);
                m_comm.copyAfterComm(steppedParamTarget(m_units[i]), m_units[i].master);
            }
            gatherUpdatedReplicas();
        } else {
            for (auto& u : m_units)
                u.uploadPending = u.paramShard.defined();
        }
        if (!m_overwritesKnown)
            learnOverwrittenRanges();
        return;
    }
    if (m_unitsSteppedBeside > 0) {
        // Every unit was stepped on the side stream as its reduction finished (stepBesideBackward), an
        // fp32 master's bf16 copy written by the same kernel.
        if (m_unitsSteppedBeside != m_units.size())
            throw std::logic_error("the backward stepped " + std::to_string(m_unitsSteppedBeside) + " of "
                                   + std::to_string(m_units.size()) + " units");
        m_deviceSteps->joinCurrent();
        m_unitsSteppedBeside = 0;
        masterCopied = m_useMaster;
    } else if (m_traits.offloadsOptimizer && m_settings.compute.device().is_cuda()) {
        // finishBackward waited for the gradient shards' copies to the host. (On a CPU-only run the
        // "host" state is the compute memory and the reference path below keeps every strategy's
        // arithmetic identical to zero0's, which the runner's equivalence tests rely on.)
        for (auto& u : m_units)
            cpuAdamWStep(u.master, u.hostGrad, u.expAvg, u.expAvgSq, m_step, m_settings.adamw);
    } else if (m_traits.offloadsOptimizer) {
        for (auto& u : m_units)
            adamwStep(u.master, u.hostGrad, u.expAvg, u.expAvgSq, m_step, m_settings.adamw);
    } else if (deviceAdamWStep()) {
        masterCopied = m_useMaster;
    } else if (!fusedOptimizerStep()) {
        for (auto& u : m_units)
            adamwStep(steppedParam(u), steppedGrad(u), u.expAvg, u.expAvgSq, m_step, m_settings.adamw);
    }

    for (auto& u : m_units) {
        if (u.master.defined() && !masterCopied) {
            if (u.paramShard.defined() && m_traits.offloadsOptimizer)
                // zero3_offload: up on the comm stream, in unit order, ahead of the gathers that read it.
                m_comm.copyAfterComm(u.paramShard, u.master);
            else if (!m_sharded && m_traits.offloadsOptimizer)
                // zero2_offload: this rank's slice of the replica, on the comm stream ahead of the
                // in-place all-gathers below that send it.
                m_comm.copyAfterComm(steppedParamTarget(u), u.master);
            else if (u.paramShard.defined())
                u.paramShard.copy_(u.master, /*non_blocking=*/true);
            else if (!m_sharded)
                steppedParamTarget(u).copy_(u.master);
        }
        if (m_sharded && u.persistent)
            m_comm.computeWaits(m_comm.allGather(u.paramShard, u.params.tensor()));
    }
    if (!m_sharded && m_traits.shardsOptimizer)
        gatherUpdatedReplicas();
    if (!m_overwritesKnown)
        learnOverwrittenRanges();
}

at::Tensor ShardingEngine::masterCopyTarget(Unit& u)
{
    // Where the updated fp32 master goes in bf16 on the device (the copy loop of optimizerStep).
    if (!u.master.defined() || m_traits.offloadsOptimizer)
        return {};
    if (u.paramShard.defined())
        return u.paramShard;
    return m_sharded ? at::Tensor() : steppedParamTarget(u);
}

bool ShardingEngine::deviceAdamWAppliesToEveryUnit()
{
    if (!m_settings.compute.device().is_cuda() || m_traits.offloadsOptimizer)
        return false;
    for (auto& u : m_units) {
        const at::Tensor copy = masterCopyTarget(u);
        if ((u.master.defined() && !copy.defined())
            || !fusedDeviceAdamWApplies(steppedParam(u), steppedGrad(u), u.expAvg, u.expAvgSq, copy))
            return false;
    }
    return true;
}

bool ShardingEngine::deviceAdamWStep()
{
    // The runner's fused AdamW (fused_kernels.hpp), one launch per unit, where it applies to every unit.
    if (!deviceAdamWAppliesToEveryUnit())
        return false;
    for (auto& u : m_units)
        fusedDeviceAdamW(steppedParam(u), steppedGrad(u), u.expAvg, u.expAvgSq, masterCopyTarget(u), m_stepTensor,
                         m_settings.adamw);
    return true;
}

bool ShardingEngine::fusedOptimizerStep()
{
    // One multi-tensor kernel for every unit (torch.optim.AdamW(fused=True)), where parameters,
    // gradients and moments share a dtype on a CUDA device: the pure-bf16 policy.
    if (!m_settings.compute.device().is_cuda())
        return false;
    std::vector<at::Tensor> params, grads, avgs, avgSqs;
    for (auto& u : m_units) {
        params.push_back(steppedParam(u));
        grads.push_back(steppedGrad(u));
        if (params.back().scalar_type() != grads.back().scalar_type())
            return false;
        avgs.push_back(u.expAvg);
        avgSqs.push_back(u.expAvgSq);
    }
    const std::vector<at::Tensor> steps(params.size(), m_stepTensor);
    return compat::fusedAdamW(params, grads, avgs, avgSqs, steps, m_settings.adamw.lr, m_settings.adamw.beta1,
                              m_settings.adamw.beta2, m_settings.adamw.weightDecay, m_settings.adamw.eps);
}

void ShardingEngine::gatherUpdatedReplicas()
{
    // DeepSpeed stage 1/2: every rank stepped its slice; the updated slices are all-gathered in place,
    // one group of collectives per allgather_bucket_size elements.
    std::vector<at::Tensor> pending;
    std::int64_t fill = 0;
    CommTicket last;
    auto flush = [&] {
        if (pending.empty())
            return;
        last = m_comm.allGatherInPlaceEach(pending);
        pending.clear();
        fill = 0;
    };
    for (auto& u : m_units) {
        if (fill > 0 && fill + u.layout.padded > m_settings.knobs.allgatherBucketElements)
            flush();
        pending.push_back(u.params.tensor());
        fill += u.layout.padded;
    }
    flush();
    // The next forward reads every replica; the groups run in order on the comm stream.
    m_comm.computeWaits(last);
}

at::Tensor ShardingEngine::steppedParamTarget(Unit& u)
{
    if (m_traits.shardsOptimizer)
        return u.params.tensor().narrow(0, m_rank * u.layout.shard, u.layout.shard);
    return u.params.tensor();
}

protocol::StateBytes ShardingEngine::stateBytes() const
{
    protocol::StateBytes s;
    auto bytes = [](const at::Tensor& t) {
        return t.defined() ? static_cast<std::int64_t>(t.storage().nbytes()) : std::int64_t { 0 };
    };
    const bool hostMaster = m_traits.offloadsOptimizer;
    for (const auto& u : m_units) {
        s.deviceParams += u.params.residentBytes() + bytes(u.paramShard);
        s.deviceGrads += u.grads.residentBytes() + bytes(u.gradShard);
        s.hostGrads += bytes(u.hostGrad) + bytes(u.hostGradSum);
        const auto optimizer = bytes(u.expAvg) + bytes(u.expAvgSq);
        if (hostMaster) {
            s.hostOptimizer += optimizer;
            // fsdp2_reshard_offload's host master is the parameter shard itself.
            (m_traits.offloadsParameters ? s.hostParams : s.hostOptimizer) += bytes(u.master);
        } else {
            s.deviceOptimizer += optimizer + bytes(u.master);
        }
    }
    return s;
}

void ShardingEngine::dumpParameters(const std::filesystem::path& path)
{
    settleHostSteps();
    nlohmann::json header;
    header["format"] = "shardwise-params";
    header["version"] = 1;
    header["dtype"] = "float32";
    header["byte_order"] = "little";
    header["rank"] = m_rank;
    header["world"] = m_world;
    header["strategy"] = std::string(m_traits.id);
    header["step"] = m_step;
    auto& list = header["params"];
    list = nlohmann::json::array();
    std::int64_t total = 0;
    for (const auto& u : m_units)
        for (const auto& slot : u.layout.params) {
            list.push_back({ { "name", slot.name }, { "shape", slot.shape }, { "offset", total } });
            total += slot.numel;
        }
    header["numel"] = total;

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw std::runtime_error("cannot write parameter dump " + path.string());
    out << header.dump() << '\n';
    for (auto& u : m_units) {
        const auto full = fp32Truth(u);
        for (const auto& slot : u.layout.params) {
            const auto values = full.narrow(0, slot.offset, slot.numel).contiguous();
            out.write(reinterpret_cast<const char*>(values.data_ptr<float>()),
                      static_cast<std::streamsize>(slot.numel * sizeof(float)));
        }
    }
    if (!out)
        throw std::runtime_error("writing parameter dump " + path.string() + " failed");
}

at::Tensor ShardingEngine::fp32Truth(Unit& u)
{
    const auto f32 = m_settings.compute.dtype(at::kFloat);
    const bool truthIsShard = m_sharded || (u.master.defined() && m_traits.shardsOptimizer);
    if (!truthIsShard) {
        const auto& full = u.master.defined() ? u.master : u.params.tensor();
        return full.to(at::TensorOptions().dtype(at::kFloat).device(at::kCPU));
    }
    const auto shard = (u.master.defined() ? u.master : u.paramShard).to(f32);
    auto full = at::empty({ u.layout.padded }, f32);
    m_comm.computeWaits(m_comm.allGather(shard, full));
    return full.to(at::kCPU);
}

} // namespace shardwise::runner
