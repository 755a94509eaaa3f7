#pragma once
// Help > User guide (F1): the user guide (docs/user-guide.md, compiled into the app and installed to
// share/doc/shardwise) in an in-app Markdown viewer, so help works without a network or a browser.

#include <QDialog>

class QTextBrowser;

namespace shardwise::gui {

class HelpViewer : public QDialog {
    Q_OBJECT

public:
    explicit HelpViewer(QWidget* parent = nullptr);

    QTextBrowser* browser() const { return m_browser; }
    // The guide's Markdown: the installed copy beside the program when there is one, else the one
    // compiled in. Empty only if both are missing.
    static QString guideMarkdown();

private:
    QTextBrowser* m_browser = nullptr;
};

} // namespace shardwise::gui
