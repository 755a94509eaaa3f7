// shardwise-cli run --local | --node NAME...: start the runner's ranks on this machine or on SSH
// nodes from the store, record each run into the store through core/session (events, logs, final
// status, diagnosis), show rank 0's steps as they happen, and summarise each strategy as a table row
// or a JSON object. A failed or OOM strategy is a result row; only bad flags stop the command before
// it runs.
#include "command.hpp"
#include "run_nodes.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <unistd.h>

namespace shardwise::cli {

namespace {

constexpr const char* kUsage = R"(usage: shardwise-cli run --local|--node NAME... --model PRESET|PATH --strategy ID|all [options]

Measures sharding strategies for real: starts shardwise-runner processes on this machine or on SSH
nodes (torchrun-style environment, rendezvous on the first node), shows rank 0's steps on stderr and
prints one result per strategy. With --strategy all the eight strategies run one after another; an
OOM or a failure is a result row, not the end of the command.

Launch:
  --local                    run the ranks as processes on this machine
  --node NAME                run on this SSH node of the store (repeat, or NAME,NAME, for several
                             nodes; the first hosts the rendezvous). Its host key must already be
                             trusted (shardwise-cli nodes test, or the desktop app's Nodes page)
  --ranks N                  ranks per node, one per GPU with --device cuda (default 1)
  --rank-env KEY=VALUE       extra environment for every rank (repeatable), e.g.
                             GLOO_SOCKET_IFNAME=eth0 to pick the network the ranks use
  --device cpu|cuda          cpu: fp32 + Gloo; cuda: bf16 + NCCL, rank r on GPU r (default cpu)
  --runner PATH              the shardwise-runner to start (default: $SHARDWISE_RUNNER, else the one
                             installed beside shardwise-cli)
  --log-dir DIR              per-rank logs go to DIR/<strategy>/rank<N>.log (default: a fresh
                             temporary directory per run, named in the output)
  --timeout-s N              wall-clock limit of each strategy's run, seconds (default: none)
  --peer-grace-s N           after a rank fails, seconds the others get to exit on their own before
                             they are stopped (default 60)
  --expandable-segments      run the ranks with the CUDA allocator's expandable_segments:True

SSH nodes (--node):
  --remote-runner PATH       the shardwise-runner on the nodes (default: the one the node's
                             preparation built)
  --master-port N            rendezvous port on the first node (default 29500)
  --run-root DIR             run folders on the nodes, relative to the remote home unless absolute
                             (default .cache/shardwise/runs); each run keeps its per-rank logs there
  --known-hosts FILE         the app's own known_hosts (default: $XDG_CONFIG_HOME/shardwise/known_hosts)
  --user-known-hosts FILE    the user's known_hosts, read only (default: ~/.ssh/known_hosts)
  --detach-on-interrupt      Ctrl-C (or SIGTERM) detaches instead of cancelling: the ranks go on
                             running on their nodes, the run stays in the store as 'detached', no
                             further strategy starts, and `shardwise-cli runs attach ID` follows it
                             again and records the rest. Without it Ctrl-C cancels every rank.
                             Needs the store (not with --no-store)

Training (forwarded to the runner; its defaults apply when left out, see shardwise-runner --help):
  --model PRESET|PATH        model preset id, a Shardwise model JSON or a Hugging Face config.json
  --strategy ID|all          one of )";

constexpr const char* kUsageTail = R"(, or all
  --steps N                  timed steps
  --warmup N                 warm-up steps before them
  --seq N                    sequence length in tokens
  --micro-batch N            sequences per rank per step
  --precision P              bf16 | bf16-fp32-master
  --cuda-graphs              the runner captures each step as a CUDA graph after two eager steps and
                             replays it (the host no longer issues every kernel: small models and
                             short sequences run faster). Needs --device cuda, precision bf16, a
                             GPU-resident strategy and at least 3 warm-up steps; with --strategy
                             all the offload strategies run eager
  --seed N                   seed of weights and synthetic tokens
  --collective-timeout-s N   a collective slower than N seconds is a comm error (runner --timeout-s)

Store:
  --db PATH                  record into this SQLite store (default: $SHARDWISE_DB, else
                             ~/.local/share/shardwise/shardwise.sqlite)
  --no-store                 do not record the runs

Output:
  --format table|json        a table, or one JSON object with a "runs" array (default table)
  --help                     this text

Exit status: 0 every run succeeded, 1 a run failed (OOM, comm, config, timeout, cancelled) or was
detached, 2 bad flag or input.
)";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RunRequest {
    int ranks = 1;
    DeviceKind device = DeviceKind::Cpu;
    std::string model;
    ModelSpec modelSpec;
    std::vector<Strategy> strategies;
    std::optional<int> steps;
    std::optional<int> warmup;
    std::optional<int> seq;
    std::optional<int> microBatch;
    std::optional<PrecisionPolicy> precision;
    std::string precisionText;
    std::optional<std::uint64_t> seed;
    std::optional<int> collectiveTimeoutS;
    std::optional<std::filesystem::path> runner;
    std::filesystem::path logDir;
    int timeoutS = 0;
    int peerGraceS = 60;
    bool expandableSegments = false;
    bool cudaGraphs = false;
    bool everyStrategy = false; // --strategy all
    bool json = false;
    std::string db;     // --db; empty = the default location
    bool record = true; // false with --no-store
    bool detachOnInterrupt = false;
    std::map<std::string, std::string> rankEnv;
    // SSH nodes; empty = --local
    std::vector<std::string> nodes;
    std::string remoteRunner;
    int masterPort = 29500;
    std::string runRoot = ".cache/shardwise/runs";
    dispatch::SshOptions ssh;

    bool remote() const { return !nodes.empty(); }
    int world() const { return ranks * static_cast<int>(remote() ? nodes.size() : 1); }
};

template <typename T> T parseInteger(const std::string& flag, const std::string& text, T minimum)
{
    T value{};
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
        throw UsageError(flag + ": expected a whole number, got '" + text + "'");
    if (value < minimum)
        throw UsageError(flag + ": must be at least " + std::to_string(minimum) + ", got " + text);
    return value;
}

RunRequest parseRequest(const std::vector<std::string>& args)
{
    RunRequest r;
    bool local = false;
    std::string strategy;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::optional<std::string> inlineValue;
        if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
        }
        auto value = [&]() -> std::string {
            if (inlineValue)
                return *inlineValue;
            if (i + 1 >= args.size())
                throw UsageError(flag + ": missing value");
            return args[++i];
        };
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
                    throw UsageError("--master-port: must be at most 65535, got " + std::to_string(r.masterPort));
            } else if (flag == "--run-root")
                r.runRoot = value();
            else if (flag == "--known-hosts")
                r.ssh.knownHosts.app = value();
            else if (flag == "--user-known-hosts")
                r.ssh.knownHosts.user = value();
            else if (flag == "--no-store")
                r.record = false;
            else if (flag == "--detach-on-interrupt")
                r.detachOnInterrupt = true;
            else if (flag == "--db")
                r.db = value();
            else if (flag == "--expandable-segments")
                r.expandableSegments = true;
            else if (flag == "--cuda-graphs")
                r.cudaGraphs = true;
            else if (flag == "--ranks")
                r.ranks = parseInteger<int>(flag, value(), 1);
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
                throw UsageError(flag + ": unknown option (see shardwise-cli run --help)");
        } catch (const SpecError& e) {
            throw UsageError(e.what());
        }
    }
    if (local && !r.nodes.empty())
        throw UsageError("--local and --node: choose one; the ranks run either on this machine or on SSH nodes");
    if (!local && r.nodes.empty())
        throw UsageError("--local or --node: missing; say where the ranks run (this machine, or SSH nodes of the store)");
    if (r.nodes.empty() && (!r.remoteRunner.empty()))
        throw UsageError("--remote-runner: only with --node");
    if (r.detachOnInterrupt && r.nodes.empty())
        throw UsageError("--detach-on-interrupt: only with --node; local ranks end with this command");
    if (r.detachOnInterrupt && !r.record)
        throw UsageError("--detach-on-interrupt: needs the store to find the run again; drop --no-store");
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
        for (const auto& t : allStrategies())
            r.strategies.push_back(t.strategy);
    } else if (const auto s = strategyFromId(strategy)) {
        r.strategies.push_back(*s);
    } else {
        throw UsageError("--strategy: unknown strategy '" + strategy + "'; allowed: " + strategyIdList() + ", all");
    }
    return r;
}

std::filesystem::path resolveRunner(const RunRequest& r)
{
    std::optional<std::filesystem::path> runner = r.runner;
    std::string source = "--runner";
    if (!runner) {
        runner = dispatch::locateRunner();
        source = std::getenv("SHARDWISE_RUNNER") ? "SHARDWISE_RUNNER" : "runner";
        if (!runner)
            throw UsageError("--runner: no shardwise-runner found beside shardwise-cli or in the build tree; "
                             "pass --runner PATH or set SHARDWISE_RUNNER");
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*runner, ec) || ::access(runner->c_str(), X_OK) != 0)
        throw UsageError(source + ": '" + runner->string()
                         + "' is not an executable file");
    return *runner;
}

RunConfig requestedConfig(const RunRequest& r, Strategy s)
{
    RunConfig c;
    c.model = r.modelSpec;
    c.strategy = s;
    c.device = r.device;
    c.worldSize = r.world();
    c.training.expandableSegments = r.expandableSegments;
    // A strategy named alone gets the graphs as asked (validation says when it cannot be captured);
    // with --strategy all the offload strategies, whose optimizer runs on the host, run eager.
    const StrategyTraits& t = traits(s);
    c.training.cudaGraphs = r.cudaGraphs && !(r.everyStrategy && (t.offloadsOptimizer || t.offloadsParameters));
    if (r.steps)
        c.timedSteps = *r.steps;
    if (r.warmup)
        c.warmupSteps = *r.warmup;
    if (r.seq)
        c.training.seqLen = *r.seq;
    if (r.microBatch)
        c.training.microBatch = *r.microBatch;
    if (r.precision)
        c.training.precision = *r.precision;
    if (r.seed)
        c.seed = *r.seed;
    return c;
}

// The runner flags of one strategy's run; everything the command line left out takes the runner's
// defaults, which are RunConfig's.
std::vector<std::string> runnerArgs(const RunRequest& r, const RunConfig& requested)
{
    std::vector<std::string> a{"--model", r.model, "--strategy", std::string(strategyId(requested.strategy)),
                               "--device", std::string(deviceId(r.device))};
    auto add = [&](const char* flag, const auto& v) {
        if (v) {
            a.push_back(flag);
            a.push_back(std::to_string(*v));
        }
    };
    add("--steps", r.steps);
    add("--warmup", r.warmup);
    add("--seq", r.seq);
    add("--micro-batch", r.microBatch);
    add("--seed", r.seed);
    add("--timeout-s", r.collectiveTimeoutS);
    if (r.precision) {
        a.push_back("--precision");
        a.push_back(r.precisionText);
    }
    if (requested.training.cudaGraphs)
        a.push_back("--cuda-graphs");
    return a;
}

// Which flag sets the field a SpecError from validate(RunConfig) names.
std::string flagForRunField(const std::string& field)
{
    static const std::map<std::string, std::string> flags{
        {"training.cuda_graphs", "--cuda-graphs"}, {"training.seq_len", "--seq"},
        {"training.micro_batch", "--micro-batch"}, {"warmup_steps", "--warmup"},
        {"timed_steps", "--steps"},                 {"world_size", "--ranks"}};
    const auto it = flags.find(field);
    return it == flags.end() ? field : it->second;
}

// Every strategy's configuration checked as the runner will check it, before any rank starts: a run
// that cannot start (CUDA graphs for an offload strategy, say) is a bad flag, not a failed row.
void validateRequest(const RunRequest& r)
{
    for (const Strategy s : r.strategies) {
        try {
            validate(requestedConfig(r, s));
        } catch (const SpecError& e) {
            std::string message = e.what();
            if (const std::string prefix = e.field() + ": "; message.rfind(prefix, 0) == 0)
                message.erase(0, prefix.size());
            throw UsageError(flagForRunField(e.field()) + ": " + message);
        }
    }
}

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

// One stderr line per rank-0 step: where the run is and the throughput of its timed steps so far.
class StepProgress {
public:
    StepProgress(std::ostream& err, Strategy s, int world, int totalSteps)
        : m_err(err)
        , m_label(strategyId(s))
        , m_world(world)
        , m_totalSteps(totalSteps)
    {
    }

    void onEvent(const protocol::Event& e)
    {
        // The runner's own defaults fill what the command line left out.
        if (const auto* start = std::get_if<protocol::StartEvent>(&e); start && start->rank == 0)
            m_totalSteps = start->config.warmupSteps + start->config.timedSteps;
        if (const auto* st = std::get_if<protocol::StepEvent>(&e); st && st->rank == 0) {
            std::string rate = "warm-up";
            if (st->timed) {
                m_timedTokens += st->tokens;
                m_timedSeconds += st->stepTimeS;
                if (m_timedSeconds > 0)
                    rate = format("%.0f tokens/s so far", static_cast<double>(m_timedTokens) * m_world / m_timedSeconds);
            }
            m_err << "[" << m_label << "] step " << st->step + 1 << "/" << m_totalSteps << "  loss "
                  << format("%.4f", st->loss) << "  " << format("%.1f ms", st->stepTimeS * 1e3) << "  " << rate
                  << "\n"
                  << std::flush;
        } else if (const auto* er = std::get_if<protocol::ErrorEvent>(&e)) {
            m_err << "[" << m_label << "] rank " << er->rank << " " << protocol::errorKindId(er->kind)
                  << " error: " << er->message << "\n"
                  << std::flush;
        }
    }

private:
    std::ostream& m_err;
    std::string m_label;
    int m_world;
    int m_totalSteps;
    std::int64_t m_timedTokens = 0;
    double m_timedSeconds = 0;
};

struct Placement {
    const std::filesystem::path* runner = nullptr; // --local
    const ConnectedNodes* nodes = nullptr;          // --node
};

struct StrategyRun {
    dispatch::RunOutcome outcome;
    std::optional<std::int64_t> detachedRunId; // following stopped; the ranks go on running
};

StrategyRun runOne(const RunRequest& r, Strategy s, const Placement& where, std::size_t index, store::Database* db,
                   std::ostream& err)
{
    const RunConfig requested = requestedConfig(r, s);
    StepProgress progress(err, s, requested.worldSize, requested.warmupSteps + requested.timedSteps);
    session::SessionCallbacks callbacks;
    callbacks.onEvent = [&](const protocol::Event& e) { progress.onEvent(e); };
    // A store that fails mid-run (disk full, say) costs the record, never the measurement.
    callbacks.onStoreProblem = [&](const std::string& problem) {
        err << "shardwise-cli run: recording into the store failed, the run goes on unrecorded: " << problem << "\n" << std::flush;
    };
    session::SessionOptions options;
    options.db = db;
    options.origin.launcher = "shardwise";

    session::SessionResult result;
    if (where.nodes) {
        for (const auto& node : where.nodes->nodes)
            options.origin.nodes.push_back({node.name, node.id});
        session::RemoteTarget target;
        target.sessions = where.nodes->sessionPointers();
        target.nodeNames = where.nodes->names();
        for (const auto& path : where.nodes->runnerPaths)
            target.launch.nodes.push_back({path, r.ranks, {}, {}});
        target.launch.env = r.rankEnv;
        // The runner reads the whole config from the run folder; flags outside RunConfig follow it.
        target.launch.args = {"--config", "config.json"};
        if (r.collectiveTimeoutS)
            target.launch.args.insert(target.launch.args.end(), {"--timeout-s", std::to_string(*r.collectiveTimeoutS)});
        // Strategies run one after another; a fresh port for each keeps a listener still in
        // TIME_WAIT from failing the next rendezvous.
        target.launch.masterPort = r.masterPort + static_cast<int>(index % 100);
        target.launch.runRoot = r.runRoot;
        target.follow.pollInterval = std::chrono::milliseconds(500);
        target.follow.timeout = std::chrono::seconds(r.timeoutS);
        err << "[" << strategyId(s) << "] starting " << requested.worldSize << " rank(s) on "
            << where.nodes->nodes.size() << " node(s), " << deviceId(r.device)
            << (requested.training.cudaGraphs ? " with CUDA graphs" : "") << "\n"
            << std::flush;
        const std::atomic<bool>* interrupt = &terminalInterrupt();
        if (r.detachOnInterrupt)
            options.detach = interrupt;
        result = session::runRemote(requested, std::move(target), options, callbacks, r.detachOnInterrupt ? nullptr : interrupt);
    } else {
        options.origin.nodes.push_back({"local", std::nullopt});
        dispatch::LocalLaunch launch;
        launch.runner = *where.runner;
        launch.args = runnerArgs(r, requested);
        launch.ranks = r.ranks;
        launch.env = r.rankEnv;
        if (!r.logDir.empty())
            launch.logDir = r.logDir / std::string(strategyId(s));
        launch.timeout = std::chrono::seconds(r.timeoutS);
        launch.peerGrace = std::chrono::seconds(r.peerGraceS);
        err << "[" << strategyId(s) << "] starting " << r.ranks << " rank(s) on " << deviceId(r.device)
            << (requested.training.cudaGraphs ? " with CUDA graphs" : "") << "\n"
            << std::flush;
        result = session::runLocal(requested, launch, options, callbacks, &terminalInterrupt());
    }
    if (result.detached && result.runId) {
        if (result.lost)
            err << "[" << strategyId(s) << "] run " << *result.runId << ": " << result.outcome.reason;
        else
            err << "[" << strategyId(s) << "] detached from run " << *result.runId << ": its ranks go on running on "
                << where.nodes->nodes.size() << " node(s)";
        err << "; follow it again with: shardwise-cli runs attach " << *result.runId << " --db " << db->path().string() << "\n"
            << std::flush;
        return {result.outcome, result.runId};
    }
    if (result.storedStatus && result.runId)
        err << "[" << strategyId(s) << "] recorded as run " << *result.runId
            << (result.diagnosisId ? " with its diagnosis" : "") << "\n"
            << std::flush;
    return {result.outcome, std::nullopt};
}

std::string pad(std::string s, std::size_t width, bool right = false)
{
    if (s.size() >= width)
        return s + " ";
    const std::string fill(width - s.size(), ' ');
    return right ? fill + s : s + fill;
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
    out << pad("strategy", 23) << pad("status", 10) << pad("median step", 13, true) << pad("throughput", 18, true)
        << pad("peak allocated", 16, true) << pad("peak reserved", 16, true) << pad("NCCL share", 12, true) << "\n";
    for (const auto& run : runs) {
        const dispatch::RunOutcome& o = run.outcome;
        const DeviceKind device = o.config.device;
        const std::string status = run.detachedRunId ? "detached" : std::string(dispatch::runStatusId(o.status));
        out << pad(std::string(strategyId(o.config.strategy)), 23) << pad(status, 10)
            << pad(o.medianStepS ? format("%.1f ms", *o.medianStepS * 1e3) : "-", 13, true)
            << pad(o.tokensPerS ? format("%.0f tokens/s", *o.tokensPerS) : "-", 18, true)
            << pad(gib(o.peakAllocatedBytes, device), 16, true) << pad(gib(o.peakReservedBytes, device), 16, true)
            << pad(o.ncclShare ? format("%.1f %%", *o.ncclShare * 100.0) : "-", 12, true) << "\n";
    }
    out << "\n";
    for (const auto& run : runs) {
        const dispatch::RunOutcome& o = run.outcome;
        out << strategyId(o.config.strategy) << ": ";
        if (!o.ok())
            out << o.reason << "; ";
        out << "logs in " << (o.logDir.empty() ? std::string("(none)") : o.logDir.string()) << "\n";
    }
    out << "NCCL share is collective kernel time over step time; it overlaps compute, so it is not time "
           "spent waiting.\n";
}

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            out << kUsage << strategyIdList() << kUsageTail;
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
        runs.push_back(runOne(request, s, where, i, recordInto, err));
        if (runs.back().detachedRunId)
            continue;
        const dispatch::RunOutcome& o = runs.back().outcome;
        err << "[" << strategyId(s) << "] " << dispatch::runStatusId(o.status) << (o.reason.empty() ? "" : ": " + o.reason)
            << "\n"
            << std::flush;
    }
    // A detached run has no result yet: the command did not see every run succeed.
    const bool allOk = std::all_of(runs.begin(), runs.end(), [](const StrategyRun& r) { return r.outcome.ok(); })
        && runs.size() == request.strategies.size();

    if (request.json) {
        nlohmann::json j{{"launcher", request.remote() ? "ssh" : "local"},
                         {"runner", request.remote() ? nlohmann::json(nodes.runnerPaths) : nlohmann::json(runner.string())},
                         {"nodes", request.remote() ? nlohmann::json(request.nodes) : nlohmann::json::array({"local"})},
                         {"ranks", request.world()},
                         {"device", deviceId(request.device)},
                         {"succeeded", allOk},
                         {"cancelled", terminalInterrupt().load() && !request.detachOnInterrupt},
                         {"runs", nlohmann::json::array()}};
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

const CommandRegistration registration("run", "measure strategies by running shardwise-runner ranks on this machine or SSH nodes",
                                       runRun);

} // namespace

} // namespace shardwise::cli
