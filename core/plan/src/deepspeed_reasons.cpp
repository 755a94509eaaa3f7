// A DeepSpeed plan's own reasons (shardwise/plan/deepspeed_reasons.hpp): what DeepSpeed allocates
// where pure bf16 is asked for, and how uncertain ZeRO-3's speed against FSDP's full shard is.
#include "internal.hpp"

#include "shardwise/estimate/deepspeed_precision.hpp"
#include "shardwise/plan/deepspeed_reasons.hpp"

#include <algorithm>
#include <string>

namespace shardwise::detail {

namespace {

using A = MessageArg;

// "zero1, zero2, zero3": strategy ids are names in every language.
std::string idList(const std::vector<Strategy>& strategies)
{
    std::string out;
    for (Strategy s : strategies)
        out += (out.empty() ? "" : ", ") + std::string(strategyId(s));
    return out;
}

// ZeRO-3's predicted tokens/s over fsdp2_reshard's for the same input under the fsdp2 target, with
// the optimizer state DeepSpeed keeps (Accelerate's aligned mode against DeepSpeed's fp32 master).
double predictedZero3AgainstFsdp(const Estimate& zero3, const EstimateInput& in, const Calibration& c)
{
    EstimateInput fsdp = in;
    fsdp.framework = FrameworkTarget { Framework::Fsdp2, {}, false };
    fsdp.training.precision
        = deepSpeedAllocatedPrecision(deepSpeedRelease(in.framework), Strategy::Zero3, in.training.precision);
    const double other = estimate(fsdp, Strategy::Fsdp2Reshard, c).throughput.tokensPerS;
    return other > 0 ? zero3.throughput.tokensPerS / other : 0.0;
}

} // namespace

void addDeepSpeedReasons(Plan& p, const EstimateInput& in, const Calibration& c)
{
    if (in.framework.framework != Framework::DeepSpeed)
        return;
    Recommendation& r = p.recommendation;
    const std::string release = deepSpeedRelease(in.framework);
    if (in.training.precision == PrecisionPolicy::PureBf16) {
        const std::vector<Strategy> fp32 = deepSpeedFp32MasterStages(release);
        if (!fp32.empty())
            r.reasonMessages.push_back(
                Message { "plan.deepspeed_fp32_master", { A::name(release), A::name(idList(fp32)) } });
        if (!deepSpeedHasBf16Master(release))
            r.reasonMessages.push_back(
                Message { "plan.deepspeed_bf16_master_release", { A::name(kDeepSpeedBf16MasterRelease) } });
    }
    if (r.strategy != Strategy::Zero3)
        return;
    const auto [low, high] = std::minmax_element(
        kPublishedZero3AgainstFsdp.begin(), kPublishedZero3AgainstFsdp.end(),
        [](const PublishedZero3Ratio& a, const PublishedZero3Ratio& b) { return a.ratio < b.ratio; });
    const double predicted = predictedZero3AgainstFsdp(p.candidate(Strategy::Zero3).estimate, in, c);
    r.reasonMessages.push_back(
        Message { "plan.deepspeed_zero3_against_fsdp",
                  { A::ratio(predicted, 2), A::ratio(low->ratio, 2), A::ratio(high->ratio, 2) } });
}

} // namespace shardwise::detail
