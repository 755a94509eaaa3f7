// The per-unit schedule: gathering before use, prefetching, freeing after forward / backward, and
// gradient reduction as each unit's backward finishes. See sharding_engine.hpp for the strategies.
#include "sharding_engine.hpp"

#include "compat.hpp"
#include "gemm_sm_target.hpp"
#include "step_schedule.hpp"

#include <torch/autograd.h>

#include <algorithm>

namespace shardwise::runner {

namespace {

// Identity around a layer's input: its backward runs once the layer's backward is done (every node of
// the layer, including its parameters' AccumulateGrad, has a higher priority in the autograd queue),
// which is the moment to reduce that layer's gradients.
struct PostBackwardGate : torch::autograd::Function<PostBackwardGate> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, std::int64_t engine,
                              std::int64_t unit)
    {
        ctx->saved_data["engine"] = engine;
        ctx->saved_data["unit"] = unit;
        return x;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        auto* engine = reinterpret_cast<ShardingEngine*>(ctx->saved_data["engine"].toInt());
        engine->postBackward(static_cast<std::size_t>(ctx->saved_data["unit"].toInt()));
        return { grads[0], at::Tensor(), at::Tensor() };
    }
};

// Offload strategies: full gradient buffers held while this rank's reduced slice of each is copied to
// the host. Reducing in place into that slice and copying from there needs no device staging; the
// runner used to keep two staging shards sized for the largest unit (the root: 2 x 0.58 GiB for
// Qwen2.5-3B at world 1, held for the whole run). Staging sized for a decoder layer, with the root
// copied from its own buffer, would still hold two layers' shards for the whole run; a held full
// buffer costs memory only during the backward, after its layer's backward has freed that layer's
// activations (0.17 GiB against a 0.14 GiB gradient for Qwen2.5-3B at 2048 tokens), so the step's
// peak at the start of the backward does not see it. The price is that the compute stream waits
// for the copy two units back before it frees that buffer; the copies run at PCIe speed behind the
// backward either way, and two in flight keep the copy stream busy while a unit's backward runs.
constexpr std::size_t kHeldGradientDownloads = 2;

} // namespace

template <typename F> void ShardingEngine::guardComm(F&& f)
{
    try {
        f();
    } catch (const CommError& e) {
        // Autograd may rethrow this as a plain c10::Error; remember what it was.
        m_commFailure = e.what();
        throw;
    }
}

const std::vector<at::Tensor>& ShardingEngine::parameters(std::size_t unit)
{
    return m_units.at(unit).views;
}

GradientSink ShardingEngine::gradientSink(std::size_t unit, std::size_t slot)
{
    auto& u = m_units.at(unit);
    materializeGrads(u);
    const auto& s = u.layout.params.at(slot);
    return { u.views.at(slot).grad(), overwriteFlag(u, slot, s.offset, s.numel) };
}

UnwrittenFlag ShardingEngine::overwriteFlag(Unit& u, std::size_t firstSlot, std::int64_t offset, std::int64_t numel)
{
    if (!m_overwritesKnown) {
        // First step: the buffer was zeroed whole and the writer accumulates; remember the range.
        u.overwritten.at(firstSlot) = { offset, numel };
        return nullptr;
    }
    return u.overwritten.at(firstSlot).second > 0 ? &u.unwritten[firstSlot] : nullptr;
}

void ShardingEngine::learnOverwrittenRanges()
{
    for (auto& u : m_units) {
        std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
        for (const auto& r : u.overwritten)
            if (r.second > 0)
                ranges.push_back(r);
        std::sort(ranges.begin(), ranges.end());
        std::int64_t at = 0;
        for (const auto& [offset, numel] : ranges) {
            if (offset > at)
                u.zeroed.emplace_back(at, offset - at);
            at = std::max(at, offset + numel);
        }
        if (at < u.layout.padded) // the padding too: the optimizer steps it and NCCL reduces it
            u.zeroed.emplace_back(at, u.layout.padded - at);
    }
    m_overwritesKnown = true;
}

void ShardingEngine::resetGradients(Unit& u)
{
    auto& grads = u.grads.tensor();
    if (!m_overwritesKnown) {
        grads.zero_();
        return;
    }
    for (const auto& [offset, numel] : u.zeroed)
        grads.narrow(0, offset, numel).zero_();
    for (std::size_t slot = 0; slot < u.overwritten.size(); ++slot)
        u.unwritten[slot] = u.overwritten[slot].second > 0 ? 1 : 0;
}

void ShardingEngine::settleUnwritten(Unit& u)
{
    // A range whose writer did not run this step holds whatever the allocator left there.
    for (std::size_t slot = 0; slot < u.overwritten.size(); ++slot)
        if (u.unwritten[slot]) {
            u.grads.tensor().narrow(0, u.overwritten[slot].first, u.overwritten[slot].second).zero_();
            u.unwritten[slot] = 0;
        }
}

NormWeight ShardingEngine::normWeight(std::size_t unit, std::size_t slot)
{
    auto& u = m_units.at(unit);
    const auto& s = u.layout.params.at(slot);
    return { u.params.span(s.offset, { s.numel }), u.grads.span(s.offset, { s.numel }),
             overwriteFlag(u, slot, s.offset, s.numel) };
}

LinearWeight ShardingEngine::linearWeight(std::size_t unit, std::size_t first, std::size_t count,
                                          std::optional<std::size_t> biasFirst)
{
    auto& u = m_units.at(unit);
    const auto& slots = u.layout.params;
    const auto& head = slots.at(first);
    std::int64_t rows = 0;
    for (std::size_t i = first; i < first + count; ++i) {
        const auto& s = slots.at(i);
        if (s.shape.size() != 2 || s.shape[1] != head.shape[1] || s.offset != head.offset + rows * head.shape[1])
            throw std::logic_error("linearWeight: slots of " + u.layout.name + " are not one matrix");
        rows += s.shape[0];
    }
    LinearWeight w;
    w.weight = u.params.span(head.offset, { rows, head.shape[1] });
    w.weightGrad = u.grads.span(head.offset, { rows, head.shape[1] });
    w.weightUnwritten = overwriteFlag(u, first, head.offset, rows * head.shape[1]);
    if (biasFirst && slots.at(*biasFirst).numel > 0) {
        const auto offset = slots.at(*biasFirst).offset;
        const auto& last = slots.at(*biasFirst + count - 1);
        if (last.offset + last.numel - offset != rows)
            throw std::logic_error("linearWeight: bias slots of " + u.layout.name + " do not match the matrix");
        w.bias = u.params.span(offset, { rows });
        w.biasGrad = u.grads.span(offset, { rows });
        w.biasUnwritten = overwriteFlag(u, *biasFirst, offset, rows);
    }
    return w;
}

void ShardingEngine::beginStep(int microStep, int microSteps)
{
    m_microStep = microStep;
    m_microSteps = microSteps;
    // A full gradient that outlives the micro-step (no sharded gradient) accumulates the next one.
    const bool accumulateInPlace = microStep > 0 && !m_traits.shardsGradients;
    for (auto& u : m_units) {
        u.reduced = false;
        if (u.grads.materialized() && !accumulateInPlace)
            resetGradients(u);
    }
    if (m_sharded)
        guardComm([&] { ensureGathered(0); });
}

at::Tensor ShardingEngine::enterLayer(std::size_t unit, const at::Tensor& hidden)
{
    if (m_sharded) {
        if (!m_traced)
            m_forwardTrace.push_back(unit);
        guardComm([&] {
            ensureGathered(unit);
            prefetchForward(unit);
        });
    }
    if (!hidden.requires_grad())
        return hidden;
    return PostBackwardGate::apply(hidden, reinterpret_cast<std::int64_t>(this), static_cast<std::int64_t>(unit));
}

at::Tensor ShardingEngine::leaveLayer(std::size_t unit, const at::Tensor& hidden)
{
    if (m_sharded && m_traits.reshardAfterForward)
        releaseParams(unit);
    if (hidden.requires_grad())
        hidden.register_hook([this, unit](const at::Tensor&) { preBackward(unit); });
    return hidden;
}

void ShardingEngine::beforeBackward()
{
    m_traced = true;
    materializeGrads(m_units[0]);
    // The units' AdamW beside this backward gets SMs the backward's GEMMs leave free (gemm_sm_target.hpp).
    if (stepsBesideBackward())
        setBackwardGemmCarveout(backwardGemmCarveout());
}

void ShardingEngine::preBackward(std::size_t unit)
{
    if (m_sharded)
        guardComm([&] {
            ensureGathered(unit);
            prefetchBackward(unit);
        });
    materializeGrads(m_units[unit]);
}

void ShardingEngine::postBackward(std::size_t unit)
{
    guardComm([&] { reduceUnit(unit); });
}

void ShardingEngine::finishBackward()
{
    setBackwardGemmCarveout(0);
    guardComm([&] {
        reduceUnit(0);
        flushBucket();
    });
    if (m_hostSteps && m_microStep + 1 == m_microSteps)
        m_hostSteps->submittedAll();
    for (std::size_t i = 0; i < m_units.size(); ++i)
        if (!m_units[i].reduced)
            throw std::logic_error("the post-backward hook of unit " + m_units[i].layout.name + " did not run");
    if (m_sharded)
        releaseParams(0);
    guardComm([&] {
        if (m_traits.offloadsOptimizer)
            m_comm.synchronize(); // the CPU optimizer reads the host gradient shards next
        else
            m_comm.computeWaits(m_lastReduction);
    });
    retirePendingReleases(0);
    retirePendingAccumulations(0);
    if (m_traits.offloadsOptimizer)
        accumulateHostGradients();
    // Every copy to the host is done (the host waited for it): what the copies read may be reused.
    for (const auto& pending : m_pendingDownloads)
        m_units[pending.unit].grads.release();
    m_pendingDownloads.clear();
    m_lastReduction = nullptr;
}

at::Tensor ShardingEngine::reducedShardTarget(std::size_t index)
{
    auto& u = m_units[index];
    if (m_microStep == 0)
        return u.gradShard; // the first micro-step's reduction overwrites the shard
    // Later ones reduce into a shard of their own, added into the unit's once reduced (FSDP2 adds each
    // micro-step's reduce-scatter output into the sharded .grad the same way).
    auto partial = at::empty_like(u.gradShard);
    m_unqueuedPartials.emplace_back(index, partial);
    return partial;
}

void ShardingEngine::queueAccumulations(const CommTicket& reduced)
{
    if (m_unqueuedPartials.empty())
        return;
    m_pendingAccumulations.push_back({ std::move(m_unqueuedPartials), reduced });
    m_unqueuedPartials.clear();
    retirePendingAccumulations(1);
}

void ShardingEngine::retirePendingAccumulations(std::size_t keep)
{
    while (m_pendingAccumulations.size() > keep) {
        auto oldest = std::move(m_pendingAccumulations.front());
        m_pendingAccumulations.pop_front();
        m_comm.computeWaits(oldest.reduced);
        // Freed after the add on the compute stream, which waited for the reduction that wrote it.
        for (auto& [index, partial] : oldest.partials)
            m_units[index].gradShard.add_(partial);
    }
}

void ShardingEngine::accumulateHostGradients()
{
    // Offloaded strategies: each micro-step's reduced shard arrived in hostGrad (the host waited for
    // the copies); its sum over the micro-steps is kept in fp32 on the host beside it, as DeepSpeed's
    // offload accumulates into its fp32 host gradient partition, and the last micro-step leaves the
    // sum where the CPU AdamW reads it.
    const bool last = m_microStep + 1 == m_microSteps;
    if (m_microSteps == 1 || (last && m_hostSteps))
        return; // the host step pipeline adds the last micro-step's shard unit by unit
    for (auto& u : m_units) {
        if (!u.hostGrad.defined())
            continue;
        if (m_microStep == 0) {
            if (!u.hostGradSum.defined())
                u.hostGradSum = at::empty(u.hostGrad.sizes(), at::TensorOptions().dtype(at::kFloat));
            u.hostGradSum.copy_(u.hostGrad);
        } else {
            u.hostGradSum.add_(u.hostGrad);
        }
        if (last)
            u.hostGrad.copy_(u.hostGradSum);
    }
}

void ShardingEngine::materializeGrads(Unit& u)
{
    if (u.grads.materialized())
        return;
    u.grads.materialize();
    resetGradients(u);
}

void ShardingEngine::issueGather(std::size_t index, bool prefetch)
{
    auto& u = m_units[index];
    if (u.gathered || !hostStepSettled(index, !prefetch))
        return;
    u.params.materialize();
    const auto& full = u.params.tensor();
    if (u.paramShard.defined()) {
        u.gatherDone = m_comm.allGather(u.paramShard, full);
    } else {
        // fsdp2_reshard_offload: the shard lives in host memory; it is copied up (and cast) on the comm
        // stream straight into this rank's slice of the gathered buffer, right before the in-place
        // all-gather that fills the rest (at world 1 the copy is the whole gather).
        m_comm.copyAfterComm(full.narrow(0, m_rank * u.layout.shard, u.layout.shard), u.master);
        u.gatherDone = m_comm.allGatherInPlaceEach({ full });
    }
    u.gathered = true;
}

void ShardingEngine::ensureGathered(std::size_t index)
{
    auto& u = m_units[index];
    issueGather(index);
    m_comm.computeWaits(u.gatherDone);
    u.gatherDone = nullptr;
}

void ShardingEngine::releaseParams(std::size_t index)
{
    auto& u = m_units[index];
    if (u.persistent || !u.gathered)
        return;
    m_comm.computeWaits(u.gatherDone);
    u.gatherDone = nullptr;
    u.params.release();
    u.gathered = false;
}

void ShardingEngine::prefetchForward(std::size_t index)
{
    if (m_traits.family == StrategyFamily::Fsdp2) {
        // FSDP2: the next unit's all-gather overlaps this unit's forward.
        if (index + 1 < m_units.size())
            issueGather(index + 1, /*prefetch=*/true);
        return;
    }
    if (!m_traced)
        return;
    // DeepSpeed stage 3: fetch ahead along the traced order until the prefetch bucket is full.
    auto budget = m_settings.knobs.prefetchBucketElements;
    auto it = std::find(m_forwardTrace.begin(), m_forwardTrace.end(), index);
    for (++it; it != m_forwardTrace.end() && budget > 0; ++it) {
        budget -= m_units[*it].layout.numel;
        issueGather(*it, /*prefetch=*/true);
    }
}

void ShardingEngine::prefetchBackward(std::size_t index)
{
    if (m_traits.family == StrategyFamily::Fsdp2) {
        if (index > 1)
            issueGather(index - 1, /*prefetch=*/true);
        return;
    }
    auto budget = m_settings.knobs.prefetchBucketElements;
    auto it = std::find(m_forwardTrace.rbegin(), m_forwardTrace.rend(), index);
    for (++it; it != m_forwardTrace.rend() && budget > 0; ++it) {
        budget -= m_units[*it].layout.numel;
        issueGather(*it, /*prefetch=*/true);
    }
}

void ShardingEngine::reduceUnit(std::size_t index)
{
    auto& u = m_units[index];
    if (u.reduced)
        return;
    u.reduced = true;
    settleUnwritten(u);
    if (!m_traits.shardsGradients && m_microStep + 1 < m_microSteps)
        return; // no_sync: the full gradient accumulates until the last micro-step reduces it
    const auto full = u.grads.tensor();
    switch (m_traits.reduction) {
    case GradReduction::AllReduce:
        m_lastReduction = m_comm.allReduceMean(full);
        if (stepsBesideBackward())
            stepBesideBackward(index, m_lastReduction);
        return;
    case GradReduction::BucketAllReduce:
        addToBucket(index);
        return;
    case GradReduction::ReduceScatter:
        break;
    }
    if (u.hostGrad.defined()) {
        downloadReducedSlice(index);
    } else {
        m_lastReduction = m_comm.reduceScatterMean(full, reducedShardTarget(index));
        queueAccumulations(m_lastReduction);
        if (stepsBesideBackward())
            stepBesideBackward(index, m_lastReduction);
        releaseAfterReduction({ index }, m_lastReduction);
    }
    if (index != 0) // the root stays gathered until the whole backward is done
        releaseParams(index);
}

bool ShardingEngine::stepsBesideBackward() const
{
    // At the optimizer step's last micro-step; a sharded gradient accumulates its micro-steps' shards
    // one reduction behind (queueAccumulations), so only a single micro-step has it final here.
    return m_deviceSteps && m_microStep + 1 == m_microSteps && (m_microSteps == 1 || !m_traits.shardsGradients);
}

void ShardingEngine::stepBesideBackward(std::size_t index, const CommTicket& reduced)
{
    // The unit's parameters and gradient are not touched again in this backward (the root, which holds
    // the tied embedding and head, is reduced last, in finishBackward), so its AdamW runs on the side
    // stream beside the backward of the units before it; optimizerStep joins it.
    auto& u = m_units[index];
    m_deviceSteps->run([&] {
        m_comm.streamWaits(reduced);
        // One-tensor lists (ArrayRef of one element): nothing is allocated per unit and step.
        const at::Tensor param = steppedParam(u);
        const at::Tensor grad = steppedGrad(u);
        const auto& a = m_settings.adamw;
        // The root steps after the whole backward (finishBackward) and takes every SM; a layer's step
        // runs beside the backward in the SMs its GEMMs leave free, 8 blocks of 256 threads filling one.
        const int carveout = backwardGemmCarveout();
        const int blocks = index == 0 ? 0 : deviceStepBlocks() > 0 ? deviceStepBlocks() : carveout * 8;
        // An fp32 master: the kernel writes the master's bf16 copy too (the engine only steps a master
        // here where the kernel applies to every unit).
        if (!fusedDeviceAdamW(param, grad, u.expAvg, u.expAvgSq, masterCopyTarget(u), m_stepTensor, a, blocks)
            && (u.master.defined()
                || !compat::fusedAdamW(param, grad, u.expAvg, u.expAvgSq, m_stepTensor, a.lr, a.beta1, a.beta2,
                                       a.weightDecay, a.eps)))
            throw std::logic_error("stepBesideBackward: no fused AdamW for unit " + u.layout.name);
    });
    ++m_unitsSteppedBeside;
}

void ShardingEngine::downloadReducedSlice(std::size_t index)
{
    if (m_pendingDownloads.size() >= kHeldGradientDownloads)
        retireOldestDownload();
    auto& u = m_units[index];
    const auto& full = u.grads.tensor();
    m_comm.reduceScatterMeanInPlace(full);
    const auto mine = full.narrow(0, m_rank * u.layout.shard, u.layout.shard);
    if (m_hostSteps)
        m_hostSteps->waitFor(index); // hostGrad is free (the forward waited for the step already)
    m_lastReduction = m_comm.copyAfterComm(u.hostGrad, mine);
    m_pendingDownloads.push_back({ index, m_lastReduction });
    if (m_hostSteps && m_microStep + 1 == m_microSteps)
        submitHostStep(index, m_lastReduction);
}

void ShardingEngine::downloadReducedBucket(const std::vector<at::Tensor>& fulls)
{
    // zero2_offload (DeepSpeed stage 2 with offload_optimizer): the bucket is reduce-scattered in place,
    // each unit's output being this rank's slice of its own buffer (one group, as zero2's), and the
    // slices are copied from there to the host. The previous bucket's buffers are freed first, once
    // the compute stream has waited for their copies: one bucket's copies run behind the backward of
    // the next, as zero3_offload keeps two units' copies in flight.
    while (!m_pendingDownloads.empty())
        retireOldestDownload();
    std::vector<at::Tensor> mine;
    for (auto index : m_bucketUnits)
        mine.push_back(
            m_units[index].grads.tensor().narrow(0, m_rank * m_units[index].layout.shard, m_units[index].layout.shard));
    m_comm.reduceScatterMeanEach(fulls, mine);
    for (std::size_t i = 0; i < m_bucketUnits.size(); ++i) {
        const auto index = m_bucketUnits[i];
        if (m_hostSteps)
            m_hostSteps->waitFor(index);
        m_lastReduction = m_comm.copyAfterComm(m_units[index].hostGrad, mine[i]);
        m_pendingDownloads.push_back({ index, m_lastReduction });
        if (m_hostSteps && m_microStep + 1 == m_microSteps)
            submitHostStep(index, m_lastReduction);
    }
}

void ShardingEngine::retireOldestDownload()
{
    // The buffer was allocated on the compute stream, so the allocator hands its memory out again to
    // work on that stream: the compute stream waits for the copy (which follows the in-place
    // reduce-scatter) before the buffer is freed, and nothing enqueued later can overwrite what the
    // copy still reads.
    const auto oldest = m_pendingDownloads.front();
    m_pendingDownloads.pop_front();
    m_comm.computeWaits(oldest.copied);
    m_units[oldest.unit].grads.release();
}

void ShardingEngine::releaseAfterReduction(std::vector<std::size_t> units, const CommTicket& reduced)
{
    if (!m_streamOrderedRelease) {
        // The allocator keeps each buffer from reuse until the comm stream's work on it is done.
        for (auto index : units) {
            m_comm.markUsedByComm(m_units[index].grads.tensor());
            m_units[index].grads.release();
        }
        return;
    }
    // One reduction stays in flight beside the next unit's backward; the one before it is waited for
    // by the compute stream (it was issued a whole unit's backward earlier) and its buffers freed.
    m_pendingReleases.push_back({ std::move(units), reduced });
    retirePendingReleases(1);
}

void ShardingEngine::retirePendingReleases(std::size_t keep)
{
    while (m_pendingReleases.size() > keep) {
        auto oldest = std::move(m_pendingReleases.front());
        m_pendingReleases.pop_front();
        m_comm.computeWaits(oldest.reduced);
        for (auto index : oldest.units)
            m_units[index].grads.release();
    }
}

void ShardingEngine::addToBucket(std::size_t index)
{
    const auto padded = m_units[index].layout.padded;
    if (!m_bucketUnits.empty() && m_bucketFill + padded > m_settings.knobs.reduceBucketElements)
        flushBucket();
    m_bucketUnits.push_back(index);
    m_bucketFill += padded;
}

void ShardingEngine::flushBucket()
{
    if (m_bucketUnits.empty())
        return;
    std::vector<at::Tensor> fulls;
    for (auto index : m_bucketUnits)
        fulls.push_back(m_units[index].grads.tensor());
    if (m_traits.offloadsOptimizer) {
        downloadReducedBucket(fulls);
    } else if (m_traits.shardsGradients) {
        // zero2: each rank keeps the mean of its partition; the full gradients go as soon as the
        // reduction that reads them is done (the allocator waits for the comm stream).
        std::vector<at::Tensor> shards;
        for (auto index : m_bucketUnits)
            shards.push_back(reducedShardTarget(index));
        m_lastReduction = m_comm.reduceScatterMeanEach(fulls, shards);
        queueAccumulations(m_lastReduction);
        releaseAfterReduction(m_bucketUnits, m_lastReduction);
    } else {
        // zero1: the full gradient stays; this rank steps its slice of the mean.
        m_lastReduction = m_comm.allReduceMeanEach(fulls);
    }
    // Without overlap_comm the backward waits for each bucket (DeepSpeed's stage 1/2 default is to
    // overlap only when asked; Shardwise's knob defaults to overlapping).
    if (!m_settings.knobs.overlapComm)
        m_comm.computeWaits(m_lastReduction);
    m_bucketUnits.clear();
    m_bucketFill = 0;
}

} // namespace shardwise::runner
