#pragma once
// The core's messages (shardwise/spec/message.hpp) in the user's language: each id maps to a
// translated template (core_message_table.cpp) whose %1 .. placeholders take the arguments, numbers
// in the user's locale with display_format's units, nested clauses translated in place.

#include "shardwise/spec/message.hpp"

#include <QString>
#include <QStringList>

namespace shardwise::gui {

// The translated sentence. An id without a template falls back to the core's English.
QString coreMessageText(const Message& m);

// The ids the GUI has a template for, and each one's untranslated (English) template; for a plural
// template the form with %n.
QStringList coreMessageIds();
QString coreMessageSource(const QString& id);

} // namespace shardwise::gui
