#include "pages/nodes/ssh_node_dialog.hpp"

#include "shardwise/session/node_management.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace shardwise::gui {

SshNodeDialog::SshNodeDialog(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("sshNodeDialog"));
    setWindowTitle(tr("Add SSH node"));
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("e.g. gpu-box-1"));
    m_host = new QLineEdit(this);
    m_host->setPlaceholderText(tr("host name or IP address"));
    m_port = new QSpinBox(this);
    m_port->setRange(1, 65535);
    m_port->setValue(22);
    m_user = new QLineEdit(qEnvironmentVariable("USER"), this);
    m_auth = new QComboBox(this);
    m_auth->addItem(tr("SSH agent"), QStringLiteral("agent"));
    m_auth->addItem(tr("Private key file"), QStringLiteral("key_file"));
    m_keyFile = new QLineEdit(this);
    m_keyFile->setPlaceholderText(QDir::homePath() + QStringLiteral("/.ssh/id_ed25519"));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    m_browse = browse;
    connect(browse, &QPushButton::clicked, this, &SshNodeDialog::chooseKeyFile);
    auto* keyRow = new QHBoxLayout;
    keyRow->addWidget(m_keyFile, 1);
    keyRow->addWidget(browse);
    connect(m_auth, &QComboBox::currentIndexChanged, this, &SshNodeDialog::updateKeyFileState);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("sshNodeError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&User:"), m_user);
    form->addRow(tr("&Authentication:"), m_auth);
    // A row of a layout gets a label without a buddy, which shows its '&' literally: name the field.
    auto* keyLabel = new QLabel(tr("&Key file:"), this);
    keyLabel->setObjectName(QStringLiteral("keyFileLabel"));
    keyLabel->setBuddy(m_keyFile);
    form->addRow(keyLabel, keyRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SshNodeDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    updateKeyFileState();
}

void SshNodeDialog::updateKeyFileState()
{
    const bool keyFile = m_auth->currentData().toString() == QLatin1String("key_file");
    m_keyFile->setEnabled(keyFile);
    m_browse->setEnabled(keyFile);
}

void SshNodeDialog::chooseKeyFile()
{
    const QString file
        = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::homePath() + QStringLiteral("/.ssh"));
    if (!file.isEmpty())
        m_keyFile->setText(file);
}

store::Node SshNodeDialog::node() const
{
    store::Node n;
    n.name = m_name->text().trimmed().toStdString();
    n.kind = store::NodeKind::Ssh;
    n.host = m_host->text().trimmed().toStdString();
    n.port = m_port->value();
    n.user = m_user->text().trimmed().toStdString();
    n.auth = m_auth->currentData().toString() == QLatin1String("key_file") ? store::SshAuth::KeyFile
                                                                           : store::SshAuth::Agent;
    if (n.auth == store::SshAuth::KeyFile)
        n.keyFile = m_keyFile->text().trimmed().toStdString();
    return n;
}

void SshNodeDialog::setNode(const store::Node& node)
{
    m_name->setText(QString::fromStdString(node.name));
    m_host->setText(QString::fromStdString(node.host));
    m_port->setValue(node.port);
    m_user->setText(QString::fromStdString(node.user));
    m_auth->setCurrentIndex(node.auth == store::SshAuth::KeyFile ? 1 : 0);
    m_keyFile->setText(QString::fromStdString(node.keyFile));
}

QString SshNodeDialog::validationError() const
{
    try {
        session::checkNode(node(), m_ssh);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

void SshNodeDialog::accept()
{
    const QString error = validationError();
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    if (error.isEmpty())
        QDialog::accept();
}

} // namespace shardwise::gui
