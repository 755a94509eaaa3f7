#include "shell/help_viewer.hpp"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace shardwise::gui {

QString HelpViewer::guideMarkdown()
{
    // <prefix>/bin/shardwise -> <prefix>/share/doc/shardwise/user-guide.md (the install rule), else the
    // copy in the app's resources.
    const QString installed
        = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/doc/shardwise/user-guide.md"));
    for (const QString& path : { installed, QStringLiteral(":/docs/user-guide.md") }) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            return QString::fromUtf8(file.readAll());
    }
    return {};
}

HelpViewer::HelpViewer(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("helpViewer"));
    setWindowTitle(tr("Shardwise user guide"));
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("guideBrowser"));
    m_browser->setOpenLinks(false);
    const QString markdown = guideMarkdown();
    if (markdown.isEmpty())
        m_browser->setPlainText(
            tr("The user guide is missing from this installation (share/doc/shardwise/user-guide.md)."));
    else
        m_browser->setMarkdown(markdown);
    // Anchors within the guide scroll; web links open in the browser. The guide's links to other docs
    // files point into the source tree, which an installed app does not have: they stay inert.
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
            QDesktopServices::openUrl(url);
        else if (url.hasFragment() && url.path().isEmpty())
            m_browser->scrollToAnchor(url.fragment());
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(900, 700);
}

} // namespace shardwise::gui
