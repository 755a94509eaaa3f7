#include "shardwise/spec/slurm.hpp"

#include "shardwise/spec/json.hpp"

#include <charconv>

namespace shardwise {

namespace {

std::optional<long long> wholeNumber(std::string_view text)
{
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        return std::nullopt;
    return v;
}

long long requireNumber(const EnvironmentLookup& lookup, const char* name, long long min)
{
    const auto v = lookup(name);
    if (!v)
        throw SpecError(name, "not set, though SLURM_PROCID is: start the ranks with srun");
    const auto n = wholeNumber(*v);
    if (!n || *n < min)
        throw SpecError(name, "must be a whole number >= " + std::to_string(min) + ", got '" + *v + "'");
    return *n;
}

} // namespace

std::string firstSlurmHost(std::string_view nodeList)
{
    // The first comma outside brackets ends the first item; inside a bracket, the first range's start
    // (as written, zero padding kept) is the first host's digits.
    std::string host;
    int depth = 0;
    bool firstOfBracket = false;
    for (char ch : nodeList) {
        if (ch == '[') {
            if (depth++ != 0)
                throw SpecError("SLURM_JOB_NODELIST", "nested '[' in the node list '" + std::string(nodeList) + "'");
            firstOfBracket = true;
        } else if (ch == ']') {
            if (depth-- != 1)
                throw SpecError("SLURM_JOB_NODELIST",
                                "unbalanced ']' in the node list '" + std::string(nodeList) + "'");
        } else if (depth == 1) {
            if (ch == '-' || ch == ',')
                firstOfBracket = false;
            else if (firstOfBracket)
                host += ch;
        } else if (ch == ',') {
            break;
        } else {
            host += ch;
        }
    }
    if (depth != 0)
        throw SpecError("SLURM_JOB_NODELIST", "unbalanced '[' in the node list '" + std::string(nodeList) + "'");
    if (host.empty())
        throw SpecError("SLURM_JOB_NODELIST", "the node list '" + std::string(nodeList) + "' names no host");
    return host;
}

std::optional<int> uniformTasksPerNode(std::string_view tasksPerNode)
{
    // "8(x2),4" : counts separated by commas, each optionally repeated "(xM)".
    std::optional<long long> common;
    std::size_t pos = 0;
    while (pos <= tasksPerNode.size()) {
        const std::size_t comma = tasksPerNode.find(',', pos);
        std::string_view item
            = tasksPerNode.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        if (const std::size_t paren = item.find('('); paren != std::string_view::npos) {
            const std::string_view repeat = item.substr(paren);
            if (repeat.size() < 4 || repeat.substr(0, 2) != "(x" || repeat.back() != ')'
                || !wholeNumber(repeat.substr(2, repeat.size() - 3)))
                throw SpecError("SLURM_TASKS_PER_NODE", "cannot read '" + std::string(tasksPerNode) + "'");
            item = item.substr(0, paren);
        }
        const auto n = wholeNumber(item);
        if (!n || *n < 1 || *n > 1 << 20)
            throw SpecError("SLURM_TASKS_PER_NODE", "cannot read '" + std::string(tasksPerNode) + "'");
        if (common && *common != *n)
            return std::nullopt;
        common = n;
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return static_cast<int>(*common);
}

int slurmRendezvousPort(long long jobId)
{
    return 15000 + static_cast<int>((jobId % 20000 + 20000) % 20000);
}

std::map<std::string, std::string> torchrunFromSlurm(const EnvironmentLookup& lookup)
{
    std::map<std::string, std::string> out;
    if (!lookup("SLURM_PROCID"))
        return out;
    const auto setIfAbsent = [&](const char* name, const std::function<std::string()>& value) {
        if (!lookup(name))
            out[name] = value();
    };
    setIfAbsent("RANK", [&] { return std::to_string(requireNumber(lookup, "SLURM_PROCID", 0)); });
    setIfAbsent("WORLD_SIZE", [&] { return std::to_string(requireNumber(lookup, "SLURM_NTASKS", 1)); });
    setIfAbsent("LOCAL_RANK", [&] { return std::to_string(requireNumber(lookup, "SLURM_LOCALID", 0)); });
    setIfAbsent("LOCAL_WORLD_SIZE", [&] {
        const auto perNode = lookup("SLURM_TASKS_PER_NODE");
        if (!perNode)
            throw SpecError("SLURM_TASKS_PER_NODE", "not set, though SLURM_PROCID is: start the ranks with srun");
        const auto n = uniformTasksPerNode(*perNode);
        if (!n)
            throw SpecError("SLURM_TASKS_PER_NODE",
                            "is '" + *perNode
                                + "': every node must run the same number of ranks (srun "
                                  "--ntasks-per-node)");
        return std::to_string(*n);
    });
    setIfAbsent("MASTER_ADDR", [&] {
        auto list = lookup("SLURM_JOB_NODELIST");
        if (!list)
            list = lookup("SLURM_NODELIST");
        if (!list)
            throw SpecError("SLURM_JOB_NODELIST",
                            "not set, and MASTER_ADDR is not set either: no head node to meet at");
        return firstSlurmHost(*list);
    });
    setIfAbsent("MASTER_PORT",
                [&] { return std::to_string(slurmRendezvousPort(requireNumber(lookup, "SLURM_JOB_ID", 0))); });
    return out;
}

} // namespace shardwise
