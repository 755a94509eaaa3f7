// shardwise-cli nodes probe: the probe itself; its options are in nodes_probe_options.cpp.
#include "nodes_probe.hpp"
#include "text_columns.hpp"

#include "command.hpp"
#include "nodes_manage.hpp"
#include "run_nodes.hpp"
#include "terminal_prompt.hpp"

#include "shardwise/calibrate/network.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/session/probe_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/nodes.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace shardwise::cli {

namespace {

std::string formatted(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

std::string sizeText(std::int64_t bytes)
{
    if (bytes <= 0)
        return "-";
    if (bytes >= (std::int64_t { 1 } << 20))
        return formatted("%.0f MiB", static_cast<double>(bytes) / (1 << 20));
    return formatted("%.0f KiB", static_cast<double>(bytes) / (1 << 10));
}

std::string valueText(const protocol::ProbeResult& r)
{
    // params/s reaches 1e9: in units of 1e6 the figure stays readable.
    if (r.unit == "params/s")
        return formatted("%.1f", r.value / 1e6) + " Mparams/s";
    // A CPU's matmul rate is hundredths of a TFLOP/s: small figures keep three significant digits.
    return formatted(r.value >= 100 ? "%.0f" : r.value >= 1 ? "%.2f" : "%.3g", r.value) + " " + r.unit;
}

void printTable(const session::ProbeSessionResult& result, const std::string& node, bool network, std::ostream& out)
{
    for (const auto& e : result.events) {
        out << "rank " << e.rank << "/" << e.world << " on " << e.host << ", " << e.deviceName << " (LibTorch "
            << (e.versions.libtorch.empty() ? "?" : e.versions.libtorch) << ")\n";
        out << "  " << pad("measurement", 16) << pad("size", 10, true) << pad("value", 20, true)
            << pad("samples", 9, true) << "\n";
        for (const auto& r : e.results)
            out << "  " << pad(r.kind, 16) << pad(sizeText(r.bytes), 10, true) << pad(valueText(r), 20, true)
                << pad(std::to_string(r.samples), 9, true) << "\n";
    }
    if (!result.stored.empty() && network) {
        out << "stored " << countOf(result.stored.size(), "probe") << " as '" << node << "', without a GPU preset\n";
    } else if (!result.stored.empty()) {
        // Stored highest rank first; the last one is rank 0, the node's newest probe.
        const store::StoredProbe& newest = result.stored.back();
        out << "stored " << countOf(result.stored.size(), "probe") << " of node '" << node << "', newest: probe "
            << newest.id << "\n";
        if (newest.gpuId.empty())
            out << "no GPU preset matches " << newest.event.deviceName
                << ", so plan --calibrated does not start from it (--gpu PRESET names one)\n";
        else
            out << "GPU preset " << newest.gpuId << ": plan --calibrated and compare for " << newest.gpuId
                << " start from this probe\n";
    }
    out << "logs in " << (result.logLocation.empty() ? std::string("(none)") : result.logLocation) << "\n";
}

nlohmann::json toJson(const session::ProbeSessionResult& result, const std::string& node, const std::string& launcher)
{
    nlohmann::json j { { "node", node },
                       { "launcher", launcher },
                       { "succeeded", result.ok() },
                       { "failure", session::probeFailureId(result.failure) },
                       { "reason", result.reason },
                       { "logs", result.logLocation },
                       { "wall_s", result.wallSeconds },
                       { "probes", nlohmann::json::array() },
                       { "stored", nlohmann::json::array() } };
    for (const auto& e : result.events)
        j["probes"].push_back(protocol::toJson(e));
    for (const auto& s : result.stored)
        j["stored"].push_back(
            { { "id", s.id }, { "rank", s.event.rank }, { "gpu_id", s.gpuId }, { "measured_at", s.measuredAt } });
    return j;
}

std::filesystem::path localRunner(const ProbeOptions& o)
{
    if (o.runner)
        return *o.runner;
    if (const auto found = dispatch::locateRunner())
        return *found;
    throw UsageError("--runner: no shardwise-runner found beside shardwise-cli or in its ../bin; pass --runner PATH or "
                     "set SHARDWISE_RUNNER");
}

int probeBetweenNodes(const ProbeOptions& o, store::Database& db, const store::Node& first, std::ostream& out,
                      std::ostream& err)
{
    std::vector<store::Node> nodes { first };
    for (const std::string& name : o.with) {
        const auto n = store::findNodeByName(db, name);
        if (!n) {
            err << "shardwise-cli nodes probe: --with: no node named '" << name << "' in the store "
                << db.path().string() << " (add it with shardwise-cli nodes add)\n";
            return kExitFailed;
        }
        nodes.push_back(*n);
    }
    bool allGpus = true;
    for (const store::Node& n : nodes) {
        if (n.kind != store::NodeKind::Ssh) {
            err << "shardwise-cli nodes probe: '" << n.name
                << "' is this machine's node; a probe between nodes runs over SSH on every node (add this machine "
                   "as an SSH node, shardwise-cli nodes add NAME --host localhost)\n";
            return kExitUsage;
        }
        allGpus = allGpus && session::knownGpuCount(n.facts) > 0;
    }
    if (o.runner) {
        err << "shardwise-cli nodes probe: --runner is for this machine; give the nodes' runner with --remote-runner\n";
        return kExitUsage;
    }
    session::ProbeRequest request;
    request.device = o.device.value_or(allGpus ? DeviceKind::Cuda : DeviceKind::Cpu);
    request.maxBytes = o.maxBytes;
    request.collectiveTimeoutS = o.collectiveTimeoutS;
    request.env = o.rankEnv;
    request.timeout = std::chrono::seconds(o.timeoutS);
    session::NetworkProbeTarget target;
    target.runRoot = o.runRoot;
    target.masterPort = o.masterPort;
    std::vector<std::unique_ptr<dispatch::SshSession>> sessions;
    for (const store::Node& n : nodes) {
        session::NetworkProbeNode node;
        node.name = n.name;
        node.runnerPath = o.remoteRunner.empty() ? session::preparedRunnerPath(n.facts) : o.remoteRunner;
        if (node.runnerPath.empty()) {
            err << "shardwise-cli nodes probe: '" << n.name << "' has no prepared runner; prepare it (shardwise-cli "
                << "nodes prepare " << n.name << ") or pass --remote-runner PATH\n";
            return kExitFailed;
        }
        const int gpus = session::knownGpuCount(n.facts);
        node.ranks = o.ranks.value_or(request.device == DeviceKind::Cuda && gpus > 0 ? gpus : 1);
        node.env = n.ncclEnv; // the node's NCCL settings, as its runs get them
        try {
            sessions.push_back(session::openNodeSession(n, o.ssh, &terminalInterrupt(), askPassphraseOnTerminal));
        } catch (const dispatch::SshError& e) {
            err << "shardwise-cli nodes probe: cannot connect to '" << n.name << "' (" << n.user << "@" << n.host << ":"
                << n.port << "): " << e.what() << "\n";
            return kExitFailed;
        }
        node.session = sessions.back().get();
        target.nodes.push_back(std::move(node));
    }
    const std::string name = session::networkProbeName(target.nodes);
    err << "[probe] the network between " << nodes.size() << " nodes (" << name << "), " << deviceId(request.device)
        << "\n"
        << std::flush;
    session::ProbeCallbacks callbacks;
    callbacks.onProbe = [&err](const protocol::ProbeEvent& p) {
        err << "[probe] rank " << p.rank << " on " << p.host << " reported " << countOf(p.results.size(), "measurement")
            << "\n"
            << std::flush;
    };
    InterruptOnSignals cancelOnSignals;
    session::ProbeSessionResult result
        = session::probeNetwork(request, target, o.record ? &db : nullptr, callbacks, &terminalInterrupt());
    const auto figures = calibrate::measuredNetwork(name, result.events);
    if (o.json) {
        nlohmann::json j = toJson(result, name, "ssh");
        j["network"] = { { "nodes", nlohmann::json::array() }, { "ranks", result.events.size() } };
        for (const store::Node& n : nodes)
            j["network"]["nodes"].push_back(n.name);
        j["network"]["bus_gbps"] = figures ? nlohmann::json(figures->busGBps) : nlohmann::json();
        j["network"]["inter_node_gbps"] = figures ? nlohmann::json(figures->interNodeGBps) : nlohmann::json();
        out << j.dump(2) << "\n";
    } else if (result.ok() || !result.events.empty()) {
        printTable(result, name, true, out);
        if (figures)
            out << "network between " << name << ": collectives reached " << formatted("%.2f", figures->busGBps)
                << " GB/s bus bandwidth (the slowest at the largest size); the planner expects "
                << formatted("%.0f", Calibration {}.interNodeBusEfficiency * 100)
                << " % of --inter-node-gbps as bus bandwidth, so this network plans as --inter-node-gbps "
                << formatted("%.1f", figures->interNodeGBps) << "\n";
        else
            out << "network between " << name << ": no collective was measured (a probe of one rank in all)\n";
    }
    if (!result.ok()) {
        err << "shardwise-cli nodes probe: " << session::probeFailureId(result.failure) << ": " << result.reason
            << "\n";
        if (!result.logLocation.empty())
            err << "logs in " << result.logLocation << " on " << nodes.front().name << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace

int nodesProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    ProbeOptions o;
    try {
        const ParsedArgs parsed = parseArgs(nodesProbeSpec(), args);
        if (parsed.help) {
            out << usageText(nodesProbeSpec());
            return kExitOk;
        }
        o = parseProbeOptions(parsed);
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes probe: " << e.what() << "\n";
        return kExitUsage;
    } catch (const SpecError& e) {
        err << "shardwise-cli nodes probe: " << e.what() << "\n";
        return kExitUsage;
    }

    // The store names the node and keeps the probe; it is opened before anything is measured, so a
    // store that cannot take the result is said up front.
    std::optional<store::Database> db;
    std::optional<store::Node> node;
    const bool needStore = o.record || !o.local;
    if (needStore) {
        try {
            db.emplace(store::Database::open(store::resolveDatabasePath(o.db)));
        } catch (const std::exception& e) {
            err << "shardwise-cli nodes probe: --db: cannot open the store: " << e.what() << "\n";
            return kExitFailed;
        }
        if (o.record && db->readOnly()) {
            err << "shardwise-cli nodes probe: the store " << db->path().string() << " is read-only ("
                << db->readOnlyReason() << "); pass --no-store to probe without storing\n";
            return kExitFailed;
        }
        if (o.local) {
            for (const store::Node& n : store::listNodes(*db))
                if (n.kind == store::NodeKind::Local && !node)
                    node = n;
        } else {
            node = store::findNodeByName(*db, o.node);
            if (!node) {
                err << "shardwise-cli nodes probe: no node named '" << o.node << "' in the store "
                    << db->path().string()
                    << " (add it with shardwise-cli nodes add, or probe this machine with --local)\n";
                return kExitFailed;
            }
        }
    }
    if (!o.with.empty())
        return probeBetweenNodes(o, *db, *node, out, err);
    const bool remote = node && node->kind == store::NodeKind::Ssh;
    const std::string nodeName = node ? node->name : std::string("local");
    const nlohmann::json facts = node ? node->facts : nlohmann::json::object();
    if (!remote && (!o.remoteRunner.empty() || o.runRoot != ProbeOptions {}.runRoot)) {
        err << "shardwise-cli nodes probe: --remote-runner and --run-root are for SSH nodes; '" << nodeName
            << "' is this machine\n";
        return kExitUsage;
    }
    if (remote && o.runner) {
        err << "shardwise-cli nodes probe: --runner is for this machine; the runner on '" << nodeName
            << "' is given with --remote-runner\n";
        return kExitUsage;
    }

    session::ProbeRequest request;
    request.node = nodeName;
    const int gpus = session::knownGpuCount(facts);
    request.device = o.device.value_or(gpus > 0 ? DeviceKind::Cuda : DeviceKind::Cpu);
    request.ranks = o.ranks.value_or(request.device == DeviceKind::Cuda && gpus > 0 ? gpus : 1);
    request.gpuId = o.gpu;
    request.maxBytes = o.maxBytes;
    request.collectiveTimeoutS = o.collectiveTimeoutS;
    request.env = o.rankEnv;
    request.timeout = std::chrono::seconds(o.timeoutS);

    session::ProbeCallbacks callbacks;
    callbacks.onProbe = [&err](const protocol::ProbeEvent& p) {
        err << "[probe] rank " << p.rank << " reported " << countOf(p.results.size(), "measurement") << "\n"
            << std::flush;
    };
    InterruptOnSignals cancelOnSignals;
    store::Database* storeInto = o.record && db ? &*db : nullptr;
    session::ProbeSessionResult result;
    if (remote) {
        const std::string runner = o.remoteRunner.empty() ? session::preparedRunnerPath(facts) : o.remoteRunner;
        if (runner.empty()) {
            err << "shardwise-cli nodes probe: '" << nodeName
                << "' has no prepared runner; prepare it (shardwise-cli nodes prepare " << nodeName
                << ") or pass --remote-runner PATH\n";
            return kExitFailed;
        }
        std::unique_ptr<dispatch::SshSession> ssh;
        try {
            ssh = session::openNodeSession(*node, o.ssh, &terminalInterrupt(), askPassphraseOnTerminal);
        } catch (const dispatch::SshError& e) {
            err << "shardwise-cli nodes probe: cannot connect to '" << nodeName << "' (" << node->user << "@"
                << node->host << ":" << node->port << "): " << e.what();
            if (e.failure() == dispatch::SshFailure::HostKeyUnknown)
                err << "; check and accept its key first (shardwise-cli nodes test --accept-new-host-key, or the Nodes "
                       "page)";
            err << "\n";
            return kExitFailed;
        }
        err << "[probe] " << countOf(request.ranks, "rank") << " on '" << nodeName << "' (" << node->host << "), "
            << deviceId(request.device) << ", runner " << runner << "\n"
            << std::flush;
        session::RemoteProbeTarget target;
        target.session = ssh.get();
        target.runnerPath = runner;
        target.runRoot = o.runRoot;
        target.masterPort = o.masterPort;
        result = session::probeRemote(request, target, storeInto, callbacks, &terminalInterrupt());
    } else {
        std::filesystem::path runner;
        try {
            runner = localRunner(o);
        } catch (const UsageError& e) {
            err << "shardwise-cli nodes probe: " << e.what() << "\n";
            return kExitFailed;
        }
        err << "[probe] " << countOf(request.ranks, "rank") << " on this machine, " << deviceId(request.device)
            << ", runner " << runner.string() << "\n"
            << std::flush;
        result = session::probeLocal(request, runner, storeInto, callbacks, &terminalInterrupt());
    }

    if (o.json)
        out << toJson(result, nodeName, remote ? "ssh" : "local").dump(2) << "\n";
    else if (result.ok() || !result.events.empty())
        printTable(result, nodeName, false, out);
    if (!result.ok()) {
        err << "shardwise-cli nodes probe: " << session::probeFailureId(result.failure) << ": " << result.reason
            << "\n";
        if (!result.logLocation.empty())
            err << "logs in " << result.logLocation << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace shardwise::cli
