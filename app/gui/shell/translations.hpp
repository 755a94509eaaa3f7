#pragma once
// Loads Qt's own catalogue (qt_<lang>.qm from the Qt installation, for standard dialogs and
// shortcuts) and Shardwise's (compiled into the binary from translations/*.ts) for a locale.

#include <QLocale>
#include <QStringList>

class QCoreApplication;

namespace shardwise::gui {

// The languages Shardwise ships a complete translation for, besides English.
QStringList shippedLanguages();

// Installs both catalogues on `app` for `locale`; a locale without a shipped translation shows the
// English sources and gets only the English plural forms ("shardwise_en"). Returns the catalogues
// that loaded (e.g. "qt_de", "shardwise_de") so the caller can report a missing one.
QStringList installTranslations(QCoreApplication& app, const QLocale& locale);

} // namespace shardwise::gui
