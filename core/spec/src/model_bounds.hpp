#pragma once
// Plausible ranges of a decoder's dimensions and the parameter ceiling, shared by the Shardwise model
// JSON reader, validate(ModelSpec) and the Hugging Face config.json reader (which names the same
// checks by its own keys). Private to core/spec.

#include "shardwise/spec/specs.hpp"

#include <cstdint>
#include <string>

namespace shardwise::detail {

struct Range {
    std::int64_t lo;
    std::int64_t hi;
};

// Wide enough for every published decoder with room to spare (Llama 3.1 405B: 126 layers, hidden
// 16384, ffn 53248, 128 heads; the largest vocabularies ~262k; head_dim 64..256), narrow enough that
// no product of two or three of them comes near 2^63.
inline constexpr Range kLayers { 1, 1024 };
inline constexpr Range kHidden { 1, 131072 };
inline constexpr Range kFfn { 1, 1048576 };
inline constexpr Range kHeads { 1, 1024 };
inline constexpr Range kHeadDim { 2, 1024 };
inline constexpr Range kVocab { 1, 16777216 };
inline constexpr Range kMaxPosition { 0, 134217728 };

// What each dimension is called in the document being read.
struct ModelFieldNames {
    const char* layers;
    const char* hidden;
    const char* ffn;
    const char* heads;
    const char* kvHeads;
    const char* headDim;
    const char* vocab;
    const char* maxPosition;
};
inline constexpr ModelFieldNames kSpecFieldNames { "layers",   "hidden",   "ffn",   "heads",
                                                   "kv_heads", "head_dim", "vocab", "max_position" };
inline constexpr ModelFieldNames kHuggingFaceFieldNames { "num_hidden_layers",   "hidden_size",
                                                          "intermediate_size",   "num_attention_heads",
                                                          "num_key_value_heads", "head_dim",
                                                          "vocab_size",          "max_position_embeddings" };

std::string joinField(const std::string& path, const std::string& name);
std::string rangeText(Range r); // "[lo, hi]"

// Every dimension inside its range, kv heads dividing heads, an even head_dim, and at most
// kMaxModelParameters parameters; SpecError(path + "." + the name in `names`) otherwise.
void checkModelShape(const ModelSpec& m, const std::string& path, const ModelFieldNames& names);

} // namespace shardwise::detail
