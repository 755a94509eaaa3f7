// The what-if sweep of `shardwise-cli plan` (plan_sweep.hpp).
#include "plan_sweep.hpp"
#include "text_columns.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace shardwise::cli {

namespace {

// "--sweep seq: must be in [1, 1048576], got '0'": the flag and axis for core's "sweep.seq" field,
// then its message without the field.
UsageError usageErrorOf(const SpecError& e)
{
    std::string flag = "--sweep";
    const std::string prefix = "sweep.";
    if (e.field().rfind(prefix, 0) == 0)
        flag += " " + e.field().substr(prefix.size());
    std::string message = e.what();
    if (!e.field().empty() && message.rfind(e.field() + ": ", 0) == 0)
        message.erase(0, e.field().size() + 2);
    return UsageError(flag + ": " + message);
}

std::string fixed(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

} // namespace

SweepAxisValues parseSweepOption(const std::string& value)
{
    try {
        return parseSweepAxis(value);
    } catch (const SpecError& e) {
        throw usageErrorOf(e);
    }
}

void checkSweepOptions(const std::vector<SweepAxisValues>& axes, const std::set<std::string>& given)
{
    try {
        validateSweep(axes);
    } catch (const SpecError& e) {
        throw usageErrorOf(e);
    }
    for (const SweepAxisValues& a : axes) {
        const std::string id(sweepAxisId(a.axis));
        if (given.count("--" + id))
            throw UsageError("--sweep " + id + ": --" + id + " is given as well; give every value to --sweep");
    }
}

nlohmann::json sweepJson(const SweepResult& sweep, const EstimateInput& in)
{
    nlohmann::json j = toJson(sweep);
    j["model"] = in.model.id;
    j["gpu"] = in.gpu.id;
    j["target"]
        = { { "framework", frameworkId(in.framework.framework) },
            { "version", in.framework.effectiveVersion() },
            { "precision", precisionId(in.training.precision) },
            { "activation_checkpointing",
              in.training.activationCheckpointing ? std::string(checkpointPolicyId(in.training.checkpointPolicy))
                                                  : std::string("off") } };
    return j;
}

void printSweepTable(const SweepResult& sweep, const EstimateInput& in, std::ostream& out)
{
    std::string over;
    for (const SweepAxisValues& a : sweep.axes)
        over += (over.empty() ? "" : " x ") + std::string(sweepAxisId(a.axis));
    out << "Sweep: " << in.model.name << " on " << in.gpu.name << ", " << sweep.points.size()
        << (sweep.points.size() == 1 ? " point" : " points") << (over.empty() ? "" : " over " + over)
        << "; every other setting as the plan's\n\n";
    out << padLeft("seq", 8) << padLeft("micro-batch", 13) << padLeft("GPUs/node", 11) << padLeft("nodes", 7)
        << padLeft("world", 7) << "  " << padRight("fits", 6) << padRight("strategy", 24) << padLeft("peak GiB", 10)
        << padLeft("tokens/s", 12) << "\n";
    bool closest = false;
    for (const SweepPoint& p : sweep.points) {
        std::string strategy(strategyId(p.strategy));
        if (!p.fits) {
            strategy += " *";
            closest = true;
        }
        out << padLeft(std::to_string(p.seqLen), 8) << padLeft(std::to_string(p.microBatch), 13)
            << padLeft(std::to_string(p.gpusPerNode), 11) << padLeft(std::to_string(p.nodes), 7)
            << padLeft(std::to_string(p.worldSize()), 7) << "  " << padRight(p.fits ? "yes" : "no", 6)
            << padRight(strategy, 24) << padLeft(fixed("%.1f", p.peakBytes / kGiB), 10)
            << padLeft(fixed("%.0f", p.tokensPerS), 12) << "\n";
    }
    out << "\nstrategy = the recommendation; peak GiB = its planned peak per GPU, as `plan` shows it.\n";
    if (closest)
        out << "* nothing fits the GPU and host memory: the strategy the framework runs with the lowest planned "
               "peak.\n";
}

} // namespace shardwise::cli
