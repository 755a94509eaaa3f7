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
    nodeFacts[kKey] = { { "path", prepared.runnerPath },
                        { "source_sha256", prepared.sourceHash },
                        { "prepared_at", preparedAt },
                        { "torch_runner", prepared.torchRunnerPath },
                        { "torch_backend_problems", prepared.torchBackendProblems } };
}

std::vector<std::string> preparedTorchBackendProblems(const nlohmann::json& nodeFacts)
{
    if (preparedRunnerPath(nodeFacts).empty())
        return { "the node was never prepared: prepare it on the Nodes page" };
    const nlohmann::json& prepared = nodeFacts.at(kKey);
    if (!prepared.contains("torch_backend_problems"))
        return { "the node was prepared before the torch backend existed: prepare it again" };
    std::vector<std::string> problems;
    if (const auto& list = prepared.at("torch_backend_problems"); list.is_array())
        for (const auto& p : list)
            if (p.is_string())
                problems.push_back(p.get<std::string>());
    return problems;
}

} // namespace shardwise::session
