// The main window at 1024 x 700 (run a second time with QT_SCALE_FACTOR=2: the same logical size on a
// 200 % screen), on the default workspace a first start opens: every page fits (its minimum size
// hint within the page stack, the window not forced larger), no visible control is cut off
// horizontally (narrower than its own minimum or reaching past what its parents show, outside
// scroll areas), the Plan page keeps its decision, the decision order's reasons and the memory chart
// in view, Tab reaches every enabled input control of each page and comes back round, no visible
// label, button, group box or tab shows a literal "&" (a mnemonic written where none is taken, or
// "&&" in a label that shows it as is), and an unchecked check box stands out from the background in
// the dark palette.
#include "gui_test_main.hpp"

#include "shell/appearance.hpp"
#include "shell/main_window.hpp"
#include "workspace/workspace.hpp"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStyleOptionButton>
#include <QStyleOptionViewItem>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextEdit>

#include <cmath>

using namespace shardwise::gui;

namespace {

constexpr QSize kWindowSize(1024, 700);

QString describe(const QWidget* w)
{
    QString text;
    if (const auto* b = qobject_cast<const QAbstractButton*>(w))
        text = b->text();
    else if (const auto* l = qobject_cast<const QLabel*>(w))
        text = l->text().left(60);
    return QStringLiteral("%1 \"%2\" (%3)")
        .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(), text);
}

bool insideScrollArea(const QWidget* w, const QWidget* stop)
{
    for (const QWidget* p = w->parentWidget(); p && p != stop; p = p->parentWidget())
        if (qobject_cast<const QAbstractScrollArea*>(p))
            return true;
    return false;
}

bool shownOnScreen(const QWidget* w)
{
    return w->isVisible() && w->width() > 0 && w->height() > 0;
}

// Where a text the widget shows as a mnemonic text has an "&" that renders as something else than
// intended: an "&" before a space or at the end (it underlines the blank and the "&" vanishes).
QString mnemonicProblem(const QString& text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (i + 1 < text.size() && text[i + 1] == QLatin1Char('&')) {
            ++i; // "&&" shows one "&"
            continue;
        }
        if (i + 1 >= text.size() || !text[i + 1].isLetterOrNumber())
            return QStringLiteral("an \"&\" that is no mnemonic vanishes from \"%1\"").arg(text);
    }
    return {};
}

// A label without a buddy shows its plain text as is: any "&" there is a literal one.
QString labelProblem(const QLabel* label)
{
    const QString text = label->text();
    if (label->buddy())
        return mnemonicProblem(text);
    if (Qt::mightBeRichText(text) || label->textFormat() == Qt::RichText || label->textFormat() == Qt::MarkdownText)
        return text.contains(QRegularExpression(QStringLiteral("&(?![a-zA-Z]+;|#[0-9]+;)")))
            ? QStringLiteral("an unescaped \"&\" in rich text \"%1\"").arg(text.left(80))
            : QString();
    // Plain text: "&" followed by a letter is a mnemonic nobody takes; "&&" shows two.
    static const QRegularExpression stray(QStringLiteral("&(&|\\w)"));
    return stray.match(text).hasMatch() ? QStringLiteral("the label shows a literal \"&\": \"%1\"").arg(text.left(80))
                                        : QString();
}

bool isInputControl(const QWidget* w)
{
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QComboBox*>(w)
        || qobject_cast<const QAbstractSpinBox*>(w)
        || (qobject_cast<const QLineEdit*>(w) && !qobject_cast<const QAbstractSpinBox*>(w->parentWidget())
            && !qobject_cast<const QComboBox*>(w->parentWidget()));
}

// WCAG 2.1's relative luminance and contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio);
// success criterion 1.4.11 asks 3:1 for what identifies a user interface component.
double relativeLuminance(const QColor& c)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The strongest contrast any pixel of `area` (logical coordinates) has against `background`.
double strongestContrast(const QImage& image, const QRect& area, const QColor& background)
{
    const qreal dpr = image.devicePixelRatio();
    const QRect pixels(QPoint(qRound(area.left() * dpr), qRound(area.top() * dpr)), area.size() * dpr);
    double best = 1.0;
    for (int y = pixels.top(); y <= pixels.bottom(); ++y)
        for (int x = pixels.left(); x <= pixels.right(); ++x)
            if (image.rect().contains(x, y))
                best = std::max(best, contrastRatio(image.pixelColor(x, y), background));
    return best;
}

} // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyPageFitsAt1024x700_data();
    void everyPageFitsAt1024x700();
    void windowIsNotForcedLarger();
    void planKeepsDecisionReasonsAndChartInView();
    void noLiteralAmpersandInLabels();
    void tabReachesEveryControl_data();
    void tabReachesEveryControl();
    void uncheckedBoxesStandOutInTheDarkPalette();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Workspace> m_workspace;
    std::unique_ptr<MainWindow> m_window;
};

void TestWindowLayout::initTestCase()
{
    QSettings().clear(); // no geometry or page restored from an earlier run
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_workspace = std::make_unique<Workspace>();
    QString error;
    QVERIFY2(m_workspace->open(m_dir->filePath(QStringLiteral("layout.sqlite")), &error), qPrintable(error));
    m_window = std::make_unique<MainWindow>(*m_workspace);
    m_window->resize(kWindowSize);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    qInfo("device pixel ratio %g", m_window->devicePixelRatio());
    // Under QT_SCALE_FACTOR=2 the same logical window is 2048 x 1400 device pixels.
    const double scale
        = qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? qEnvironmentVariable("QT_SCALE_FACTOR").toDouble() : 1.0;
    QCOMPARE(m_window->devicePixelRatio(), scale);
}

void TestWindowLayout::cleanupTestCase()
{
    m_window.reset();
    m_workspace.reset();
    m_dir.reset();
}

void TestWindowLayout::everyPageFitsAt1024x700_data()
{
    QTest::addColumn<int>("page");
    for (int i = 0; i < m_window->pageCount(); ++i)
        QTest::newRow(qPrintable(m_window->pageId(i))) << i;
}

void TestWindowLayout::everyPageFitsAt1024x700()
{
    QFETCH(int, page);
    m_window->showPage(page);
    m_window->resize(kWindowSize);
    QTest::qWait(50);
    QWidget* shown = m_window->page(page);
    const QString id = m_window->pageId(page);
    QStringList problems;
    // What the page stack has when the window is 1024 x 700 (the window grows to the widest page's
    // minimum, so it is measured against the window's own chrome).
    const QSize hint = shown->minimumSizeHint();
    const QSize room = shown->parentWidget()->size() - (m_window->size() - kWindowSize);
    if (hint.width() > room.width() || hint.height() > room.height())
        problems << QStringLiteral("%1 needs at least %2 x %3, has %4 x %5")
                        .arg(id)
                        .arg(hint.width())
                        .arg(hint.height())
                        .arg(room.width())
                        .arg(room.height());
    const QRect pageRect(shown->mapTo(m_window.get(), QPoint(0, 0)), shown->size());
    for (QWidget* w : shown->findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w)
            || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QLineEdit*>(w)
            || (qobject_cast<QLabel*>(w) && !static_cast<QLabel*>(w)->wordWrap());
        if (!control || !shownOnScreen(w) || insideScrollArea(w, shown))
            continue;
        if (qobject_cast<QLabel*>(w) && static_cast<QLabel*>(w)->text().isEmpty())
            continue;
        if (w->width() < w->minimumSizeHint().width())
            problems << QStringLiteral("%1: %2 is %3 px wide, narrower than the %4 px it needs")
                            .arg(id, describe(w))
                            .arg(w->width())
                            .arg(w->minimumSizeHint().width());
        const QRect visible = w->visibleRegion().boundingRect();
        const QRect inWindow(w->mapTo(m_window.get(), QPoint(0, 0)), w->size());
        if (visible.width() < w->width() || inWindow.right() > pageRect.right())
            problems << QStringLiteral("%1: %2 is cut off on the right (%3 of %4 px shown)")
                            .arg(id, describe(w))
                            .arg(visible.width())
                            .arg(w->width());
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestWindowLayout::windowIsNotForcedLarger()
{
    // No page's minimum makes the window grow past 1024 x 700 (2048 x 1400 device pixels at 200 %).
    m_window->resize(kWindowSize);
    QTest::qWait(50);
    QCOMPARE(m_window->size(), kWindowSize);
    QCOMPARE(m_window->size() * m_window->devicePixelRatio(), kWindowSize * m_window->devicePixelRatio());
}

void TestWindowLayout::planKeepsDecisionReasonsAndChartInView()
{
    m_window->showPageById(QStringLiteral("plan"));
    m_window->resize(kWindowSize);
    QWidget* page = m_window->pageById(QStringLiteral("plan"));
    auto* decision = page->findChild<QLabel*>(QStringLiteral("recommendationLabel"));
    auto* reasons = page->findChild<QTableView*>(QStringLiteral("decisionStepView"));
    auto* chart = page->findChild<QChartView*>(QStringLiteral("memoryChart"));
    QVERIFY(decision && reasons && chart);
    QTRY_VERIFY(!decision->text().isEmpty()); // the default workspace opens on a planned example
    QTRY_VERIFY(reasons->model()->rowCount() >= 3);
    QTest::qWait(50);
    const QRect pageRect(QPoint(0, 0), page->size());
    for (QWidget* w :
         { static_cast<QWidget*>(decision), static_cast<QWidget*>(reasons), static_cast<QWidget*>(chart) }) {
        QVERIFY2(shownOnScreen(w), qPrintable(describe(w)));
        const QRect inPage(w->mapTo(page, QPoint(0, 0)), w->size());
        QVERIFY2(pageRect.contains(inPage), qPrintable(describe(w) + QStringLiteral(" reaches outside the page")));
        for (const QWidget* p = w->parentWidget(); p && p != page; p = p->parentWidget())
            QVERIFY2(p->rect().contains(QRect(w->mapTo(p, QPoint(0, 0)), w->size())),
                     qPrintable(describe(w) + QStringLiteral(" is cut off by ") + describe(p)));
    }
    // The decision in full (every wrapped line), the reasons with room for several lines (all of
    // them when they are short; the view scrolls for the rest), and a chart whose bars have room.
    QVERIFY2(decision->height() >= decision->heightForWidth(decision->width()),
             qPrintable(QStringLiteral("the decision needs %1 px, has %2")
                            .arg(decision->heightForWidth(decision->width()))
                            .arg(decision->height())));
    const int reasonsShown = std::min(reasons->verticalHeader()->length(), 140);
    QVERIFY2(reasons->viewport()->height() >= reasonsShown,
             qPrintable(QStringLiteral("the reasons show %1 px of %2")
                            .arg(reasons->viewport()->height())
                            .arg(reasons->verticalHeader()->length())));
    QVERIFY2(chart->height() >= 240, qPrintable(QStringLiteral("the memory chart is %1 px high").arg(chart->height())));
}

void TestWindowLayout::noLiteralAmpersandInLabels()
{
    // The check itself: a stray "&" is caught, mnemonics and "&&" in a mnemonic text are not.
    QVERIFY(mnemonicProblem(QStringLiteral("&Cancel")).isEmpty());
    QVERIFY(mnemonicProblem(QStringLiteral("Save && export")).isEmpty());
    QVERIFY(!mnemonicProblem(QStringLiteral("Save & export")).isEmpty());
    QLabel plain(QStringLiteral("Time && memory"));
    QVERIFY(!labelProblem(&plain).isEmpty());
    plain.setText(QStringLiteral("&Model:"));
    QVERIFY(!labelProblem(&plain).isEmpty());
    plain.setText(QStringLiteral("Time & memory"));
    QVERIFY(labelProblem(&plain).isEmpty());

    QStringList problems;
    for (int i = 0; i < m_window->pageCount(); ++i) {
        m_window->showPage(i);
        QTest::qWait(20);
        QWidget* page = m_window->page(i);
        const QString id = m_window->pageId(i);
        for (QWidget* w : page->findChildren<QWidget*>()) {
            if (!w->isVisible())
                continue;
            QString problem;
            if (const auto* label = qobject_cast<QLabel*>(w))
                problem = labelProblem(label);
            else if (const auto* button = qobject_cast<QAbstractButton*>(w))
                problem = mnemonicProblem(button->text());
            else if (const auto* box = qobject_cast<QGroupBox*>(w))
                problem = mnemonicProblem(box->title());
            else if (const auto* tabs = qobject_cast<QTabBar*>(w))
                for (int t = 0; t < tabs->count() && problem.isEmpty(); ++t)
                    problem = mnemonicProblem(tabs->tabText(t));
            if (!problem.isEmpty())
                problems << QStringLiteral("%1: %2: %3").arg(id, describe(w), problem);
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestWindowLayout::tabReachesEveryControl_data()
{
    everyPageFitsAt1024x700_data();
}

void TestWindowLayout::tabReachesEveryControl()
{
    QFETCH(int, page);
    m_window->showPage(page);
    m_window->resize(kWindowSize);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QWidget* shown = m_window->page(page);
    QList<QWidget*> controls;
    for (QWidget* w : shown->findChildren<QWidget*>())
        if (isInputControl(w) && w->isVisible() && w->isEnabled())
            controls << w;
    QVERIFY(!controls.isEmpty());
    controls.front()->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(QApplication::focusWidget());

    QSet<QWidget*> reached;
    const int presses = static_cast<int>(controls.size()) * 4 + 40;
    for (int press = 0; press < presses; ++press) {
        for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
            reached.insert(w);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    }
    QStringList missed;
    for (QWidget* w : controls)
        if (!reached.contains(w))
            missed << describe(w);
    QVERIFY2(missed.isEmpty(), qPrintable(QStringLiteral("Tab never reached:\n") + missed.join(QLatin1Char('\n'))));
}

void TestWindowLayout::uncheckedBoxesStandOutInTheDarkPalette()
{
    applyColorScheme(ColorScheme::Dark);
    const auto restore = qScopeGuard([] { applyColorScheme(ColorScheme::System); });
    QTest::qWait(20);
    QWidget* page = m_window->pageById(QStringLiteral("plan"));
    m_window->showPageById(QStringLiteral("plan"));
    QList<QCheckBox*> boxes;
    for (QCheckBox* box : page->findChildren<QCheckBox*>())
        if (box->isVisible() && !box->isChecked())
            boxes << box;
    QVERIFY(!boxes.isEmpty());
    const QColor window = page->palette().color(QPalette::Window);
    QVERIFY(paletteIsDark(page->palette()));
    for (QCheckBox* box : boxes) {
        // Drawn over the page's own background, as the page shows it.
        const qreal dpr = box->devicePixelRatio();
        QImage image(box->size() * dpr, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(dpr);
        image.fill(window);
        box->render(&image, QPoint(), QRegion(), QWidget::DrawChildren);
        QStyleOptionButton option;
        option.initFrom(box);
        const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
        const double contrast = strongestContrast(image, indicator, window);
        QVERIFY2(contrast >= 3.0,
                 qPrintable(QStringLiteral("%1: the unchecked box has a contrast of %2:1 with the background")
                                .arg(describe(box))
                                .arg(contrast, 0, 'f', 2)));
    }
    // The check boxes in item views (the Compare page's runs) are drawn on the view's base colour.
    auto* table = m_window->pageById(QStringLiteral("compare"))->findChild<QTableView*>();
    QVERIFY(table);
    const QColor base = table->palette().color(QPalette::Base);
    QStyleOptionViewItem item;
    item.initFrom(table);
    item.rect = QRect(2, 2, 16, 16);
    item.state |= QStyle::State_Off | QStyle::State_Enabled;
    QImage cell(20, 20, QImage::Format_ARGB32_Premultiplied);
    cell.fill(base);
    {
        QPainter painter(&cell);
        table->style()->drawPrimitive(QStyle::PE_IndicatorItemViewItemCheck, &item, &painter, table);
    }
    const double contrast = strongestContrast(cell, cell.rect(), base);
    QVERIFY2(contrast >= 3.0,
             qPrintable(QStringLiteral("an unchecked item check has a contrast of %1:1").arg(contrast, 0, 'f', 2)));
}

SHARDWISE_GUI_TEST_MAIN(TestWindowLayout)
#include "test_window_layout.moc"
