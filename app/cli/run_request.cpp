// Parsing and checking `shardwise-cli run`'s flags into a RunRequest (run_request.hpp).
#include "run_request.hpp"

#include "command.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sched.h>
#include <unistd.h>

namespace shardwise::cli {

namespace {

template <typename T> T parseInteger(const std::string& flag, const std::string& text, T minimum)
{
    T value {};
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        throw UsageError(flag + ": expected a whole number, got '" + text + "'");
    if (value < minimum)
        throw UsageError(flag + ": must be at least " + std::to_string(minimum) + ", got " + text);
    return value;
}

// A bandwidth in GB/s, in the range plan's --inter-node-gbps takes.
double parseGBps(const std::string& flag, const std::string& text)
{
    char* end = nullptr;
    const double x = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x))
        throw UsageError(flag + ": expected a number of GB/s, got '" + text + "'");
    if (x < 0.01 || x > 1e5)
        throw UsageError(flag + ": must be in [0.01, 100000] GB/s per node per direction, got " + text);
    return x;
}

// --rehearse-world's N: a whole number in [1, kMaxRehearsedWorld].
int parseRehearsedWorld(const std::string& flag, const std::string& text)
{
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const std::string range = "[1, " + std::to_string(kMaxRehearsedWorld) + "]";
    if (text.empty() || ptr != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
        throw UsageError(flag + ": expected a whole number of ranks in " + range + ", got '" + text + "'");
    if (ec == std::errc::result_out_of_range || value < 1 || value > kMaxRehearsedWorld)
        throw UsageError(flag + ": the world to rehearse must be in " + range + " ranks, got " + text);
    return static_cast<int>(value);
}

// A rehearsal is one process, rank 0 of world N, on a CUDA device, without CUDA graphs.
void checkRehearsal(const RunRequest& r)
{
    if (!r.rehearseWorld)
        return;
    const std::string flag = "--rehearse-world " + std::to_string(*r.rehearseWorld);
    if (r.ranks != 1)
        throw UsageError(flag + ": a rehearsal runs one rank (rank 0 of world " + std::to_string(*r.rehearseWorld)
                         + ") in one process; --ranks " + std::to_string(r.ranks) + " asks for "
                         + std::to_string(r.ranks) + " per node (leave --ranks out)");
    if (r.nodes.size() > 1)
        throw UsageError(flag + ": a rehearsal runs one rank in one process on one node; --node names "
                         + std::to_string(r.nodes.size()) + " nodes");
    if (r.device != DeviceKind::Cuda)
        throw UsageError(flag
                         + ": a rehearsal needs a CUDA device (--device cuda): it measures one rank's allocator "
                           "peaks at world "
                         + std::to_string(*r.rehearseWorld)
                         + ", and an emulated CPU run measures state bytes only, no allocator peaks");
    if (r.cudaGraphs)
        throw UsageError("--cuda-graphs: not with " + flag
                         + ": a rehearsal measures memory, and CUDA graphs are not rehearsed (leave --cuda-graphs "
                           "out)");
}

} // namespace

namespace {

// How many ranks this machine can run at once, and what bounds it: the CPU cores this process may
// use (its affinity mask), or the GPUs it can see (CUDA_VISIBLE_DEVICES, else /dev/nvidiaN). With no
// GPU seen at all there is no bound here: the runner then says why CUDA is unusable.
std::pair<int, std::string> localRankCapacity(DeviceKind device)
{
    if (device == DeviceKind::Cuda) {
        int gpus = 0;
        if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
            std::string list = visible;
            for (std::size_t start = 0; start <= list.size();) {
                const auto comma = std::min(list.find(',', start), list.size());
                if (comma > start)
                    ++gpus;
                start = comma + 1;
            }
        } else {
            std::error_code ec;
            for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
                const std::string name = entry.path().filename().string();
                if (name.size() > 6 && name.starts_with("nvidia")
                    && std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
                    ++gpus;
            }
        }
        return { gpus > 0 ? gpus : std::numeric_limits<int>::max(), "visible GPUs" };
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    int cores = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (cores <= 0)
        cores = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    return { cores, "CPU cores" };
}

} // namespace

RunRequest parseRequest(const std::vector<std::string>& args)
{
    RunRequest r;
    bool local = false;
    std::string strategy;
    for (const ParsedOption& option : parseArgs(runSpec(), args).options) {
        const std::string& flag = option.name;
        const auto value = [&option] { return option.value; };
        try {
            if (flag == "--local")
                local = true;
            else if (flag == "--node") {
                const std::string list = value();
                std::size_t start = 0;
                while (start <= list.size()) {
                    const std::size_t comma = std::min(list.find(',', start), list.size());
                    if (comma == start)
                        throw UsageError("--node: empty node name in '" + list + "'");
                    r.nodes.push_back(list.substr(start, comma - start));
                    start = comma + 1;
                }
            } else if (flag == "--rank-env") {
                const std::string pair = value();
                const auto eq = pair.find('=');
                if (eq == 0 || eq == std::string::npos)
                    throw UsageError("--rank-env: expected KEY=VALUE, got '" + pair + "'");
                r.rankEnv[pair.substr(0, eq)] = pair.substr(eq + 1);
            } else if (flag == "--remote-runner")
                r.remoteRunner = value();
            else if (flag == "--master-port") {
                r.masterPort = parseInteger<int>(flag, value(), 1);
                if (r.masterPort > 65535)
                    throw UsageError("--master-port: must be at most 65535, got " + std::to_string(*r.masterPort));
            } else if (flag == "--run-root")
                r.runRoot = value();
            else if (flag == "--known-hosts")
                r.ssh.knownHosts.app = value();
            else if (flag == "--user-known-hosts")
                r.ssh.knownHosts.user = value();
            else if (flag == "--no-store")
                r.record = false;
            else if (flag == "--keep-run-folder")
                r.keepRunFolder = true;
            else if (flag == "--inter-node-gbps")
                r.interNodeGBps = parseGBps(flag, value());
            else if (flag == "--detach-on-interrupt")
                r.detachOnInterrupt = true;
            else if (flag == "--db")
                r.db = value();
            else if (flag == "--expandable-segments")
                r.expandableSegments = true;
            else if (flag == "--cuda-graphs")
                r.cudaGraphs = true;
            else if (flag == "--rehearse-world")
                r.rehearseWorld = parseRehearsedWorld(flag, value());
            else if (flag == "--backend") {
                const std::string id = value();
                const auto backend = backendFromId(id);
                if (!backend)
                    throw UsageError("--backend: unknown backend '" + id + "'; allowed: native, torch");
                r.backend = *backend;
            } else if (flag == "--torch-compile")
                r.torchCompile = true;
            else if (flag == "--ranks")
                r.ranks = parseInteger<int>(flag, value(), 1);
            else if (flag == "--oversubscribe")
                r.oversubscribe = true;
            else if (flag == "--device")
                r.device = parseDevice(value(), flag);
            else if (flag == "--model")
                r.model = value();
            else if (flag == "--strategy")
                strategy = value();
            else if (flag == "--steps")
                r.steps = parseInteger<int>(flag, value(), 1);
            else if (flag == "--warmup")
                r.warmup = parseInteger<int>(flag, value(), 0);
            else if (flag == "--seq")
                r.seq = parseInteger<int>(flag, value(), 1);
            else if (flag == "--micro-batch")
                r.microBatch = parseInteger<int>(flag, value(), 1);
            else if (flag == "--precision") {
                r.precisionText = value();
                r.precision = parsePrecision(r.precisionText, flag);
            } else if (flag == "--seed")
                r.seed = parseInteger<std::uint64_t>(flag, value(), 0);
            else if (flag == "--collective-timeout-s")
                r.collectiveTimeoutS = parseInteger<int>(flag, value(), 1);
            else if (flag == "--runner")
                r.runner = std::filesystem::path(value());
            else if (flag == "--log-dir")
                r.logDir = value();
            else if (flag == "--timeout-s")
                r.timeoutS = parseInteger<int>(flag, value(), 1);
            else if (flag == "--peer-grace-s")
                r.peerGraceS = parseInteger<int>(flag, value(), 0);
            else if (flag == "--format") {
                const std::string f = value();
                if (f != "table" && f != "json")
                    throw UsageError("--format: expected table or json, got '" + f + "'");
                r.json = f == "json";
            } else
                throw UsageError(unknownOptionMessage("run", flag));
        } catch (const SpecError& e) {
            throw UsageError(e.what());
        }
    }
    if (local && !r.nodes.empty())
        throw UsageError("--local and --node: choose one; the ranks run either on this machine or on SSH nodes");
    if (!local && r.nodes.empty())
        throw UsageError(
            "--local or --node: missing; say where the ranks run (this machine, or SSH nodes of the store)");
    if (r.nodes.empty() && (!r.remoteRunner.empty()))
        throw UsageError("--remote-runner: only with --node");
    if (r.oversubscribe && !local)
        throw UsageError("--oversubscribe: only with --local; a node's ranks are bounded by its own GPUs");
    checkRehearsal(r);
    if (local && !r.oversubscribe) {
        // Each rank is a whole training process: thousands of them would exhaust this machine's
        // memory and process table long before a rendezvous, and Ctrl-C would have to outrun the spawning.
        const auto [capacity, what] = localRankCapacity(r.device);
        if (r.ranks > capacity)
            throw UsageError("--ranks " + std::to_string(r.ranks) + ": more ranks than this machine's "
                             + std::to_string(capacity) + " " + what + " (--device " + std::string(deviceId(r.device))
                             + "); pass --oversubscribe to start them anyway");
    }
    if (r.detachOnInterrupt && r.nodes.empty())
        throw UsageError("--detach-on-interrupt: only with --node; local ranks end with this command");
    if (r.detachOnInterrupt && !r.record)
        throw UsageError("--detach-on-interrupt: needs the store to find the run again; drop --no-store");
    if (r.backend == RunBackend::Torch && r.collectiveTimeoutS)
        throw UsageError("--collective-timeout-s: only with --backend native; the torch harness reads its whole run "
                         "from --config");
    if (r.model.empty())
        throw UsageError("--model: missing (a preset id such as tiny, or a model JSON path)");
    if (strategy.empty())
        throw UsageError("--strategy: missing; allowed: " + strategyIdList() + ", all");
    try {
        r.modelSpec = resolveModel(r.model, "--model");
    } catch (const SpecError& e) {
        throw UsageError(e.what());
    }
    if (strategy == "all") {
        r.everyStrategy = true;
        // The torch backend runs the strategies PyTorch expresses; the others are not its to measure.
        for (const auto& t : allStrategies())
            if (r.backend == RunBackend::Native || frameworkSupports(Framework::Fsdp2, t.strategy))
                r.strategies.push_back(t.strategy);
    } else if (const auto s = strategyFromId(strategy)) {
        r.strategies.push_back(*s);
    } else {
        throw UsageError("--strategy: unknown strategy '" + strategy + "'" + strategyDidYouMean(strategy, true)
                         + "; allowed: " + strategyIdList() + ", all");
    }
    return r;
}

// The program the ranks run: the backend's (dispatch::runnerForBackend decides, as the session does).
std::filesystem::path resolveRunner(const RunRequest& r)
{
    const std::string program(dispatch::runnerProgram(r.backend));
    std::optional<std::filesystem::path> runner;
    std::string source = "--runner";
    if (r.runner) {
        runner = dispatch::runnerForBackend(r.backend, *r.runner);
    } else {
        runner = dispatch::locateRunner(r.backend);
        source = r.backend == RunBackend::Torch && std::getenv("SHARDWISE_TORCH_RUNNER") ? "SHARDWISE_TORCH_RUNNER"
            : std::getenv("SHARDWISE_RUNNER")                                            ? "SHARDWISE_RUNNER"
                                                                                         : "runner";
        if (!runner)
            throw UsageError("--runner: no " + program
                             + " found beside shardwise-cli or in its ../bin; pass --runner PATH" + " or set "
                             + (r.backend == RunBackend::Torch ? "SHARDWISE_TORCH_RUNNER" : "SHARDWISE_RUNNER"));
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*runner, ec) || ::access(runner->c_str(), X_OK) != 0)
        throw UsageError(
            (r.backend == RunBackend::Torch ? "--backend torch" : source) + ": '" + runner->string()
            + "' is not an executable file"
            + (r.backend == RunBackend::Torch ? " (" + program + " is installed beside shardwise-runner)" : ""));
    return *runner;
}

} // namespace shardwise::cli
