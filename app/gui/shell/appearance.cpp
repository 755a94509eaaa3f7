#include "shell/appearance.hpp"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace shardwise::gui {

namespace {

const QString kSchemeKey = QStringLiteral("appearance/colorScheme");

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabledText(0x80, 0x80, 0x80);
    const QColor highlight(0x3d, 0x7e, 0xd8);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x44));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabledText);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x38, 0x3d));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x45, 0x48, 0x4e));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::Mid, QColor(0x2f, 0x31, 0x35));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    return p;
}

QString& systemStyleName()
{
    static QString name;
    return name;
}

QPalette& systemPalette()
{
    static QPalette palette;
    return palette;
}

} // namespace

ColorScheme savedColorScheme()
{
    ColorScheme scheme = ColorScheme::System;
    parseColorScheme(QSettings().value(kSchemeKey, QStringLiteral("system")).toString(), &scheme);
    return scheme;
}

void saveColorScheme(ColorScheme scheme)
{
    const char* names[] = {"system", "light", "dark"};
    QSettings().setValue(kSchemeKey, QString::fromLatin1(names[static_cast<int>(scheme)]));
}

bool parseColorScheme(const QString& name, ColorScheme* scheme)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("system"))
        *scheme = ColorScheme::System;
    else if (n == QLatin1String("light"))
        *scheme = ColorScheme::Light;
    else if (n == QLatin1String("dark"))
        *scheme = ColorScheme::Dark;
    else
        return false;
    return true;
}

void applyColorScheme(ColorScheme scheme)
{
    if (systemStyleName().isEmpty()) {
        systemStyleName() = QApplication::style()->name();
        systemPalette() = QApplication::palette();
    }
    switch (scheme) {
    case ColorScheme::System:
        QApplication::setStyle(QStyleFactory::create(systemStyleName()));
        QApplication::setPalette(systemPalette());
        break;
    case ColorScheme::Light:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case ColorScheme::Dark:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        break;
    }
}

bool paletteIsDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

} // namespace shardwise::gui
