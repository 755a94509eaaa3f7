#include "shardwise/session/remote_run_json.hpp"

#include <set>

namespace shardwise::session {

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& where)
{
    if (!j.is_object())
        throw RemoteRunJsonError(where + ": expected an object");
    const auto it = j.find(name);
    if (it == j.end())
        throw RemoteRunJsonError(where + "." + name + ": missing");
    return *it;
}

std::string text(const nlohmann::json& j, const char* name, const std::string& where)
{
    const auto& v = field(j, name, where);
    if (!v.is_string() || v.get<std::string>().empty())
        throw RemoteRunJsonError(where + "." + name + ": expected a non-empty string");
    return v.get<std::string>();
}

int count(const nlohmann::json& j, const char* name, const std::string& where, int minimum)
{
    const auto& v = field(j, name, where);
    if (!v.is_number_integer() || v.get<std::int64_t>() < minimum || v.get<std::int64_t>() > 1'000'000)
        throw RemoteRunJsonError(where + "." + name + ": expected a whole number of at least "
                                 + std::to_string(minimum));
    return static_cast<int>(v.get<std::int64_t>());
}

} // namespace

nlohmann::json toJson(const dispatch::RemoteRun& run)
{
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& r : run.ranks)
        ranks.push_back({ { "rank", r.rank }, { "node", r.node }, { "local_rank", r.localRank } });
    nlohmann::json j = { { "run_id", run.runId },
                         { "run_dir", run.runDir },
                         { "world", run.world },
                         { "node_count", run.nodeCount },
                         { "ranks", ranks } };
    if (run.masterPort > 0)
        j["master_port"] = run.masterPort;
    return j;
}

dispatch::RemoteRun remoteRunFromJson(const nlohmann::json& j)
{
    const std::string where = "remote run";
    dispatch::RemoteRun run;
    run.runId = text(j, "run_id", where);
    run.runDir = text(j, "run_dir", where);
    run.world = count(j, "world", where, 1);
    run.nodeCount = count(j, "node_count", where, 1);
    // Handles stored before the port was kept have none.
    if (j.contains("master_port")) {
        run.masterPort = count(j, "master_port", where, 1);
        if (run.masterPort > 65535)
            throw RemoteRunJsonError(where + ".master_port: " + std::to_string(run.masterPort) + " is not a TCP port");
    }
    const auto& ranks = field(j, "ranks", where);
    if (!ranks.is_array() || static_cast<int>(ranks.size()) != run.world)
        throw RemoteRunJsonError(where + ".ranks: expected an array of " + std::to_string(run.world) + " placements");
    std::set<int> seen;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const std::string at = where + ".ranks[" + std::to_string(i) + "]";
        dispatch::RemoteRankPlacement p;
        p.rank = count(ranks[i], "rank", at, 0);
        p.node = count(ranks[i], "node", at, 0);
        p.localRank = count(ranks[i], "local_rank", at, 0);
        if (p.rank >= run.world || !seen.insert(p.rank).second)
            throw RemoteRunJsonError(at + ".rank: " + std::to_string(p.rank) + " is out of range or repeated");
        if (p.node >= run.nodeCount)
            throw RemoteRunJsonError(at + ".node: " + std::to_string(p.node) + " is not below node_count "
                                     + std::to_string(run.nodeCount));
        run.ranks.push_back(p);
    }
    return run;
}

nlohmann::json toJson(const dispatch::RemoteRunOffsets& offsets)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [file, bytes] : offsets)
        j[file] = bytes;
    return j;
}

dispatch::RemoteRunOffsets remoteRunOffsetsFromJson(const nlohmann::json& j)
{
    if (!j.is_object())
        throw RemoteRunJsonError("remote run offsets: expected an object of rank file names and byte counts");
    dispatch::RemoteRunOffsets offsets;
    for (const auto& [file, bytes] : j.items()) {
        if (!bytes.is_number_unsigned() && !(bytes.is_number_integer() && bytes.get<std::int64_t>() >= 0))
            throw RemoteRunJsonError("remote run offsets." + file + ": expected a byte count");
        offsets[file] = bytes.get<std::uint64_t>();
    }
    return offsets;
}

} // namespace shardwise::session
