#pragma once
// Describes an SSH node: a name, host, port, user and how to authenticate (the SSH agent, or a
// private key file whose path, never its content, is stored). The node is checked as the store
// would check it before the dialog closes.

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/store/nodes.hpp"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace shardwise::gui {

class SshNodeDialog : public QDialog {
    Q_OBJECT

public:
    explicit SshNodeDialog(QWidget* parent = nullptr);

    store::Node node() const;
    void setNode(const store::Node& node);
    // The error that keeps the dialog open, empty when the node is valid.
    QString validationError() const;
    // The ssh client configuration a host alias is checked against (a user-less alias needs its User).
    void setSshOptions(const dispatch::SshOptions& options) { m_ssh = options; }

    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* hostEdit() const { return m_host; }
    QSpinBox* portBox() const { return m_port; }
    QLineEdit* userEdit() const { return m_user; }
    QComboBox* authBox() const { return m_auth; }
    QLineEdit* keyFileEdit() const { return m_keyFile; }

public slots:
    void accept() override;

private:
    dispatch::SshOptions m_ssh;
    void chooseKeyFile();
    void updateKeyFileState();

    QLineEdit* m_name = nullptr;
    QLineEdit* m_host = nullptr;
    QSpinBox* m_port = nullptr;
    QLineEdit* m_user = nullptr;
    QComboBox* m_auth = nullptr;
    QLineEdit* m_keyFile = nullptr;
    QWidget* m_browse = nullptr;
    QLabel* m_error = nullptr;
};

} // namespace shardwise::gui
