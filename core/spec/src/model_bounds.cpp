#include "model_bounds.hpp"

#include "shardwise/spec/json.hpp"

#include <cstdio>

namespace shardwise::detail {

std::string joinField(const std::string& path, const std::string& name)
{
    return path.empty() ? name : path + "." + name;
}

std::string rangeText(Range r)
{
    return "[" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
}

namespace {

std::string scientific(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

void inRange(std::int64_t v, Range r, const std::string& path, const char* name)
{
    if (v < r.lo || v > r.hi)
        throw SpecError(joinField(path, name),
                        "must be in " + rangeText(r) + ", got " + std::to_string(v)
                            + " (outside what a trainable decoder plausibly has)");
}

} // namespace

void checkModelShape(const ModelSpec& m, const std::string& path, const ModelFieldNames& n)
{
    inRange(m.layers, kLayers, path, n.layers);
    inRange(m.hidden, kHidden, path, n.hidden);
    inRange(m.ffn, kFfn, path, n.ffn);
    inRange(m.heads, kHeads, path, n.heads);
    inRange(m.kvHeads, Range { 1, m.heads }, path, n.kvHeads);
    inRange(m.headDim, kHeadDim, path, n.headDim);
    inRange(m.vocab, kVocab, path, n.vocab);
    inRange(m.maxPosition, kMaxPosition, path, n.maxPosition);
    if (m.heads % m.kvHeads != 0)
        throw SpecError(joinField(path, n.kvHeads),
                        "must divide " + std::string(n.heads) + " (" + std::to_string(m.heads) + "), got "
                            + std::to_string(m.kvHeads));
    if (m.headDim % 2 != 0)
        throw SpecError(joinField(path, n.headDim),
                        "must be even for rotary embeddings, got " + std::to_string(m.headDim));
    // With every dimension bounded no count below overflows (the largest, layers x layerParams, stays
    // under 2^51); ModelSpec's arithmetic saturates besides.
    const std::int64_t layersPart = m.layers * m.layerParams();
    const std::int64_t total = m.parameterCount();
    if (total > kMaxModelParameters) {
        const bool embeddingsDominate = m.rootParams() > layersPart;
        const std::string dims = std::string(n.layers) + " " + std::to_string(m.layers) + ", " + n.hidden + " "
            + std::to_string(m.hidden) + ", " + n.ffn + " " + std::to_string(m.ffn) + ", " + n.heads + " "
            + std::to_string(m.heads) + ", " + n.headDim + " " + std::to_string(m.headDim) + ", " + n.vocab + " "
            + std::to_string(m.vocab);
        throw SpecError(joinField(path, embeddingsDominate ? n.vocab : n.layers),
                        "the model would have " + scientific(static_cast<double>(total)) + " parameters ("
                            + scientific(static_cast<double>(layersPart)) + " in the layers, "
                            + scientific(static_cast<double>(m.rootParams())) + " in embeddings and head; " + dims
                            + "), above the plausible maximum of "
                            + scientific(static_cast<double>(kMaxModelParameters)));
    }
}

} // namespace shardwise::detail
