#include "export/csv_cells.hpp"

#include "shardwise/spec/quote.hpp"

#include <QLocale>
#include <QTimeZone>

#include <cmath>

namespace shardwise::gui::csv {

QString text(const QString& value)
{
    return QString::fromStdString(shardwise::csvText(value.toStdString()));
}

QString real(std::optional<double> value)
{
    if (!value || !std::isfinite(*value))
        return {};
    // QString::number always uses the C locale: '.' and no group separators, whatever the user's locale.
    return QString::number(*value, 'g', QLocale::FloatingPointShortest);
}

QString integer(std::optional<qint64> value)
{
    return value ? QString::number(*value) : QString();
}

QString bytesFromGiB(std::optional<double> gib)
{
    if (!gib || !std::isfinite(*gib))
        return {};
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    return QString::number(std::llround(*gib * kGiB));
}

QString boolean(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

QString timestamp(const QDateTime& time)
{
    if (!time.isValid())
        return {};
    return time.toTimeZone(QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")) + QLatin1Char('Z');
}

QString commentLines(const QString& title, const QString& description)
{
    QString out;
    const QString caption = description.isEmpty() ? title : title + QLatin1Char('\n') + description;
    for (const QString& line : caption.split(QLatin1Char('\n')))
        out += QStringLiteral("# ") + line + QLatin1String("\r\n");
    return out;
}

QString row(const QStringList& cells)
{
    return cells.join(QLatin1Char(',')) + QLatin1String("\r\n");
}

} // namespace shardwise::gui::csv
