// Times makePlan (validation, all eight estimates, the decision, its reasons and, where nothing fits,
// the remedy searches) over one model's grid of micro-batches, sequence lengths and GPU counts, and
// in the same run, interleaved, reference::makePlan (the straightforward paths, which return the
// same plans) as the reference the speed-up is stated against: the ratio holds on a loaded machine
// where absolute times drift. Not a test: run by hand, results recorded in bench/results/planner.md.
#include "shardwise/plan/plan.hpp"
#include "shardwise/plan/reference_plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace shardwise;

namespace {

// World size n as nodes x GPUs per node with at most 8 GPUs per node (the largest such divisor).
ClusterSpec clusterFor(int n, Interconnect link)
{
    ClusterSpec c;
    c.intraNode = link;
    c.gpusPerNode = 1;
    for (int g = std::min(n, 8); g >= 1; --g)
        if (n % g == 0) {
            c.gpusPerNode = g;
            break;
        }
    c.nodes = n / c.gpusPerNode;
    return c;
}

// CPU time of this process: the build machine is shared, so wall time also counts other jobs' slices.
double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct GridResult {
    double seconds = 0;    // wall
    double cpuSeconds = 0; // this process's CPU time
    std::array<int, 4> byStep {};
    long remedies = 0;
};

using Planner = Plan (*)(const EstimateInput&, const Calibration&);

GridResult planGrid(Planner plan, EstimateInput in, const std::vector<int>& microBatches, const std::vector<int>& seqs,
                    int maxGpus, Interconnect link)
{
    GridResult r;
    const auto start = std::chrono::steady_clock::now();
    const double cpuStart = cpuSeconds();
    for (int mb : microBatches)
        for (int seq : seqs)
            for (int n = 1; n <= maxGpus; ++n) {
                in.training.microBatch = mb;
                in.training.seqLen = seq;
                in.cluster = clusterFor(n, link);
                const Plan p = plan(in, Calibration {});
                ++r.byStep[static_cast<std::size_t>(p.recommendation.step)];
                r.remedies += static_cast<long>(p.recommendation.remedies.size());
            }
    r.cpuSeconds = cpuSeconds() - cpuStart;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

int usage(const char* why)
{
    std::fprintf(stderr,
                 "shardwise-bench-planner: %s\nusage: shardwise-bench-planner [--model PRESET] [--gpu PRESET] "
                 "[--interconnect nvlink|pcie] [--repetitions N]\n",
                 why);
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    std::string model = "qwen2.5-7b";
    std::string gpu = "h100-80gb";
    std::string link = "nvlink";
    int repetitions = 21;
    if (argc == 2 && std::string(argv[1]) == "--version") {
        std::printf("shardwise-bench-planner %s\n", SHARDWISE_VERSION);
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            return usage((a + ": missing value").c_str());
        if (a == "--model")
            model = argv[++i];
        else if (a == "--gpu")
            gpu = argv[++i];
        else if (a == "--interconnect")
            link = argv[++i];
        else if (a == "--repetitions")
            repetitions = std::atoi(argv[++i]);
        else
            return usage((a + ": unknown option").c_str());
    }
    if (repetitions < 1)
        return usage("--repetitions: must be >= 1");

    EstimateInput in;
    try {
        const char* env = std::getenv("SHARDWISE_PRESETS");
        const PresetCatalog catalog = PresetCatalog::load(env ? env : SHARDWISE_SOURCE_PRESET_DIR);
        const ModelSpec* m = catalog.findModel(model);
        const GpuSpec* g = catalog.findGpu(gpu);
        if (!m)
            return usage(("--model: unknown preset " + model).c_str());
        if (!g)
            return usage(("--gpu: unknown preset " + gpu).c_str());
        in.model = *m;
        in.gpu = *g;
        in.cluster.intraNode = parseInterconnect(link, "--interconnect");
    } catch (const SpecError& e) {
        return usage(e.what());
    }

    const std::vector<int> microBatches { 1, 2, 4, 8, 16, 32, 64 };
    const std::vector<int> seqs { 512, 1024, 2048, 4096, 8192, 16384, 32768 };
    const int maxGpus = 64;
    const long cells = static_cast<long>(microBatches.size() * seqs.size()) * maxGpus;

    struct Series {
        std::vector<double> wall;
        std::vector<double> cpu;
        GridResult last;
        double median(std::vector<double>& v) const
        {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        }
    };
    Series fast;
    Series reference;
    const auto run = [&](Planner plan, Series& into) {
        into.last = planGrid(plan, in, microBatches, seqs, maxGpus, in.cluster.intraNode);
        into.wall.push_back(into.last.seconds);
        into.cpu.push_back(into.last.cpuSeconds);
    };
    // Warm caches and the preset tables.
    planGrid(&makePlan, in, microBatches, seqs, maxGpus, in.cluster.intraNode);
    planGrid(&reference::makePlan, in, microBatches, seqs, maxGpus, in.cluster.intraNode);
    for (int r = 0; r < repetitions; ++r) {
        run(&makePlan, fast);
        run(&reference::makePlan, reference);
    }
    const double median = fast.median(fast.wall);
    const double cpuMedian = fast.median(fast.cpu);
    const double refMedian = reference.median(reference.wall);
    const double refCpuMedian = reference.median(reference.cpu);

    std::printf("planner benchmark: model %s, GPU %s, interconnect %s\n", in.model.id.c_str(), in.gpu.id.c_str(),
                link.c_str());
    std::printf("grid: micro-batch {1,2,4,...,64} (7) x sequence {512,1024,...,32768} (7) x GPUs 1..64 (64, as nodes "
                "of at most 8) = %ld cells, 8 strategies each = %ld estimates (plus remedy searches)\n",
                cells, cells * 8);
    const GridResult& last = fast.last;
    std::printf("outcomes per grid: step 1: %d, step 2: %d, step 3: %d, nothing fits: %d (%ld remedies found)\n",
                last.byStep[1], last.byStep[2], last.byStep[3], last.byStep[0], last.remedies);
    if (last.byStep != reference.last.byStep || last.remedies != reference.last.remedies) {
        std::fprintf(stderr, "makePlan and reference::makePlan disagree on this grid's outcomes\n");
        return 1;
    }
    std::printf("makePlan, wall time per grid over %d repetitions: median %.2f ms, min %.2f ms, max %.2f ms\n",
                repetitions, median * 1e3, fast.wall.front() * 1e3, fast.wall.back() * 1e3);
    std::printf(
        "makePlan, CPU time per grid over %d repetitions: median %.2f ms, min %.2f ms, max %.2f ms (%.2f us per "
        "cell)\n",
        repetitions, cpuMedian * 1e3, fast.cpu.front() * 1e3, fast.cpu.back() * 1e3,
        cpuMedian * 1e6 / static_cast<double>(cells));
    std::printf("reference::makePlan (straightforward paths), same run: wall median %.2f ms, CPU median %.2f ms\n",
                refMedian * 1e3, refCpuMedian * 1e3);
    std::printf("speed-up against the reference: wall %.2fx, CPU %.2fx\n", refMedian / median,
                refCpuMedian / cpuMedian);
    std::printf("budget 20 ms per grid (single thread): wall median %s, CPU median %s\n",
                median < 0.020 ? "met" : "NOT met", cpuMedian < 0.020 ? "met" : "NOT met");
    return 0;
}
