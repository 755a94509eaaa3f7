#pragma once
// Nodes: this machine and SSH nodes. Add, remove, test the connection, discover GPU and software
// facts (stored with the node), and decide about an unknown host key in a dialog that shows its
// SHA256 fingerprint. Preparing a node (building the runner there) needs core/dispatch's node
// preparation, which this page enables once it exists.

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/store/nodes.hpp"

#include <QPointer>
#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTableView;

namespace shardwise::gui {

class HostKeyTrustDialog;
class NodeFactsModel;
class NodeJob;
class NodeTableModel;
class Workspace;

class NodesPage : public QWidget {
    Q_OBJECT

public:
    explicit NodesPage(Workspace& workspace, QWidget* parent = nullptr);
    ~NodesPage() override;

    NodeJob* job() const { return m_job; }
    NodeTableModel* nodeModel() const { return m_nodes; }
    NodeFactsModel* factsModel() const { return m_facts; }
    QTableView* nodeView() const { return m_nodeView; }
    QPushButton* addLocalButton() const { return m_addLocal; }
    QPushButton* addSshButton() const { return m_addSsh; }
    QPushButton* testButton() const { return m_test; }
    QPushButton* discoverButton() const { return m_discover; }
    QPushButton* prepareButton() const { return m_prepare; }
    QPushButton* removeButton() const { return m_remove; }
    QLabel* statusLine() const { return m_status; }
    // The open host-key dialog, if the last SSH request met an untrusted key.
    HostKeyTrustDialog* trustDialog() const;

    std::optional<qint64> selectedNodeId() const;
    void selectNode(qint64 nodeId);

    // Adds this machine as "local" (if it is missing) and discovers its facts; returns its id.
    qint64 addLocalNode();
    // Stores an SSH node (the store validates it) and tests the connection; returns its id or 0
    // with the reason on the status line.
    qint64 addSshNode(const store::Node& node);

public slots:
    void reload();
    void testSelected();
    void discoverSelected();
    void removeSelected();
    void addSshNodeInteractively();

private:
    enum class Pending { Test, Discover };
    std::optional<store::Node> storedNode(qint64 id) const;
    void start(qint64 nodeId, Pending what);
    void showFactsOf(qint64 nodeId);
    void updateButtons();
    void setStatus(const QString& text, bool problem);
    void onFacts(qint64 nodeId, const dispatch::NodeFacts& facts);
    void onUntrustedKey(qint64 nodeId, const dispatch::HostKey& key, bool changed, const QString& message);
    void onTrustDecision(qint64 nodeId, const dispatch::HostKey& key, bool trusted);

    Workspace& m_workspace;
    NodeJob* m_job = nullptr;
    NodeTableModel* m_nodes = nullptr;
    NodeFactsModel* m_facts = nullptr;
    QTableView* m_nodeView = nullptr;
    QTableView* m_factsView = nullptr;
    QPushButton* m_addLocal = nullptr;
    QPushButton* m_addSsh = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_test = nullptr;
    QPushButton* m_discover = nullptr;
    QPushButton* m_prepare = nullptr;
    QLabel* m_status = nullptr;
    QPointer<HostKeyTrustDialog> m_trustDialog;
};

} // namespace shardwise::gui
