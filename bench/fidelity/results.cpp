#include "fidelity.hpp"

#include "shardwise/protocol/events.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>

namespace fidelity {

using namespace shardwise;

namespace {

double d(std::int64_t x) { return static_cast<double>(x); }

// What one runner output file says about its cell.
std::optional<MeasuredCell> readCell(const std::filesystem::path& file, const GpuSpec& gpu)
{
    std::ifstream in(file);
    MeasuredCell cell;
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
            o.input.normInputsKept = start->versions.activations != protocol::kNormInputsRecomputed;
            o.strategy = rc.strategy;
            cell.modelId = rc.model.id;
            cell.seq = rc.training.seqLen;
        } else if (const auto* step = std::get_if<protocol::StepEvent>(&*event)) {
            if (step->timed && step->rank == 0)
                cell.timedStepS.push_back(step->stepTimeS);
        } else if (const auto* summary = std::get_if<protocol::SummaryEvent>(&*event)) {
            cell.completed = true;
            calibrate::Observation& o = cell.observation;
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
            if (cell.error.empty())
                cell.error = std::string(protocol::errorKindId(error->kind)) + ": " + error->message;
            if (error->kind == protocol::ErrorKind::Oom)
                cell.observation.oom = true;
        }
    }
    if (!started) {
        std::fprintf(stderr, "%s: no start event, skipped\n", file.c_str());
        return std::nullopt;
    }
    cell.observation.label = cell.modelId + " " + std::string(strategyId(cell.observation.strategy)) + " seq "
        + std::to_string(cell.seq);
    return cell;
}

} // namespace

std::string runnerCommits(const std::filesystem::path& dir)
{
    std::ifstream in(dir / "device.txt");
    std::vector<std::string> commits;
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
            line.pop_back();
        const bool hex = line.size() == 40 && std::all_of(line.begin(), line.end(), [](char ch) {
            return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
        });
        if (hex && std::find(commits.begin(), commits.end(), line) == commits.end())
            commits.push_back(line);
    }
    std::string joined;
    for (const std::string& c : commits)
        joined += (joined.empty() ? "" : ", ") + c;
    return joined;
}

std::vector<MeasuredCell> readResults(const std::filesystem::path& dir, const GpuSpec& gpu)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<MeasuredCell> cells;
    for (const auto& f : files)
        if (auto c = readCell(f, gpu))
            cells.push_back(std::move(*c));
    return cells;
}

} // namespace fidelity
