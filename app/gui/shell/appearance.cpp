#include "shell/appearance.hpp"

#include <QApplication>
#include <QPainter>
#include <QProxyStyle>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>

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
    for (auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabledText);
    return p;
}

// Fusion frames an unchecked box or radio button one shade darker than the window and fills it with
// the base colour: in a dark palette both are near black and the empty box all but vanishes. WCAG 2.1
// success criterion 1.4.11 (non-text contrast) asks 3:1 against the background for what identifies a
// control, so in a dark palette the frame is drawn again between the text and the window colour
// (about 6:1 on the dark palette's window, 4:1 when disabled). A light palette keeps the style's own drawing.
class ContrastStyle : public QProxyStyle {
public:
    using QProxyStyle::QProxyStyle;

    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        if ((element != PE_IndicatorCheckBox && element != PE_IndicatorRadioButton) || !paletteIsDark(option->palette))
            return;
        const QColor text = option->palette.color(QPalette::Active, QPalette::WindowText);
        const QColor window = option->palette.color(QPalette::Active, QPalette::Window);
        const double t = (option->state & State_Enabled) ? 0.7 : 0.5; // a disabled box stays visible, and fainter
        const QColor frame
            = QColor::fromRgbF(static_cast<float>(window.redF() + t * (text.redF() - window.redF())),
                               static_cast<float>(window.greenF() + t * (text.greenF() - window.greenF())),
                               static_cast<float>(window.blueF() + t * (text.blueF() - window.blueF())));
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(frame, 1.0));
        painter->setBrush(Qt::NoBrush);
        const QRectF box = QRectF(option->rect).adjusted(0.5, 0.5, -0.5, -0.5);
        if (element == PE_IndicatorRadioButton)
            painter->drawEllipse(box);
        else
            painter->drawRect(box);
        painter->restore();
    }
};

QStyle* createStyle(const QString& name)
{
    return new ContrastStyle(QStyleFactory::create(name));
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
    const char* names[] = { "system", "light", "dark" };
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
        QApplication::setStyle(createStyle(systemStyleName()));
        QApplication::setPalette(systemPalette());
        break;
    case ColorScheme::Light:
        QApplication::setStyle(createStyle(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case ColorScheme::Dark:
        QApplication::setStyle(createStyle(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        break;
    }
}

bool paletteIsDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

} // namespace shardwise::gui
