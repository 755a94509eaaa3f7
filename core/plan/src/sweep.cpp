// What-if sweeps (shardwise/plan/sweep.hpp): parse the axes, plan every point of their grid.
#include "shardwise/plan/sweep.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/quote.hpp"
#include "shardwise/spec/suggest.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <locale>
#include <sstream>

namespace shardwise {

namespace {

std::string field(SweepAxis a)
{
    return "sweep." + std::string(sweepAxisId(a));
}

std::string number(double x)
{
    if (!std::isfinite(x))
        return {};
    char b[32];
    const auto [end, ec] = std::to_chars(b, b + sizeof b, x);
    return ec == std::errc() ? std::string(b, end) : std::string();
}

// "seq=1024, micro-batch=2, gpus-per-node=8, nodes=1": where a point the planner refused lies.
std::string pointText(const EstimateInput& in)
{
    std::string text;
    for (const SweepAxis a : kSweepAxes)
        text += (text.empty() ? "" : ", ") + std::string(sweepAxisId(a)) + "=" + std::to_string(sweepAxisValue(in, a));
    return text;
}

// SpecError's text is "field: message"; the message alone, to be put after the point.
std::string messageOf(const SpecError& e)
{
    const std::string what = e.what();
    const std::string prefix = e.field() + ": ";
    return !e.field().empty() && what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

SweepPoint pointOf(const EstimateInput& in, const Plan& plan)
{
    SweepPoint p;
    p.seqLen = in.training.seqLen;
    p.microBatch = in.training.microBatch;
    p.gpusPerNode = in.cluster.gpusPerNode;
    p.nodes = in.cluster.nodes;
    p.recommended = plan.recommendation.strategy;
    p.fits = p.recommended.has_value();
    for (std::size_t i = 0; i < plan.candidates.size(); ++i)
        p.candidatePeakBytes[i] = plan.candidates[i].estimate.memory.peakBytes();
    if (p.recommended) {
        p.strategy = *p.recommended;
    } else {
        // Nothing fits: the figures of the supported candidate that comes closest.
        const Candidate* closest = nullptr;
        for (const Candidate& cand : plan.candidates) {
            if (!cand.estimate.supported)
                continue;
            if (!closest || cand.estimate.memory.peakBytes() < closest->estimate.memory.peakBytes())
                closest = &cand;
        }
        p.strategy = closest ? closest->strategy : plan.candidates.front().strategy;
    }
    const Estimate& e = plan.candidate(p.strategy).estimate;
    p.peakBytes = e.memory.peakBytes();
    p.tokensPerS = e.throughput.tokensPerS;
    return p;
}

} // namespace

std::string_view sweepAxisId(SweepAxis a)
{
    switch (a) {
    case SweepAxis::SeqLen:
        return "seq";
    case SweepAxis::MicroBatch:
        return "micro-batch";
    case SweepAxis::GpusPerNode:
        return "gpus-per-node";
    case SweepAxis::Nodes:
        return "nodes";
    }
    return "seq";
}

std::optional<SweepAxis> sweepAxisFromId(std::string_view id)
{
    for (const SweepAxis a : kSweepAxes)
        if (sweepAxisId(a) == id)
            return a;
    return std::nullopt;
}

std::string sweepAxisIdList()
{
    return "seq, micro-batch, gpus-per-node or nodes";
}

int sweepAxisMin(SweepAxis)
{
    return 1;
}

int sweepAxisMax(SweepAxis a)
{
    switch (a) {
    case SweepAxis::SeqLen:
        return 1 << 20;
    case SweepAxis::MicroBatch:
        return 4096;
    case SweepAxis::GpusPerNode:
        return 64;
    case SweepAxis::Nodes:
        return 4096;
    }
    return 1;
}

int sweepAxisValue(const EstimateInput& in, SweepAxis a)
{
    switch (a) {
    case SweepAxis::SeqLen:
        return in.training.seqLen;
    case SweepAxis::MicroBatch:
        return in.training.microBatch;
    case SweepAxis::GpusPerNode:
        return in.cluster.gpusPerNode;
    case SweepAxis::Nodes:
        return in.cluster.nodes;
    }
    return 0;
}

void setSweepAxisValue(EstimateInput& in, SweepAxis a, int value)
{
    switch (a) {
    case SweepAxis::SeqLen:
        in.training.seqLen = value;
        break;
    case SweepAxis::MicroBatch:
        in.training.microBatch = value;
        break;
    case SweepAxis::GpusPerNode:
        in.cluster.gpusPerNode = value;
        break;
    case SweepAxis::Nodes:
        in.cluster.nodes = value;
        break;
    }
}

int SweepPoint::value(SweepAxis a) const
{
    switch (a) {
    case SweepAxis::SeqLen:
        return seqLen;
    case SweepAxis::MicroBatch:
        return microBatch;
    case SweepAxis::GpusPerNode:
        return gpusPerNode;
    case SweepAxis::Nodes:
        return nodes;
    }
    return 0;
}

std::vector<int> parseSweepValues(SweepAxis axis, std::string_view list)
{
    const std::string id(sweepAxisId(axis));
    if (list.empty())
        throw SpecError(field(axis), "no values; give one or more, separated by commas (" + id + "=V1,V2,...)");
    std::vector<int> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = list.find(',', start);
        const std::string_view text
            = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (text.empty())
            throw SpecError(field(axis), "an empty value in '" + std::string(list) + "'");
        long long x = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
        if (ec == std::errc::result_out_of_range)
            x = text.front() == '-' ? -1 : static_cast<long long>(sweepAxisMax(axis)) + 1;
        else if (ec != std::errc() || ptr != text.data() + text.size())
            throw SpecError(field(axis), "expected a whole number, got '" + std::string(text) + "'");
        if (x < sweepAxisMin(axis) || x > sweepAxisMax(axis))
            throw SpecError(field(axis),
                            "must be in [" + std::to_string(sweepAxisMin(axis)) + ", "
                                + std::to_string(sweepAxisMax(axis)) + "], got '" + std::string(text) + "'");
        for (const int v : values)
            if (v == x)
                throw SpecError(field(axis), "'" + std::string(text) + "' is given twice");
        values.push_back(static_cast<int>(x));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return values;
}

SweepAxisValues parseSweepAxis(std::string_view text)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos)
        throw SpecError("sweep",
                        "expected AXIS=V1,V2,... with AXIS one of " + sweepAxisIdList() + ", got '" + std::string(text)
                            + "'");
    const std::string_view name = text.substr(0, eq);
    const std::optional<SweepAxis> axis = sweepAxisFromId(name);
    if (!axis) {
        std::vector<std::string> known;
        for (const SweepAxis a : kSweepAxes)
            known.emplace_back(sweepAxisId(a));
        throw SpecError("sweep",
                        "unknown axis '" + std::string(name) + "'" + didYouMean(name, known) + "; expected one of "
                            + sweepAxisIdList());
    }
    return { *axis, parseSweepValues(*axis, text.substr(eq + 1)) };
}

void validateSweep(const std::vector<SweepAxisValues>& axes)
{
    std::size_t points = 1;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const SweepAxisValues& a = axes[i];
        for (std::size_t j = 0; j < i; ++j)
            if (axes[j].axis == a.axis)
                throw SpecError(field(a.axis), "the axis is given twice; give all its values in one list");
        if (a.values.empty())
            throw SpecError(field(a.axis), "no values; give one or more");
        for (std::size_t k = 0; k < a.values.size(); ++k) {
            const int v = a.values[k];
            if (v < sweepAxisMin(a.axis) || v > sweepAxisMax(a.axis))
                throw SpecError(field(a.axis),
                                "must be in [" + std::to_string(sweepAxisMin(a.axis)) + ", "
                                    + std::to_string(sweepAxisMax(a.axis)) + "], got '" + std::to_string(v) + "'");
            for (std::size_t m = 0; m < k; ++m)
                if (a.values[m] == v)
                    throw SpecError(field(a.axis), "'" + std::to_string(v) + "' is given twice");
        }
        points *= a.values.size();
        if (points > kMaxSweepPoints)
            throw SpecError("sweep",
                            "more than " + std::to_string(kMaxSweepPoints) + " points; sweep fewer values at once");
    }
}

const SweepPoint* SweepResult::at(const std::vector<std::size_t>& index) const
{
    if (index.size() != axes.size())
        return nullptr;
    std::size_t flat = 0;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (index[i] >= axes[i].values.size())
            return nullptr;
        flat = flat * axes[i].values.size() + index[i];
    }
    return flat < points.size() ? &points[flat] : nullptr;
}

SweepResult runSweep(const EstimateInput& base, const std::vector<SweepAxisValues>& axes, const Calibration& c)
{
    validateSweep(axes);
    SweepResult result;
    result.axes = axes;
    std::size_t count = 1;
    for (const SweepAxisValues& a : axes)
        count *= a.values.size();
    result.points.reserve(count);
    std::vector<std::size_t> index(axes.size(), 0);
    for (std::size_t n = 0; n < count; ++n) {
        EstimateInput in = base;
        for (std::size_t i = 0; i < axes.size(); ++i)
            setSweepAxisValue(in, axes[i].axis, axes[i].values[index[i]]);
        try {
            result.points.push_back(pointOf(in, makePlan(in, c)));
        } catch (const SpecError& e) {
            throw SpecError(e.field(), "at " + pointText(in) + ": " + messageOf(e));
        }
        // The next index, the last axis fastest.
        for (std::size_t i = axes.size(); i-- > 0;) {
            if (++index[i] < axes[i].values.size())
                break;
            index[i] = 0;
        }
    }
    return result;
}

nlohmann::json toJson(const SweepResult& sweep)
{
    nlohmann::json axes = nlohmann::json::array();
    for (const SweepAxisValues& a : sweep.axes)
        axes.push_back({ { "axis", sweepAxisId(a.axis) }, { "values", a.values } });
    nlohmann::json points = nlohmann::json::array();
    for (const SweepPoint& p : sweep.points)
        points.push_back(
            { { "seq_len", p.seqLen },
              { "micro_batch", p.microBatch },
              { "gpus_per_node", p.gpusPerNode },
              { "nodes", p.nodes },
              { "world_size", p.worldSize() },
              { "recommended",
                p.recommended ? nlohmann::json(std::string(strategyId(*p.recommended))) : nlohmann::json() },
              { "strategy", strategyId(p.strategy) },
              { "fits", p.fits },
              { "peak_gib", p.peakBytes / kGiB },
              { "tokens_per_s", p.tokensPerS } });
    return { { "axes", axes }, { "points", points } };
}

std::string toCsv(const SweepResult& sweep)
{
    // Text cells through the project's one CSV writer (csvText); numbers as they are.
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << "seq_len,micro_batch,gpus_per_node,nodes,world_size,recommended,strategy,fits,peak_gib,tokens_per_s\n";
    for (const SweepPoint& p : sweep.points)
        out << p.seqLen << ',' << p.microBatch << ',' << p.gpusPerNode << ',' << p.nodes << ',' << p.worldSize() << ','
            << csvText(p.recommended ? strategyId(*p.recommended) : std::string_view()) << ','
            << csvText(strategyId(p.strategy)) << ',' << (p.fits ? "true" : "false") << ','
            << number(p.peakBytes / kGiB) << ',' << number(p.tokensPerS) << '\n';
    return out.str();
}

} // namespace shardwise
