// The option table of `shardwise-cli run` (options.hpp) and its --help; run_request.cpp reads the
// parsed options into a RunRequest.
#include "run_request.hpp"

#include <ostream>

namespace shardwise::cli {

CommandSpec runSpec()
{
    const std::string launch = "Launch:", ssh = "SSH nodes (--node):", backend = "Backend:",
                      training = "Training (forwarded to the runner; its defaults apply when left out, see "
                                 "shardwise-runner --help):",
                      store = "Store:", output = "Output:";
    return {
        "run",
        "measure strategies for real with shardwise-runner on this machine or SSH nodes",
        "--local|--node NAME... --model PRESET|PATH --strategy ID|all [options]",
        "Measures sharding strategies for real: starts shardwise-runner processes on this machine or on SSH nodes "
        "(torchrun-style environment, rendezvous on the first node), shows rank 0's steps on stderr and prints one "
        "result per strategy. With --strategy all the nine strategies run one after another; an OOM or a failure "
        "is a result row, not the end of the command.",
        {},
        false,
        { { "--local", "", "run the ranks as processes on this machine", {}, Complete::Nothing, false, launch },
          { "--node",
            "NAME",
            "run on this SSH node of the store (repeat, or NAME,NAME, for several nodes; the first "
            "hosts the rendezvous). Its host key must already be trusted (shardwise-cli nodes test, or the desktop "
            "app's Nodes page)",
            {},
            Complete::Node,
            true,
            launch },
          { "--ranks",
            "N",
            "ranks per node, one per GPU with --device cuda (default 1); with --local at most this "
            "machine's CPU cores (cpu) or visible GPUs (cuda)",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--oversubscribe",
            "",
            "--local: start more ranks than cores or GPUs anyway",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--rank-env",
            "KEY=VALUE",
            "extra environment for every rank, e.g. GLOO_SOCKET_IFNAME=eth0 to pick the "
            "network the ranks use",
            {},
            Complete::Nothing,
            true,
            launch },
          { "--device",
            "cpu|cuda",
            "cpu: fp32 + Gloo; cuda: bf16 + NCCL, rank r on GPU r (default cpu)",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--rehearse-world",
            "N",
            "rehearse one rank of a world of N ranks (1-65536): one process runs as rank 0 of world N "
            "through a communicator that moves no data, every buffer in its world-N shape, so its peak allocated "
            "and reserved memory are one rank's at world N (on one GPU instead of N). Its steps hold no "
            "communication, so it measures no tokens/s. Needs --device cuda; one rank on one node (--local or one "
            "--node, --ranks 1), without --cuda-graphs",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--runner",
            "PATH",
            "the shardwise-runner to start (default: $SHARDWISE_RUNNER, else the one installed "
            "beside shardwise-cli); --backend torch starts the shardwise-torch-runner beside it "
            "($SHARDWISE_TORCH_RUNNER overrides)",
            {},
            Complete::File,
            false,
            launch },
          { "--log-dir",
            "DIR",
            "per-rank logs go to DIR/<strategy>/rank<N>.log, kept (default: a fresh temporary "
            "directory per run, removed once the store holds the run and its logs; kept and named in the output "
            "with --no-store)",
            {},
            Complete::Directory,
            false,
            launch },
          { "--keep-run-folder",
            "",
            "keep each run's temporary folder (rank logs, config.json) after a recorded run, and name it",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--timeout-s",
            "N",
            "wall-clock limit of each strategy's run, seconds (default: none)",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--peer-grace-s",
            "N",
            "after a rank fails, seconds the others get to exit on their own before they are "
            "stopped (default 15)",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--expandable-segments",
            "",
            "run the ranks with the CUDA allocator's expandable_segments:True",
            {},
            Complete::Nothing,
            false,
            launch },
          { "--remote-runner",
            "PATH",
            "the shardwise-runner on the nodes (default: the one the node's preparation "
            "built)",
            {},
            Complete::Nothing,
            false,
            ssh },
          { "--master-port",
            "N",
            "rendezvous port on the first node (default: one of 29500-29999 that nothing on "
            "the node uses when the ranks start)",
            {},
            Complete::Nothing,
            false,
            ssh },
          { "--run-root",
            "DIR",
            "run folders on the nodes, relative to the remote home unless absolute (default "
            ".cache/shardwise/runs); each run keeps its per-rank logs there",
            {},
            Complete::Nothing,
            false,
            ssh },
          appKnownHostsOption(ssh),
          userKnownHostsOption(ssh),
          { "--detach-on-interrupt",
            "",
            "Ctrl-C (or SIGTERM) detaches instead of cancelling: the ranks go on "
            "running on their nodes, the run stays in the store as 'detached', no further strategy starts, and "
            "`shardwise-cli runs attach ID` follows it again and records the rest. Without it Ctrl-C cancels every "
            "rank. Needs the store (not with --no-store)",
            {},
            Complete::Nothing,
            false,
            ssh },
          { "--backend",
            "native|torch",
            "native: shardwise-runner (LibTorch, every strategy); torch: the PyTorch "
            "harness shardwise-torch-runner (DDP for zero0, fully_shard for fsdp2_noreshard, fsdp2_reshard, "
            "fsdp2_reshard_offload; python3 with torch where the ranks run). With --strategy all, torch runs those "
            "four (default native)",
            {},
            Complete::Nothing,
            false,
            backend },
          { "--torch-compile",
            "",
            "torch.compile each decoder layer (--backend torch only)",
            {},
            Complete::Nothing,
            false,
            backend },
          { "--model",
            "PRESET|PATH",
            "model preset id, a Shardwise model JSON or a Hugging Face config.json",
            {},
            Complete::Model,
            false,
            training },
          { "--strategy",
            "ID|all",
            "one of " + strategyIdList() + ", or all",
            {},
            Complete::Strategy,
            false,
            training },
          { "--steps", "N", "timed steps", {}, Complete::Nothing, false, training },
          { "--warmup", "N", "warm-up steps before them", {}, Complete::Nothing, false, training },
          { "--seq", "N", "sequence length in tokens", {}, Complete::Nothing, false, training },
          { "--micro-batch", "N", "sequences per rank per step", {}, Complete::Nothing, false, training },
          { "--precision", "P", "bf16 | bf16-fp32-master", {}, Complete::Nothing, false, training },
          { "--cuda-graphs",
            "",
            "the runner captures each step as a CUDA graph after two eager steps and replays "
            "it (the host no longer issues every kernel: small models and short sequences run faster). Needs "
            "--device cuda, precision bf16, a GPU-resident strategy and at least 3 warm-up steps; with --strategy "
            "all the offload strategies run eager",
            {},
            Complete::Nothing,
            false,
            training },
          { "--seed", "N", "seed of weights and synthetic tokens", {}, Complete::Nothing, false, training },
          { "--collective-timeout-s",
            "N",
            "a collective slower than N seconds is a comm error (runner --timeout-s)",
            {},
            Complete::Nothing,
            false,
            training },
          { "--inter-node-gbps",
            "X",
            "the network between nodes the run is measured against, GB/s per node per "
            "direction (as plan's), recorded with each run",
            {},
            Complete::Nothing,
            false,
            store },
          { "--db",
            "PATH",
            "record into this SQLite store (default: $SHARDWISE_DB, else "
            "~/.local/share/shardwise/shardwise.sqlite)",
            {},
            Complete::File,
            false,
            store },
          { "--no-store", "", "do not record the runs", {}, Complete::Nothing, false, store },
          { "--format",
            "F",
            "a table, or one JSON object with a \"runs\" array (default table)",
            { "table", "json" },
            Complete::Nothing,
            false,
            output } },
        "Exit status: 0 every run succeeded, 1 a run failed (OOM, comm, config, timeout, cancelled) or was "
        "detached, 2 bad flag or input."
    };
}

std::vector<CommandSpec> runSpecs()
{
    return { runSpec() };
}

void printRunUsage(std::ostream& out)
{
    out << usageText(runSpec());
}

} // namespace shardwise::cli
