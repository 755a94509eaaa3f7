#include "shardwise/session/probe_session.hpp"

#include "shardwise/dispatch/remote_launch.hpp"
#include "shardwise/session/launch_builder.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/presets.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <sstream>
#include <unistd.h>

namespace shardwise::session {

namespace {

// One rank's ending, from the local launcher or the remote follower alike.
struct RankEnding {
    int rank = 0;
    bool exitedCleanly = false;     // exit status 0, no signal, not lost
    bool stoppedByLauncher = false; // stopped after a peer failed: that peer names the cause
    std::string ending;             // "exited with status 3", "killed by signal 9", "lost: ..."
    std::vector<protocol::Event> events;
    std::string logTail;
};

std::string lastLogLine(const std::string& tail)
{
    std::string_view t = tail;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' '))
        t.remove_suffix(1);
    const auto nl = t.rfind('\n');
    return std::string(nl == std::string_view::npos ? t : t.substr(nl + 1));
}

std::string logHint(const RankEnding& r)
{
    const std::string last = lastLogLine(r.logTail);
    return last.empty() ? std::string() : "; its log ends: " + last;
}

const protocol::ProbeEvent* probeOf(const RankEnding& r)
{
    for (const auto& e : r.events)
        if (const auto* p = std::get_if<protocol::ProbeEvent>(&e))
            return p;
    return nullptr;
}

std::string describeSeconds(std::chrono::seconds s)
{
    return std::to_string(s.count()) + " s";
}

// What the ranks left decides the result: an error a rank reported names the cause best, then a
// rank that died, then a rank that ended without its probe.
void concludeRanks(ProbeSessionResult& result, const ProbeRequest& request, std::vector<RankEnding> ranks,
                   bool cancelled, bool timedOut, const std::string& where)
{
    std::sort(ranks.begin(), ranks.end(), [](const RankEnding& a, const RankEnding& b) { return a.rank < b.rank; });
    for (const RankEnding& r : ranks)
        if (const auto* p = probeOf(r))
            result.events.push_back(*p);
    if (cancelled) {
        result.failure = ProbeFailure::Cancelled;
        result.reason = "the probe of " + where + " was cancelled; nothing was stored";
        return;
    }
    if (timedOut) {
        result.failure = ProbeFailure::TimedOut;
        result.reason = "the probe of " + where + " took longer than " + describeSeconds(request.timeout)
            + "; nothing was stored";
        return;
    }
    for (const RankEnding& r : ranks)
        for (const auto& e : r.events)
            if (const auto* error = std::get_if<protocol::ErrorEvent>(&e)) {
                result.failure = ProbeFailure::RanksFailed;
                result.reason = "rank " + std::to_string(r.rank) + " on " + where + " reported a "
                    + std::string(protocol::errorKindId(error->kind)) + " error: " + error->message;
                return;
            }
    // A rank that failed on its own names the cause before one the launcher stopped after it.
    std::stable_partition(ranks.begin(), ranks.end(), [](const RankEnding& r) { return !r.stoppedByLauncher; });
    for (const RankEnding& r : ranks)
        if (!r.exitedCleanly) {
            result.failure = ProbeFailure::RanksFailed;
            result.reason
                = "rank " + std::to_string(r.rank) + " of the probe on " + where + " " + r.ending + logHint(r);
            return;
        }
    for (const RankEnding& r : ranks)
        if (!probeOf(r)) {
            result.failure = ProbeFailure::ProbeAbsent;
            result.reason
                = "rank " + std::to_string(r.rank) + " on " + where + " exited without a probe event" + logHint(r);
            return;
        }
    if (static_cast<int>(ranks.size()) != request.ranks || result.events.empty()) {
        result.failure = ProbeFailure::ProbeAbsent;
        result.reason = countOf(request.ranks, "rank") + " were started on " + where + " but "
            + std::to_string(result.events.size()) + " reported a probe";
    }
}

std::string probeRunName()
{
    std::random_device rd;
    std::ostringstream id;
    id << "probe-"
       << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()
       << "-" << std::hex << rd();
    return id.str();
}

template <typename Callbacks> Callbacks forwarding(const ProbeCallbacks& callbacks)
{
    Callbacks out;
    out.onEvent = [&callbacks](const protocol::Event& e) {
        if (const auto* p = std::get_if<protocol::ProbeEvent>(&e); p && callbacks.onProbe)
            callbacks.onProbe(*p);
    };
    out.onLog = [&callbacks](int rank, const std::string& line) {
        if (callbacks.onLog)
            callbacks.onLog(rank, line);
    };
    return out;
}

std::vector<std::string> tokensOf(std::string_view text)
{
    std::vector<std::string> tokens;
    std::string current;
    for (const char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        } else if (!current.empty()) {
            tokens.push_back(std::move(current));
            current.clear();
        }
    }
    if (!current.empty())
        tokens.push_back(std::move(current));
    return tokens;
}

bool isMemoryToken(const std::string& t)
{
    return t.size() > 2 && t.compare(t.size() - 2, 2, "gb") == 0
        && std::all_of(t.begin(), t.end() - 2, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool hasDigit(const std::string& t)
{
    return std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// SXM, PCIe and NVL boards of one chip differ in clocks, power and links; a device that names one
// form factor is not the preset of another.
std::string formFactorOf(const std::vector<std::string>& tokens)
{
    for (const std::string& t : tokens)
        for (const char* f : { "sxm", "pcie", "nvl" })
            if (t.rfind(f, 0) == 0)
                return f;
    return {};
}

// Stores the events of a successful probe under `node` and `gpuId`, all ranks or none.
void storeProbeEvents(ProbeSessionResult& result, const std::string& node, const std::string& gpuId,
                      store::Database& db)
{
    std::vector<store::StoredProbe> probes = probesToStore(node, gpuId, result.events);
    if (db.readOnly()) {
        result.failure = ProbeFailure::StoreRefused;
        result.reason = "the store " + db.path().string() + " is read-only (" + db.readOnlyReason()
            + "); the probe was not stored";
        return;
    }
    try {
        const std::vector<std::int64_t> ids = store::saveProbes(db, probes);
        for (std::size_t i = 0; i < probes.size(); ++i)
            probes[i].id = ids[i];
        result.stored = std::move(probes);
    } catch (const std::exception& e) {
        result.failure = ProbeFailure::StoreRefused;
        result.reason
            = "the store " + db.path().string() + " did not take the probe (nothing of it was stored): " + e.what();
    }
}

} // namespace

std::string_view probeFailureId(ProbeFailure failure)
{
    switch (failure) {
    case ProbeFailure::None:
        return "none";
    case ProbeFailure::RunnerMissing:
        return "runner_missing";
    case ProbeFailure::Unreachable:
        return "unreachable";
    case ProbeFailure::RanksFailed:
        return "ranks_failed";
    case ProbeFailure::ProbeAbsent:
        return "probe_absent";
    case ProbeFailure::Cancelled:
        return "cancelled";
    case ProbeFailure::TimedOut:
        return "timed_out";
    case ProbeFailure::StoreRefused:
        return "store_refused";
    }
    return "unknown";
}

std::vector<std::string> probeRunnerArgs(const ProbeRequest& request)
{
    std::vector<std::string> args { "--probe", "--device", std::string(deviceId(request.device)) };
    if (request.maxBytes)
        args.insert(args.end(), { "--probe-max-bytes", std::to_string(*request.maxBytes) });
    if (request.collectiveTimeoutS)
        args.insert(args.end(), { "--timeout-s", std::to_string(*request.collectiveTimeoutS) });
    return args;
}

std::string gpuPresetForDevice(std::string_view deviceName, const std::vector<GpuSpec>& presets)
{
    const std::vector<std::string> device = tokensOf(deviceName);
    auto has = [&device](const std::string& t) { return std::find(device.begin(), device.end(), t) != device.end(); };
    const std::string deviceForm = formFactorOf(device);
    std::vector<const GpuSpec*> byModel;
    for (const GpuSpec& p : presets) {
        const std::vector<std::string> name = tokensOf(p.name);
        std::vector<std::string> model;
        for (const std::string& t : name)
            if (hasDigit(t) && !isMemoryToken(t))
                model.push_back(t);
        const std::string presetForm = formFactorOf(name);
        if (model.empty() || !std::all_of(model.begin(), model.end(), has))
            continue;
        if (!deviceForm.empty() && !presetForm.empty() && deviceForm != presetForm)
            continue;
        byModel.push_back(&p);
    }
    if (byModel.size() == 1)
        return byModel.front()->id;
    // Several memory sizes of one chip (A100 40GB / 80GB): the device name carries its size.
    std::vector<const GpuSpec*> bySize;
    for (const GpuSpec* p : byModel) {
        const std::vector<std::string> name = tokensOf(p->name);
        if (std::any_of(name.begin(), name.end(), [&](const std::string& t) { return isMemoryToken(t) && has(t); }))
            bySize.push_back(p);
    }
    return bySize.size() == 1 ? bySize.front()->id : std::string();
}

int knownGpuCount(const nlohmann::json& nodeFacts)
{
    if (!nodeFacts.is_object())
        return 0;
    const auto gpus = nodeFacts.find("gpus");
    return gpus != nodeFacts.end() && gpus->is_array() ? static_cast<int>(gpus->size()) : 0;
}

std::vector<store::StoredProbe> probesToStore(const std::string& node, const std::string& gpuId,
                                              const std::vector<protocol::ProbeEvent>& events)
{
    double newest = 0;
    for (const auto& e : events)
        newest = std::max(newest, e.time);
    std::vector<protocol::ProbeEvent> byRank = events;
    std::sort(byRank.begin(), byRank.end(), [](const auto& a, const auto& b) { return a.rank > b.rank; });
    std::vector<store::StoredProbe> out;
    for (const auto& e : byRank) {
        store::StoredProbe p;
        p.node = node;
        p.gpuId = gpuId;
        p.measuredAt = newest > 0 ? newest : store::currentUnixTime();
        p.event = e;
        out.push_back(std::move(p));
    }
    return out;
}

void storeProbes(ProbeSessionResult& result, const ProbeRequest& request, store::Database& db)
{
    if (!result.ok() || result.events.empty())
        return;
    std::string gpuId = request.gpuId;
    if (gpuId.empty()) {
        try {
            gpuId = gpuPresetForDevice(result.events.front().deviceName, PresetCatalog::builtin().gpus());
        } catch (const SpecError&) {
            // Without readable presets the probe is kept under its device name only.
        }
    }
    storeProbeEvents(result, request.node, gpuId, db);
}

ProbeSessionResult probeLocal(const ProbeRequest& request, const std::filesystem::path& runner, store::Database* db,
                              const ProbeCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    ProbeSessionResult result;
    const std::string where = request.node.empty() ? std::string("this machine") : "node '" + request.node + "'";
    std::error_code ec;
    if (!std::filesystem::exists(runner, ec)) {
        result.failure = ProbeFailure::RunnerMissing;
        result.reason = "no shardwise-runner at " + runner.string();
        return result;
    }
    if (!std::filesystem::is_regular_file(runner, ec) || ::access(runner.c_str(), X_OK) != 0) {
        result.failure = ProbeFailure::RunnerMissing;
        result.reason = "the runner " + runner.string() + " is not an executable file";
        return result;
    }
    dispatch::LocalLaunch launch;
    launch.runner = runner;
    launch.args = probeRunnerArgs(request);
    launch.ranks = request.ranks;
    launch.env = request.env;
    launch.timeout = request.timeout;
    dispatch::LaunchResult launched;
    try {
        launched = dispatch::launchLocal(launch, forwarding<dispatch::LaunchCallbacks>(callbacks), cancel);
    } catch (const dispatch::LaunchError& e) {
        result.failure = ProbeFailure::RanksFailed;
        result.reason = "the probe's ranks could not be started on " + where + ": " + e.what();
        return result;
    }
    result.logLocation = launched.logDir.string();
    result.wallSeconds = launched.wallSeconds;
    std::vector<RankEnding> ranks;
    for (const dispatch::RankOutcome& r : launched.ranks) {
        RankEnding e;
        e.rank = r.rank;
        e.exitedCleanly = r.exitCode == 0 && r.signal == 0;
        e.stoppedByLauncher = r.killedByLauncher;
        e.ending = r.signal != 0 ? "was killed by signal " + std::to_string(r.signal)
                                 : "exited with status " + std::to_string(r.exitCode);
        e.events = r.events;
        e.logTail = r.logTail;
        ranks.push_back(std::move(e));
    }
    concludeRanks(result, request, std::move(ranks), launched.cancelled, launched.timedOut, where);
    if (db)
        storeProbes(result, request, *db);
    // The figures are in the store: the temporary log folder goes. A probe that failed or was not
    // stored keeps it, named in the result.
    if (result.ok() && !result.stored.empty()) {
        std::error_code removed;
        std::filesystem::remove_all(launched.logDir, removed);
        if (!removed)
            result.logLocation.clear();
    }
    return result;
}

namespace {

// One node of a probe over SSH: where its ranks start and how the failures name it.
struct SshProbeNode {
    dispatch::SshSession* session = nullptr;
    std::string where; // "node 'a'"
    std::string runnerPath;
    int ranks = 1;
    std::string address;
    std::map<std::string, std::string> env;
};

// Every node's runner is checked (a node without it says so instead of failing inside the launch),
// then the ranks start detached on every node as one world and are followed to their ends.
ProbeSessionResult probeOverSsh(const ProbeRequest& request, const std::vector<SshProbeNode>& nodes,
                                const std::string& runRoot, int masterPort, std::chrono::milliseconds pollInterval,
                                const std::string& where, const ProbeCallbacks& callbacks,
                                const std::atomic<bool>* cancel)
{
    ProbeSessionResult result;
    const auto started = std::chrono::steady_clock::now();
    dispatch::RemoteLaunch launch;
    std::vector<dispatch::SshSession*> sessions;
    for (const SshProbeNode& node : nodes) {
        if (!node.session)
            throw std::invalid_argument("remote probe: no SSH session for " + node.where);
        try {
            dispatch::CommandIo io;
            io.timeout = std::chrono::seconds(30);
            const dispatch::CommandOutcome check
                = node.session->run(std::vector<std::string> { "test", "-x", node.runnerPath }, io, cancel);
            if (check.ending == dispatch::CommandEnding::Exited && check.exitCode != 0) {
                result.failure = ProbeFailure::RunnerMissing;
                result.reason = "no executable shardwise-runner at " + node.runnerPath + " on " + node.where;
                return result;
            }
            if (check.ending == dispatch::CommandEnding::Cancelled) {
                result.failure = ProbeFailure::Cancelled;
                result.reason = "the probe of " + where + " was cancelled; nothing was stored";
                return result;
            }
            if (!check.succeeded()) {
                result.failure = ProbeFailure::Unreachable;
                result.reason = "cannot check the runner on " + node.where + " (" + check.describe() + ")";
                return result;
            }
        } catch (const std::exception& e) {
            result.failure = ProbeFailure::Unreachable;
            result.reason = "cannot use " + node.where + " over SSH: " + e.what();
            return result;
        }
        launch.nodes.push_back({ node.runnerPath, node.ranks, node.address, node.env });
        sessions.push_back(node.session);
    }
    launch.args = probeRunnerArgs(request);
    launch.env = request.env;
    launch.masterPort = masterPort;
    launch.runId = probeRunName();
    launch.runRoot = runRoot;
    dispatch::RemoteRun handle;
    try {
        handle = dispatch::startRemoteRun(launch, sessions);
    } catch (const std::exception& e) {
        result.failure = ProbeFailure::Unreachable;
        result.reason = "cannot start the probe on " + where + ": " + e.what();
        return result;
    }
    result.logLocation = handle.runDir;
    dispatch::FollowOptions follow;
    follow.pollInterval = pollInterval;
    follow.timeout = request.timeout;
    dispatch::RemoteRunOffsets offsets;
    dispatch::RemoteRunResult remote;
    try {
        remote = dispatch::followRemoteRun(handle, sessions, offsets,
                                           forwarding<dispatch::RemoteRunCallbacks>(callbacks), cancel, follow);
    } catch (const std::exception& e) {
        result.failure = ProbeFailure::Unreachable;
        result.reason = "lost " + where + " during the probe: " + e.what();
        return result;
    }
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::vector<RankEnding> ranks;
    for (const dispatch::RemoteRankOutcome& r : remote.ranks) {
        RankEnding e;
        e.rank = r.rank;
        e.exitedCleanly = r.ending == dispatch::CommandEnding::Exited && r.exitCode == 0;
        e.stoppedByLauncher = r.stoppedAfterPeerFailure;
        if (r.ending == dispatch::CommandEnding::Lost)
            e.ending = "was lost: " + r.lostReason;
        else if (r.ending == dispatch::CommandEnding::Signalled)
            e.ending = "was killed by SIG" + r.signal;
        else
            e.ending = "exited with status " + std::to_string(r.exitCode);
        e.events = r.events;
        e.logTail = r.logTail;
        ranks.push_back(std::move(e));
    }
    if (!remote.lostNodes.empty() && !remote.cancelled && !remote.timedOut) {
        concludeRanks(result, request, ranks, false, false, where);
        result.failure = ProbeFailure::Unreachable;
        result.reason = "lost " + where + " during the probe";
        for (const RankEnding& r : ranks)
            if (!r.exitedCleanly)
                result.reason += "; rank " + std::to_string(r.rank) + " " + r.ending;
        return result;
    }
    concludeRanks(result, request, std::move(ranks), remote.cancelled, remote.timedOut, where);
    return result;
}

} // namespace

ProbeSessionResult probeRemote(const ProbeRequest& request, const RemoteProbeTarget& target, store::Database* db,
                               const ProbeCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    if (!target.session)
        throw std::invalid_argument("remote probe: no SSH session");
    const std::string where = "node '" + (request.node.empty() ? target.session->endpoint().host : request.node) + "'";
    // Every rank lives on this one node, so the rendezvous is on its loopback.
    const SshProbeNode node { target.session, where, target.runnerPath, request.ranks, "127.0.0.1", {} };
    const int port = target.masterPort > 0
        ? target.masterPort
        : dispatch::pickFreeRemotePort(*target.session, kRemotePortLow, kRemotePortHigh);
    ProbeSessionResult result
        = probeOverSsh(request, { node }, target.runRoot, port, target.pollInterval, where, callbacks, cancel);
    if (db)
        storeProbes(result, request, *db);
    return result;
}

void storeNetworkProbes(ProbeSessionResult& result, const std::string& name, store::Database& db)
{
    if (result.ok() && !result.events.empty())
        storeProbeEvents(result, name, {}, db);
}

std::string networkProbeName(const std::vector<NetworkProbeNode>& nodes)
{
    std::string name;
    for (const NetworkProbeNode& n : nodes)
        name += (name.empty() ? "" : "+") + n.name;
    return name;
}

ProbeSessionResult probeNetwork(ProbeRequest request, const NetworkProbeTarget& target, store::Database* db,
                                const ProbeCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    if (target.nodes.size() < 2)
        throw std::invalid_argument("network probe: needs at least two nodes, got "
                                    + std::to_string(target.nodes.size()));
    std::string where = "the network between nodes";
    std::vector<SshProbeNode> nodes;
    request.ranks = 0;
    for (std::size_t i = 0; i < target.nodes.size(); ++i) {
        const NetworkProbeNode& n = target.nodes[i];
        if (n.ranks <= 0)
            throw std::invalid_argument("network probe: node '" + n.name + "' has no ranks");
        where += (i == 0 ? " '" : i + 1 == target.nodes.size() ? "' and '" : "', '") + n.name;
        nodes.push_back({ n.session, "node '" + n.name + "'", n.runnerPath, n.ranks, n.address, n.env });
        request.ranks += n.ranks;
    }
    where += "'";
    request.node = networkProbeName(target.nodes);
    // The rendezvous is on the first node: a port no socket there uses, unless the caller named one.
    const int port = target.masterPort > 0
        ? target.masterPort
        : dispatch::pickFreeRemotePort(*target.nodes.front().session, kRemotePortLow, kRemotePortHigh);
    ProbeSessionResult result
        = probeOverSsh(request, nodes, target.runRoot, port, target.pollInterval, where, callbacks, cancel);
    if (db)
        storeNetworkProbes(result, request.node, *db);
    return result;
}

} // namespace shardwise::session
