// shardwise-cli run --local | --node NAME...: start the runner's ranks on this machine or on SSH
// nodes from the store, record each run into the store through core/session (events, logs, final
// status, diagnosis), show rank 0's steps as they happen, and summarise each strategy as a table row
// or a JSON object. A failed or OOM strategy is a result row; only bad flags stop the command before
// it runs.
#include "command.hpp"
#include "run_nodes.hpp"
#include "run_request.hpp"
#include "runs_show.hpp"
#include "text_columns.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <unistd.h>

namespace shardwise::cli {

namespace {

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

// One stderr line per rank-0 step: where the run is and the throughput of its timed steps so far.
class StepProgress {
public:
    // `rehearsal`: a rehearsal's steps hold no communication, so they show no tokens/s.
    StepProgress(std::ostream& err, Strategy s, int world, int totalSteps, bool rehearsal)
        : m_err(err)
        , m_label(strategyId(s))
        , m_world(world)
        , m_totalSteps(totalSteps)
        , m_rehearsal(rehearsal)
    {
    }

    void onEvent(const protocol::Event& e)
    {
        // The runner's own defaults fill what the command line left out.
        if (const auto* start = std::get_if<protocol::StartEvent>(&e); start && start->rank == 0)
            m_totalSteps = start->config.warmupSteps + start->config.timedSteps;
        if (const auto* st = std::get_if<protocol::StepEvent>(&e); st && st->rank == 0) {
            std::string rate = "warm-up";
            if (st->timed && m_rehearsal) {
                rate = "compute only (rehearsal)";
            } else if (st->timed) {
                m_timedTokens += st->tokens;
                m_timedSeconds += st->stepTimeS;
                if (m_timedSeconds > 0)
                    rate
                        = format("%.0f tokens/s so far", static_cast<double>(m_timedTokens) * m_world / m_timedSeconds);
            }
            m_err << "[" << m_label << "] step " << st->step + 1 << "/" << m_totalSteps << "  loss "
                  << format("%.4f", st->loss) << "  " << format("%.1f ms", st->stepTimeS * 1e3) << "  " << rate << "\n"
                  << std::flush;
        } else if (const auto* er = std::get_if<protocol::ErrorEvent>(&e)) {
            m_err << "[" << m_label << "] rank " << er->rank << " " << protocol::errorKindId(er->kind)
                  << " error: " << terminalText(er->message) << "\n"
                  << std::flush;
        }
    }

private:
    std::ostream& m_err;
    std::string m_label;
    int m_world;
    int m_totalSteps;
    bool m_rehearsal;
    std::int64_t m_timedTokens = 0;
    double m_timedSeconds = 0;
};

struct Placement {
    const std::filesystem::path* runner = nullptr; // --local
    const ConnectedNodes* nodes = nullptr;         // --node
};

struct StrategyRun {
    dispatch::RunOutcome outcome;
    std::optional<std::int64_t> detachedRunId; // following stopped; the ranks go on running
    std::optional<std::int64_t> logsStoredIn;  // the temporary run folder is gone, its logs in this run
};

StrategyRun runOne(const RunRequest& r, Strategy s, const Placement& where, store::Database* db, std::ostream& err)
{
    std::vector<store::Node> nodes;
    std::vector<std::string> runnerPaths;
    if (where.nodes) {
        nodes = where.nodes->nodes;
        runnerPaths = where.nodes->runnerPaths;
    } else if (db) {
        // This machine's stored node, when there is one, brings its NCCL setting.
        for (const store::Node& n : store::listNodes(*db))
            if (n.kind == store::NodeKind::Local) {
                nodes.push_back(n);
                break;
            }
    }
    const session::Launch launch = session::buildLaunch(
        launchRequest(r, s, nodes, runnerPaths, where.runner ? *where.runner : std::filesystem::path()));
    const RunConfig& requested = launch.config;
    StepProgress progress(err, s, requested.worldSize, requested.warmupSteps + requested.timedSteps,
                          requested.rehearsal());
    session::SessionCallbacks callbacks;
    callbacks.onEvent = [&](const protocol::Event& e) { progress.onEvent(e); };
    // A store that fails mid-run (disk full, say) costs the record, never the measurement.
    callbacks.onStoreProblem = [&](const std::string& problem) {
        err << "shardwise-cli run: recording into the store failed, the run goes on unrecorded: " << problem << "\n"
            << std::flush;
    };
    session::SessionOptions options;
    options.db = db;
    options.origin = launch.origin;
    options.keepRunFolder = r.keepRunFolder;

    err << "[" << strategyId(s) << "] starting " << countOf(requested.worldSize, "rank") << " on ";
    if (where.nodes)
        err << countOf(where.nodes->nodes.size(), "node") << ", ";
    err << deviceId(r.device) << (r.backend == RunBackend::Torch ? ", torch backend" : "")
        << (requested.rehearsal() ? ", rehearsing rank 0 of world " + std::to_string(requested.rehearseWorld) : "")
        << (requested.training.cudaGraphs ? " with CUDA graphs" : "")
        << (requested.torchCompile ? " with torch.compile" : "")
        << (launch.note.empty() ? "" : " (" + launch.note + ")") << "\n"
        << std::flush;
    session::SessionResult result;
    if (where.nodes) {
        session::RemoteTarget target;
        target.sessions = where.nodes->sessionPointers();
        target.nodeNames = where.nodes->names();
        target.launch = launch.remote;
        target.follow = launch.follow;
        const std::atomic<bool>* interrupt = &terminalInterrupt();
        if (r.detachOnInterrupt)
            options.detach = interrupt;
        result = session::runRemote(requested, std::move(target), options, callbacks,
                                    r.detachOnInterrupt ? nullptr : interrupt);
    } else {
        result = session::runLocal(requested, launch.local, options, callbacks, &terminalInterrupt());
    }
    if (result.detached && result.runId) {
        if (result.lost)
            err << "[" << strategyId(s) << "] run " << *result.runId << ": " << terminalText(result.outcome.reason);
        else
            err << "[" << strategyId(s) << "] detached from run " << *result.runId << ": its ranks go on running on "
                << countOf(where.nodes->nodes.size(), "node");
        err << "; follow it again with: shardwise-cli runs attach " << *result.runId << " --db " << db->path().string()
            << "\n"
            << std::flush;
        return { result.outcome, result.runId, std::nullopt };
    }
    if (result.storedStatus && result.runId)
        err << "[" << strategyId(s) << "] recorded as run " << *result.runId
            << (result.diagnosisId ? " with its diagnosis" : "") << "\n"
            << std::flush;
    return { result.outcome, std::nullopt, result.runFolderRemoved ? result.runId : std::optional<std::int64_t>() };
}

std::string gib(std::optional<std::int64_t> bytes, DeviceKind device)
{
    if (!bytes)
        return "-";
    // On the CPU the runner has no caching allocator, so device peaks are not measured.
    if (device == DeviceKind::Cpu)
        return "n/a (cpu)";
    return format("%.2f GiB", static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0));
}

void printTable(const std::vector<StrategyRun>& runs, std::ostream& out)
{
    out << pad("strategy", 23) << pad("backend", 8) << pad("status", 10) << pad("median step", 13, true)
        << pad("throughput", 18, true) << pad("peak allocated", 16, true) << pad("peak reserved", 16, true)
        << pad("NCCL share", 12, true) << "\n";
    for (const auto& run : runs) {
        const dispatch::RunOutcome& o = run.outcome;
        const DeviceKind device = o.config.device;
        const std::string status = run.detachedRunId ? "detached" : std::string(dispatch::runStatusId(o.status));
        out << pad(std::string(strategyId(o.config.strategy)), 23) << pad(std::string(backendId(o.config.backend)), 8)
            << pad(status, 10) << pad(o.medianStepS ? format("%.1f ms", *o.medianStepS * 1e3) : "-", 13, true)
            << pad(o.tokensPerS ? format("%.0f tokens/s", *o.tokensPerS) : "-", 18, true)
            << pad(gib(o.peakAllocatedBytes, device), 16, true) << pad(gib(o.peakReservedBytes, device), 16, true)
            << pad(o.ncclShare ? format("%.1f %%", *o.ncclShare * 100.0) : "-", 12, true) << "\n";
    }
    out << "\n";
    bool rehearsals = false;
    for (const auto& run : runs) {
        const dispatch::RunOutcome& o = run.outcome;
        out << strategyId(o.config.strategy) << ": ";
        if (o.rehearsal()) {
            rehearsals = true;
            out << "rehearsal of world " << o.rehearsedWorld << " (peaks are one rank's at that world";
            if (o.computeOnlyStepS)
                out << "; compute-only step " << format("%.1f ms", *o.computeOnlyStepS * 1e3);
            out << "); ";
        }
        if (!o.ok())
            out << terminalText(o.reason) << "; ";
        if (run.logsStoredIn)
            out << "logs stored with run " << *run.logsStoredIn << " (shardwise-cli runs show " << *run.logsStoredIn
                << " --logs)\n";
        else
            out << "logs in " << (o.logDir.empty() ? std::string("(none)") : o.logDir.string()) << "\n";
    }
    out << "NCCL share is collective kernel time over step time; it overlaps compute, so it is not time "
           "spent waiting.\n";
    if (rehearsals)
        out << "A rehearsal runs one rank alone through a communicator that moves no data: its steps hold no "
               "communication, so it has no median step, throughput or NCCL share (-).\n";
}

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            printRunUsage(out);
            return kExitOk;
        }
    }
    RunRequest request;
    std::filesystem::path runner;
    try {
        request = parseRequest(args);
        validateRequest(request);
        if (!request.remote())
            runner = resolveRunner(request);
    } catch (const UsageError& e) {
        err << "shardwise-cli run: " << e.what() << "\n";
        return kExitUsage;
    }

    // Open the store before anything runs: a store that cannot take the results (a newer version's
    // file, an unwritable path) is reported up front rather than after an hour of measuring.
    std::optional<store::Database> db;
    if (request.record || request.remote()) {
        try {
            db.emplace(store::Database::open(store::resolveDatabasePath(request.db)));
            if (db->readOnly() && request.record) {
                err << "shardwise-cli run: the store " << db->path().string() << " is read-only ("
                    << db->readOnlyReason() << "); pass --no-store to run without recording\n";
                return kExitFailed;
            }
        } catch (const std::exception& e) {
            err << "shardwise-cli run: --db: cannot open the store: " << e.what()
                << "; pass --no-store to run without recording\n";
            return kExitFailed;
        }
    }

    // SSH nodes are connected once, before anything runs, and serve every strategy.
    ConnectedNodes nodes;
    Placement where;
    if (request.remote()) {
        try {
            nodes = connectNodes(*db, request.nodes, request.remoteRunner, request.ssh);
        } catch (const NodeError& e) {
            err << "shardwise-cli run: " << e.what() << "\n";
            return kExitFailed;
        }
        where.nodes = &nodes;
        if (request.backend == RunBackend::Torch) {
            // Said before anything runs: a node without the harness, python3 or torch would fail
            // every rank at exec or import.
            for (std::size_t i = 0; i < nodes.nodes.size(); ++i) {
                std::vector<std::string> missing;
                try {
                    missing = dispatch::checkTorchBackend(
                        *nodes.sessions[i],
                        dispatch::runnerForBackend(RunBackend::Torch, nodes.runnerPaths[i]).string());
                } catch (const dispatch::SshError& e) {
                    missing.push_back(e.what());
                }
                if (!missing.empty()) {
                    err << "shardwise-cli run: --backend torch: node '" << nodes.nodes[i].name
                        << "' cannot run the torch backend:";
                    for (const auto& m : missing)
                        err << "\n  - " << m;
                    err << "\n";
                    return kExitFailed;
                }
            }
        }
    } else {
        where.runner = &runner;
    }
    store::Database* recordInto = request.record && db ? &*db : nullptr;

    InterruptOnSignals interruptOnSignals;
    std::vector<StrategyRun> runs;
    for (std::size_t i = 0; i < request.strategies.size(); ++i) {
        const Strategy s = request.strategies[i];
        if (terminalInterrupt())
            break;
        runs.push_back(runOne(request, s, where, recordInto, err));
        if (runs.back().detachedRunId)
            continue;
        const dispatch::RunOutcome& o = runs.back().outcome;
        err << "[" << strategyId(s) << "] " << dispatch::runStatusId(o.status)
            << (o.reason.empty() ? "" : ": " + terminalText(o.reason)) << "\n"
            << std::flush;
    }
    // A detached run has no result yet: the command did not see every run succeed.
    const bool allOk = std::all_of(runs.begin(), runs.end(), [](const StrategyRun& r) { return r.outcome.ok(); })
        && runs.size() == request.strategies.size();

    if (request.json) {
        nlohmann::json j {
            { "launcher", request.remote() ? "ssh" : "local" },
            { "runner", request.remote() ? nlohmann::json(nodes.runnerPaths) : nlohmann::json(runner.string()) },
            { "nodes", request.remote() ? nlohmann::json(request.nodes) : nlohmann::json::array({ "local" }) },
            { "ranks", request.world() },
            { "device", deviceId(request.device) },
            { "backend", backendId(request.backend) },
            { "rehearsed_world", request.rehearseWorld ? nlohmann::json(*request.rehearseWorld) : nlohmann::json() },
            { "succeeded", allOk },
            { "cancelled", terminalInterrupt().load() && !request.detachOnInterrupt },
            { "runs", nlohmann::json::array() }
        };
        for (const auto& run : runs) {
            nlohmann::json o = dispatch::toJson(run.outcome);
            if (run.detachedRunId) {
                o["detached"] = true;
                o["run_id"] = *run.detachedRunId;
            }
            j["runs"].push_back(std::move(o));
        }
        out << j.dump(2) << "\n";
    } else {
        printTable(runs, out);
    }
    return allOk ? kExitOk : kExitFailed;
}

const CommandRegistration
    registration("run", "measure strategies by running shardwise-runner ranks on this machine or SSH nodes", runRun,
                 runSpecs);

} // namespace

} // namespace shardwise::cli
