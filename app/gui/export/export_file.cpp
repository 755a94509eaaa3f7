#include "export/export_file.hpp"

#include "shardwise/spec/file_output.hpp"

#include <QFile>

#include <string_view>

namespace shardwise::gui {

QString writeExportFile(const QString& path, const QByteArray& bytes)
{
    const FileWriteResult r
        = writeFileSafely(std::filesystem::path(QFile::encodeName(path).toStdString()),
                          std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    return QString::fromStdString(r.error);
}

} // namespace shardwise::gui
