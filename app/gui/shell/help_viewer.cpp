#include "shell/help_viewer.hpp"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace shardwise::gui {

QStringList HelpViewer::docFolders()
{
    // <prefix>/bin/shardwise -> <prefix>/share/doc/shardwise (the install rule), else the copies in the
    // app's resources.
    return { QDir::cleanPath(
                 QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/doc/shardwise"))),
             QStringLiteral(":/docs") };
}

QString HelpViewer::guideMarkdown()
{
    for (const QString& folder : docFolders()) {
        QFile file(QDir(folder).filePath(QStringLiteral("user-guide.md")));
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
    // The guide and the docs it links to (formulas.md, ssh.md, ...) are read from the same folders,
    // so a link to another doc opens it here, and Back returns.
    m_browser->setSearchPaths(docFolders());
    if (guideMarkdown().isEmpty())
        m_browser->setPlainText(
            tr("The user guide is missing from this installation (share/doc/shardwise/user-guide.md)."));
    else
        m_browser->setSource(QUrl(QStringLiteral("user-guide.md")), QTextDocument::MarkdownResource);
    // Anchors scroll; web links open in the browser; a link to another doc opens it in this viewer.
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
            QDesktopServices::openUrl(url);
        else if (url.hasFragment() && url.path().isEmpty())
            m_browser->scrollToAnchor(url.fragment());
        else if (url.isRelative() && url.path().endsWith(QLatin1String(".md")))
            m_browser->setSource(url, QTextDocument::MarkdownResource);
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
    back->setObjectName(QStringLiteral("guideBackButton"));
    back->setEnabled(false);
    connect(back, &QPushButton::clicked, m_browser, &QTextBrowser::backward);
    connect(m_browser, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    resize(900, 700);
}

} // namespace shardwise::gui
