#include "shardwise/calibrate/network.hpp"

#include "shardwise/calibrate/probe.hpp"
#include "shardwise/store/probes.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace shardwise::calibrate {

std::vector<std::string> networkNodes(const std::string& name)
{
    if (name.find('+') == std::string::npos)
        return {};
    std::vector<std::string> nodes;
    std::size_t start = 0;
    while (true) {
        const std::size_t plus = name.find('+', start);
        nodes.push_back(name.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
        if (plus == std::string::npos)
            break;
        start = plus + 1;
    }
    if (std::any_of(nodes.begin(), nodes.end(), [](const std::string& n) { return n.empty(); }))
        return {};
    return nodes;
}

std::optional<MeasuredNetwork> measuredNetwork(const std::string& name, const std::vector<protocol::ProbeEvent>& events,
                                               const Calibration& calibration)
{
    if (events.empty())
        return std::nullopt;
    // Every rank's ring crosses the same links; rank 0's figures are the ones reported.
    const auto rank0 = std::min_element(
        events.begin(), events.end(),
        [](const protocol::ProbeEvent& a, const protocol::ProbeEvent& b) { return a.rank < b.rank; });
    const std::optional<double> bus = collectiveBusGBps(rank0->results);
    if (!bus || calibration.interNodeBusEfficiency <= 0)
        return std::nullopt;
    MeasuredNetwork m;
    m.name = name;
    m.nodes = networkNodes(name);
    m.ranks = rank0->world > 0 ? rank0->world : static_cast<int>(events.size());
    m.busGBps = *bus;
    // To 0.1 GB/s, the precision the Plan page and the CLI's --inter-node-gbps work in: every face
    // plans with this one figure.
    // A network slower than that plans at 0.1 GB/s, the least a plan takes.
    m.interNodeGBps = std::max(0.1, std::round(*bus / calibration.interNodeBusEfficiency * 10.0) / 10.0);
    m.measuredAt = rank0->time;
    return m;
}

std::vector<MeasuredNetwork> measuredNetworks(const store::Database& db, const Calibration& calibration)
{
    // Newest first, so the first probe seen of a network belongs to its newest probing; a probing's
    // ranks share one measured-at time (session::probesToStore).
    std::map<std::string, std::vector<const store::StoredProbe*>> newest;
    std::map<std::string, double> newestAt;
    const std::vector<store::StoredProbe> probes = store::listProbes(db);
    for (const store::StoredProbe& p : probes) {
        if (networkNodes(p.node).empty())
            continue;
        const auto at = newestAt.find(p.node);
        if (at == newestAt.end())
            newestAt[p.node] = p.measuredAt;
        else if (at->second != p.measuredAt)
            continue;
        newest[p.node].push_back(&p);
    }
    std::vector<MeasuredNetwork> out;
    for (const auto& [name, ranks] : newest) {
        std::vector<protocol::ProbeEvent> events;
        for (const store::StoredProbe* p : ranks)
            events.push_back(p->event);
        auto m = measuredNetwork(name, events, calibration);
        if (!m)
            continue;
        m->measuredAt = newestAt[name];
        for (const store::StoredProbe* p : ranks)
            if (p->event.rank == 0)
                m->probeId = p->id;
        out.push_back(std::move(*m));
    }
    std::sort(out.begin(), out.end(),
              [](const MeasuredNetwork& a, const MeasuredNetwork& b) { return a.measuredAt > b.measuredAt; });
    return out;
}

} // namespace shardwise::calibrate
