#pragma once
// Which parameters a decoder has, grouped into sharding units: unit 0 is the root (token embedding,
// final norm, untied head), units 1..L are the decoder layers. Offsets are into the unit's flat buffer;
// the order here is the canonical order of parameter dumps.

#include "shardwise/spec/specs.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardwise::runner {

enum class ParamInit { Normal, Zeros, Ones };

struct ParamSlot {
    std::string name; // Hugging Face style, e.g. "model.layers.3.self_attn.q_proj.weight"
    std::vector<std::int64_t> shape;
    std::int64_t numel = 0;
    std::int64_t offset = 0; // elements from the start of the unit's flat buffer
    ParamInit init = ParamInit::Normal;
};

struct UnitLayout {
    std::string name;
    std::vector<ParamSlot> params;
    std::int64_t numel = 0;  // sum of parameter sizes
    std::int64_t padded = 0; // flat buffer size: a multiple of 64 * world
    std::int64_t shard = 0;  // padded / world
};

// Indices of a layer unit's parameters in UnitLayout::params.
// q, k and v (and their biases) are adjacent, as are gate and up, so each group is one [rows, hidden]
// matrix in the flat buffer and runs as one GEMM.
enum LayerParam : std::size_t { InputNorm, Q, K, V, QBias, KBias, VBias, O, PostNorm, Gate, Up, Down };
// Indices of the root unit's parameters; Head exists only with untied embeddings.
enum RootParam : std::size_t { Embedding, FinalNorm, Head };

// Throws SpecError when the spec is not a decoder this runner can build (RMSNorm + SwiGLU).
std::vector<UnitLayout> buildUnitLayouts(const ModelSpec& model, int world);

} // namespace shardwise::runner
