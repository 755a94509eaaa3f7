// The options of `shardwise-cli nodes probe` (nodes_probe.hpp): its table and what they mean.
#include "nodes_manage.hpp"
#include "nodes_probe.hpp"

#include "shardwise/session/node_management.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/suggest.hpp"

#include <algorithm>
#include <charconv>

namespace shardwise::cli {

namespace {

template <typename T> T wholeNumber(const std::string& flag, const std::string& text, T minimum)
{
    T value {};
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError(flag + ": expected a whole number, got '" + text + "'");
    if (value < minimum)
        throw UsageError(flag + ": must be at least " + std::to_string(minimum) + ", got " + text);
    return value;
}

} // namespace

CommandSpec nodesProbeSpec()
{
    return {
        "nodes probe",
        "measure a node's hardware and store it for calibration",
        "NAME | --local [options]",
        "Measures a node's hardware with shardwise-runner --probe, started the way runs start (processes on "
        "this machine, or detached ranks on an SSH node): matmul rate, device copy and pinned host<->device "
        "bandwidth, CPU AdamW rate and, with more than one rank, collective bus bandwidths. Every rank's probe "
        "is stored with the node's name and GPU preset; `shardwise-cli plan --calibrated` and `shardwise-cli "
        "compare` calibrate from the newest one. With --with, one world of ranks spans NAME and the other SSH "
        "nodes, so the collectives cross the network between them: their bus bandwidth is the network's, "
        "printed with the --inter-node-gbps it plans as, and stored under the nodes' names joined by '+'.",
        { { "NAME", "a node of the store: an SSH node, or this machine's node", Complete::Node, true } },
        false,
        { { "--local", "", "probe this machine (stored under its node's name, else \"local\")" },
          { "--with",
            "NAME",
            "another SSH node of the store: probe the network between NAME and it (repeat for more nodes)",
            {},
            Complete::Node,
            true },
          { "--device", "cpu|cuda", "what to probe (default: cuda when the node's facts list GPUs, else cpu)" },
          { "--ranks", "N",
            "processes on the node, on each node with --with (default: one per GPU the facts list with --device "
            "cuda, else 1); more than one also measures collectives" },
          { "--gpu",
            "PRESET",
            "the GPU preset stored with the probe (default: the preset the device name matches; none for a CPU)",
            {},
            Complete::Gpu },
          { "--max-bytes", "N",
            "largest buffer a measurement moves (the runner's --probe-max-bytes; its default 256 MiB when left out)" },
          { "--timeout-s", "N", "limit of the whole probe in seconds (default 900)" },
          { "--collective-timeout-s", "N", "a collective slower than N seconds is a comm error (runner --timeout-s)" },
          { "--rank-env", "KEY=VALUE", "extra environment for every rank", {}, Complete::Nothing, true },
          { "--runner",
            "PATH",
            "this machine: the runner (default: $SHARDWISE_RUNNER, else the one installed beside shardwise-cli)",
            {},
            Complete::File },
          { "--remote-runner", "PATH", "SSH node: the runner there (default: the one the node's preparation built)" },
          { "--master-port", "N",
            "SSH nodes: rendezvous port of their ranks, on the first node (default: one of 29500-29999 that "
            "nothing there uses)" },
          { "--run-root", "DIR",
            "SSH node: probe folders there, relative to the remote home unless absolute (default "
            ".cache/shardwise/probes)" },
          appKnownHostsOption(),
          userKnownHostsOption(),
          { "--db",
            "PATH",
            "the store (default: $SHARDWISE_DB, else ~/.local/share/shardwise/shardwise.sqlite)",
            {},
            Complete::File },
          { "--no-store", "", "measure and print only" },
          { "--format", "F", "table or json (default table)", { "table", "json" } } },
        "Exit status: 0 probed (and stored), 1 the probe failed (runner missing, SSH failure, a rank failed, no "
        "probe event, the store refused it; the reason is printed), 2 bad usage."
    };
}

ProbeOptions parseProbeOptions(const ParsedArgs& parsed)
{
    ProbeOptions o;
    if (!parsed.operands.empty())
        o.node = parsed.operands.front();
    for (const auto& [flag, value] : parsed.options) {
        if (flag == "--local")
            o.local = true;
        else if (flag == "--with") {
            if (value == o.node || std::find(o.with.begin(), o.with.end(), value) != o.with.end())
                throw UsageError("--with: node '" + value
                                 + "' is named twice; a probe between nodes needs distinct nodes");
            o.with.push_back(value);
        } else if (flag == "--device") {
            try {
                o.device = parseDevice(value, flag);
            } catch (const SpecError& e) {
                throw UsageError(e.what());
            }
        } else if (flag == "--ranks")
            o.ranks = wholeNumber<int>(flag, value, 1);
        else if (flag == "--gpu") {
            o.gpu = value;
            if (!PresetCatalog::builtin().findGpu(o.gpu)) {
                std::string known;
                std::vector<std::string> ids;
                for (const GpuSpec& g : PresetCatalog::builtin().gpus()) {
                    known += (known.empty() ? "" : ", ") + g.id;
                    ids.push_back(g.id);
                }
                throw UsageError("--gpu: unknown GPU preset '" + o.gpu + "'" + didYouMean(o.gpu, ids)
                                 + "; known: " + known);
            }
        } else if (flag == "--max-bytes")
            o.maxBytes = wholeNumber<std::int64_t>(flag, value, 4096);
        else if (flag == "--timeout-s")
            o.timeoutS = wholeNumber<int>(flag, value, 1);
        else if (flag == "--collective-timeout-s")
            o.collectiveTimeoutS = wholeNumber<int>(flag, value, 1);
        else if (flag == "--rank-env") {
            try {
                auto [key, val] = session::parseEnvAssignment(value);
                o.rankEnv[key] = val;
            } catch (const session::NodeError& e) {
                throw UsageError("--rank-env: " + std::string(e.what()));
            }
        } else if (flag == "--runner")
            o.runner = std::filesystem::path(value);
        else if (flag == "--remote-runner")
            o.remoteRunner = value;
        else if (flag == "--master-port") {
            o.masterPort = wholeNumber<int>(flag, value, 1);
            if (o.masterPort > 65535)
                throw UsageError("--master-port: must be at most 65535");
        } else if (flag == "--run-root")
            o.runRoot = value;
        else if (flag == "--known-hosts")
            o.ssh.knownHosts.app = value;
        else if (flag == "--user-known-hosts")
            o.ssh.knownHosts.user = value;
        else if (flag == "--db")
            o.db = value;
        else if (flag == "--no-store")
            o.record = false;
        else if (flag == "--format")
            o.json = value == "json";
    }
    if (o.local && !o.node.empty())
        throw UsageError("--local and NAME: choose one, this machine or a node of the store");
    if (!o.local && o.node.empty())
        throw UsageError("NAME or --local: missing; say which node to probe");
    if (!o.with.empty() && o.local)
        throw UsageError("--with and --local: a probe between nodes runs over SSH on every node; add this machine "
                         "as an SSH node (shardwise-cli nodes add NAME --host localhost) to include it");
    if (!o.with.empty() && !o.gpu.empty())
        throw UsageError("--with and --gpu: a probe between nodes is stored without a GPU preset (its collectives "
                         "crossed the network, so no GPU's calibration starts from it)");
    return o;
}

} // namespace shardwise::cli
