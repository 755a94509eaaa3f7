// Persistent model state per rank. Bytes per parameter follow the ZeRO paper (Rajbhandari et al.,
// "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC'20, section 3.1 and
// figure 1): 2 (bf16 params) + 2 (bf16 grads) + K optimizer bytes, K = 12 for fp32 master + Adam m, v.
// Pure bf16 keeps bf16 Adam moments: K = 4. What is sharded, and where it lives, is docs/formulas.md's table (the
// runner's schedules, docs/runner.md).
#include "parts.hpp"

#include <cmath>

namespace shardwise {

detail::StateShares detail::stateShares(Strategy s, double params, double world, PrecisionPolicy precision)
{
    const double n = params;
    const double w = world < 1 ? 1.0 : world;
    const double p = kBf16Bytes * n;
    const double g = kBf16Bytes * n;
    const double o = optimizerBytesPerParam(precision) * n;
    const bool pureBf16 = precision == PrecisionPolicy::PureBf16;

    StateShares st;
    switch (s) {
    case Strategy::Zero0:
        st.deviceParams = p, st.deviceGrads = g, st.deviceOptimizer = o;
        break;
    case Strategy::Zero1: // the full gradient buffer stays; only the optimizer is split
        st.deviceParams = p, st.deviceGrads = g, st.deviceOptimizer = o / w;
        break;
    case Strategy::Zero2:
        st.deviceParams = p, st.deviceGrads = g / w, st.deviceOptimizer = o / w;
        break;
    case Strategy::Zero3:
    case Strategy::Fsdp2NoReshard: // the unsharded copies of no-reshard are transient (gatheredParams)
    case Strategy::Fsdp2Reshard:
        st.deviceParams = p / w, st.deviceGrads = g / w, st.deviceOptimizer = o / w;
        break;
    case Strategy::Zero2Offload: // ZeRO-Offload: the full bf16 parameters stay on every GPU
    case Strategy::Zero3Offload:
        // The gradient shard is copied to pinned host memory and the CPU AdamW updates it there. With
        // pure bf16 the CPU step also needs the bf16 parameter shard on the host; with an fp32 master
        // the master (in the optimizer bytes) plays that role.
        st.deviceParams = s == Strategy::Zero2Offload ? p : p / w;
        st.hostGrads = g / w, st.hostOptimizer = o / w;
        st.hostParams = pureBf16 ? p / w : 0.0;
        break;
    case Strategy::Fsdp2ReshardOffload: // every shard lives on the host; the device holds transients
        st.hostParams = p / w, st.hostGrads = g / w, st.hostOptimizer = o / w;
        break;
    }
    return st;
}

protocol::StateBytes modelStateBytes(Strategy s, double params, int world, PrecisionPolicy precision)
{
    const detail::StateShares st = detail::stateShares(s, params, static_cast<double>(world), precision);
    const auto bytes = [](double x) { return static_cast<std::int64_t>(std::llround(x)); };
    protocol::StateBytes out;
    out.deviceParams = bytes(st.deviceParams);
    out.deviceGrads = bytes(st.deviceGrads);
    out.deviceOptimizer = bytes(st.deviceOptimizer);
    out.hostParams = bytes(st.hostParams);
    out.hostGrads = bytes(st.hostGrads);
    out.hostOptimizer = bytes(st.hostOptimizer);
    return out;
}

} // namespace shardwise
