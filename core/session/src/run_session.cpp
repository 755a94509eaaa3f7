#include "shardwise/session/run_session.hpp"

#include "run_recording.hpp"
#include "session_outcome.hpp"

namespace shardwise::session {

void addAllocatorEnvironment(const RunConfig& config, std::map<std::string, std::string>& env)
{
    if (!config.training.expandableSegments)
        return;
    env["PYTORCH_ALLOC_CONF"] = "expandable_segments:True";
    env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
}

namespace detail {

std::string firstNodeName(const SessionOptions& options)
{
    return options.origin.nodes.empty() ? std::string("local") : options.origin.nodes.front().name;
}

void concludeRun(RunRecording& recording, const SessionOptions& options, const std::vector<diagnose::RankRecord>& ranks,
                 store::RunStatus status, SessionResult& result)
{
    result.storedStatus = recording.finish(status, result.outcome.reason);
    const bool diagnose = options.diagnoseFailures && !result.outcome.ok() && result.outcome.status != dispatch::RunStatus::Cancelled;
    if (diagnose && !ranks.empty()) {
        result.diagnosis = diagnose::diagnose(ranks);
        if (result.storedStatus && recording.database()) {
            try {
                result.diagnosisId = storeRunDiagnosis(*recording.database(), *result.runId, *result.diagnosis);
            } catch (const std::exception& e) {
                result.storeProblem = std::string("the diagnosis was not stored: ") + e.what();
            }
        }
    }
    if (result.storeProblem.empty())
        result.storeProblem = recording.problem();
}

} // namespace detail

SessionResult runLocal(const RunConfig& requested, const dispatch::LocalLaunch& launch, const SessionOptions& options,
                       const SessionCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    detail::RunRecording recording(options, requested, callbacks);
    SessionResult result;
    result.runId = recording.runId();
    if (result.runId && callbacks.onRecorded)
        callbacks.onRecorded(*result.runId);

    dispatch::LocalLaunch withEnv = launch;
    addAllocatorEnvironment(requested, withEnv.env);
    dispatch::LaunchCallbacks forward;
    forward.onEvent = [&](const protocol::Event& event) {
        recording.record(event);
        if (callbacks.onEvent)
            callbacks.onEvent(event);
    };
    forward.onLog = [&](int rank, const std::string& line) {
        recording.recordLog(rank, line);
        if (callbacks.onLog)
            callbacks.onLog(rank, line);
    };

    std::vector<diagnose::RankRecord> ranks;
    try {
        const dispatch::LaunchResult launched = dispatch::launchLocal(withEnv, forward, cancel);
        result.outcome = dispatch::summarizeRun(requested, launched);
        ranks = rankRecordsOf(launched, detail::firstNodeName(options));
    } catch (const dispatch::LaunchError& e) {
        result.outcome.config = requested;
        result.outcome.status = dispatch::RunStatus::Failed;
        result.outcome.reason = std::string("could not start the ranks: ") + e.what();
    }
    detail::concludeRun(recording, options, ranks, store::statusForOutcome(dispatch::runStatusId(result.outcome.status)), result);
    return result;
}

} // namespace shardwise::session
