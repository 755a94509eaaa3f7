// The main window at 1024 x 700 (run a second time with QT_SCALE_FACTOR=2: the same logical size on a
// 200 % screen), on the default workspace a first start opens: every page fits (its minimum size
// hint within the page stack, the window not forced larger), no visible control is cut off
// horizontally (narrower than its own minimum or reaching past what its parents show, outside
// scroll areas), Tab reaches every enabled input control of the Plan page and comes back round, and
// no visible label, button, group box or tab shows a literal "&" (a mnemonic written where none is
// taken, or "&&" in a label that shows it as is).
#include "gui_test_main.hpp"

#include "shell/main_window.hpp"
#include "workspace/workspace.hpp"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextEdit>

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

} // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyPageFitsAt1024x700_data();
    void everyPageFitsAt1024x700();
    void noLiteralAmpersandInLabels();
    void tabReachesEveryPlanControl();

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
    // Known: these pages are still wider than 1024 x 700 leaves them (issue 23); each row turns into
    // an unexpected pass, and so a failure, once its page fits, and then comes off this list.
    if (id == QLatin1String("plan"))
        QEXPECT_FAIL("plan", "the form's scroll area keeps the form's full width and the results column needs ~690 px",
                     Abort);
    if (id == QLatin1String("compare"))
        QEXPECT_FAIL("compare", "the table and the 2 x 2 charts (320 px each) side by side need ~1070 px", Abort);
    if (id == QLatin1String("nodes"))
        QEXPECT_FAIL("nodes", "the Nodes page needs ~1040 px wide", Abort);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
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

void TestWindowLayout::tabReachesEveryPlanControl()
{
    m_window->showPageById(QStringLiteral("plan"));
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QWidget* page = m_window->pageById(QStringLiteral("plan"));
    QList<QWidget*> controls;
    for (QWidget* w : page->findChildren<QWidget*>())
        if (isInputControl(w) && w->isVisible() && w->isEnabled())
            controls << w;
    QVERIFY(controls.size() > 5);
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

SHARDWISE_GUI_TEST_MAIN(TestWindowLayout)
#include "test_window_layout.moc"
