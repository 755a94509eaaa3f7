#pragma once
// The backend of a run as the desktop app says it: the native runner or the PyTorch harness. The
// short ids ("native", "torch") label series, legends, table cells and exports as the store and the
// CLI write them; the longer labels name the choice on forms. Which strategies the torch backend can
// run is core/spec's (frameworkSupports for fsdp2); this file only words it.

#include "shardwise/spec/specs.hpp"

#include <QString>

#include <optional>

namespace shardwise::gui {

QString backendIdText(RunBackend backend); // "native" | "torch"
QString backendLabel(RunBackend backend);  // "Native runner (shardwise-runner)" | "PyTorch (shardwise-torch-runner)"
QString backendToolTip(RunBackend backend);

// Whether `backend` can run `strategy`, and when not, why (one translated sentence; empty when it can).
bool backendRuns(RunBackend backend, Strategy strategy);
QString backendCannotRun(RunBackend backend, Strategy strategy);

// `config` as `backend` runs it (Validate's run matrix, a re-run): the backend set, CUDA graphs off for
// torch (it runs eager or compiled steps) and torch.compile off for native. nullopt, with `why` filled,
// when the backend cannot run the strategy at all.
std::optional<RunConfig> configForBackend(RunConfig config, RunBackend backend, QString* why = nullptr);

} // namespace shardwise::gui
