#include "fidelity.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace fidelity {

using namespace shardwise;

ModelSpec loadModel(const PresetCatalog& catalog, const std::string& idOrPath)
{
    if (const ModelSpec* m = catalog.findModel(idOrPath))
        return *m;
    std::ifstream in(idOrPath);
    if (!in)
        throw SpecError("model", "'" + idOrPath + "' is neither a preset id nor a readable model JSON file");
    return modelFromJson(nlohmann::json::parse(in), "model");
}

namespace {

bool isOffload(Strategy s)
{
    return traits(s).offloadsOptimizer || traits(s).offloadsParameters;
}

// Process start, CUDA and NCCL initialisation and the weights drawn on the GPU: a guess of 5 s + 0.5 s
// per 1e9 parameters. Offload adds allocating and releasing its page-locked host state (8 bytes a
// parameter under pure bf16: master, two moments, gradient shard): 6.5 s per 1e9 parameters, read off
// the H200 cells of bench/results/fidelity-data-cbe1bee (wall time less the timed and warm-up steps:
// 6.1-7.3 s per 1e9 for 1.5B-7B, 46-55 s for 7B). For ordering and budgeting only (run.sh stops by
// the clock, and skips a cell whose estimate exceeds what is left of its budget).
double startupSeconds(const ModelSpec& m, Strategy s)
{
    const auto params = static_cast<double>(m.parameterCount());
    return 5.0 + params / 2e9 + (isOffload(s) ? 6.5 * params / 1e9 : 0.0);
}

} // namespace

std::vector<Cell> planMatrix(const PresetCatalog& catalog, const MatrixOptions& o)
{
    const GpuSpec* gpu = catalog.findGpu(o.gpu);
    if (!gpu)
        throw SpecError("--gpu", "unknown GPU preset '" + o.gpu + "'");
    std::vector<Cell> cells;
    std::vector<std::pair<double, std::size_t>> ooms; // shortfall, index
    for (const std::string& id : o.models) {
        EstimateInput in;
        in.model = loadModel(catalog, id);
        in.gpu = *gpu;
        in.cluster.gpusPerNode = 1;
        in.cluster.nodes = 1;
        in.cluster.hostRamGiB = o.hostRamGiB;
        in.training.microBatch = 1;
        for (int seq : o.seqs) {
            in.training.seqLen = seq;
            validate(in);
            for (const StrategyTraits& t : allStrategies()) {
                const Estimate e = estimate(in, t.strategy);
                Cell c;
                c.model = id;
                c.strategy = t.strategy;
                c.seq = seq;
                c.predictedFits = e.fits();
                c.predictedFitsHost = e.fitsHost;
                c.run = e.fits();
                c.warmup = isOffload(t.strategy) ? o.offloadWarmup : o.warmup;
                c.steps = isOffload(t.strategy) ? o.offloadSteps : o.steps;
                const double stepS = e.throughput.stepTimeS;
                if (c.steps * stepS < o.minTimedSeconds && stepS > 0.0) {
                    c.steps = std::min(o.maxShortSteps, static_cast<int>(std::ceil(o.minTimedSeconds / stepS)));
                    c.warmup = std::max(c.warmup, 5);
                }
                c.predictedPeakGiB = e.memory.nvidiaSmiBytes() / kGiB;
                // An OOM ends in the first step.
                c.estimatedSeconds = startupSeconds(in.model, t.strategy)
                    + (c.predictedFits ? c.warmup + c.steps : 1) * e.throughput.stepTimeS;
                // Only a device OOM is run as proof: it ends in the first step with the runner's error
                // event. A host shortfall would page-lock more than the machine can spare.
                if (!e.fitsDevice)
                    ooms.emplace_back(e.deviceShortfallBytes(), cells.size());
                cells.push_back(c);
            }
        }
    }
    // The predicted OOMs closest to fitting are the ones that test the verdict; those of models too
    // big to initialise quickly cost the budget more than they tell.
    std::sort(ooms.begin(), ooms.end());
    int proofs = 0;
    for (const auto& [shortfall, index] : ooms)
        if (proofs < o.oomProofs && cells[index].estimatedSeconds <= 40.0) {
            cells[index].run = true;
            ++proofs;
        }
    // Run order, so that a budget cut short still leaves every model measured: tier 1 the OOM
    // proofs (they end in the first step), tier 2 on-device strategies at the first sequence for
    // models that fit a GPU without offload, tier 3 the same at the other first sequences, tier 4
    // offload at the first sequence where its CPU optimizer step is short, tier 5 the rest.
    for (Cell& c : cells) {
        const bool offload = isOffload(c.strategy);
        const auto at = std::find(o.firstSeqs.begin(), o.firstSeqs.end(), c.seq);
        const bool firstSeq = at == o.firstSeqs.begin() && at != o.firstSeqs.end();
        if (!c.predictedFits)
            c.tier = 1;
        else if (!offload && firstSeq)
            c.tier = 2;
        else if (!offload && at != o.firstSeqs.end())
            c.tier = 3;
        else if (offload && firstSeq && c.estimatedSeconds < 20.0)
            c.tier = 4;
        else
            c.tier = 5;
    }
    std::stable_sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) { return a.tier < b.tier; });
    return cells;
}

void writeMatrix(std::ostream& out, const std::vector<Cell>& cells)
{
    out << "# model\tstrategy\tseq\tpredicted\trun\twarmup\tsteps\tpredicted_peak_gib\testimated_s\ttier\n";
    for (const Cell& c : cells) {
        char peak[32];
        char secs[32];
        std::snprintf(peak, sizeof peak, "%.2f", c.predictedPeakGiB);
        std::snprintf(secs, sizeof secs, "%.1f", c.estimatedSeconds);
        // host_oom: fits the GPU, but its page-locked host state does not fit the machine's RAM.
        const char* predicted = c.predictedFits ? "fits" : (c.predictedFitsHost ? "oom" : "host_oom");
        out << c.model << '\t' << strategyId(c.strategy) << '\t' << c.seq << '\t' << predicted << '\t'
            << (c.run ? "yes" : "no") << '\t' << c.warmup << '\t' << c.steps << '\t' << peak << '\t' << secs << '\t'
            << c.tier << '\n';
    }
}

std::vector<Cell> readMatrix(const std::filesystem::path& file)
{
    std::ifstream in(file);
    if (!in)
        throw SpecError("--matrix", "cannot read " + file.string());
    std::vector<Cell> cells;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        Cell c;
        std::string strategy;
        std::string predicted;
        std::string run;
        if (!(fields >> c.model >> strategy >> c.seq >> predicted >> run >> c.warmup >> c.steps >> c.predictedPeakGiB
              >> c.estimatedSeconds >> c.tier))
            throw SpecError(file.string() + ":" + std::to_string(number), "expected 10 tab-separated fields");
        c.strategy = parseStrategy(strategy, file.string() + ":" + std::to_string(number));
        if (predicted != "fits" && predicted != "oom" && predicted != "host_oom")
            throw SpecError(file.string() + ":" + std::to_string(number),
                            "predicted must be fits, oom or host_oom, got '" + predicted + "'");
        c.predictedFits = predicted == "fits";
        c.predictedFitsHost = predicted != "host_oom";
        c.run = run == "yes";
        cells.push_back(c);
    }
    return cells;
}

} // namespace fidelity
