#pragma once
// Reading JSON files without losing a duplicated key. nlohmann's parser (like most) keeps the last of
// two equal keys in one object silently, so {"hidden_size": 896, ..., "hidden_size": 4096} would plan
// whichever came last; these readers notice the second one and say which key it was.

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace shardwise {

struct JsonDocument {
    nlohmann::json value;
    // The first key given twice in one object, as a path from the document's root
    // ("rope_scaling.factor", "layers[2].name"); empty when every key is unique.
    std::string duplicateKey;
};

// Throws nlohmann::json::parse_error when the text is not JSON.
JsonDocument parseJsonDocument(std::istream& in);
JsonDocument parseJsonDocument(const std::string& text);

// The strict form for configuration files: malformed text is SpecError(path, "<source> is not valid
// JSON: ..."), a duplicated key SpecError(path + "." + key, "duplicate key in <source> ...").
nlohmann::json parseJsonRejectingDuplicates(std::istream& in, const std::string& path, const std::string& source);

// SpecError for a duplicate found by parseJsonDocument, its field `path` + "." + the key.
[[noreturn]] void throwDuplicateKey(const std::string& path, const std::string& key, const std::string& source);

} // namespace shardwise
