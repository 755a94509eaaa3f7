#include "fidelity.hpp"

#include <fstream>
#include <stdexcept>
#include <variant>

namespace fidelity {

std::optional<BatchProbe> readBatchProbe(const std::filesystem::path& dir)
{
    const std::filesystem::path file = dir / "probe.jsonl";
    if (!std::filesystem::exists(file))
        return std::nullopt;
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": cannot be read");
    std::optional<BatchProbe> probe;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        std::optional<shardwise::protocol::Event> event;
        try {
            event = shardwise::protocol::tryParseEvent(line);
        } catch (const std::exception& e) {
            throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": " + e.what());
        }
        const auto* p = event ? std::get_if<shardwise::protocol::ProbeEvent>(&*event) : nullptr;
        // Every rank's probe may be there; rank 0's figures are the node's (as the store keeps them).
        if (p && (!probe || p->rank == 0))
            probe = BatchProbe { file, p->deviceName, p->results };
    }
    if (!probe)
        throw std::runtime_error(file.string() + ": no probe event (shardwise-runner --probe writes one per rank)");
    return probe;
}

} // namespace fidelity
