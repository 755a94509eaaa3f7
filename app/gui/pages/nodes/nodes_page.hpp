#pragma once
// Nodes: this machine and SSH nodes. Add, remove, test the connection, discover GPU and software
// facts (stored with the node), and decide about an unknown host key in a dialog that shows its
// SHA256 fingerprint. Prepare builds the runner on an SSH node (upload, verify, build, cached by
// the sources' hash) with progress and cancel; the runner it built is kept with the node's facts,
// where the run queue and `shardwise-cli run --node` find it. Probe measures the selected node's
// hardware (shardwise-runner --probe) in the background with cancel, stores it for calibration and
// shows the newest probe's figures below the node's facts. NCCL settings (environment variables the
// node's ranks get; none by default) are edited per node. The page keeps widgets, models and jobs:
// every write to the store goes through core's node management (session/node_management.hpp).

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/remote_bundle.hpp"
#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/session/probe_session.hpp"
#include "shardwise/store/nodes.hpp"

#include <QInputDialog>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <map>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace shardwise::gui {

class HostKeyTrustDialog;
class NodeFactsModel;
class NodeJob;
class ProbeJob;
class NodeTableModel;
class Workspace;

class NodesPage : public QWidget {
    Q_OBJECT

public:
    explicit NodesPage(Workspace& workspace, QWidget* parent = nullptr);
    ~NodesPage() override;

    NodeJob* job() const { return m_job; }
    ProbeJob* probeJob() const { return m_probeJob; }
    NodeTableModel* nodeModel() const { return m_nodes; }
    NodeFactsModel* factsModel() const { return m_facts; }
    QTableView* nodeView() const { return m_nodeView; }
    QPushButton* addLocalButton() const { return m_addLocal; }
    QPushButton* addSshButton() const { return m_addSsh; }
    QPushButton* testButton() const { return m_test; }
    QPushButton* discoverButton() const { return m_discover; }
    QPushButton* prepareButton() const { return m_prepare; }
    QPushButton* cancelPreparationButton() const { return m_cancelPrepare; }
    QProgressBar* preparationProgress() const { return m_prepareProgress; }
    QPushButton* removeButton() const { return m_remove; }
    QPushButton* probeButton() const { return m_probe; }
    QPushButton* ncclEnvButton() const { return m_ncclEnv; }
    // The open NCCL settings dialog, if any.
    QInputDialog* ncclDialog() const { return m_ncclDialog.data(); }
    QPushButton* cancelProbeButton() const { return m_cancelProbe; }
    QPushButton* probeNetworkButton() const { return m_probeNetwork; }
    // Probes the network between the selected SSH node and the SSH nodes named (Probe network's
    // choice); false, saying why on the status line, when it cannot start.
    bool probeNetworkWith(const QStringList& others);
    QProgressBar* probeProgress() const { return m_probeProgress; }
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
    // Replaces the node's NCCL settings with `text` (one NAME=VALUE per line; empty: none); false with
    // the reason on the status line when a line is not a setting, nothing changed then.
    bool setNcclEnvironment(qint64 nodeId, const QString& text);
    static QString ncclEnvironmentText(const std::map<std::string, std::string>& env);

    // The runner's sources Prepare uploads (default: the source tree named by $SHARDWISE_RUNNER_SOURCES,
    // else the one this program was built from, found above its folder) and how it builds them.
    void setRunnerSources(std::function<dispatch::RemoteBundle()> sources) { m_runnerSources = std::move(sources); }
    void setPreparationOptions(const dispatch::PreparationOptions& options) { m_preparationOptions = options; }
    static std::function<dispatch::RemoteBundle()> defaultRunnerSources();

public slots:
    void reload();
    void prepareSelected();
    void cancelPreparation();
    void testSelected();
    void discoverSelected();
    void removeSelected();
    void probeSelected();
    void probeNetworkInteractively();
    void cancelProbe();
    void addSshNodeInteractively();
    void editNcclEnvironmentOfSelected();

private:
    enum class Pending { Test, Discover, Prepare };
    std::optional<store::Node> storedNode(qint64 id) const;
    void start(qint64 nodeId, Pending what);
    void showFactsOf(qint64 nodeId);
    void updateButtons();
    void setStatus(const QString& text, bool problem);
    void onFacts(qint64 nodeId, const dispatch::NodeFacts& facts);
    void onUntrustedKey(qint64 nodeId, const dispatch::HostKey& key, bool changed, const QString& message);
    void onTrustDecision(qint64 nodeId, const dispatch::HostKey& key, bool trusted);
    void onPrepared(qint64 nodeId, const dispatch::PreparedRunner& runner);
    void endPreparation();
    void onProbeFinished(qint64 nodeId, const session::ProbeRequest& request,
                         const session::ProbeSessionResult& result);
    void onNetworkProbeFinished(const session::ProbeRequest& request, const session::ProbeSessionResult& result);
    QStringList otherSshNodes() const; // the SSH nodes besides the selected one

    Workspace& m_workspace;
    NodeJob* m_job = nullptr;
    ProbeJob* m_probeJob = nullptr;
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
    QPushButton* m_cancelPrepare = nullptr;
    QProgressBar* m_prepareProgress = nullptr;
    QPushButton* m_probe = nullptr;
    QPushButton* m_cancelProbe = nullptr;
    QPushButton* m_probeNetwork = nullptr;
    QPushButton* m_ncclEnv = nullptr;
    QPointer<QInputDialog> m_ncclDialog;
    QProgressBar* m_probeProgress = nullptr;
    QLabel* m_status = nullptr;
    std::function<dispatch::RemoteBundle()> m_runnerSources = defaultRunnerSources();
    dispatch::PreparationOptions m_preparationOptions;
    qint64 m_preparing = 0; // the node being prepared, 0 when none
    QPointer<HostKeyTrustDialog> m_trustDialog;
};

} // namespace shardwise::gui
