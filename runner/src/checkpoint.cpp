#include "checkpoint.hpp"

#include "runner_options.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>

namespace shardwise::runner {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarker = "COMPLETE";
// 2: q, k and v weights adjacent ahead of their biases in each layer unit.
constexpr int kFormatVersion = 2;

// Data reaches the disk before the rename makes the file visible under its final name.
void flushToDisk(const fs::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) {
        if (fd >= 0)
            ::close(fd);
        throw std::runtime_error("checkpoint: cannot flush " + path.string());
    }
    ::close(fd);
}

void writeAtomically(const fs::path& path, const std::function<void(std::ofstream&)>& write)
{
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error("checkpoint: cannot write " + tmp.string());
        write(out);
        out.flush();
        if (!out)
            throw std::runtime_error("checkpoint: writing " + tmp.string() + " failed (disk full?)");
    }
    flushToDisk(tmp);
    fs::rename(tmp, path);
}

std::string dtypeName(const at::Tensor& t)
{
    return std::string(c10::toString(t.scalar_type()));
}

} // namespace

Checkpoints::Checkpoints(fs::path dir, int rank, int world, std::string strategy, Communicator& comm, at::Device device)
    : m_dir(std::move(dir))
    , m_rank(rank)
    , m_world(world)
    , m_strategy(std::move(strategy))
    , m_comm(comm)
    , m_device(device)
{
}

fs::path Checkpoints::folder(int steps) const
{
    char name[32];
    std::snprintf(name, sizeof name, "step-%08d", steps);
    return m_dir / name;
}

std::optional<int> Checkpoints::newestComplete() const
{
    std::optional<int> newest;
    std::error_code ec;
    if (!fs::is_directory(m_dir, ec))
        return newest;
    for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
        const auto name = entry.path().filename().string();
        int steps = 0;
        char tail = 0;
        if (std::sscanf(name.c_str(), "step-%d%c", &steps, &tail) != 1)
            continue;
        if (!fs::exists(entry.path() / kMarker))
            continue; // cut short: never loaded
        if (!newest || steps > *newest)
            newest = steps;
    }
    return newest;
}

void Checkpoints::barrier()
{
    // Every rank reaches this point before any goes on (a one-element all-reduce, waited for).
    auto flag = at::ones({ 1 }, at::TensorOptions().dtype(at::kFloat).device(m_device));
    m_comm.computeWaits(m_comm.allReduceMean(flag));
    m_comm.synchronize();
}

double Checkpoints::save(int steps, ShardingEngine& engine)
{
    const auto begin = std::chrono::steady_clock::now();
    const auto dir = folder(steps);
    fs::create_directories(dir);
    auto tensors = engine.checkpointTensors();
    nlohmann::json header;
    header["format"] = "shardwise-checkpoint";
    header["version"] = kFormatVersion;
    header["rank"] = m_rank;
    header["world"] = m_world;
    header["strategy"] = m_strategy;
    header["steps"] = steps;
    auto& list = header["tensors"];
    list = nlohmann::json::array();
    for (const auto& [name, t] : tensors)
        list.push_back({ { "name", name }, { "dtype", dtypeName(t) }, { "numel", t.numel() } });
    writeAtomically(dir / ("rank-" + std::to_string(m_rank) + ".state"), [&](std::ofstream& out) {
        out << header.dump() << '\n';
        for (const auto& [name, t] : tensors) {
            const auto host = t.to(at::kCPU).contiguous();
            out.write(static_cast<const char*>(host.data_ptr()), static_cast<std::streamsize>(host.nbytes()));
        }
    });
    barrier();
    if (m_rank == 0)
        writeAtomically(dir / kMarker, [&](std::ofstream& out) {
            out << nlohmann::json { { "steps", steps }, { "world", m_world }, { "strategy", m_strategy } }.dump()
                << '\n';
        });
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

void Checkpoints::load(int steps, ShardingEngine& engine)
{
    const auto path = folder(steps) / ("rank-" + std::to_string(m_rank) + ".state");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ConfigError("checkpoint " + path.string() + ": missing for rank " + std::to_string(m_rank));
    std::string line;
    std::getline(in, line);
    nlohmann::json header = nlohmann::json::parse(line, nullptr, false);
    if (header.is_discarded() || header.value("format", "") != "shardwise-checkpoint")
        throw ConfigError("checkpoint " + path.string() + ": not a Shardwise checkpoint (damaged header)");
    if (header.value("version", 0) != kFormatVersion)
        throw ConfigError("checkpoint " + path.string() + ": format version "
                          + std::to_string(header.value("version", 0)) + ", this runner reads version "
                          + std::to_string(kFormatVersion) + " (the flat parameter layout changed)");
    if (header.value("world", -1) != m_world || header.value("strategy", "") != m_strategy
        || header.value("rank", -1) != m_rank)
        throw ConfigError("checkpoint " + path.string() + ": written by " + header.value("strategy", "?") + " at world "
                          + std::to_string(header.value("world", -1)) + ", this run is " + m_strategy + " at world "
                          + std::to_string(m_world));
    auto tensors = engine.checkpointTensors();
    const auto& list = header["tensors"];
    if (!list.is_array() || list.size() != tensors.size())
        throw ConfigError("checkpoint " + path.string() + ": holds a different set of tensors (another model?)");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const auto& [name, t] = tensors[i];
        if (list[i].value("name", "") != name || list[i].value("dtype", "") != dtypeName(t)
            || list[i].value("numel", std::int64_t { -1 }) != t.numel())
            throw ConfigError("checkpoint " + path.string() + ": tensor " + std::to_string(i) + " is " + list[i].dump()
                              + ", this run expects " + name + " (" + dtypeName(t) + ", " + std::to_string(t.numel())
                              + ")");
    }
    for (auto& [name, t] : tensors) {
        auto host = at::empty({ t.numel() }, at::TensorOptions().dtype(t.scalar_type()));
        in.read(static_cast<char*>(host.data_ptr()), static_cast<std::streamsize>(host.nbytes()));
        if (!in)
            throw ConfigError("checkpoint " + path.string() + ": truncated in " + name + " (damaged file)");
        t.copy_(host);
    }
    if (in.peek() != std::ifstream::traits_type::eof())
        throw ConfigError("checkpoint " + path.string() + ": longer than its header says (damaged file)");
    engine.restoredFromCheckpoint(steps);
}

} // namespace shardwise::runner
