#include "shell/translations.hpp"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace shardwise::gui {

QStringList shippedLanguages()
{
    return { QStringLiteral("de"), QStringLiteral("ja") };
}

QStringList installTranslations(QCoreApplication& app, const QLocale& locale)
{
    QStringList loaded;
    const QString language = locale.name().section(QLatin1Char('_'), 0, 0);
    if (!shippedLanguages().contains(language)) {
        // The app shows its English sources; their counted strings take their forms from the English
        // plural catalogue ("%n run(s)" -> "1 run", "3 runs").
        auto* plurals = new QTranslator(&app);
        if (plurals->load(QStringLiteral(":/i18n/shardwise_en.qm"))) {
            QCoreApplication::installTranslator(plurals);
            loaded << QStringLiteral("shardwise_en");
        } else {
            delete plurals;
        }
        return loaded;
    }

    // qt_<lang>.qm is a meta catalogue that pulls in qtbase_<lang>.qm and friends from the same folder.
    auto* qtTranslator = new QTranslator(&app);
    if (qtTranslator->load(locale, QStringLiteral("qt"), QStringLiteral("_"),
                           QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qtTranslator);
        loaded << QStringLiteral("qt_") + language;
    } else {
        delete qtTranslator;
    }

    auto* ownTranslator = new QTranslator(&app);
    if (ownTranslator->load(locale, QStringLiteral("shardwise"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        QCoreApplication::installTranslator(ownTranslator);
        loaded << QStringLiteral("shardwise_") + language;
    } else {
        delete ownTranslator;
    }
    return loaded;
}

} // namespace shardwise::gui
