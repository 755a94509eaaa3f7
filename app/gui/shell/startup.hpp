#pragma once
// Everything main() does, in the library so tests can drive it: application identity, high-DPI,
// translations, palette, the workspace, the main window, and `--screenshot DIR`.

#include <QString>

class QDir;

namespace shardwise::gui {

class MainWindow;

int runShardwise(int argc, char** argv);

// Renders every page of `window` to DIR/<page id>.png (and DIR/<page id>-dark.png when `dark`).
// Returns the files written; an error message names the file that could not be written.
QStringList renderScreenshots(MainWindow& window, const QDir& dir, const QString& suffix, QString* error);

} // namespace shardwise::gui
