#include "pages/nodes/host_key_trust_dialog.hpp"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace shardwise::gui {

HostKeyTrustDialog::HostKeyTrustDialog(const QString& nodeName, const QString& host, int port,
                                       const dispatch::HostKey& key, bool changed, QWidget* parent)
    : QDialog(parent)
    , m_key(key)
    , m_changed(changed)
{
    setObjectName(QStringLiteral("hostKeyTrustDialog"));
    setWindowTitle(changed ? tr("Host key changed") : tr("Trust this host key?"));
    const QString address = port == 22 ? host : QStringLiteral("%1:%2").arg(host).arg(port);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("hostKeyMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    if (changed)
        m_message->setText(
            tr("The node \"%1\" (%2) presented a host key different from the one recorded for it. This can mean "
               "that someone intercepts the connection, or that the machine was reinstalled. Shardwise refuses "
               "to connect. If the change is expected, remove the old key from the known_hosts file and add "
               "the node again.")
                .arg(nodeName, address));
    else
        m_message->setText(
            tr("The authenticity of the node \"%1\" (%2) cannot be established: its host key is in no "
               "known_hosts file. Compare the fingerprint below with the one `ssh-keygen -lf` prints for "
               "the host key on the node itself, and trust it only if they match.")
                .arg(nodeName, address));

    auto* keyType = new QLabel(QString::fromStdString(key.type), this);
    keyType->setObjectName(QStringLiteral("hostKeyType"));
    m_fingerprint = new QLabel(fingerprintText(), this);
    m_fingerprint->setObjectName(QStringLiteral("hostKeyFingerprint"));
    m_fingerprint->setTextFormat(Qt::PlainText);
    m_fingerprint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_fingerprint->setFont(mono);

    auto* details = new QFormLayout;
    details->addRow(tr("Host:"), new QLabel(address, this));
    details->addRow(tr("Key type:"), keyType);
    //: the SHA-256 fingerprint of an SSH host key, as ssh-keygen -l prints it
    details->addRow(tr("Fingerprint:"), m_fingerprint);

    auto* buttons = new QDialogButtonBox(this);
    if (changed) {
        buttons->addButton(QDialogButtonBox::Close);
    } else {
        m_trust = buttons->addButton(tr("&Trust and connect"), QDialogButtonBox::AcceptRole);
        m_trust->setObjectName(QStringLiteral("trustHostKey"));
        buttons->addButton(tr("&Do not trust"), QDialogButtonBox::RejectRole)
            ->setObjectName(QStringLiteral("refuseHostKey"));
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addLayout(details);
    layout->addWidget(buttons);
}

QString HostKeyTrustDialog::fingerprintText() const
{
    return QString::fromStdString(m_key.fingerprint);
}

QString HostKeyTrustDialog::messageText() const
{
    return m_message->text();
}

} // namespace shardwise::gui
