// shardwise-bench-fidelity: the accuracy benchmark's planning and analysis (bench/fidelity/README.md).
//   matrix  [--models a,b,..] [--seqs 1024,2048,..] [--gpu h200] [--host-ram-gib X] [--oom-proofs N] > matrix.tsv
//   analyze --results DIR [--results DIR ..] [--memory-only-results DIR ..] [--matrix matrix.tsv]
//           [--gpu h200] [--host-ram-gib X] [--out PREFIX] [--command TEXT] [--presets-fitted-on TEXT]
//           [--rehearsal-results DIR ..] [--rehearsal-gpu h100-80gb]
//   published [--dir bench/published] [--out PREFIX] [--command TEXT] [--commit TEXT]
#include "fidelity.hpp"
#include "published_report.hpp"

#include "shardwise/spec/json.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace {

int usage(const std::string& why)
{
    std::fprintf(
        stderr,
        "shardwise-bench-fidelity: %s\n"
        "usage: shardwise-bench-fidelity matrix [--models ID,..] [--seqs N,..] [--gpu PRESET] [--host-ram-gib X]\n"
        "                                       [--oom-proofs N] [--warmup N] [--steps N] [--offload-warmup N]\n"
        "                                       [--offload-steps N]\n"
        "       shardwise-bench-fidelity analyze --results DIR [--results DIR ..] [--memory-only-results DIR ..]\n"
        "                                        [--matrix FILE] [--gpu PRESET] [--host-ram-gib X] [--out PREFIX]\n"
        "                                        [--command TEXT] [--presets-fitted-on TEXT] [--probe DIR]\n"
        "                                        [--rehearsal-results DIR ..] [--rehearsal-gpu PRESET]\n"
        "  --results and --memory-only-results may repeat; a memory-only batch (another runner binary)\n"
        "  counts for peak memory and fit verdicts, not for tokens/s. --presets-fitted-on names the runs\n"
        "  the presets were fitted to when they are not these (the report then calls them out of sample).\n"
        "  A timed batch's DIR/probe.jsonl (run.sh's probe) seeds every fold with the coefficients it measured;\n"
        "  --probe DIR takes DIR/probe.jsonl instead, from a call that only probed the device.\n"
        "  --host-ram-gib: RAM of the measuring machine (run.sh's device.txt has its MemTotal; default 512):\n"
        "  whether an offload cell's host state fits is part of its verdict.\n"
        "  --rehearsal-results DIR (may repeat): rehearsed ranks of world N (bench/rehearsal/run.py), memory\n"
        "  only, in every fit's memory samples and predicted by the fold that left their model out;\n"
        "  --rehearsal-gpu: the preset they are predicted on (default: --gpu).\n"
        "       shardwise-bench-fidelity published [--dir DIR] [--out PREFIX] [--command TEXT] [--commit TEXT]\n"
        "  published: every cell of DIR/*.json (default bench/published) predicted against its published figures,\n"
        "  with a leave-one-source-out speed factor per framework; writes PREFIX.md and PREFIX.json\n"
        "  (default bench/results/published).\n",
        why.c_str());
    return 2;
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

double gibibytes(const std::string& flag, const std::string& value)
{
    char* end = nullptr;
    const double v = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !(v >= 1.0 && v <= 1e6))
        throw shardwise::SpecError(flag, "expected GiB between 1 and 1e6, got '" + value + "'");
    return v;
}

int positive(const std::string& flag, const std::string& value)
{
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end || v < 0 || v > 1'000'000)
        throw shardwise::SpecError(flag, "expected a whole number >= 0, got '" + value + "'");
    return static_cast<int>(v);
}

} // namespace

int main(int argc, char** argv)
{
    using namespace shardwise;
    if (argc < 2)
        return usage("missing subcommand (matrix, analyze or published)");
    const std::string sub = argv[1];
    if (sub == "--version") {
        std::cout << "shardwise-bench-fidelity " << SHARDWISE_VERSION << "\n";
        return 0;
    }
    try {
        const char* env = std::getenv("SHARDWISE_PRESETS");
        const PresetCatalog catalog = PresetCatalog::load(env ? env : SHARDWISE_SOURCE_PRESET_DIR);
        // Every value of a flag, in order: --results and --memory-only-results may repeat.
        std::map<std::string, std::vector<std::string>> flags;
        for (int i = 2; i < argc; i += 2) {
            const std::string a = argv[i];
            if (a.rfind("--", 0) != 0)
                return usage(a + ": expected a flag");
            if (i + 1 >= argc)
                return usage(a + ": missing value");
            flags[a].push_back(argv[i + 1]);
        }
        const auto flag = [&](const std::string& name, const std::string& fallback) {
            const auto it = flags.find(name);
            return it == flags.end() ? fallback : it->second.back();
        };
        if (sub == "matrix") {
            fidelity::MatrixOptions o;
            o.models = split(flag("--models", "qwen2.5-0.5b,qwen2.5-1.5b,qwen2.5-3b,qwen2.5-7b,qwen2.5-14b"));
            for (const std::string& s : split(flag("--seqs", "1024,2048,4096,8192")))
                o.seqs.push_back(positive("--seqs", s));
            o.gpu = flag("--gpu", o.gpu);
            if (flags.count("--host-ram-gib"))
                o.hostRamGiB = gibibytes("--host-ram-gib", flag("--host-ram-gib", ""));
            o.oomProofs = positive("--oom-proofs", flag("--oom-proofs", std::to_string(o.oomProofs)));
            o.warmup = positive("--warmup", flag("--warmup", std::to_string(o.warmup)));
            o.steps = positive("--steps", flag("--steps", std::to_string(o.steps)));
            o.offloadWarmup = positive("--offload-warmup", flag("--offload-warmup", std::to_string(o.offloadWarmup)));
            o.offloadSteps = positive("--offload-steps", flag("--offload-steps", std::to_string(o.offloadSteps)));
            for (const auto& [k, v] : flags)
                if (k != "--models" && k != "--seqs" && k != "--gpu" && k != "--host-ram-gib" && k != "--oom-proofs"
                    && k != "--warmup" && k != "--steps" && k != "--offload-warmup" && k != "--offload-steps")
                    return usage(k + ": unknown flag for matrix");
            const auto cells = fidelity::planMatrix(catalog, o);
            fidelity::writeMatrix(std::cout, cells);
            double seconds = 0;
            int run = 0;
            for (const auto& c : cells)
                if (c.run) {
                    seconds += c.estimatedSeconds;
                    ++run;
                }
            std::fprintf(stderr, "%zu cells, %d to run, estimated %.0f s\n", cells.size(), run, seconds);
            return 0;
        }
        if (sub == "analyze") {
            for (const auto& [k, v] : flags)
                if (k != "--results" && k != "--memory-only-results" && k != "--matrix" && k != "--gpu"
                    && k != "--host-ram-gib" && k != "--out" && k != "--command" && k != "--presets-fitted-on"
                    && k != "--probe" && k != "--rehearsal-results" && k != "--rehearsal-gpu")
                    return usage(k + ": unknown flag for analyze");
            for (const auto& [k, v] : flags)
                if (v.size() > 1 && k != "--results" && k != "--memory-only-results" && k != "--rehearsal-results")
                    return usage(k + ": given more than once");
            if (!flags.count("--results"))
                return usage("--results: missing (at least one batch measured for tokens/s)");
            const std::string gpuId = flag("--gpu", "h200");
            const GpuSpec* gpu = catalog.findGpu(gpuId);
            if (!gpu)
                return usage("--gpu: unknown preset " + gpuId);
            std::vector<fidelity::Cell> matrix;
            if (flags.count("--matrix"))
                matrix = fidelity::readMatrix(flag("--matrix", ""));
            fidelity::ReportOptions r;
            if (flags.count("--host-ram-gib"))
                r.hostRamGiB = gibibytes("--host-ram-gib", flag("--host-ram-gib", ""));
            // Rehearsed ranks may come from another card than the world-1 batches: they are predicted
            // on its preset.
            const std::string rehearsalGpuId = flag("--rehearsal-gpu", gpuId);
            const GpuSpec* rehearsalGpu = catalog.findGpu(rehearsalGpuId);
            if (!rehearsalGpu)
                return usage("--rehearsal-gpu: unknown preset " + rehearsalGpuId);
            std::vector<fidelity::MeasuredCell> cells;
            for (const std::string name : { "--results", "--memory-only-results", "--rehearsal-results" }) {
                const bool memoryOnly = name == "--memory-only-results";
                const bool rehearsals = name == "--rehearsal-results";
                for (const std::string& dir : flags[name]) {
                    if (!std::filesystem::is_directory(dir))
                        return usage(name + ": " + dir + " is not a directory");
                    auto batch = fidelity::readResults(dir, rehearsals ? *rehearsalGpu : *gpu);
                    if (batch.empty())
                        return usage(name + ": no runner output (*.jsonl with a start event) under " + dir);
                    for (auto& c : batch) {
                        if (rehearsals && c.rehearsedWorld == 0)
                            return usage(name + ": " + c.file.string()
                                         + " is no rehearsal (no rehearse_world in its start event); give its "
                                           "folder as --results");
                        c.batch = r.batches.size();
                        c.observation.input.cluster.hostRamGiB = r.hostRamGiB;
                        cells.push_back(std::move(c));
                    }
                    fidelity::Batch b { dir, memoryOnly, fidelity::runnerCommits(dir), fidelity::readBatchProbe(dir),
                                        fidelity::runnerSha256(dir) };
                    b.rehearsals = rehearsals;
                    r.batches.push_back(std::move(b));
                }
            }
            if (flags.count("--probe")) {
                const std::string dir = flag("--probe", "");
                if (!std::filesystem::is_directory(dir))
                    return usage("--probe: " + dir + " is not a directory");
                auto probe = fidelity::readBatchProbe(dir);
                if (!probe)
                    return usage("--probe: " + dir + " has no probe.jsonl");
                r.probeCall = fidelity::Batch { dir, false, fidelity::runnerCommits(dir), std::move(probe),
                                                fidelity::runnerSha256(dir) };
            }
            const std::string prefix = flag("--out", "fidelity");
            r.markdown = prefix + ".md";
            r.json = prefix + ".json";
            r.command = flag("--command", "");
            r.presetsFittedOn = flag("--presets-fitted-on", "");
            r.gpuId = gpuId;
            r.gpu = *gpu;
            if (flags.count("--rehearsal-gpu"))
                r.rehearsalGpuId = rehearsalGpuId;
            std::vector<bool> timed;
            for (const fidelity::Batch& b : r.batches)
                timed.push_back(!b.memoryOnly);
            return fidelity::writeReport(fidelity::mergeRepeats(std::move(cells), timed), matrix, r);
        }
        if (sub == "published") {
            for (const auto& [k, v] : flags) {
                if (k != "--dir" && k != "--out" && k != "--command" && k != "--commit")
                    return usage(k + ": unknown flag for published");
                if (v.size() > 1)
                    return usage(k + ": given more than once");
            }
            const std::string prefix = flag("--out", std::string(SHARDWISE_SOURCE_DIR) + "/bench/results/published");
            fidelity::PublishedOptions o;
            o.dir = flag("--dir", std::string(SHARDWISE_SOURCE_DIR) + "/bench/published");
            o.markdown = prefix + ".md";
            o.json = prefix + ".json";
            o.command = flag("--command", "build/ci/bin/shardwise-bench-fidelity published");
            o.commit = flag("--commit", "");
            return fidelity::runPublished(o);
        }
        return usage("unknown subcommand '" + sub + "'");
    } catch (const SpecError& e) {
        return usage(e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "shardwise-bench-fidelity: %s\n", e.what());
        return 1;
    }
}
