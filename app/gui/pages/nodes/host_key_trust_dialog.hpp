#pragma once
// Asks the user whether to trust an SSH node's host key, showing what OpenSSH shows: the host, the
// key type and its SHA256 fingerprint, to compare with `ssh-keygen -lf` run on the node itself. A key
// that differs from the one recorded earlier may mean the connection is intercepted: that case is
// shown as a refusal without an accept button.

#include "shardwise/dispatch/ssh_error.hpp"

#include <QDialog>

class QLabel;
class QPushButton;

namespace shardwise::gui {

class HostKeyTrustDialog : public QDialog {
    Q_OBJECT

public:
    HostKeyTrustDialog(const QString& nodeName, const QString& host, int port, const dispatch::HostKey& key,
                       bool changed, QWidget* parent = nullptr);

    const dispatch::HostKey& hostKey() const { return m_key; }
    bool keyChanged() const { return m_changed; }
    QString fingerprintText() const;
    QString messageText() const;
    QPushButton* trustButton() const { return m_trust; } // null when the key changed

private:
    dispatch::HostKey m_key;
    bool m_changed = false;
    QLabel* m_message = nullptr;
    QLabel* m_fingerprint = nullptr;
    QPushButton* m_trust = nullptr;
};

} // namespace shardwise::gui
