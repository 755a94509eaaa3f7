// shardwise-cli nodes prepare NAME: build the runner on a stored SSH node as the Nodes page's Prepare
// does (upload the sources, verify, build against the node's LibTorch, cached by the sources' hash),
// and keep the runner it built with the node, where `run --node` and `nodes probe` find it.
#include "command.hpp"
#include "nodes_manage.hpp"
#include "run_nodes.hpp"
#include "terminal_prompt.hpp"

#include "shardwise/dispatch/remote_bundle.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/store/location.hpp"

#include <charconv>
#include <optional>
#include <ostream>
#include <unistd.h>

namespace shardwise::cli {

namespace {

std::filesystem::path programDir()
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::current_path() : self.parent_path();
}

} // namespace

CommandSpec nodesPrepareSpec()
{
    return {
        "nodes prepare",
        "build the runner on a stored SSH node",
        "NAME [--sources DIR] [--remote-root DIR] [--jobs N] [--cmake-arg ARG ...] [--require-gpu] "
        "[--accept-new-host-key] [--known-hosts FILE] [--user-known-hosts FILE] [--db PATH]",
        "Uploads the runner's sources to the SSH node NAME, verifies them by SHA-256 and builds them there "
        "against the node's LibTorch (an unchanged runner is not built again), then stores the runner's path "
        "and the node's facts with the node. Its host (an ssh config alias included) is resolved through "
        "$SHARDWISE_SSH_CONFIG, else ~/.ssh/config.",
        { { "NAME", "the stored SSH node", Complete::Node } },
        false,
        { { "--sources",
            "DIR",
            "the Shardwise source tree (default: $SHARDWISE_RUNNER_SOURCES, else the one installed beside "
            "shardwise-cli, else the tree it was built from)",
            {},
            Complete::Directory },
          { "--remote-root", "DIR",
            "cache folder on the node, relative to its home unless absolute (default .cache/shardwise)" },
          { "--jobs", "N", "build jobs (default: the node's CPU cores)" },
          { "--cmake-arg", "ARG", "one more argument for the node's cmake configure", {}, Complete::Nothing, true },
          { "--require-gpu", "", "refuse a node without an NVIDIA GPU" },
          { "--accept-new-host-key", "",
            "trust host keys no known_hosts file knows yet (a jump host, then the node), printing each "
            "fingerprint; a changed key is never accepted" },
          appKnownHostsOption(),
          userKnownHostsOption(),
          { "--db",
            "PATH",
            "the store (default: $SHARDWISE_DB, else ~/.local/share/shardwise/shardwise.sqlite)",
            {},
            Complete::File } },
        "Exit status: 0 prepared, 1 the connection, upload or build failed (the reason is printed), 2 bad "
        "usage or no such SSH node."
    };
}

int nodesPrepare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string name, db;
    std::optional<std::filesystem::path> sources;
    dispatch::PreparationOptions preparation;
    dispatch::SshOptions ssh;
    bool acceptNew = false;
    try {
        const ParsedArgs parsed = parseArgs(nodesPrepareSpec(), args);
        if (parsed.help) {
            out << usageText(nodesPrepareSpec());
            return kExitOk;
        }
        name = parsed.operands.empty() ? std::string() : parsed.operands.front();
        for (const auto& [flag, value] : parsed.options) {
            if (flag == "--sources") {
                sources = value;
            } else if (flag == "--remote-root") {
                preparation.remoteRoot = value;
            } else if (flag == "--jobs") {
                const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), preparation.jobs);
                if (ec != std::errc() || end != value.data() + value.size() || preparation.jobs < 1)
                    throw UsageError("--jobs: expected a positive number, got '" + value + "'");
            } else if (flag == "--cmake-arg") {
                preparation.extraCmakeArgs.push_back(value);
            } else if (flag == "--require-gpu") {
                preparation.requireGpu = true;
            } else if (flag == "--accept-new-host-key") {
                acceptNew = true;
            } else if (flag == "--known-hosts") {
                ssh.knownHosts.app = value;
            } else if (flag == "--user-known-hosts") {
                ssh.knownHosts.user = value;
            } else if (flag == "--db") {
                db = value;
            }
        }
        if (name.empty())
            throw UsageError("NAME: missing; say which node to prepare");
        if (!sources)
            sources = session::findRunnerSources(programDir());
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes prepare: " << e.what() << "\n";
        return kExitUsage;
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes prepare: --sources: " << e.what() << "\n";
        return kExitUsage;
    }

    std::optional<store::Database> database;
    store::Node node;
    try {
        database.emplace(store::Database::open(store::resolveDatabasePath(db)));
        node = session::requireNode(*database, name);
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes prepare: " << e.what() << " (shardwise-cli nodes add " << name << " --host HOST)\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes prepare: --db: cannot open the store: " << e.what() << "\n";
        return kExitFailed;
    }
    if (node.kind != store::NodeKind::Ssh) {
        err << "shardwise-cli nodes prepare: '" << name
            << "' is this machine, which runs the runner installed beside Shardwise;"
            << " only SSH nodes are prepared\n";
        return kExitUsage;
    }
    dispatch::RemoteBundle bundle;
    try {
        bundle = dispatch::makeRunnerBundle(*sources);
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes prepare: --sources " << sources->string() << ": " << e.what() << "\n";
        return kExitUsage;
    }

    InterruptOnSignals cancelOnSignals;
    const std::atomic<bool>* cancel = &terminalInterrupt();
    try {
        auto session
            = openAcceptingNewKeys([&] { return session::openNodeSession(node, ssh, cancel, askPassphraseOnTerminal); },
                                   acceptNew, ssh.knownHosts.app, out);
        // The node's own key, as the Nodes page keeps it once trusted.
        if (node.hostKeyFingerprint != session->hostKey().fingerprint)
            store::acceptHostKey(*database, node.id, session->hostKey().fingerprint);
        const bool terminal = ::isatty(STDERR_FILENO) != 0;
        dispatch::PreparationPhase lastPhase = dispatch::PreparationPhase::Done;
        const auto onProgress = [&](const dispatch::PreparationProgress& p) {
            // One line per phase (and its end), the build's own output kept for a failure.
            if (p.phase != lastPhase || p.phase == dispatch::PreparationPhase::Done) {
                err << "[prepare] " << dispatch::preparationPhaseName(p.phase) << ": "
                    << p.message.substr(0, p.message.find('\n')) << "\n";
                lastPhase = p.phase;
            } else if (terminal) {
                err << "\r[prepare] " << static_cast<int>(p.fraction * 100) << "%" << std::flush;
            }
        };
        const dispatch::PreparedRunner runner
            = dispatch::prepareNode(*session, bundle, preparation, onProgress, cancel);
        session::recordPreparedRunner(*database, node.id, runner);
        out << "prepared '" << name << "': runner " << (runner.fromCache ? "already built at " : "built at ")
            << runner.runnerPath << "\n";
        if (runner.torchBackendProblems.empty())
            out << "torch backend: ready (" << runner.torchRunnerPath << ")\n";
        else
            for (const std::string& p : runner.torchBackendProblems)
                out << "torch backend: " << p << "\n";
        return kExitOk;
    } catch (const dispatch::SshError& e) {
        err << "shardwise-cli nodes prepare: cannot prepare '" << name << "': " << e.what() << "\n";
        if (e.failure() == dispatch::SshFailure::HostKeyUnknown)
            err << "check the fingerprint with the node's administrator, then rerun with --accept-new-host-key\n";
        return kExitFailed;
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes prepare: cannot prepare '" << name << "': " << e.what() << "\n";
        return kExitFailed;
    }
}

} // namespace shardwise::cli
