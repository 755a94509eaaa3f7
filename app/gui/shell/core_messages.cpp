#include "shell/core_messages.hpp"

#include "models/display_format.hpp"
#include "shell/core_message_table.hpp"

#include <QCoreApplication>
#include <QLocale>

namespace shardwise::gui {

namespace {

constexpr const char* kContext = "CoreMessage";

const CoreMessageTemplate* findTemplate(std::string_view id)
{
    for (const CoreMessageTemplate& t : coreMessageTemplates())
        if (id == t.id)
            return &t;
    return nullptr;
}

QString number(double value, int decimals)
{
    return QLocale().toString(value, 'f', decimals);
}

QString argText(const MessageArg& a)
{
    switch (a.kind) {
    case MessageArgKind::Name:
        return QString::fromStdString(a.text);
    case MessageArgKind::Integer:
        return QLocale().toString(static_cast<qlonglong>(a.value));
    case MessageArgKind::Number:
        return number(a.value, a.decimals);
    case MessageArgKind::GiB:
        return formatGiB(a.value);
    case MessageArgKind::TokensPerS:
        return formatTokensPerS(a.value);
    case MessageArgKind::Percent:
        return QCoreApplication::translate("DisplayFormat", "%1 %").arg(number(a.value, a.decimals));
    case MessageArgKind::Seconds:
        return formatSeconds(a.value);
    case MessageArgKind::Milliseconds:
        return formatSeconds(a.value / 1000.0);
    case MessageArgKind::Ratio:
        return QCoreApplication::translate("CoreMessage", "%1x").arg(number(a.value, a.decimals));
    case MessageArgKind::GBps:
        return QCoreApplication::translate("CoreMessage", "%1 GB/s").arg(number(a.value, a.decimals));
    case MessageArgKind::Bytes: {
        constexpr double kKiB = 1024.0;
        if (a.value >= kKiB * kKiB * kKiB)
            return QCoreApplication::translate("DisplayFormat", "%1 GiB")
                .arg(number(a.value / (kKiB * kKiB * kKiB), 2));
        if (a.value >= kKiB * kKiB)
            return QCoreApplication::translate("CoreMessage", "%1 MiB").arg(number(a.value / (kKiB * kKiB), 2));
        if (a.value >= kKiB)
            return QCoreApplication::translate("CoreMessage", "%1 KiB").arg(number(a.value / kKiB, 2));
        return QCoreApplication::translate("CoreMessage", "%1 B").arg(number(a.value, 0));
    }
    case MessageArgKind::StrategySummary: {
        const auto s = strategyFromId(a.text);
        return s ? strategySummary(*s) : QString::fromStdString(a.text);
    }
    case MessageArgKind::Nested:
        return a.nested.empty() ? QString() : coreMessageText(a.nested.front());
    }
    return {};
}

// %1 .. %99 replaced in one pass, so an argument that itself contains "%2" stays as it is.
QString fill(const QString& templ, const QStringList& args)
{
    QString out;
    out.reserve(templ.size() + 16 * args.size());
    const auto digit = [&templ](qsizetype i) {
        return i < templ.size() && templ[i] >= QLatin1Char('0') && templ[i] <= QLatin1Char('9');
    };
    for (qsizetype i = 0; i < templ.size(); ++i) {
        if (templ[i] == QLatin1Char('%') && digit(i + 1) && templ[i + 1] != QLatin1Char('0')) {
            qsizetype n = templ[i + 1].digitValue();
            qsizetype used = 1;
            if (digit(i + 2) && n * 10 + templ[i + 2].digitValue() <= args.size()) {
                n = n * 10 + templ[i + 2].digitValue();
                used = 2;
            }
            if (n <= args.size()) {
                out += args[n - 1];
                i += used;
                continue;
            }
        }
        out += templ[i];
    }
    return out;
}

} // namespace

QString coreMessageText(const Message& m)
{
    const CoreMessageTemplate* t = findTemplate(m.id);
    if (!t)
        return QString::fromStdString(renderEnglish(m));
    QStringList args;
    args.reserve(static_cast<qsizetype>(m.args.size()));
    for (const MessageArg& a : m.args)
        args << argText(a);
    if (!t->plural)
        return fill(QCoreApplication::translate(kContext, t->source), args);
    const MessageTemplate* english = findMessageTemplate(m.id);
    const int countArg = english ? english->countArg : 0;
    const int n = countArg > 0 && countArg <= args.size()
        ? static_cast<int>(m.args[static_cast<std::size_t>(countArg - 1)].value)
        : 0;
    const QString translated = QCoreApplication::translate(kContext, t->source, nullptr, n);
    const QString untranslated = QString::fromUtf8(t->source).replace(QStringLiteral("%n"), QString::number(n));
    if (translated != untranslated || !english)
        return fill(translated, args);
    // No catalogue has this plural (English): the core's own singular and plural wording.
    const std::string_view form = n == 1 && !english->englishOne.empty() ? english->englishOne : english->english;
    return fill(QString::fromUtf8(form.data(), static_cast<qsizetype>(form.size())), args);
}

QStringList coreMessageIds()
{
    QStringList ids;
    for (const CoreMessageTemplate& t : coreMessageTemplates())
        ids << QString::fromUtf8(t.id);
    return ids;
}

QString coreMessageSource(const QString& id)
{
    const CoreMessageTemplate* t = findTemplate(id.toStdString());
    return t ? QString::fromUtf8(t->source) : QString();
}

} // namespace shardwise::gui
