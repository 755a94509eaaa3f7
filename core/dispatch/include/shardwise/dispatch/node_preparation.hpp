#pragma once
// Getting a node ready to run: check its GPUs and software, upload the runner's sources (to a
// temporary name, verified by SHA-256, then renamed), build them there against the node's LibTorch,
// and cache the build by the sources' hash so an unchanged runner is never rebuilt.

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/remote_bundle.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::dispatch {

enum class PreparationPhase { Checking, Uploading, Verifying, Unpacking, Configuring, Building, Done };
std::string_view preparationPhaseName(PreparationPhase phase);

struct PreparationProgress {
    PreparationPhase phase = PreparationPhase::Checking;
    double fraction = 0; // of the whole preparation, 0..1
    std::string message;
};
using PreparationCallback = std::function<void(const PreparationProgress&)>;

struct PreparationOptions {
    std::string remoteRoot = ".cache/shardwise"; // relative to the remote home unless absolute
    std::string buildType = "Release";
    std::vector<std::string> extraCmakeArgs;
    int jobs = 0;                   // 0 = the node's CPU cores
    bool requireGpu = false;        // refuse a node without GPUs
    std::string target = "shardwise-runner";
    std::size_t uploadChunk = 1 << 20; // bytes per upload round trip (progress granularity)
};

struct PreparedRunner {
    NodeFacts facts;
    std::string runnerPath; // absolute path of the built executable on the node
    std::string sourceHash;
    bool fromCache = false;
    std::string buildLogTail; // last lines of configure + build output
};

class NodePreparationError : public std::runtime_error {
public:
    NodePreparationError(PreparationPhase phase, const std::string& message)
        : std::runtime_error(message), m_phase(phase)
    {
    }
    PreparationPhase phase() const { return m_phase; }

private:
    PreparationPhase m_phase;
};

// Throws NodePreparationError (the phase that failed and why), or SshError for transport failures;
// a set `cancel` stops the upload or kills the remote build and throws SshError(Cancelled).
PreparedRunner prepareNode(SshSession& session, const RemoteBundle& sources, const PreparationOptions& options = {},
                           const PreparationCallback& onProgress = {}, const std::atomic<bool>* cancel = nullptr);

} // namespace shardwise::dispatch
