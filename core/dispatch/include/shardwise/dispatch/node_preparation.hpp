#pragma once
// Getting a node ready to run: check its GPUs and software, upload the runner's sources (to a
// temporary name, verified by SHA-256, then renamed), build them there against the node's LibTorch,
// and cache the build by the sources' hash so an unchanged runner is never rebuilt. The sources carry
// the PyTorch harness (runner/torch) too; it ends up beside the runner, and whether python3 and torch
// on the node can run it is checked and said.

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
    int jobs = 0;            // 0 = the node's CPU cores
    bool requireGpu = false; // refuse a node without GPUs
    // Refuse a node that cannot run the torch backend (NodeFacts::torchBackendProblems), naming what
    // is missing; otherwise those problems are only reported in PreparedRunner.
    bool requireTorchBackend = false;
    std::string target = "shardwise-runner";
    std::size_t uploadChunk = 1 << 20; // bytes per upload round trip (progress granularity)
};

struct PreparedRunner {
    NodeFacts facts;
    std::string runnerPath; // absolute path of the built executable on the node
    std::string sourceHash;
    bool fromCache = false;
    std::string buildLogTail; // last lines of configure + build output
    // The PyTorch harness beside the runner (runner_program.hpp); empty when the sources hold none.
    std::string torchRunnerPath;
    // What stops the torch backend on this node (python3, torch for it, the harness); empty: ready.
    std::vector<std::string> torchBackendProblems;
};

class NodePreparationError : public std::runtime_error {
public:
    NodePreparationError(PreparationPhase phase, const std::string& message)
        : std::runtime_error(message)
        , m_phase(phase)
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

// What stops the PyTorch harness at `torchRunnerPath` (beside a prepared runner; runner_program.hpp)
// from running on the node now, one sentence each: the harness missing, python3 missing, python3
// unable to import torch. One remote command; empty: a torch run can start. Throws SshError when the
// node cannot be asked.
std::vector<std::string> checkTorchBackend(SshSession& session, const std::string& torchRunnerPath,
                                           const std::atomic<bool>* cancel = nullptr);

} // namespace shardwise::dispatch
