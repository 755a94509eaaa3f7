#include "runs_attach.hpp"

#include "command.hpp"
#include "run_nodes.hpp"

#include "shardwise/protocol/events.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

namespace shardwise::cli {

namespace {

std::optional<std::string> flag(const std::map<std::string, std::string>& flags, const std::string& name)
{
    const auto it = flags.find(name);
    if (it == flags.end())
        return std::nullopt;
    return it->second;
}

store::Database openWritableStore(const std::map<std::string, std::string>& flags)
{
    store::Database db = store::Database::open(store::resolveDatabasePath(flag(flags, "--db").value_or("")));
    if (db.readOnly())
        throw store::StoreError("cannot record into " + db.path().string() + ": " + db.readOnlyReason());
    return db;
}

std::string fixed(double v, int digits, const std::string& unit)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v << unit;
    return s.str();
}

// What the user sees while a re-attached run goes on: rank 0's steps and every error.
void printProgress(const protocol::Event& e, std::int64_t runId, std::ostream& err)
{
    if (const auto* st = std::get_if<protocol::StepEvent>(&e); st && st->rank == 0)
        err << "[run " << runId << "] step " << st->step + 1 << "  loss " << fixed(st->loss, 4, "") << "  "
            << fixed(st->stepTimeS * 1e3, 1, " ms") << (st->timed ? "" : "  warm-up") << "\n"
            << std::flush;
    else if (const auto* er = std::get_if<protocol::ErrorEvent>(&e))
        err << "[run " << runId << "] rank " << er->rank << " " << protocol::errorKindId(er->kind)
            << " error: " << er->message << "\n"
            << std::flush;
}

// The known_hosts files of --known-hosts / --user-known-hosts.
dispatch::SshOptions sshOptionsOf(const std::map<std::string, std::string>& flags)
{
    dispatch::SshOptions ssh;
    if (const auto v = flag(flags, "--known-hosts"))
        ssh.knownHosts.app = *v;
    if (const auto v = flag(flags, "--user-known-hosts"))
        ssh.knownHosts.user = *v;
    return ssh;
}

int refuse(const std::string& action, const std::string& message, std::ostream& err)
{
    err << "shardwise-cli runs " << action << ": " << message << "\n";
    return kExitUsage;
}

} // namespace

int attachStoredRun(std::int64_t id, const std::map<std::string, std::string>& flags, std::ostream& out,
                    std::ostream& err)
{
    auto db = openWritableStore(flags);
    // The same refusals reattachRemote makes, said before any node is connected.
    const auto run = store::findRun(db, id);
    if (!run)
        return refuse("attach", "there is no run " + std::to_string(id) + " in the store " + db.path().string(), err);
    if (store::isFinal(run->status))
        return refuse("attach",
                      "run " + std::to_string(id) + " already finished (" + std::string(store::runStatusId(run->status))
                          + "); there is nothing to attach to",
                      err);
    if (!store::findRemoteFollow(db, id))
        return refuse("attach",
                      "run " + std::to_string(id)
                          + " was not started on SSH nodes (no remote handle is kept for it); "
                            "only remote runs can be re-attached",
                      err);
    const dispatch::SshOptions ssh = sshOptionsOf(flags);
    ConnectedNodes nodes;
    try {
        nodes = connectRunNodes(db, run->nodes, ssh, "run " + std::to_string(id));
    } catch (const NodeError& e) {
        err << "shardwise-cli runs attach: " << e.what() << "; the run stays detached (if its node is gone for good: "
            << "shardwise-cli runs abandon " << id << ")\n";
        return kExitFailed;
    }
    const bool detachOnInterrupt = flags.count("--detach-on-interrupt") > 0;
    session::AttachTarget target;
    target.sessions = nodes.sessionPointers();
    target.nodeNames = nodes.names();
    session::SessionOptions options;
    options.db = &db;
    session::SessionCallbacks callbacks;
    callbacks.onEvent = [&](const protocol::Event& e) { printProgress(e, id, err); };
    callbacks.onStoreProblem = [&](const std::string& problem) {
        err << "shardwise-cli runs attach: recording into the store failed, following goes on unrecorded: " << problem
            << "\n";
    };
    InterruptOnSignals interruptOnSignals;
    if (detachOnInterrupt)
        options.detach = &terminalInterrupt();
    // Progress goes on from what the store holds, so the first step printed is not mistaken for a restart.
    int recordedSteps = 0;
    for (const protocol::StepEvent& step : store::stepSeries(db, id))
        if (step.rank == 0)
            recordedSteps = std::max(recordedSteps, step.step + 1);
    err << "[run " << id << "] attached to " << countOf(nodes.nodes.size(), "node") << "; " << recordedSteps << " of "
        << run->warmupSteps.value_or(0) + run->timedSteps.value_or(0) << " steps were recorded before the detach\n"
        << std::flush;
    session::SessionResult result;
    try {
        result = session::reattachRemote(id, std::move(target), options, callbacks,
                                         detachOnInterrupt ? nullptr : &terminalInterrupt());
    } catch (const session::ReattachError& e) {
        using Reason = session::ReattachError::Reason;
        const bool usage = e.reason() == Reason::UnknownRun || e.reason() == Reason::Finished
            || e.reason() == Reason::NotRemote || e.reason() == Reason::Followed;
        err << "shardwise-cli runs attach: " << e.what() << "\n";
        return usage ? kExitUsage : kExitFailed;
    }
    if (result.detached) {
        out << "run " << id << ": " << (result.lost ? result.outcome.reason : "detached again; its ranks go on running")
            << ". Follow it with: shardwise-cli runs attach " << id << " --db " << db.path().string() << "\n";
        return kExitFailed;
    }
    const std::string status = result.storedStatus
        ? std::string(store::runStatusId(*result.storedStatus))
        : std::string(dispatch::runStatusId(result.outcome.status)) + " (not recorded)";
    out << "run " << id << ": " << status << (result.outcome.reason.empty() ? "" : ": " + result.outcome.reason)
        << "\n";
    if (result.outcome.tokensPerS)
        out << "  throughput " << fixed(*result.outcome.tokensPerS, 0, " tokens/s") << ", median step "
            << fixed(result.outcome.medianStepS.value_or(0) * 1e3, 1, " ms") << "\n";
    if (result.diagnosisId)
        out << "  diagnosis stored; see shardwise-cli runs show " << id << "\n";
    return result.outcome.ok() ? kExitOk : kExitFailed;
}

int abandonStoredRun(std::int64_t id, const std::map<std::string, std::string>& flags, std::ostream& out,
                     std::ostream& err)
{
    auto db = openWritableStore(flags);
    const auto run = store::findRun(db, id);
    if (!run)
        return refuse("abandon", "there is no run " + std::to_string(id) + " in the store " + db.path().string(), err);
    if (run->status != store::RunStatus::Detached)
        return refuse("abandon",
                      "run " + std::to_string(id) + " is " + std::string(store::runStatusId(run->status))
                          + ", not detached; only a detached run can be abandoned",
                      err);
    // Each node on its own: the ones that answer get their ranks stopped, the others are named.
    dispatch::SshOptions ssh = sshOptionsOf(flags);
    std::vector<std::unique_ptr<dispatch::SshSession>> connected;
    session::AbandonTarget target;
    for (const std::string& name : run->nodes) {
        target.nodeNames.push_back(name);
        try {
            ConnectedNodes one = connectRunNodes(db, { name }, ssh, "run " + std::to_string(id));
            connected.push_back(std::move(one.sessions.front()));
            target.sessions.push_back(connected.back().get());
            target.whyNotConnected.emplace_back();
        } catch (const NodeError& e) {
            target.sessions.push_back(nullptr);
            target.whyNotConnected.emplace_back(e.what());
        }
    }
    session::AbandonOutcome outcome;
    try {
        outcome = session::abandonRemote(db, id, target, flag(flags, "--reason").value_or(""));
    } catch (const store::StoreError& e) {
        return refuse("abandon", e.what(), err); // it ended or was taken up meanwhile
    }
    out << "run " << id << ": lost (abandoned; its handle is dropped)\n";
    for (const auto& node : outcome.stoppedOn)
        out << "  " << node << ": ranks still running in " << outcome.runDir << " were stopped\n";
    for (const auto& node : outcome.notReached)
        out << "  not reached, its ranks may still be running: " << node << "\n";
    return kExitOk;
}

} // namespace shardwise::cli
