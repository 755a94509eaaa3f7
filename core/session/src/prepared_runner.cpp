#include "shardwise/session/prepared_runner.hpp"

namespace shardwise::session {

namespace {
constexpr const char* kKey = "prepared_runner";
}

std::string preparedRunnerPath(const nlohmann::json& nodeFacts)
{
    if (!nodeFacts.is_object() || !nodeFacts.contains(kKey))
        return {};
    const nlohmann::json& prepared = nodeFacts.at(kKey);
    if (!prepared.is_object() || !prepared.contains("path") || !prepared.at("path").is_string())
        return {};
    return prepared.at("path").get<std::string>();
}

void setPreparedRunner(nlohmann::json& nodeFacts, const dispatch::PreparedRunner& prepared, double preparedAt)
{
    if (!nodeFacts.is_object())
        nodeFacts = nlohmann::json::object();
    nodeFacts[kKey] = {{"path", prepared.runnerPath}, {"source_sha256", prepared.sourceHash}, {"prepared_at", preparedAt}};
}

} // namespace shardwise::session
