#include "shardwise/dispatch/node.hpp"

#include "shardwise/dispatch/shell_quote.hpp"

#include <array>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>

namespace shardwise::dispatch {

namespace {

// One script, one round trip. Each probe prints key=value lines and tolerates the tool's absence.
// cmake is also looked for beside python3 because pip-installed toolchains (a venv) are not on the
// PATH of a non-interactive SSH command.
const std::string kScript = R"SH(
echo "hostname=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "arch=$(uname -m)"
if [ -r /etc/os-release ]; then echo "os=$(. /etc/os-release; echo "$PRETTY_NAME")"; fi
echo "cpu_cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
awk '/^MemTotal:/ { printf "ram_kib=%s\n", $2 }' /proc/meminfo 2>/dev/null
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,pci.bus_id --format=csv,noheader,nounits 2>/dev/null | sed 's/^/gpu=/'
  nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/cuda_driver_api=\1/p' | head -n 1
fi
nvcc=$(command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -n "$nvcc" ]; then "$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/cuda_toolkit=\1/p'; fi
for h in /usr/include/nccl.h /usr/local/cuda/include/nccl.h /usr/include/x86_64-linux-gnu/nccl.h; do
  if [ -r "$h" ]; then
    awk '/#define NCCL_MAJOR/ {a=$3} /#define NCCL_MINOR/ {b=$3} /#define NCCL_PATCH/ {c=$3} END { if (a != "") printf "nccl=%s.%s.%s\n", a, b, c }' "$h"
    break
  fi
done
if command -v ldconfig >/dev/null 2>&1; then ldconfig -p 2>/dev/null | sed -n 's/.*\(libnccl\.so\.[0-9.]*\).*/nccl_library=\1/p' | head -n 1; fi
py=$(command -v python3 2>/dev/null)
if [ -n "$py" ]; then
  echo "python=$("$py" --version 2>&1)"
  "$py" -c 'import torch
print("torch=" + torch.__version__)
print("torch_cuda=" + (torch.version.cuda or ""))
print("torch_config_dir=" + torch.utils.cmake_prefix_path + "/Torch")' 2>/dev/null
fi
# The torch backend's interpreter: python3 on the PATH, else the distribution's /usr/bin/python3 (the
# harness runs itself again under it when the first lacks torch, as a pyenv or venv python3 may).
for tp in "$py" /usr/bin/python3; do
  if [ -n "$tp" ] && [ -x "$tp" ] && v=$("$tp" -c 'import torch; print(torch.__version__)' 2>/dev/null) && [ -n "$v" ]; then
    echo "python_torch=$v"
    echo "python_torch_interpreter=$tp"
    "$tp" -c 'from importlib.metadata import version
print("transformers=" + version("transformers"))' 2>/dev/null
    break
  fi
done
for d in "$LIBTORCH" /opt/libtorch /usr/local/libtorch /usr/lib/x86_64-linux-gnu/cmake/Torch /usr/lib/aarch64-linux-gnu/cmake/Torch; do
  if [ -n "$d" ] && [ -r "$d/share/cmake/Torch/TorchConfig.cmake" ]; then echo "libtorch_config_dir=$d/share/cmake/Torch"; break; fi
  if [ -n "$d" ] && [ -r "$d/TorchConfig.cmake" ]; then echo "libtorch_config_dir=$d"; break; fi
done
for v in /usr/include/torch/csrc/api/include/torch/version.h "$LIBTORCH/include/torch/csrc/api/include/torch/version.h"; do
  if [ -r "$v" ]; then awk '/#define TORCH_VERSION_MAJOR/ {a=$3} /#define TORCH_VERSION_MINOR/ {b=$3} /#define TORCH_VERSION_PATCH/ {c=$3} END { if (a != "") printf "libtorch_version=%s.%s.%s\n", a, b, c }' "$v"; break; fi
done
cm=$(command -v cmake 2>/dev/null)
if [ -z "$cm" ] && [ -n "$py" ] && [ -x "$(dirname "$py")/cmake" ]; then cm="$(dirname "$py")/cmake"; fi
if [ -n "$cm" ]; then echo "cmake=$("$cm" --version | head -n 1 | sed 's/cmake version //')"; echo "cmake_path=$cm"; fi
nj=$(command -v ninja 2>/dev/null)
if [ -z "$nj" ] && [ -n "$py" ] && [ -x "$(dirname "$py")/ninja" ]; then nj="$(dirname "$py")/ninja"; fi
if [ -n "$nj" ]; then echo "ninja_path=$nj"; fi
cxx=$(command -v c++ 2>/dev/null || command -v g++ 2>/dev/null)
if [ -n "$cxx" ]; then echo "compiler=$("$cxx" --version | head -n 1)"; fi
echo "discovery=done"
)SH";

std::string trim(std::string s)
{
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> parts;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, ','))
        parts.push_back(trim(part));
    return parts;
}

bool parseInt64(const std::string& text, std::int64_t& out)
{
    try {
        std::size_t used = 0;
        out = std::stoll(text, &used);
        return used == text.size();
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace

const std::string& nodeDiscoveryScript()
{
    return kScript;
}

bool NodeFacts::canBuildRunner() const
{
    return problems.empty();
}

std::vector<std::string> NodeFacts::torchBackendProblems() const
{
    std::vector<std::string> missing;
    if (python.empty())
        missing.push_back("python3 is not installed (the torch backend runs shardwise-torch-runner, a Python program)");
    else if (pythonTorch.empty())
        missing.push_back("python3 cannot import torch (neither the python3 on the PATH nor /usr/bin/python3): install "
                          "PyTorch for "
                          + python + " (e.g. pip install torch; Debian: python3-torch)");
    return missing;
}

NodeFacts parseNodeFacts(const std::string& scriptOutput)
{
    NodeFacts f;
    std::string libtorchDir, libtorchVersion, ncclLibrary;
    bool complete = false;
    std::stringstream in(scriptOutput);
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = line.substr(0, eq);
        const std::string value = trim(line.substr(eq + 1));
        std::int64_t number = 0;
        if (key == "hostname")
            f.hostname = value;
        else if (key == "arch")
            f.arch = value;
        else if (key == "os")
            f.os = value;
        else if (key == "cpu_cores") {
            if (parseInt64(value, number) && number > 0)
                f.cpuCores = static_cast<int>(number);
            else
                f.problems.push_back("cpu_cores: '" + value + "' is not a positive number");
        } else if (key == "ram_kib") {
            if (parseInt64(value, number) && number > 0)
                f.ramBytes = number * 1024;
            else
                f.problems.push_back("ram_kib: '" + value + "' is not a positive number");
        } else if (key == "gpu") {
            // index, name, memory.total (MiB, nounits), driver_version, pci.bus_id
            const auto p = splitCsv(value);
            std::int64_t index = 0, mib = 0;
            if (p.size() < 5 || !parseInt64(p[0], index) || !parseInt64(p[2], mib)) {
                f.problems.push_back("gpu: cannot read nvidia-smi line '" + value + "'");
                continue;
            }
            f.gpus.push_back({ static_cast<int>(index), p[1], mib * 1024 * 1024, p[4] });
            f.driver = p[3];
        } else if (key == "cuda_driver_api")
            f.cudaDriverApi = value;
        else if (key == "cuda_toolkit")
            f.cudaToolkit = value;
        else if (key == "nccl")
            f.nccl = value;
        else if (key == "nccl_library")
            ncclLibrary = value;
        else if (key == "python")
            f.python = value;
        else if (key == "torch")
            f.torch = value;
        else if (key == "python_torch")
            f.pythonTorch = value;
        else if (key == "python_torch_interpreter")
            f.torchPython = value;
        else if (key == "transformers")
            f.transformers = value;
        else if (key == "torch_cuda")
            f.torchCuda = value;
        else if (key == "torch_config_dir")
            f.torchConfigDir = value;
        else if (key == "libtorch_config_dir")
            libtorchDir = value;
        else if (key == "libtorch_version")
            libtorchVersion = value;
        else if (key == "cmake")
            f.cmake = value;
        else if (key == "compiler")
            f.compiler = value;
        else if (key == "cmake_path")
            f.cmakePath = value;
        else if (key == "ninja_path")
            f.ninjaPath = value;
        else if (key == "discovery")
            complete = value == "done";
    }
    if (f.nccl.empty() && !ncclLibrary.empty())
        f.nccl = ncclLibrary;
    // A LibTorch directory stands in when python's torch is not importable (Debian's libtorch-dev).
    if (f.torchConfigDir.empty() && !libtorchDir.empty()) {
        f.torchConfigDir = libtorchDir;
        if (f.torch.empty())
            f.torch = libtorchVersion.empty() ? std::string("unknown version") : libtorchVersion;
    }
    if (!complete)
        f.problems.push_back("the discovery script did not finish (output cut short)");
    if (f.torchConfigDir.empty())
        f.problems.push_back("no LibTorch: neither python3 -c 'import torch' nor a LibTorch directory ($LIBTORCH, "
                             "/opt/libtorch, Debian libtorch-dev) was found");
    if (f.cmake.empty())
        f.problems.push_back("cmake is not installed (needed to build the runner on the node)");
    if (f.compiler.empty())
        f.problems.push_back("no C++ compiler (c++ or g++) on the PATH");
    if (!f.gpus.empty() && f.nccl.empty())
        f.problems.push_back("GPUs present but NCCL was not found (nccl.h or libnccl.so)");
    return f;
}

NodeFacts discoverNode(SshSession& session, const std::atomic<bool>* cancel)
{
    CommandIo io;
    io.timeout = std::chrono::seconds(60);
    const auto out = session.run(std::vector<std::string> { "sh", "-c", kScript }, io, cancel);
    if (out.ending != CommandEnding::Exited)
        throw SshError(out.ending == CommandEnding::Cancelled ? SshFailure::Cancelled : SshFailure::Protocol,
                       "node discovery on " + session.endpoint().host + " failed: " + out.describe()
                           + "; output so far:\n" + out.stdoutData + out.stderrData);
    return parseNodeFacts(out.stdoutData);
}

NodeFacts discoverLocalNode()
{
    FILE* pipe = ::popen(shellCommand({ "/bin/sh", "-c", kScript }).c_str(), "r");
    if (!pipe)
        throw std::runtime_error("cannot run the node discovery script locally");
    std::string output;
    std::array<char, 4096> buffer {};
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        output.append(buffer.data(), n);
    ::pclose(pipe);
    return parseNodeFacts(output);
}

std::string describeNodeFacts(const NodeFacts& f)
{
    auto orNone = [](const std::string& s) { return s.empty() ? std::string("not found") : s; };
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << "host:        " << f.hostname << " (" << f.os << ", " << f.arch << ")\n";
    o << "CPU cores:   " << f.cpuCores << "\n";
    o << "RAM:         " << static_cast<double>(f.ramBytes) / (1024.0 * 1024 * 1024) << " GiB\n";
    if (f.gpus.empty()) {
        o << "GPUs:        none (CPU runner)\n";
    } else {
        o << "GPUs:        " << f.gpus.size() << "\n";
        for (const auto& g : f.gpus)
            o << "  [" << g.index << "] " << g.name << ", "
              << static_cast<double>(g.memoryBytes) / (1024.0 * 1024 * 1024) << " GiB, " << g.pciBusId << "\n";
        o << "driver:      " << f.driver << " (CUDA " << orNone(f.cudaDriverApi) << " supported)\n";
    }
    o << "CUDA:        " << orNone(f.cudaToolkit) << "\n";
    o << "NCCL:        " << orNone(f.nccl) << "\n";
    o << "LibTorch:    " << orNone(f.torch) << (f.torchCuda.empty() ? "" : " (CUDA " + f.torchCuda + ")")
      << (f.torchConfigDir.empty() ? "" : " at " + f.torchConfigDir) << "\n";
    o << "python:      " << orNone(f.python) << "\n";
    o << "torch (py):  " << orNone(f.pythonTorch) << (f.torchPython.empty() ? "" : " (" + f.torchPython + ")") << "\n";
    o << "Transformers: " << orNone(f.transformers)
      << (f.transformers.empty() && !f.pythonTorch.empty() ? " (the torch backend trains its plain PyTorch decoder)"
                                                           : "")
      << "\n";
    o << "cmake:       " << orNone(f.cmake) << "\n";
    o << "compiler:    " << orNone(f.compiler) << "\n";
    for (const auto& p : f.problems)
        o << "problem:     " << p << "\n";
    const auto torchMissing = f.torchBackendProblems();
    o << "torch backend: " << (torchMissing.empty() ? "ready" : "not ready") << "\n";
    for (const auto& p : torchMissing)
        o << "missing for torch: " << p << "\n";
    return o.str();
}

} // namespace shardwise::dispatch
