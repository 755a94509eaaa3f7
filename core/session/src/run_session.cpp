#include "shardwise/session/run_session.hpp"

#include "run_recording.hpp"
#include "session_outcome.hpp"

#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/spec/file_output.hpp"
#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace shardwise::session {

void addAllocatorEnvironment(const RunConfig& config, std::map<std::string, std::string>& env)
{
    if (!config.training.expandableSegments)
        return;
    env["PYTORCH_ALLOC_CONF"] = "expandable_segments:True";
    env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
}

namespace detail {

std::string localRunName(const std::optional<std::int64_t>& runId)
{
    if (runId)
        return "run-" + std::to_string(*runId);
    return "run-unrecorded-" + std::to_string(static_cast<long long>(store::currentUnixTime() * 1000));
}

std::filesystem::path writeRunConfig(const RunConfig& config, std::filesystem::path& folder)
{
    if (folder.empty()) {
        std::string pattern = (std::filesystem::temp_directory_path() / "shardwise-run-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a temporary run folder: " + std::string(std::strerror(errno)));
        folder = pattern;
    }
    if (const std::string why = createDirectoryNoFollow(folder); !why.empty())
        throw std::runtime_error("cannot use run folder '" + folder.string() + "': " + why);
    const std::filesystem::path file = folder / "config.json";
    if (const FileWriteResult w = writeFileSafely(file, toJson(config).dump(2) + "\n"); !w.ok())
        throw std::runtime_error(w.error);
    return file;
}

std::string firstNodeName(const SessionOptions& options)
{
    return options.origin.nodes.empty() ? std::string("local") : options.origin.nodes.front().name;
}

// The first error event can be a peer's symptom: after rank 1 is killed, rank 0's collective fails
// and reports first. The diagnosis weighs every rank's exit, log and events; where it names another
// rank as the first failure, the run's note and the result line say what it says.
void blameTheFirstFailure(const diagnose::Diagnosis& d, dispatch::RunOutcome& outcome)
{
    if (!d.rootCause || *d.rootCause >= d.failures.size())
        return;
    const diagnose::Failure& root = d.failures[*d.rootCause];
    if (root.rank == diagnose::kNoRank)
        return;
    std::optional<int> blamed;
    if (outcome.firstError)
        blamed = outcome.firstError->rank;
    else
        for (const dispatch::RankReport& r : outcome.ranks)
            if (!r.succeeded) {
                blamed = r.rank;
                break;
            }
    if (blamed && *blamed == root.rank)
        return;
    outcome.reason = "rank " + std::to_string(root.rank) + " failed first: " + root.message
        + (outcome.reason.empty() ? std::string() : " (then " + outcome.reason + ")");
}

void concludeRun(RunRecording& recording, const SessionOptions& options, const std::vector<diagnose::RankRecord>& ranks,
                 store::RunStatus status, SessionResult& result)
{
    const bool diagnose
        = options.diagnoseFailures && !result.outcome.ok() && result.outcome.status != dispatch::RunStatus::Cancelled;
    if (diagnose && !ranks.empty()) {
        result.diagnosis = diagnose::diagnose(ranks);
        blameTheFirstFailure(*result.diagnosis, result.outcome);
    }
    result.storedStatus = recording.finish(status, result.outcome.reason);
    if (result.diagnosis) {
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

// A temporary run folder the session made goes once the store holds the run and every log line of
// it; kept when asked, when nothing was recorded, or when recording stopped part way.
void removeTemporaryRunFolder(const std::filesystem::path& folder, const SessionOptions& options,
                              const RunRecording& recording, SessionResult& result)
{
    if (folder.empty() || options.keepRunFolder || !recording.database() || !result.runId || !result.storedStatus
        || !result.storeProblem.empty())
        return;
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    if (ec)
        return;
    result.runFolderRemoved = true;
    result.outcome.logDir.clear();
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
    // The config's backend decides the program (the native runner or the PyTorch harness beside it).
    withEnv.runner = dispatch::runnerForBackend(requested.backend, launch.runner);
    addAllocatorEnvironment(requested, withEnv.env);
    // This machine's NCCL setting (its stored node's), under what the request sets itself.
    if (!options.origin.nodes.empty())
        for (const auto& [name, value] : options.origin.nodes.front().ncclEnv)
            withEnv.env.try_emplace(name, value);
    std::vector<diagnose::RankRecord> ranks;
    // No folder named: the run gets a temporary one (here or in the launcher).
    const bool temporaryFolder = withEnv.logDir.empty() && options.localRunRoot.empty();
    std::filesystem::path runFolder;
    try {
        if (withEnv.logDir.empty() && !options.localRunRoot.empty())
            withEnv.logDir = options.localRunRoot / detail::localRunName(result.runId);
        // No arguments, or the launch builder's `--config config.json`: the runner reads the requested
        // config, written into the run's log folder.
        if (withEnv.args.empty())
            withEnv.args = { "--config", "config.json" };
        if (withEnv.args.size() >= 2 && withEnv.args[0] == "--config" && withEnv.args[1] == "config.json")
            withEnv.args[1] = detail::writeRunConfig(requested, withEnv.logDir).string();
    } catch (const std::exception& e) {
        result.outcome.config = requested;
        result.outcome.status = dispatch::RunStatus::Failed;
        result.outcome.reason = std::string("could not prepare the run folder: ") + e.what();
        detail::concludeRun(recording, options, ranks, store::RunStatus::Failed, result);
        return result;
    }
    if (temporaryFolder)
        runFolder = withEnv.logDir; // config.json's; empty when the launcher makes the folder
    const auto forward = detail::recordingCallbacks<dispatch::LaunchCallbacks>(recording, callbacks);

    try {
        const dispatch::LaunchResult launched = dispatch::launchLocal(withEnv, forward, cancel);
        if (temporaryFolder)
            runFolder = launched.logDir;
        result.outcome = dispatch::summarizeRun(requested, launched);
        ranks = rankRecordsOf(launched, detail::firstNodeName(options));
    } catch (const dispatch::LaunchError& e) {
        result.outcome.config = requested;
        result.outcome.status = dispatch::RunStatus::Failed;
        result.outcome.reason = std::string("could not start the ranks: ") + e.what();
    }
    detail::concludeRun(recording, options, ranks,
                        store::statusForOutcome(dispatch::runStatusId(result.outcome.status)), result);
    detail::removeTemporaryRunFolder(runFolder, options, recording, result);
    return result;
}

} // namespace shardwise::session
