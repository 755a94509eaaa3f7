#pragma once
// Light / dark palette. "System" keeps whatever the platform theme hands Qt (GNOME, KDE and Windows
// report their dark mode through it); Light and Dark force Fusion with a fixed palette, which is also
// how screenshots of both variants are made on a headless machine.

#include <QPalette>
#include <QString>

namespace shardwise::gui {

enum class ColorScheme { System, Light, Dark };

ColorScheme savedColorScheme();
void saveColorScheme(ColorScheme scheme);
// Returns false for an unknown name; accepts "system", "light", "dark".
bool parseColorScheme(const QString& name, ColorScheme* scheme);
void applyColorScheme(ColorScheme scheme);
// Whether the palette now in use is a dark one (charts pick their theme from this).
bool paletteIsDark(const QPalette& palette);

} // namespace shardwise::gui
