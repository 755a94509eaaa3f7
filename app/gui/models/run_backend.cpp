#include "models/run_backend.hpp"

#include "models/display_format.hpp"

#include <QCoreApplication>

namespace shardwise::gui {

namespace {
struct BackendText {
    Q_DECLARE_TR_FUNCTIONS(BackendText)
};
} // namespace

QString backendIdText(RunBackend backend)
{
    const std::string_view id = backendId(backend);
    return QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
}

QString backendLabel(RunBackend backend)
{
    return backend == RunBackend::Torch ? BackendText::tr("PyTorch (shardwise-torch-runner)")
                                        : BackendText::tr("Native runner (shardwise-runner)");
}

QString backendToolTip(RunBackend backend)
{
    return backend == RunBackend::Torch
        ? BackendText::tr("The PyTorch harness: DDP for zero0 and fully_shard (FSDP2) for the fsdp2 strategies, on a "
                          "Transformers or plain PyTorch decoder. Needs python3 with torch where the ranks run.")
        : BackendText::tr("Shardwise's own LibTorch runner: every strategy, over flat per-unit buffers.");
}

bool backendRuns(RunBackend backend, Strategy strategy)
{
    return backend == RunBackend::Native || frameworkSupports(Framework::Fsdp2, strategy);
}

QString backendCannotRun(RunBackend backend, Strategy strategy)
{
    if (backendRuns(backend, strategy))
        return {};
    return BackendText::tr(
               "PyTorch cannot express %1: the torch backend runs zero0 (DDP), fsdp2_noreshard, fsdp2_reshard "
               "and fsdp2_reshard_offload (fully_shard).")
        .arg(strategyIdText(strategy));
}

std::optional<RunConfig> configForBackend(RunConfig config, RunBackend backend, QString* why)
{
    if (!backendRuns(backend, config.strategy)) {
        if (why)
            *why = backendCannotRun(backend, config.strategy);
        return std::nullopt;
    }
    config.backend = backend;
    if (backend == RunBackend::Torch)
        config.training.cudaGraphs = false;
    else
        config.torchCompile = false;
    return config;
}

} // namespace shardwise::gui
