#pragma once
// What discovery finds on a machine the runner can be dispatched to (this one, or one reached over
// SSH): NodeFacts, plain data the store keeps with the node (session/node_facts_json.hpp). The node
// itself is store::Node; session/node_management.hpp turns it into an SSH session.

#include "shardwise/dispatch/ssh_session.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::dispatch {

struct NodeGpu {
    int index = 0;
    std::string name;             // e.g. "NVIDIA H200"
    std::int64_t memoryBytes = 0; // total device memory
    std::string pciBusId;
};

struct NodeFacts {
    std::string hostname;
    std::string os;   // PRETTY_NAME from /etc/os-release
    std::string arch; // uname -m
    int cpuCores = 0;
    std::int64_t ramBytes = 0;
    std::vector<NodeGpu> gpus; // empty = CPU-only node (the CPU runner still works)
    std::string driver;        // NVIDIA driver version, empty without GPUs
    std::string cudaDriverApi; // highest CUDA the driver supports (nvidia-smi header)
    std::string cudaToolkit;   // nvcc --version, empty when not installed
    std::string nccl;          // from nccl.h or the library file name, empty when absent
    std::string python;        // python3 --version
    std::string torch; // torch.__version__ through python3, else a LibTorch directory's version; empty when neither
    std::string pythonTorch; // torch.__version__ for the torch backend's interpreter, empty when none imports it
    std::string
        torchPython; // that interpreter: python3 on the PATH, else /usr/bin/python3 (where the harness re-runs itself)
    std::string
        transformers;      // the Transformers version installed for that interpreter, empty when absent (not an error)
    std::string torchCuda; // torch.version.cuda, empty for CPU builds
    std::string
        torchConfigDir;    // the folder holding TorchConfig.cmake (python torch or a LibTorch dir), for -DTorch_DIR
    std::string cmake;     // cmake --version
    std::string cmakePath; // the cmake executable found (PATH or beside python3)
    std::string ninjaPath; // ninja, empty when absent (then cmake's default generator)
    std::string compiler;  // c++ --version first line
    std::vector<std::string> problems; // what prevents building or running the runner here
    bool canBuildRunner() const;
    // What the torch backend (shardwise-torch-runner) lacks here, one sentence each naming it:
    // python3, then a python3 that imports torch (the PATH's or /usr/bin/python3). Empty: it can run. Transformers is
    // optional (the harness falls back to its plain PyTorch decoder), so never listed.
    std::vector<std::string> torchBackendProblems() const;
};

// The POSIX sh script that prints the facts as key=value lines (run on the node).
const std::string& nodeDiscoveryScript();
// Parses the script's output. Unknown keys are ignored; malformed values become problems.
NodeFacts parseNodeFacts(const std::string& scriptOutput);

// Runs the discovery script on the node behind `session` (one remote command).
NodeFacts discoverNode(SshSession& session, const std::atomic<bool>* cancel = nullptr);
// Runs the discovery script on this machine through /bin/sh.
NodeFacts discoverLocalNode();

// Human-readable multi-line report, units included.
std::string describeNodeFacts(const NodeFacts& facts);

} // namespace shardwise::dispatch
