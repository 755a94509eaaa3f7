#pragma once
// Help > User guide (F1): the user guide (docs/user-guide.md) in an in-app Markdown viewer, so help
// works without a network or a browser. Every doc in docs/ is compiled into the app and installed to
// share/doc/shardwise, so the guide's links to the other docs open them in the same viewer.

#include <QDialog>
#include <QStringList>

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
    // Where the docs are read from, first found wins: share/doc/shardwise beside the program, then the
    // copies compiled in.
    static QStringList docFolders();

private:
    QTextBrowser* m_browser = nullptr;
};

} // namespace shardwise::gui
