#include "shardwise/dispatch/node_preparation.hpp"

#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/dispatch/shell_quote.hpp"

#include <algorithm>
#include <random>
#include <regex>
#include <sstream>

namespace shardwise::dispatch {

std::string_view preparationPhaseName(PreparationPhase phase)
{
    switch (phase) {
    case PreparationPhase::Checking:
        return "checking";
    case PreparationPhase::Uploading:
        return "uploading";
    case PreparationPhase::Verifying:
        return "verifying";
    case PreparationPhase::Unpacking:
        return "unpacking";
    case PreparationPhase::Configuring:
        return "configuring";
    case PreparationPhase::Building:
        return "building";
    case PreparationPhase::Done:
        return "done";
    }
    return "?";
}

namespace {

// Share of the whole preparation each phase ends at; the build dominates.
double phaseEnd(PreparationPhase p)
{
    switch (p) {
    case PreparationPhase::Checking:
        return 0.05;
    case PreparationPhase::Uploading:
        return 0.20;
    case PreparationPhase::Verifying:
        return 0.22;
    case PreparationPhase::Unpacking:
        return 0.25;
    case PreparationPhase::Configuring:
        return 0.35;
    case PreparationPhase::Building:
        return 0.99;
    case PreparationPhase::Done:
        return 1.0;
    }
    return 1.0;
}

double phaseStart(PreparationPhase p)
{
    return p == PreparationPhase::Checking ? 0.0 : phaseEnd(static_cast<PreparationPhase>(static_cast<int>(p) - 1));
}

std::string tail(const std::string& text, std::size_t bytes = 4000)
{
    return text.size() <= bytes ? text : text.substr(text.size() - bytes);
}

class Preparation {
public:
    Preparation(SshSession& s, const PreparationOptions& o, const PreparationCallback& cb, const std::atomic<bool>* c)
        : session(s)
        , options(o)
        , onProgress(cb)
        , cancel(c)
    {
    }

    void report(PreparationPhase phase, double withinPhase, std::string message)
    {
        if (!onProgress)
            return;
        const double f = phaseStart(phase) + (phaseEnd(phase) - phaseStart(phase)) * std::clamp(withinPhase, 0.0, 1.0);
        onProgress({ phase, f, std::move(message) });
    }

    // Runs a command that must succeed; throws NodePreparationError for `phase` otherwise.
    CommandOutcome mustRun(PreparationPhase phase, const std::string& command, const CommandIo& io = {})
    {
        auto out = session.run(command, io, cancel);
        if (out.ending == CommandEnding::Cancelled)
            throw SshError(SshFailure::Cancelled,
                           "node preparation cancelled while " + std::string(preparationPhaseName(phase)));
        if (!out.succeeded())
            throw NodePreparationError(phase,
                                       std::string(preparationPhaseName(phase)) + " failed on "
                                           + session.endpoint().host + " (" + out.describe()
                                           + "): " + tail(out.stderrData + out.stdoutData, 2000));
        return out;
    }

    SshSession& session;
    const PreparationOptions& options;
    const PreparationCallback& onProgress;
    const std::atomic<bool>* cancel;
};

std::string randomSuffix()
{
    std::random_device rd;
    std::mt19937_64 gen(rd());
    static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s;
    for (int i = 0; i < 12; ++i)
        s += kChars[gen() % 36];
    return s;
}

// The PyTorch harness sits beside the runner in the build's bin folder (runner_program.hpp). A build
// that did not put it there (a target outside the runner's) gets that target built; a source tree
// without it leaves the path empty and says so in the torch backend's problems.
void findTorchHarness(Preparation& prep, const std::string& buildDir, PreparedRunner& result)
{
    const std::string harness = runnerForBackend(RunBackend::Torch, result.runnerPath).string();
    const std::string test = "test -x " + shellQuote(harness);
    const std::string build
        = shellCommand({ result.facts.cmakePath, "--build", buildDir, "--target", std::string(kTorchRunnerProgram) });
    const auto found = prep.session.run(test + " || { " + build + " >/dev/null 2>&1; " + test + "; }", {}, prep.cancel);
    if (found.ending == CommandEnding::Cancelled)
        throw SshError(SshFailure::Cancelled,
                       "node preparation cancelled while looking for " + std::string(kTorchRunnerProgram));
    if (found.succeeded())
        result.torchRunnerPath = harness;
    else
        result.torchBackendProblems.push_back("the prepared sources hold no " + std::string(kTorchRunnerProgram)
                                              + " (runner/torch): rebuild with sources that carry the PyTorch harness");
}

// The preparation's last word on the torch backend: where its harness is, or what it lacks.
std::string torchBackendSummary(const PreparedRunner& result)
{
    if (result.torchBackendProblems.empty())
        return "; torch backend ready (" + result.torchRunnerPath + ")";
    std::string why = "; torch backend not ready:";
    for (const auto& p : result.torchBackendProblems)
        why += "\n  - " + p;
    return why;
}

} // namespace

PreparedRunner prepareNode(SshSession& session, const RemoteBundle& sources, const PreparationOptions& options,
                           const PreparationCallback& onProgress, const std::atomic<bool>* cancel)
{
    Preparation prep(session, options, onProgress, cancel);
    PreparedRunner result;
    result.sourceHash = sources.sha256;

    prep.report(PreparationPhase::Checking, 0, "discovering GPUs and software on " + session.endpoint().host);
    result.facts = discoverNode(session, cancel);
    const NodeFacts& facts = result.facts;
    if (!facts.canBuildRunner()) {
        std::string why;
        for (const auto& p : facts.problems)
            why += "\n  - " + p;
        throw NodePreparationError(PreparationPhase::Checking,
                                   "node " + session.endpoint().host + " cannot build the runner:" + why);
    }
    result.torchBackendProblems = facts.torchBackendProblems();
    if (options.requireTorchBackend && !result.torchBackendProblems.empty()) {
        std::string why;
        for (const auto& p : result.torchBackendProblems)
            why += "\n  - " + p;
        throw NodePreparationError(PreparationPhase::Checking,
                                   "node " + session.endpoint().host + " cannot run the torch backend:" + why);
    }
    if (options.requireGpu && facts.gpus.empty())
        throw NodePreparationError(PreparationPhase::Checking,
                                   "node " + session.endpoint().host + " has no NVIDIA GPU (nvidia-smi found none)");
    // Absolute paths: the runner path is handed to later commands and to other tools.
    const std::string home = prep.mustRun(PreparationPhase::Checking, "cd && pwd").stdoutData;
    const std::string homeDir = home.substr(0, home.find('\n'));
    const std::string root
        = (options.remoteRoot.rfind('/', 0) == 0 ? options.remoteRoot : homeDir + "/" + options.remoteRoot) + "/runner";
    const std::string dir = root + "/" + sources.sha256;
    const std::string runner = dir + "/build/bin/" + options.target;
    const std::string marker = dir + "/BUILD_OK";
    result.runnerPath = runner;
    prep.report(PreparationPhase::Checking, 1, describeNodeFacts(facts));

    // The marker is written only after a successful build (a crashed build leaves none).
    const auto cached = session.run("test -f " + shellQuote(marker) + " && test -x " + shellQuote(runner), {}, cancel);
    if (cached.succeeded()) {
        result.fromCache = true;
        findTorchHarness(prep, dir + "/build", result);
        prep.report(PreparationPhase::Done, 1,
                    "runner " + sources.sha256.substr(0, 12) + " already built on the node"
                        + torchBackendSummary(result));
        return result;
    }

    const std::string partial = root + "/" + sources.sha256 + ".tar.part-" + randomSuffix();
    const std::string archive = root + "/" + sources.sha256 + ".tar";
    prep.mustRun(PreparationPhase::Uploading, "mkdir -p " + shellQuote(root) + " && : > " + shellQuote(partial));
    const std::size_t chunk = std::max<std::size_t>(options.uploadChunk, 4096);
    for (std::size_t sent = 0; sent < sources.tarball.size(); sent += chunk) {
        CommandIo io;
        io.stdinData = sources.tarball.substr(sent, chunk);
        prep.mustRun(PreparationPhase::Uploading, "cat >> " + shellQuote(partial), io);
        const std::size_t done = std::min(sent + chunk, sources.tarball.size());
        prep.report(PreparationPhase::Uploading,
                    static_cast<double>(done) / static_cast<double>(sources.tarball.size()),
                    "uploaded " + std::to_string(done / 1024) + " of " + std::to_string(sources.tarball.size() / 1024)
                        + " KiB");
    }

    prep.report(PreparationPhase::Verifying, 0, "verifying SHA-256 on the node");
    const auto sum = prep.mustRun(PreparationPhase::Verifying, "sha256sum " + shellQuote(partial)).stdoutData;
    if (sum.substr(0, sum.find(' ')) != sources.sha256) {
        session.run("rm -f " + shellQuote(partial), {}, cancel);
        throw NodePreparationError(PreparationPhase::Verifying,
                                   "the uploaded runner sources arrived corrupted on " + session.endpoint().host
                                       + ": SHA-256 " + sum.substr(0, 64) + ", expected " + sources.sha256);
    }
    prep.mustRun(PreparationPhase::Verifying, "mv -f " + shellQuote(partial) + " " + shellQuote(archive));

    prep.report(PreparationPhase::Unpacking, 0, "unpacking");
    prep.mustRun(PreparationPhase::Unpacking,
                 "rm -rf " + shellQuote(dir) + " && mkdir -p " + shellQuote(dir + "/src") + " && tar -xf "
                     + shellQuote(archive) + " -C " + shellQuote(dir + "/src"));

    prep.report(PreparationPhase::Configuring, 0, "configuring against LibTorch at " + facts.torchConfigDir);
    std::vector<std::string> configure { facts.cmakePath,
                                         "-S",
                                         dir + "/src",
                                         "-B",
                                         dir + "/build",
                                         "-DCMAKE_BUILD_TYPE=" + options.buildType,
                                         "-DSHARDWISE_BUILD_APP=OFF",
                                         "-DSHARDWISE_BUILD_CLI=OFF",
                                         "-DSHARDWISE_BUILD_TESTS=OFF",
                                         "-DTorch_DIR=" + facts.torchConfigDir };
    if (!facts.ninjaPath.empty()) {
        configure.insert(configure.end(), { "-G", "Ninja", "-DCMAKE_MAKE_PROGRAM=" + facts.ninjaPath });
    }
    configure.insert(configure.end(), options.extraCmakeArgs.begin(), options.extraCmakeArgs.end());
    const auto configured = prep.mustRun(PreparationPhase::Configuring, shellCommand(configure));
    result.buildLogTail = tail(configured.stdoutData);

    const int jobs = options.jobs > 0 ? options.jobs : std::max(1, facts.cpuCores);
    const std::string pidFile = dir + "/build.pid";
    // setsid puts the build in its own process group so a cancel can stop the compilers too.
    const std::string build = "setsid sh -c " + shellQuote("echo $$ > " + shellQuote(pidFile) + " && exec \"$@\"")
        + " sh "
        + shellCommand({ facts.cmakePath, "--build", dir + "/build", "--target", options.target, "-j",
                         std::to_string(jobs) });
    // "[12/40]" from ninja, "[ 30%]" from make.
    static const std::regex ninjaStep(R"(\[(\d+)/(\d+)\])");
    static const std::regex makePercent(R"(\[\s*(\d+)%\])");
    std::string pending;
    CommandIo io;
    io.onStdout = [&](std::string_view chunkText) {
        pending.append(chunkText);
        std::size_t nl;
        while ((nl = pending.find('\n')) != std::string::npos) {
            const std::string line = pending.substr(0, nl);
            pending.erase(0, nl + 1);
            std::smatch m;
            double within = -1;
            if (std::regex_search(line, m, ninjaStep))
                within = std::stod(m[1]) / std::max(1.0, std::stod(m[2]));
            else if (std::regex_search(line, m, makePercent))
                within = std::stod(m[1]) / 100.0;
            if (within >= 0)
                prep.report(PreparationPhase::Building, within, line);
        }
    };
    prep.report(PreparationPhase::Building, 0,
                "building " + options.target + " with " + std::to_string(jobs) + " jobs");
    const auto built = session.run(build, io, cancel);
    if (built.ending == CommandEnding::Cancelled) {
        // Closing the channel does not stop a process without a terminal: kill its process group.
        if (session.usable())
            session.run("kill -TERM -- -$(cat " + shellQuote(pidFile) + ") 2>/dev/null; rm -f " + shellQuote(pidFile));
        throw SshError(SshFailure::Cancelled, "runner build on " + session.endpoint().host + " cancelled");
    }
    result.buildLogTail = tail(built.stdoutData + built.stderrData);
    if (!built.succeeded())
        throw NodePreparationError(PreparationPhase::Building,
                                   "building " + options.target + " on " + session.endpoint().host + " failed ("
                                       + built.describe() + "):\n" + result.buildLogTail);
    prep.mustRun(PreparationPhase::Building,
                 "test -x " + shellQuote(runner) + " && rm -f " + shellQuote(pidFile) + " && touch "
                     + shellQuote(marker));
    findTorchHarness(prep, dir + "/build", result);
    prep.report(PreparationPhase::Done, 1, "runner built at " + runner + torchBackendSummary(result));
    return result;
}

std::vector<std::string> checkTorchBackend(SshSession& session, const std::string& torchRunnerPath,
                                           const std::atomic<bool>* cancel)
{
    // As discovery looks: python3 on the PATH, else /usr/bin/python3, which the harness falls back to.
    const std::string script = "test -x " + shellQuote(torchRunnerPath)
        + " || echo harness=missing\n"
          "py=$(command -v python3 2>/dev/null)\n"
          "if [ -n \"$py\" ]; then echo \"python=$(\"$py\" --version 2>&1)\"; fi\n"
          "for tp in \"$py\" /usr/bin/python3; do\n"
          "  if [ -n \"$tp\" ] && [ -x \"$tp\" ] && \"$tp\" -c 'import torch; print(\"torch=\" + torch.__version__)' "
          "2>/dev/null; "
          "then break; fi\n"
          "done\n";
    CommandIo io;
    io.timeout = std::chrono::seconds(60);
    const auto out = session.run(std::vector<std::string> { "sh", "-c", script }, io, cancel);
    if (out.ending != CommandEnding::Exited)
        throw SshError(out.ending == CommandEnding::Cancelled ? SshFailure::Cancelled : SshFailure::Protocol,
                       "checking the torch backend on " + session.endpoint().host + " failed: " + out.describe());
    NodeFacts facts;
    bool harnessMissing = false;
    std::istringstream lines(out.stdoutData);
    for (std::string line; std::getline(lines, line);) {
        if (line == "harness=missing")
            harnessMissing = true;
        else if (line.rfind("python=", 0) == 0)
            facts.python = line.substr(7);
        else if (line.rfind("torch=", 0) == 0)
            facts.pythonTorch = line.substr(6);
    }
    std::vector<std::string> problems;
    if (harnessMissing)
        problems.push_back(torchRunnerPath
                           + " is not on the node: prepare the node again (its runner was built from sources "
                             "without the PyTorch harness)");
    const auto software = facts.torchBackendProblems();
    problems.insert(problems.end(), software.begin(), software.end());
    return problems;
}

} // namespace shardwise::dispatch
