#include "token_source.hpp"

#include "runner_options.hpp"

#include <fstream>

namespace shardwise::runner {

TokenSource::TokenSource(const RunConfig& c, int rank, int world, const at::Device& device)
{
    const int steps = c.warmupSteps + c.timedSteps;
    // Every optimizer step's sequences, its micro-batches one after another: N micro-batches of B
    // sequences read the same tokens as one micro-batch of N x B.
    const std::int64_t B = static_cast<std::int64_t>(c.training.microBatch) * c.training.gradAccumulation;
    const std::int64_t T = c.training.seqLen;
    const auto i64 = at::TensorOptions().dtype(at::kLong);
    if (c.tokenFile.empty()) {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(c.seed * 1000003ULL + static_cast<std::uint64_t>(rank) + 1);
        m_host = at::randint(c.model.vocab, { steps, B, T + 1 }, gen, i64);
    } else {
        std::ifstream in(c.tokenFile, std::ios::binary | std::ios::ate);
        if (!in)
            throw ConfigError("--tokens: cannot read '" + c.tokenFile + "'");
        const auto bytes = static_cast<std::int64_t>(in.tellg());
        const std::int64_t count = bytes / 4;
        if (count < T + 2)
            throw ConfigError("--tokens: '" + c.tokenFile + "' holds " + std::to_string(count)
                              + " tokens, fewer than one sequence of " + std::to_string(T + 1));
        auto all = at::empty({ count }, at::TensorOptions().dtype(at::kInt));
        in.seekg(0);
        in.read(reinterpret_cast<char*>(all.data_ptr<std::int32_t>()), count * 4);
        if (all.min().item<std::int64_t>() < 0 || all.max().item<std::int64_t>() >= c.model.vocab)
            throw ConfigError("--tokens: '" + c.tokenFile
                              + "' holds ids outside [0, vocab=" + std::to_string(c.model.vocab) + ")");
        m_host = at::empty({ steps, B, T + 1 }, i64);
        // Consecutive windows, rank-interleaved like a distributed sampler, wrapping at the end.
        const std::int64_t windows = (count - 1) / T;
        for (int s = 0; s < steps; ++s)
            for (std::int64_t b = 0; b < B; ++b) {
                const std::int64_t w = ((static_cast<std::int64_t>(s) * world + rank) * B + b) % windows;
                m_host[s][b].copy_(all.narrow(0, w * T, T + 1));
            }
    }
    m_device = at::empty({ B, T + 1 }, i64.device(device));
}

std::pair<at::Tensor, at::Tensor> TokenSource::batch(int step)
{
    m_device.copy_(m_host[step], /*non_blocking=*/false);
    const auto T = m_device.size(1) - 1;
    return { m_device.narrow(1, 0, T), m_device.narrow(1, 1, T) };
}

} // namespace shardwise::runner
