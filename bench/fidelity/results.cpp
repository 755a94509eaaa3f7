#include "fidelity.hpp"

#include "shardwise/protocol/events.hpp"
#include "shardwise/protocol/statistics.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>

namespace fidelity {

using namespace shardwise;

namespace {

double d(std::int64_t x)
{
    return static_cast<double>(x);
}

// What one runner output file says about its cell, and which rank of the run wrote it.
struct RankFile {
    MeasuredCell cell;
    int rank = 0;
    double errorTime = 0; // unix seconds of the first error event: the first failure across ranks leads
};

std::optional<RankFile> readCell(const std::filesystem::path& file, const GpuSpec& gpu)
{
    std::ifstream in(file);
    RankFile rankFile;
    MeasuredCell& cell = rankFile.cell;
    cell.file = file;
    bool started = false;
    std::string line;
    while (std::getline(in, line)) {
        std::optional<protocol::Event> event;
        try {
            event = protocol::tryParseEvent(line);
        } catch (const protocol::ProtocolError& e) {
            std::fprintf(stderr, "%s: skipping a malformed event: %s\n", file.c_str(), e.what());
            continue;
        }
        if (!event)
            continue;
        if (const auto* start = std::get_if<protocol::StartEvent>(&*event)) {
            started = true;
            const RunConfig& rc = start->config;
            calibrate::Observation& o = cell.observation;
            o.input.model = rc.model;
            o.input.gpu = gpu;
            o.input.cluster.gpusPerNode = rc.worldSize;
            o.input.cluster.nodes = 1;
            o.input.training = rc.training;
            o.input.training.expandableSegments = start->allocator.expandableSegments;
            o.input.knobs = rc.knobs;
            applyRunnerBehaviour(o.input, start->versions);
            applyRunBackend(o.input, rc);
            // A rehearsed rank of world N (--rehearse-world) is predicted as one rank of N GPUs; its
            // memory is that rank's, and its steps moved no data, so it has no tokens/s.
            if (rc.rehearsal()) {
                if (!applyRehearsal(o.input, rc)) {
                    std::fprintf(stderr, "%s: world %d cannot be planned, skipped\n", file.c_str(), rc.rehearseWorld);
                    return std::nullopt;
                }
                o.rehearsedWorld = rc.rehearseWorld;
                cell.rehearsedWorld = rc.rehearseWorld;
            }
            o.strategy = rc.strategy;
            cell.modelId = rc.model.id;
            cell.seq = rc.training.seqLen;
            cell.world = std::max(1, start->world);
            rankFile.rank = start->rank;
        } else if (const auto* step = std::get_if<protocol::StepEvent>(&*event)) {
            if (step->timed && step->rank == 0)
                cell.timedStepS.push_back(step->stepTimeS);
        } else if (const auto* summary = std::get_if<protocol::SummaryEvent>(&*event)) {
            cell.completed = true;
            calibrate::Observation& o = cell.observation;
            if (!o.rehearsal())
                o.tokensPerS = summary->tokensPerS;
            const protocol::MemorySample& m = summary->memory;
            if (m.peakAllocated > 0)
                o.peakAllocatedBytes = d(m.peakAllocated);
            if (m.peakReserved > 0)
                o.peakReservedBytes = d(m.peakReserved);
            if (m.deviceTotal > 0 && m.deviceFree >= 0 && m.reserved > 0) {
                const double outside = d(m.deviceTotal) - d(m.deviceFree) - d(m.reserved);
                if (outside > 0)
                    o.runtimeContextBytes = outside;
            }
        } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&*event)) {
            if (cell.error.empty()) {
                cell.error = std::string(protocol::errorKindId(error->kind)) + ": " + error->message;
                rankFile.errorTime = error->time;
            }
            if (error->kind == protocol::ErrorKind::Oom)
                cell.observation.oom = true;
        }
    }
    if (!started) {
        std::fprintf(stderr, "%s: no start event, skipped\n", file.c_str());
        return std::nullopt;
    }
    cell.observation.label = cell.modelId + " " + std::string(strategyId(cell.observation.strategy)) + " seq "
        + std::to_string(cell.seq) + (cell.world > 1 ? " W=" + std::to_string(cell.world) : std::string())
        + (cell.rehearsedWorld > 0 ? " rehearsing W=" + std::to_string(cell.rehearsedWorld) : std::string());
    return rankFile;
}

// The files of one multi-rank run share their folder and name but for the rank number at the end.
std::string runKey(const RankFile& f)
{
    std::string stem = f.cell.file.stem().string();
    const std::string rank = std::to_string(f.rank);
    if (stem.size() > rank.size() && stem.compare(stem.size() - rank.size(), rank.size(), rank) == 0)
        stem.resize(stem.size() - rank.size());
    return (f.cell.file.parent_path() / stem).string() + "\t" + std::to_string(f.cell.world);
}

// One cell from the rank files of a run: rank 0's configuration, tokens/s (every rank reports the
// whole world's) and timed steps; the largest peak of any rank (the one that runs out of memory
// first); the earliest error of any rank (the root cause, later ones are its echoes). The run
// completed only if every rank's file is there with a summary.
MeasuredCell mergeRanks(std::vector<RankFile> files)
{
    std::sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
    MeasuredCell cell = files.front().cell;
    cell.ranksRead = static_cast<int>(files.size());
    const auto largest = [](std::optional<double>& into, const std::optional<double>& x) {
        if (x && (!into || *x > *into))
            into = x;
    };
    const RankFile* firstError = nullptr;
    bool everyRankCompleted = true;
    for (const RankFile& f : files) {
        const calibrate::Observation& o = f.cell.observation;
        largest(cell.observation.peakAllocatedBytes, o.peakAllocatedBytes);
        largest(cell.observation.peakReservedBytes, o.peakReservedBytes);
        largest(cell.observation.runtimeContextBytes, o.runtimeContextBytes);
        cell.observation.oom = cell.observation.oom || o.oom;
        everyRankCompleted = everyRankCompleted && f.cell.completed;
        if (!f.cell.error.empty() && (!firstError || f.errorTime < firstError->errorTime))
            firstError = &f;
    }
    if (files.front().rank != 0)
        cell.observation.tokensPerS.reset();
    cell.completed = everyRankCompleted && files.front().rank == 0 && cell.ranksRead == cell.world;
    if (!cell.completed)
        cell.observation.tokensPerS.reset();
    if (firstError)
        cell.error = "rank " + std::to_string(firstError->rank) + " " + firstError->cell.error;
    else if (cell.ranksRead != cell.world)
        cell.error = "only " + std::to_string(cell.ranksRead) + " of " + std::to_string(cell.world) + " rank files";
    return cell;
}

} // namespace

namespace {

// device.txt's lines, trailing white space cut.
std::vector<std::string> deviceTxtLines(const std::filesystem::path& dir)
{
    std::ifstream in(dir / "device.txt");
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

bool isHex(const std::string& s, std::size_t digits)
{
    return s.size() == digits
        && std::all_of(s.begin(), s.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; });
}

} // namespace

std::string runnerCommits(const std::filesystem::path& dir)
{
    // A bare 40-hex line is the checkout's HEAD (git rev-parse, which a copied tree may report stale);
    // "runner tree <sha>" names the tree the runner was built from and wins when present.
    std::vector<std::string> heads;
    std::vector<std::string> trees;
    const std::string treePrefix = "runner tree ";
    for (std::string line : deviceTxtLines(dir)) {
        auto& into = line.rfind(treePrefix, 0) == 0 ? trees : heads;
        if (&into == &trees)
            line.erase(0, treePrefix.size());
        if (isHex(line, 40) && std::find(into.begin(), into.end(), line) == into.end())
            into.push_back(line);
    }
    const auto& commits = trees.empty() ? heads : trees;
    std::string joined;
    for (const std::string& c : commits)
        joined += (joined.empty() ? "" : ", ") + c;
    return joined;
}

std::string runnerSha256(const std::filesystem::path& dir)
{
    const std::string prefix = "runner sha256 ";
    for (const std::string& line : deviceTxtLines(dir))
        if (line.rfind(prefix, 0) == 0 && isHex(line.substr(prefix.size()), 64))
            return line.substr(prefix.size());
    return {};
}

std::vector<MeasuredCell> readResults(const std::filesystem::path& dir, const GpuSpec& gpu)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<MeasuredCell> cells;
    std::map<std::string, std::vector<RankFile>> runs; // world > 1, by runKey, in file order of their first rank
    std::vector<std::string> runOrder;
    for (const auto& f : files) {
        auto c = readCell(f, gpu);
        if (!c)
            continue;
        if (c->cell.world == 1) {
            cells.push_back(std::move(c->cell));
            continue;
        }
        const std::string key = runKey(*c);
        if (!runs.count(key))
            runOrder.push_back(key);
        runs[key].push_back(std::move(*c));
    }
    for (const std::string& key : runOrder)
        cells.push_back(mergeRanks(std::move(runs[key])));
    return cells;
}

namespace {

std::optional<double> medianOfPresent(const std::vector<const MeasuredCell*>& group,
                                      std::optional<double> shardwise::calibrate::Observation::*field)
{
    std::vector<double> v;
    for (const MeasuredCell* c : group)
        if (c->observation.*field)
            v.push_back(*(c->observation.*field));
    return v.empty() ? std::nullopt : std::optional<double>(shardwise::stats::median(v));
}

} // namespace

std::vector<MeasuredCell> mergeRepeats(std::vector<MeasuredCell> cells, const std::vector<bool>& timed)
{
    const auto repeatable = [&](const MeasuredCell& c) {
        return c.batch < timed.size() && timed[c.batch] && c.completed && c.observation.tokensPerS
            && c.ranksRead >= c.world;
    };
    // Repeats are the same work: the same model, strategy, sequence and ranks, and the same precision
    // and framework target (a batch may mix precisions and backends).
    const auto same = [](const MeasuredCell& a, const MeasuredCell& b) {
        const EstimateInput& x = a.observation.input;
        const EstimateInput& y = b.observation.input;
        return a.modelId == b.modelId && a.observation.strategy == b.observation.strategy && a.seq == b.seq
            && a.world == b.world && x.training.precision == y.training.precision
            && x.framework.framework == y.framework.framework && x.framework.compiled == y.framework.compiled;
    };
    std::vector<MeasuredCell> out;
    std::vector<bool> taken(cells.size(), false);
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (taken[i])
            continue;
        if (!repeatable(cells[i])) {
            out.push_back(std::move(cells[i]));
            continue;
        }
        std::vector<const MeasuredCell*> group { &cells[i] };
        for (std::size_t j = i + 1; j < cells.size(); ++j)
            if (!taken[j] && repeatable(cells[j]) && same(cells[i], cells[j])) {
                group.push_back(&cells[j]);
                taken[j] = true;
            }
        MeasuredCell merged = cells[i];
        if (group.size() > 1) {
            for (const MeasuredCell* c : group)
                merged.repeatTokensPerS.push_back(*c->observation.tokensPerS);
            using Obs = shardwise::calibrate::Observation;
            merged.observation.tokensPerS = shardwise::stats::median(merged.repeatTokensPerS);
            merged.observation.peakAllocatedBytes = medianOfPresent(group, &Obs::peakAllocatedBytes);
            merged.observation.peakReservedBytes = medianOfPresent(group, &Obs::peakReservedBytes);
            merged.observation.runtimeContextBytes = medianOfPresent(group, &Obs::runtimeContextBytes);
            merged.timedStepS.clear();
            for (const MeasuredCell* c : group)
                merged.timedStepS.insert(merged.timedStepS.end(), c->timedStepS.begin(), c->timedStepS.end());
        }
        out.push_back(std::move(merged));
    }
    return out;
}

} // namespace fidelity
