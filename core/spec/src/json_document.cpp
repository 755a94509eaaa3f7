#include "shardwise/spec/json_document.hpp"

#include "shardwise/spec/json.hpp"

#include <istream>
#include <set>
#include <vector>

namespace shardwise {

using nlohmann::json;

namespace {

// One open object or array while parsing: the keys seen so far and where it sits in the document.
struct Frame {
    bool object = false;
    std::string path;
    std::set<std::string> keys;
    std::string lastKey;
    std::size_t index = 0; // arrays: the element being read
};

std::string childPath(const Frame& parent)
{
    if (parent.object)
        return parent.path.empty() ? parent.lastKey : parent.path + "." + parent.lastKey;
    return parent.path + "[" + std::to_string(parent.index) + "]";
}

template <typename Input> JsonDocument parseWith(Input&& input)
{
    JsonDocument doc;
    std::vector<Frame> stack;
    json::parser_callback_t watch = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start: {
            Frame f;
            f.object = event == json::parse_event_t::object_start;
            if (!stack.empty())
                f.path = childPath(stack.back());
            stack.push_back(std::move(f));
            break;
        }
        case json::parse_event_t::key: {
            Frame& f = stack.back();
            std::string key = parsed.get<std::string>();
            if (!f.keys.insert(key).second && doc.duplicateKey.empty())
                doc.duplicateKey = f.path.empty() ? key : f.path + "." + key;
            f.lastKey = std::move(key);
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            stack.pop_back();
            if (!stack.empty() && !stack.back().object)
                ++stack.back().index;
            break;
        case json::parse_event_t::value:
            if (!stack.empty() && !stack.back().object)
                ++stack.back().index;
            break;
        }
        return true; // keep everything: the document is read whole, the duplicate reported after
    };
    doc.value = json::parse(std::forward<Input>(input), watch);
    return doc;
}

} // namespace

JsonDocument parseJsonDocument(std::istream& in)
{
    return parseWith(in);
}

JsonDocument parseJsonDocument(const std::string& text)
{
    return parseWith(text);
}

void throwDuplicateKey(const std::string& path, const std::string& key, const std::string& source)
{
    throw SpecError(path.empty() ? key : path + "." + key,
                    "duplicate key in " + source
                        + ": the key appears twice in one object and a JSON reader keeps only one of the values "
                          "silently; remove one");
}

json parseJsonRejectingDuplicates(std::istream& in, const std::string& path, const std::string& source)
{
    JsonDocument doc;
    try {
        doc = parseJsonDocument(in);
    } catch (const json::parse_error& e) {
        throw SpecError(path, source + " is not valid JSON: " + e.what());
    }
    if (!doc.duplicateKey.empty())
        throwDuplicateKey(path, doc.duplicateKey, source);
    return std::move(doc.value);
}

} // namespace shardwise
