// shardwise-runner: one rank of a measured training run (usage: --help).
#include "communicator.hpp"
#include "device_metrics.hpp"
#include "event_stream.hpp"
#include "hardware_probe.hpp"
#include "runner_options.hpp"
#include "training_run.hpp"

#include "shardwise/spec/json.hpp"

#include <c10/util/Exception.h>
#include <torch/version.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace {

using namespace shardwise;
using namespace shardwise::runner;
using protocol::ErrorKind;

enum ExitCode { Ok = 0, Internal = 1, Config = 2, OutOfMemory = 3, Comm = 4 };

bool looksLikeHostOom(const std::string& what)
{
    // DefaultCPUAllocator reports a failed host allocation as a plain c10::Error: "DefaultCPUAllocator:
    // can't allocate memory: you tried to allocate N bytes" (LibTorch 1.13 and 2.x), older builds
    // "not enough memory".
    return what.find("can't allocate memory") != std::string::npos
        || what.find("not enough memory") != std::string::npos || what.find("std::bad_alloc") != std::string::npos;
}

// Leaves without running destructors: a communicator whose peer died can block in its destructor.
[[noreturn]] void leave(int code)
{
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
}

// A launcher on this machine (shardwise-cli run --local, the desktop app) names itself in
// SHARDWISE_LAUNCHER_PID: the rank then ends with it, even when it was killed outright and could not
// stop its ranks, instead of training on as an orphan. The launcher's child (this process, or a
// --runner wrapper that does not exec it, such as /usr/bin/time or perf stat) gets SIGTERM from the
// kernel when the launcher goes; this process asks the same of its own parent. A launcher gone
// before that request is seen by walking the ancestors: the launcher must be one of them, whatever
// number of wrappers stand between.
#ifdef __linux__
// The parent of `pid` from /proc/<pid>/stat (the field after the parenthesised name, which may itself
// hold spaces and parentheses); -1 where it cannot be read.
pid_t parentOf(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::FILE* f = std::fopen(path, "r");
    if (!f)
        return -1;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char* close = std::strrchr(buf, ')');
    int ppid = -1;
    if (!close || std::sscanf(close + 1, " %*c %d", &ppid) != 1)
        return -1;
    return static_cast<pid_t>(ppid);
}

// Whether `launcher` is this process's parent or an ancestor; true where /proc cannot tell.
bool launcherIsAncestor(pid_t launcher)
{
    pid_t p = ::getppid();
    for (int depth = 0; depth < 64 && p > 1; ++depth) {
        if (p == launcher)
            return true;
        const pid_t up = parentOf(p);
        if (up < 0)
            return ::kill(launcher, 0) == 0 || errno != ESRCH;
        p = up;
    }
    return p == launcher;
}
#endif

void endWithTheLauncher()
{
#ifdef __linux__
    const char* named = std::getenv("SHARDWISE_LAUNCHER_PID");
    if (!named)
        return;
    char* end = nullptr;
    const long launcher = std::strtol(named, &end, 10);
    if (end == named || *end != '\0' || launcher <= 1)
        return;
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (!launcherIsAncestor(static_cast<pid_t>(launcher)))
        std::raise(SIGTERM);
#endif
}

} // namespace

int main(int argc, char** argv)
{
    endWithTheLauncher();
    const std::vector<std::string> args(argv + 1, argv + argc);
    int rank = bestEffortRank();
    RunnerOptions options;
    LaunchEnvironment env;
    try {
        options = parseOptions(args);
        if (options.help) {
            std::cout << usageText();
            return Ok;
        }
        if (options.version) {
            std::cout << "shardwise-runner " << SHARDWISE_RUNNER_VERSION << " (libtorch " << TORCH_VERSION << ")\n";
            return Ok;
        }
        env = readLaunchEnvironment();
        rank = env.rank;
        reconcile(options, env);
    } catch (const ConfigError& e) {
        emitError(rank, ErrorKind::Config, e.what());
        leave(Config);
    } catch (const SpecError& e) {
        emitError(rank, ErrorKind::Config, e.what());
        leave(Config);
    } catch (const std::exception& e) {
        emitError(rank, ErrorKind::Internal, e.what());
        leave(Internal);
    }

    RunProgress progress;
    try {
        if (options.probe)
            runProbe(options, env);
        else
            runTraining(options, env, progress);
    } catch (const ConfigError& e) {
        emitError(rank, ErrorKind::Config, e.what(), progress.step);
        leave(Config);
    } catch (const SpecError& e) {
        emitError(rank, ErrorKind::Config, e.what(), progress.step);
        leave(Config);
    } catch (const CommError& e) {
        emitError(rank, ErrorKind::Comm, e.what(), progress.step);
        leave(Comm);
    } catch (const c10::OutOfMemoryError& e) {
        emitError(rank, ErrorKind::Oom, e.what_without_backtrace(), progress.step, sampleMemory(progress.device));
        leave(OutOfMemory);
    } catch (const std::bad_alloc& e) {
        emitError(rank, ErrorKind::Oom, e.what(), progress.step, sampleMemory(progress.device));
        leave(OutOfMemory);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        if (!progress.commFailure.empty()) {
            emitError(rank, ErrorKind::Comm, progress.commFailure, progress.step);
            leave(Comm);
        }
        // c10::Error's what() appends a C++ backtrace of dozens of frames; an OOM event carries the
        // allocator's sentence alone.
        const auto* c10Error = dynamic_cast<const c10::Error*>(&e);
        const std::string message = c10Error ? c10Error->what_without_backtrace() : what;
        if (looksLikeHostOom(message) || message.find("CUDA out of memory") != std::string::npos) {
            emitError(rank, ErrorKind::Oom, message, progress.step, sampleMemory(progress.device));
            leave(OutOfMemory);
        }
        emitError(rank, ErrorKind::Internal, what, progress.step);
        leave(Internal);
    }
    leave(Ok);
}
