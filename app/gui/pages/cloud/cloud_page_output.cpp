// The Cloud page's outputs (gcloud commands, kubectl commands, the JobSet manifest): copied or saved.
#include "pages/cloud/cloud_page.hpp"

#include "export/export_file.hpp"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QPlainTextEdit>
#include <QTabWidget>

namespace shardwise::gui {

QString CloudPage::outputText(Output o) const
{
    return m_outputs[o]->toPlainText();
}

void CloudPage::showOutput(Output o)
{
    m_tabs->setCurrentIndex(o);
}

void CloudPage::copyCurrentOutput()
{
    QApplication::clipboard()->setText(outputText(static_cast<Output>(m_tabs->currentIndex())));
}

bool CloudPage::saveCurrentOutput(const QString& path, QString* error)
{
    // Written aside and renamed over the target: a failed write keeps the previous file.
    const QByteArray text = outputText(static_cast<Output>(m_tabs->currentIndex())).toUtf8();
    if (const QString why = writeExportFile(path, text); !why.isEmpty()) {
        if (error)
            *error = tr("%1: cannot write the file (%2); the previous file is kept").arg(path, why);
        return false;
    }
    return true;
}

void CloudPage::saveWithDialog()
{
    if (!m_preparation)
        return;
    const bool manifest = m_tabs->currentIndex() == ManifestOutput;
    const QString suggested = manifest ? QString::fromStdString(m_preparation->manifestFile)
                                       : QString::fromStdString(m_preparation->clusterName)
            + (m_tabs->currentIndex() == GcloudOutput ? QStringLiteral("-gcloud.sh") : QStringLiteral("-kubectl.sh"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save"), suggested,
                                                      manifest ? tr("YAML (*.yaml *.yml)") : tr("Shell script (*.sh)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveCurrentOutput(path, &error))
        showError(error);
}

} // namespace shardwise::gui
