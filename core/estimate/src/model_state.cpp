// Persistent model state per rank. Bytes per parameter follow the ZeRO paper (Rajbhandari et al.,
// "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC'20, section 3.1 and
// figure 1): 2 (bf16 params) + 2 (bf16 grads) + K optimizer bytes, K = 12 for fp32 master + Adam m, v.
// Pure bf16 keeps bf16 Adam moments: K = 4. What is sharded, and where it lives, is RUNNER.md's table.
#include "parts.hpp"

#include <cmath>

namespace shardwise {

protocol::StateBytes modelStateBytes(Strategy s, double params, int world, PrecisionPolicy precision)
{
    const double n = params;
    const double w = world < 1 ? 1.0 : static_cast<double>(world);
    const double p = detail::kBf16Bytes * n;
    const double g = detail::kBf16Bytes * n;
    const double o = detail::optimizerBytesPerParam(precision) * n;
    const bool pureBf16 = precision == PrecisionPolicy::PureBf16;

    double devP = 0, devG = 0, devO = 0, hostP = 0, hostG = 0, hostO = 0;
    switch (s) {
    case Strategy::Zero0:
        devP = p, devG = g, devO = o;
        break;
    case Strategy::Zero1: // the full gradient buffer stays; only the optimizer is split
        devP = p, devG = g, devO = o / w;
        break;
    case Strategy::Zero2:
        devP = p, devG = g / w, devO = o / w;
        break;
    case Strategy::Zero3:
    case Strategy::Fsdp2NoReshard: // the unsharded copies of no-reshard are transient (gatheredParams)
    case Strategy::Fsdp2Reshard:
        devP = p / w, devG = g / w, devO = o / w;
        break;
    case Strategy::Zero3Offload:
        // The gradient shard is copied to pinned host memory and the CPU AdamW updates it there. With
        // pure bf16 the CPU step also needs the bf16 parameter shard on the host; with an fp32 master
        // the master (in the optimizer bytes) plays that role.
        devP = p / w;
        hostG = g / w, hostO = o / w;
        hostP = pureBf16 ? p / w : 0.0;
        break;
    case Strategy::Fsdp2ReshardOffload: // every shard lives on the host; the device holds transients
        hostP = p / w, hostG = g / w, hostO = o / w;
        break;
    }
    const auto bytes = [](double x) { return static_cast<std::int64_t>(std::llround(x)); };
    protocol::StateBytes out;
    out.deviceParams = bytes(devP);
    out.deviceGrads = bytes(devG);
    out.deviceOptimizer = bytes(devO);
    out.hostParams = bytes(hostP);
    out.hostGrads = bytes(hostG);
    out.hostOptimizer = bytes(hostO);
    return out;
}

} // namespace shardwise
