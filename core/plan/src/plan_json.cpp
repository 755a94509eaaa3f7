#include "internal.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string_view>

namespace shardwise {

using nlohmann::json;

namespace {

// breakdown_gib's keys, in toJson(MemoryBreakdown)'s order, and where each lives.
struct BreakdownField {
    const char* name;
    double MemoryBreakdown::*member;
};
constexpr std::array kBreakdown {
    BreakdownField { "device_params", &MemoryBreakdown::deviceParams },
    BreakdownField { "device_grads", &MemoryBreakdown::deviceGrads },
    BreakdownField { "device_optimizer", &MemoryBreakdown::deviceOptimizer },
    BreakdownField { "gathered_params", &MemoryBreakdown::gatheredParams },
    BreakdownField { "activations", &MemoryBreakdown::activations },
    BreakdownField { "logits_and_loss", &MemoryBreakdown::logitsAndLoss },
    BreakdownField { "comm_buffers", &MemoryBreakdown::commBuffers },
    BreakdownField { "workspace", &MemoryBreakdown::workspace },
    BreakdownField { "fragmentation", &MemoryBreakdown::fragmentation },
    BreakdownField { "allocator_cache", &MemoryBreakdown::allocatorCache },
    BreakdownField { "runtime_context", &MemoryBreakdown::runtimeContext },
    BreakdownField { "host_params", &MemoryBreakdown::hostParams },
    BreakdownField { "host_grads", &MemoryBreakdown::hostGrads },
    BreakdownField { "host_optimizer", &MemoryBreakdown::hostOptimizer },
};

std::string at(const std::string& path, const std::string& key)
{
    return path + "." + key;
}
std::string at(const std::string& path, std::size_t index)
{
    return path + "[" + std::to_string(index) + "]";
}

const json& member(const json& j, const std::string& path, const char* key)
{
    if (!j.is_object())
        throw SpecError(path, "expected a JSON object");
    if (!j.contains(key))
        throw SpecError(at(path, key), "missing required field");
    return j.at(key);
}

double number(const json& j, const std::string& path, const char* key, double lo, double hi)
{
    const json& v = member(j, path, key);
    if (!v.is_number())
        throw SpecError(at(path, key), "expected a number, got " + v.dump());
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi))
        throw SpecError(at(path, key), "out of range, got " + v.dump());
    return x;
}

const json& array(const json& j, const std::string& path, const char* key)
{
    const json& v = member(j, path, key);
    if (!v.is_array())
        throw SpecError(at(path, key), "expected an array, got " + v.dump());
    return v;
}

Strategy strategyValue(const json& v, const std::string& field)
{
    if (!v.is_string())
        throw SpecError(field, "expected a strategy id (" + strategyIdList() + "), got " + v.dump());
    return parseStrategy(v.get<std::string>(), field);
}

json candidateJson(const Candidate& c)
{
    const Estimate& e = c.estimate;
    json j {
        { "strategy", strategyId(c.strategy) },
        { "fits", e.fits() },
        { "fits_device", e.fitsDevice },
        { "fits_host", e.fitsHost },
        // The peak (MemoryBreakdown::peakBytes) and what fits_device compared it with: capacity less headroom.
        { "peak_gib", e.memory.peakBytes() / kGiB },
        { "capacity_gib", e.deviceCapacityBytes / kGiB },
        { "headroom_gib", e.headroomBytes / kGiB },
        // Host RAM per node the strategy's state takes (offload: page-locked optimizer state), and
        // what of the node's RAM counts as usable.
        { "host_gib_per_node", e.hostBytesPerNode / kGiB },
        { "host_usable_gib_per_node", e.hostCapacityBytes / kGiB },
        { "breakdown_gib", toJson(e.memory) },
        { "tokens_per_s", e.throughput.tokensPerS },
        { "step_time_s", e.throughput.stepTimeS },
        { "mfu", e.throughput.mfu },
        { "nccl_share", e.throughput.ncclShare },
    };
    if (!e.supported) // written only for a framework that cannot express the strategy
        j["supported"] = false;
    return j;
}

Candidate candidateFromJson(const json& j, const std::string& path)
{
    Candidate c;
    c.strategy = strategyValue(member(j, path, "strategy"), at(path, "strategy"));
    Estimate& e = c.estimate;
    e.strategy = c.strategy;
    const json& fits = member(j, path, "fits");
    if (!fits.is_boolean())
        throw SpecError(at(path, "fits"), "expected true or false, got " + fits.dump());
    e.fitsDevice = e.fitsHost = fits.get<bool>();
    if (j.contains("supported")) {
        const json& supported = j.at("supported");
        if (!supported.is_boolean())
            throw SpecError(at(path, "supported"), "expected true or false, got " + supported.dump());
        e.supported = supported.get<bool>();
    }
    // Plans written before the host verdict was kept have only "fits".
    if (j.contains("fits_device") || j.contains("fits_host")) {
        for (const char* key : { "fits_device", "fits_host" }) {
            const json& v = member(j, path, key);
            if (!v.is_boolean())
                throw SpecError(at(path, key), "expected true or false, got " + v.dump());
        }
        e.fitsDevice = j.at("fits_device").get<bool>();
        e.fitsHost = j.at("fits_host").get<bool>();
        if (e.fits() != fits.get<bool>())
            throw SpecError(at(path, "fits"), "does not equal fits_device and fits_host");
        e.hostBytesPerNode = number(j, path, "host_gib_per_node", 0.0, 1e9) * kGiB;
        e.hostCapacityBytes = number(j, path, "host_usable_gib_per_node", 0.0, 1e9) * kGiB;
    }
    const std::string bpath = at(path, "breakdown_gib");
    const json& b = member(j, path, "breakdown_gib");
    std::size_t known = 0;
    for (const BreakdownField& f : kBreakdown) {
        // Plans written before the workspace category existed have none: it was 0 then.
        if (std::string_view(f.name) == "workspace" && b.is_object() && !b.contains(f.name))
            continue;
        // Plans written before a framework's allocator cache was counted in the peak have none.
        if (std::string_view(f.name) == "allocator_cache" && b.is_object() && !b.contains(f.name))
            continue;
        e.memory.*f.member = number(b, bpath, f.name, 0.0, 1e9) * kGiB;
        ++known;
    }
    if (b.size() != known)
        throw SpecError(bpath, "unknown field among " + std::to_string(b.size()) + " categories");
    const double peak = number(j, path, "peak_gib", 0.0, 1e9);
    const auto sameAs = [peak](double bytes) { return std::abs(peak - bytes / kGiB) <= 1e-9 * (1.0 + peak); };
    // Plans written before the peak was defined once counted the allocator's unused cache in peak_gib
    // and carried no capacity; they are read as they were written.
    const bool legacy = !j.contains("capacity_gib");
    if (!sameAs(e.memory.peakBytes()) && !(legacy && sameAs(e.memory.nvidiaSmiBytes())))
        throw SpecError(at(path, "peak_gib"),
                        "does not equal the sum of the peak's categories of breakdown_gib "
                        "(all device categories but fragmentation)");
    if (!legacy) {
        e.deviceCapacityBytes = number(j, path, "capacity_gib", 0.0, 1e9) * kGiB;
        e.headroomBytes = number(j, path, "headroom_gib", 0.0, 1e9) * kGiB;
        if (e.headroomBytes > e.deviceCapacityBytes)
            throw SpecError(at(path, "headroom_gib"), "exceeds capacity_gib");
        // fits_device is what the planner decided; a document where it contradicts its own figures
        // would show a peak above the usable capacity next to "fits".
        if (e.fitsDevice != (e.memory.peakBytes() <= e.usableDeviceBytes())
            && std::abs(e.deviceShortfallBytes()) > 1e-6 * kGiB)
            throw SpecError(at(path, j.contains("fits_device") ? "fits_device" : "fits"),
                            "contradicts peak_gib against capacity_gib less headroom_gib");
    }
    e.throughput.tokensPerS = number(j, path, "tokens_per_s", 0.0, 1e15);
    e.throughput.stepTimeS = number(j, path, "step_time_s", 0.0, 1e9);
    e.throughput.mfu = number(j, path, "mfu", 0.0, 1.0);
    e.throughput.ncclShare = number(j, path, "nccl_share", 0.0, 1.0);
    return c;
}

} // namespace

json toJson(const Plan& plan)
{
    const Recommendation& r = plan.recommendation;
    json alsoMeasure = json::array();
    for (Strategy s : r.alsoMeasure)
        alsoMeasure.push_back(strategyId(s));
    json remedies = json::array();
    for (const Remedy& m : r.remedies)
        remedies.push_back({ { "kind", remedyId(m.kind) },
                             { "strategy", strategyId(m.strategy) },
                             { "value", m.value },
                             { "with_activation_checkpointing", m.withActivationCheckpointing } });
    json candidates = json::array();
    for (const Candidate& c : plan.candidates)
        candidates.push_back(candidateJson(c));
    json out {
        { "recommendation",
          {
              { "strategy", r.strategy ? json(strategyId(*r.strategy)) : json(nullptr) },
              { "step", static_cast<int>(r.step) },
              { "also_measure", std::move(alsoMeasure) },
              { "remedies", std::move(remedies) },
              { "reasons", r.reasons },
          } },
        { "candidates", std::move(candidates) },
    };
    // Written only across nodes: single-node plans read and write as before.
    if (plan.interNodeGBps > 0)
        out["inter_node_gbps"] = plan.interNodeGBps;
    // Written only for a framework target: native plans read and write as before.
    if (plan.framework.framework != Framework::Native)
        out["framework"] = { { "id", frameworkId(plan.framework.framework) },
                             { "version", plan.framework.effectiveVersion() },
                             { "compiled", plan.framework.compiled } };
    return out;
}

Plan planFromJson(const json& j, const std::string& path)
{
    Plan p;
    if (j.is_object() && j.contains("framework")) {
        const std::string fpath = at(path, "framework");
        const json& fj = j.at("framework");
        const json& fid = member(fj, fpath, "id");
        if (!fid.is_string() || !frameworkFromId(fid.get<std::string>()))
            throw SpecError(at(fpath, "id"), "expected one of " + frameworkIdList() + ", got " + fid.dump());
        p.framework.framework = *frameworkFromId(fid.get<std::string>());
        const json& version = member(fj, fpath, "version");
        if (!version.is_string())
            throw SpecError(at(fpath, "version"), "expected a string, got " + version.dump());
        p.framework.version = version.get<std::string>();
        const json& compiled = member(fj, fpath, "compiled");
        if (!compiled.is_boolean())
            throw SpecError(at(fpath, "compiled"), "expected true or false, got " + compiled.dump());
        p.framework.compiled = compiled.get<bool>();
    }
    if (j.is_object() && j.contains("inter_node_gbps"))
        p.interNodeGBps = number(j, path, "inter_node_gbps", 0.01, 1e5);
    const std::string rpath = at(path, "recommendation");
    const json& rj = member(j, path, "recommendation");
    Recommendation& r = p.recommendation;
    const json& strategy = member(rj, rpath, "strategy");
    if (!strategy.is_null())
        r.strategy = strategyValue(strategy, at(rpath, "strategy"));
    const json& step = member(rj, rpath, "step");
    if (!step.is_number_integer() || step.get<int>() < 0 || step.get<int>() > 3)
        throw SpecError(at(rpath, "step"), "expected an integer in [0, 3], got " + step.dump());
    r.step = static_cast<DecisionStep>(step.get<int>());
    if (r.strategy.has_value() == (r.step == DecisionStep::NothingFits))
        throw SpecError(at(rpath, "strategy"), "must be null exactly when step is 0 (nothing fits)");
    const json& also = array(rj, rpath, "also_measure");
    for (std::size_t i = 0; i < also.size(); ++i)
        r.alsoMeasure.push_back(strategyValue(also[i], at(at(rpath, "also_measure"), i)));
    const json& remedies = array(rj, rpath, "remedies");
    for (std::size_t i = 0; i < remedies.size(); ++i) {
        const std::string mpath = at(at(rpath, "remedies"), i);
        const json& mj = remedies[i];
        Remedy m;
        const json& kind = member(mj, mpath, "kind");
        bool known = false;
        for (RemedyKind k : { RemedyKind::ActivationCheckpointing, RemedyKind::MoreGpus, RemedyKind::ShorterSequence,
                              RemedyKind::SmallerMicroBatch }) {
            if (kind.is_string() && kind.get<std::string>() == remedyId(k)) {
                m.kind = k;
                known = true;
            }
        }
        if (!known)
            throw SpecError(at(mpath, "kind"),
                            "expected activation_checkpointing, more_gpus, shorter_sequence or "
                            "smaller_micro_batch, got "
                                + kind.dump());
        m.strategy = strategyValue(member(mj, mpath, "strategy"), at(mpath, "strategy"));
        m.value = static_cast<int>(number(mj, mpath, "value", 1, 1e9));
        const json& withCheckpointing = member(mj, mpath, "with_activation_checkpointing");
        if (!withCheckpointing.is_boolean())
            throw SpecError(at(mpath, "with_activation_checkpointing"),
                            "expected true or false, got " + withCheckpointing.dump());
        m.withActivationCheckpointing = withCheckpointing.get<bool>();
        r.remedies.push_back(m);
    }
    const json& reasons = array(rj, rpath, "reasons");
    for (std::size_t i = 0; i < reasons.size(); ++i) {
        if (!reasons[i].is_string())
            throw SpecError(at(at(rpath, "reasons"), i), "expected a string, got " + reasons[i].dump());
        r.reasons.push_back(reasons[i].get<std::string>());
    }

    const std::string cpath = at(path, "candidates");
    const json& candidates = array(j, path, "candidates");
    if (candidates.size() != kStrategyCount)
        throw SpecError(cpath,
                        "expected one entry per strategy (" + std::to_string(kStrategyCount) + "), got "
                            + std::to_string(candidates.size()));
    std::array<bool, kStrategyCount> seen {};
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        Candidate c = candidateFromJson(candidates[i], at(cpath, i));
        const std::size_t index = detail::tableIndex(c.strategy);
        if (seen[index])
            throw SpecError(at(at(cpath, i), "strategy"), "duplicate strategy " + std::string(strategyId(c.strategy)));
        seen[index] = true;
        p.candidates[index] = std::move(c);
    }
    return p;
}

} // namespace shardwise
