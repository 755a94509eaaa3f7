#pragma once
// What quitting the app now would do to the runs of its queue: a local run is cancelled, a run on
// an SSH node goes on there (detached, re-attachable from the Runs page), queued runs never start.
// The main window asks before quitting when there is anything to say.

#include <QString>

namespace shardwise::gui {

class RunJob;

// One sentence per consequence; empty when nothing runs or waits in `job`.
QString quitConsequences(const RunJob& job);

} // namespace shardwise::gui
