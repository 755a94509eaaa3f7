#pragma once
// Every file the desktop app exports goes through core's writeFileSafely
// (shardwise/spec/file_output.hpp): a regular file is written aside and renamed over the target with
// its mode and owner kept, a character device or FIFO is written in place, and a symbolic link to
// anything else is refused.

#include <QByteArray>
#include <QString>

namespace shardwise::gui {

// Empty on success, else why the file was not written (the previous one is kept).
QString writeExportFile(const QString& path, const QByteArray& bytes);

} // namespace shardwise::gui
