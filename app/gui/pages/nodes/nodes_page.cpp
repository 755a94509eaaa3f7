#include "pages/nodes/nodes_page.hpp"

#include "jobs/node_job.hpp"
#include "jobs/probe_job.hpp"
#include "models/node_facts_json.hpp"
#include "models/node_facts_model.hpp"
#include "models/node_table_model.hpp"
#include "pages/nodes/host_key_trust_dialog.hpp"
#include "pages/nodes/ssh_node_dialog.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/store/probes.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace shardwise::gui {

namespace {

QTableView* makeTable(QAbstractItemModel* model, const char* name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(QString::fromLatin1(name));
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

// A source tree holds the runner when these exist (see dispatch::runnerBundleEntries()).
bool holdsRunnerSources(const QString& dir)
{
    return QFileInfo::exists(dir + QStringLiteral("/runner/CMakeLists.txt")) && QFileInfo::exists(dir + QStringLiteral("/core/spec"));
}

} // namespace

std::function<dispatch::RemoteBundle()> NodesPage::defaultRunnerSources()
{
    return [] {
        QString root = qEnvironmentVariable("SHARDWISE_RUNNER_SOURCES");
        if (root.isEmpty()) {
            // The Debian package installs them beside the binaries: <prefix>/share/shardwise/runner-src.
            const QString installed =
                QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral("../share/shardwise/runner-src"));
            if (holdsRunnerSources(installed))
                root = QDir::cleanPath(installed);
        }
        if (root.isEmpty()) {
            // A build tree sits inside (or beside) its sources: look up from this program's folder.
            QDir dir(QCoreApplication::applicationDirPath());
            for (int up = 0; up < 4 && root.isEmpty(); ++up) {
                if (holdsRunnerSources(dir.absolutePath()))
                    root = dir.absolutePath();
                if (!dir.cdUp())
                    break;
            }
        }
        if (root.isEmpty() || !holdsRunnerSources(root))
            throw std::runtime_error(QCoreApplication::translate("shardwise::gui::NodesPage",
                                                                 "The runner's sources were not found; set SHARDWISE_RUNNER_SOURCES to "
                                                                 "the Shardwise source folder.")
                                         .toStdString());
        return dispatch::makeRunnerBundle(root.toStdString());
    };
}

NodesPage::NodesPage(Workspace& workspace, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
{
    m_job = new NodeJob(this);
    m_probeJob = new ProbeJob(this);
    m_nodes = new NodeTableModel(this);
    m_facts = new NodeFactsModel(this);
    m_nodeView = makeTable(m_nodes, "nodeTable", this);
    m_factsView = makeTable(m_facts, "nodeFacts", this);

    auto button = [this](const QString& text, const char* name, const QString& tip) {
        auto* b = new QPushButton(text, this);
        b->setObjectName(QString::fromLatin1(name));
        b->setToolTip(tip);
        return b;
    };
    m_addLocal = button(tr("Add &this machine"), "addLocalNode", tr("Adds this machine as the node \"local\" and discovers its facts."));
    m_addSsh = button(tr("Add &SSH node…"), "addSshNode", tr("Adds a machine reached over SSH."));
    m_remove = button(tr("&Remove"), "removeNode", tr("Removes the node; runs measured on it keep its name."));
    m_test = button(tr("Test &connection"), "testNode", tr("Connects, checks the host key and runs one command."));
    m_discover = button(tr("&Discover facts"), "discoverNode", tr("Finds the GPUs, driver, CUDA, NCCL, LibTorch and build tools on the node."));
    m_prepare = button(tr("&Prepare"), "prepareNode",
                       tr("Uploads the runner's sources to the SSH node and builds them there against its LibTorch; an "
                          "unchanged runner is not built again."));
    m_cancelPrepare = button(tr("Cancel pr&eparation"), "cancelPreparation", tr("Stops the upload or the build on the node."));
    m_cancelPrepare->setEnabled(false);
    m_prepareProgress = new QProgressBar(this);
    m_prepareProgress->setObjectName(QStringLiteral("preparationProgress"));
    m_prepareProgress->setRange(0, 1000);
    m_prepareProgress->setVisible(false);
    m_probe = button(tr("Pro&be"), "probeNode",
                     tr("Measures the node's matmul rate, copy bandwidths, CPU AdamW rate and, with several GPUs, collective "
                        "bandwidths with the runner, and stores them for calibrated plans."));
    m_cancelProbe = button(tr("Cance&l probe"), "cancelProbe", tr("Stops the probe's runner processes on the node."));
    m_cancelProbe->setEnabled(false);
    m_probeProgress = new QProgressBar(this);
    m_probeProgress->setObjectName(QStringLiteral("probeProgress"));
    // The runner reports its figures only at the end: a busy bar, with its log lines on the status line.
    m_probeProgress->setRange(0, 0);
    m_probeProgress->setVisible(false);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("nodesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_addLocal, m_addSsh, m_remove, m_test, m_discover, m_prepare, m_cancelPrepare, m_probe, m_cancelProbe})
        buttons->addWidget(b);
    buttons->addStretch(1);

    auto* factsBox = new QGroupBox(tr("Facts of the selected node"), this);
    (new QVBoxLayout(factsBox))->addWidget(m_factsView);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_nodeView);
    split->addWidget(factsBox);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addWidget(m_prepareProgress);
    layout->addWidget(m_probeProgress);
    layout->addWidget(m_status);

    connect(m_addLocal, &QPushButton::clicked, this, [this] { addLocalNode(); });
    connect(m_addSsh, &QPushButton::clicked, this, &NodesPage::addSshNodeInteractively);
    connect(m_remove, &QPushButton::clicked, this, &NodesPage::removeSelected);
    connect(m_test, &QPushButton::clicked, this, &NodesPage::testSelected);
    connect(m_discover, &QPushButton::clicked, this, &NodesPage::discoverSelected);
    connect(m_prepare, &QPushButton::clicked, this, &NodesPage::prepareSelected);
    connect(m_cancelPrepare, &QPushButton::clicked, this, &NodesPage::cancelPreparation);
    connect(m_job, &NodeJob::preparationProgress, this,
            [this](qint64 nodeId, double fraction, const QString& phase, const QString& message) {
                if (nodeId != m_preparing)
                    return;
                m_prepareProgress->setValue(static_cast<int>(fraction * 1000.0));
                m_prepareProgress->setFormat(tr("%1: %p%").arg(phase));
                setStatus(message.section(QLatin1Char('\n'), 0, 0), false);
            });
    connect(m_job, &NodeJob::prepared, this, &NodesPage::onPrepared);
    connect(m_probe, &QPushButton::clicked, this, &NodesPage::probeSelected);
    connect(m_cancelProbe, &QPushButton::clicked, this, &NodesPage::cancelProbe);
    connect(m_probeJob, &ProbeJob::progress, this, [this](qint64, const QString& line) { setStatus(line, false); });
    connect(m_probeJob, &ProbeJob::finished, this, &NodesPage::onProbeFinished);
    connect(m_probeJob, &ProbeJob::busyChanged, this, [this](bool busy) {
        m_probeProgress->setVisible(busy);
        updateButtons();
    });
    connect(m_nodeView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        showFactsOf(current.isValid() ? current.data(NodeTableModel::NodeIdRole).toLongLong() : 0);
        updateButtons();
    });
    connect(m_job, &NodeJob::connectionTested, this, [this](qint64, const QString& summary) { setStatus(summary, false); });
    connect(m_job, &NodeJob::factsAvailable, this, &NodesPage::onFacts);
    connect(m_job, &NodeJob::hostKeyUntrusted, this, &NodesPage::onUntrustedKey);
    connect(m_job, &NodeJob::nodeFailed, this, [this](qint64 nodeId, const QString& message) {
        if (nodeId == m_preparing)
            endPreparation();
        const auto node = storedNode(nodeId);
        setStatus(tr("%1: %2").arg(node ? QString::fromStdString(node->name) : QString::number(nodeId), message), true);
    });
    connect(m_job, &NodeJob::busyChanged, this, [this] { updateButtons(); });
    reload();
}

NodesPage::~NodesPage() = default;

HostKeyTrustDialog* NodesPage::trustDialog() const { return m_trustDialog.data(); }

void NodesPage::setStatus(const QString& text, bool problem)
{
    m_status->setText(text);
    m_status->setProperty("problem", problem);
    m_status->setStyleSheet(problem ? QStringLiteral("color: #c0392b;") : QString());
}

std::optional<store::Node> NodesPage::storedNode(qint64 id) const
{
    if (!m_workspace.database())
        return std::nullopt;
    return store::findNode(*m_workspace.database(), id);
}

std::optional<qint64> NodesPage::selectedNodeId() const
{
    const QModelIndex current = m_nodeView->currentIndex();
    if (!current.isValid())
        return std::nullopt;
    return current.data(NodeTableModel::NodeIdRole).toLongLong();
}

void NodesPage::selectNode(qint64 nodeId)
{
    const int row = m_nodes->rowOf(nodeId);
    if (row < 0)
        return;
    m_nodeView->setCurrentIndex(m_nodes->index(row, 0));
    m_nodeView->selectRow(row);
}

void NodesPage::reload()
{
    const std::optional<qint64> selected = selectedNodeId();
    if (!m_workspace.database())
        return;
    try {
        m_nodes->setNodes(store::listNodes(*m_workspace.database()));
    } catch (const std::exception& e) {
        setStatus(tr("The nodes could not be read: %1").arg(QString::fromUtf8(e.what())), true);
    }
    if (selected && m_nodes->rowOf(*selected) >= 0)
        selectNode(*selected);
    else if (m_nodes->rowCount() > 0)
        selectNode(m_nodes->nodeAt(0)->id);
    else
        showFactsOf(0);
    updateButtons();
}

void NodesPage::updateButtons()
{
    bool hasLocal = false;
    for (const store::Node& n : m_nodes->nodes())
        hasLocal = hasLocal || n.kind == store::NodeKind::Local;
    const bool writable = m_workspace.database() && !m_workspace.database()->readOnly();
    m_addLocal->setEnabled(writable && !hasLocal);
    m_addSsh->setEnabled(writable);
    const std::optional<qint64> selected = selectedNodeId();
    const store::Node* node = selected ? m_nodes->nodeAt(m_nodes->rowOf(*selected)) : nullptr;
    m_remove->setEnabled(writable && node);
    m_test->setEnabled(node && node->kind == store::NodeKind::Ssh);
    m_discover->setEnabled(node != nullptr);
    m_prepare->setEnabled(writable && node && node->kind == store::NodeKind::Ssh && m_preparing == 0);
    m_cancelPrepare->setEnabled(m_preparing != 0);
    m_probe->setEnabled(writable && node && !m_probeJob->busy());
    m_cancelProbe->setEnabled(m_probeJob->busy());
}

void NodesPage::showFactsOf(qint64 nodeId)
{
    const int row = m_nodes->rowOf(nodeId);
    const store::Node* node = m_nodes->nodeAt(row);
    if (!node || !node->facts.is_object() || node->facts.empty())
        m_facts->clear();
    else
        m_facts->setFacts(nodeFactsFromJson(node->facts));
    if (!node || !m_workspace.database())
        return;
    try {
        m_facts->setProbe(store::latestProbe(*m_workspace.database(), node->name));
    } catch (const std::exception& e) {
        setStatus(tr("The probes of %1 could not be read: %2").arg(QString::fromStdString(node->name), QString::fromUtf8(e.what())), true);
    }
}

qint64 NodesPage::addLocalNode()
{
    if (!m_workspace.database())
        return 0;
    store::Database& db = *m_workspace.database();
    try {
        qint64 id = 0;
        if (const auto existing = store::findNodeByName(db, "local")) {
            id = existing->id;
        } else {
            store::Node local;
            local.name = "local";
            local.kind = store::NodeKind::Local;
            id = store::addNode(db, local);
        }
        reload();
        selectNode(id);
        start(id, Pending::Discover);
        return id;
    } catch (const std::exception& e) {
        setStatus(tr("This machine could not be added: %1").arg(QString::fromUtf8(e.what())), true);
        return 0;
    }
}

qint64 NodesPage::addSshNode(const store::Node& node)
{
    if (!m_workspace.database())
        return 0;
    try {
        const qint64 id = store::addNode(*m_workspace.database(), node);
        reload();
        m_workspace.notifyNodesChanged();
        selectNode(id);
        setStatus(tr("Added %1; connecting…").arg(QString::fromStdString(node.name)), false);
        start(id, Pending::Test);
        return id;
    } catch (const std::exception& e) {
        setStatus(tr("The node could not be added: %1").arg(QString::fromUtf8(e.what())), true);
        return 0;
    }
}

void NodesPage::addSshNodeInteractively()
{
    auto* dialog = new SshNodeDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { addSshNode(dialog->node()); });
    dialog->open();
}

void NodesPage::removeSelected()
{
    const std::optional<qint64> id = selectedNodeId();
    if (!id || !m_workspace.database())
        return;
    try {
        store::removeNode(*m_workspace.database(), *id);
    } catch (const std::exception& e) {
        setStatus(tr("The node could not be removed: %1").arg(QString::fromUtf8(e.what())), true);
    }
    reload();
    m_workspace.notifyNodesChanged();
}

void NodesPage::testSelected()
{
    if (const std::optional<qint64> id = selectedNodeId())
        start(*id, Pending::Test);
}

void NodesPage::discoverSelected()
{
    if (const std::optional<qint64> id = selectedNodeId())
        start(*id, Pending::Discover);
}

void NodesPage::prepareSelected()
{
    if (const std::optional<qint64> id = selectedNodeId())
        start(*id, Pending::Prepare);
}

void NodesPage::probeSelected()
{
    const std::optional<qint64> id = selectedNodeId();
    const std::optional<store::Node> node = id ? storedNode(*id) : std::nullopt;
    if (!node)
        return;
    const session::ProbeRequest request = m_probeJob->requestFor(*node);
    // The same known_hosts and time limits as every other request to the node.
    m_probeJob->setSshOptions(m_job->sshOptions());
    if (!m_probeJob->probe(*node))
        return;
    setStatus(tr("Probing %1: %n rank(s) on %2…", nullptr, request.ranks)
                  .arg(QString::fromStdString(node->name), QString::fromUtf8(std::string(deviceId(request.device)).c_str())),
              false);
}

void NodesPage::cancelProbe()
{
    if (!m_probeJob->busy())
        return;
    m_probeJob->cancel();
    setStatus(tr("Cancelling the probe…"), false);
}

void NodesPage::onProbeFinished(qint64 nodeId, const session::ProbeRequest& request, const session::ProbeSessionResult& measured)
{
    const std::optional<store::Node> node = storedNode(nodeId);
    const QString name = node ? QString::fromStdString(node->name) : QString::fromStdString(request.node);
    session::ProbeSessionResult result = measured;
    if (result.ok() && m_workspace.database())
        session::storeProbes(result, request, *m_workspace.database());
    if (result.failure == session::ProbeFailure::Cancelled) {
        setStatus(tr("The probe of %1 was cancelled; nothing was stored.").arg(name), false);
        return;
    }
    if (!result.ok()) {
        setStatus(tr("The probe of %1 failed: %2").arg(name, QString::fromStdString(result.reason)), true);
        return;
    }
    if (selectedNodeId() == nodeId)
        showFactsOf(nodeId);
    const QString gpu = QString::fromStdString(result.stored.empty() ? std::string() : result.stored.back().gpuId);
    if (gpu.isEmpty())
        setStatus(tr("%1 probed: %n rank(s) measured and stored.", nullptr, static_cast<int>(result.events.size())).arg(name), false);
    else
        setStatus(tr("%1 probed: %n rank(s) measured and stored; calibrated plans for %2 start from this probe.", nullptr,
                     static_cast<int>(result.events.size()))
                      .arg(name, gpu),
                  false);
}

void NodesPage::cancelPreparation()
{
    if (m_preparing == 0)
        return;
    m_job->cancel();
    setStatus(tr("Cancelling the preparation…"), false);
}

void NodesPage::endPreparation()
{
    m_preparing = 0;
    m_prepareProgress->setVisible(false);
    updateButtons();
}

void NodesPage::onPrepared(qint64 nodeId, const dispatch::PreparedRunner& runner)
{
    if (nodeId == m_preparing)
        endPreparation();
    const std::optional<store::Node> node = storedNode(nodeId);
    if (!node || !m_workspace.database())
        return;
    try {
        nlohmann::json facts = nodeFactsToJson(runner.facts);
        session::setPreparedRunner(facts, runner, store::currentUnixTime());
        store::setNodeFacts(*m_workspace.database(), nodeId, facts);
    } catch (const std::exception& e) {
        setStatus(tr("%1 was prepared, but the store did not take it: %2").arg(QString::fromStdString(node->name), QString::fromUtf8(e.what())),
                  true);
        return;
    }
    reload();
    selectNode(nodeId);
    m_workspace.notifyNodesChanged();
    const QString name = QString::fromStdString(node->name);
    const QString path = QString::fromStdString(runner.runnerPath);
    QString status = runner.fromCache ? tr("%1 is prepared: the runner was already built at %2.").arg(name, path)
                                      : tr("%1 is prepared: the runner was built at %2.").arg(name, path);
    // What the torch backend lacks there, named, or that it can run.
    if (runner.torchBackendProblems.empty()) {
        status += QLatin1Char(' ') + tr("The torch backend can run there (%1).").arg(QString::fromStdString(runner.torchRunnerPath));
    } else {
        QStringList missing;
        for (const std::string& p : runner.torchBackendProblems)
            missing << QString::fromStdString(p);
        status += QLatin1Char(' ') + tr("The torch backend cannot run there: %1.").arg(missing.join(QStringLiteral("; ")));
    }
    setStatus(status, false);
}

void NodesPage::start(qint64 nodeId, Pending what)
{
    const std::optional<store::Node> node = storedNode(nodeId);
    if (!node)
        return;
    const QString name = QString::fromStdString(node->name);
    if (what == Pending::Prepare) {
        if (m_preparing != 0)
            return;
        m_preparing = nodeId;
        m_prepareProgress->setValue(0);
        m_prepareProgress->setFormat(tr("%p%"));
        m_prepareProgress->setVisible(true);
        updateButtons();
        setStatus(tr("Preparing %1…").arg(name), false);
        m_job->prepare(*node, m_runnerSources, m_preparationOptions);
    } else if (what == Pending::Test) {
        setStatus(tr("Connecting to %1…").arg(name), false);
        m_job->testConnection(*node);
    } else {
        setStatus(tr("Discovering the facts of %1…").arg(name), false);
        m_job->discover(*node);
    }
}

void NodesPage::onFacts(qint64 nodeId, const dispatch::NodeFacts& facts)
{
    if (!m_workspace.database())
        return;
    try {
        nlohmann::json stored = nodeFactsToJson(facts);
        // Discovery finds what is installed; the runner a preparation built stays valid.
        if (const auto before = storedNode(nodeId); before && before->facts.is_object() && before->facts.contains("prepared_runner"))
            stored["prepared_runner"] = before->facts.at("prepared_runner");
        store::setNodeFacts(*m_workspace.database(), nodeId, stored);
    } catch (const std::exception& e) {
        setStatus(tr("The facts could not be stored: %1").arg(QString::fromUtf8(e.what())), true);
        return;
    }
    reload();
    selectNode(nodeId);
    showFactsOf(nodeId);
    const auto node = storedNode(nodeId);
    const QString name = node ? QString::fromStdString(node->name) : QString::number(nodeId);
    if (facts.canBuildRunner())
        setStatus(tr("%1: %n GPU(s) found.", nullptr, static_cast<int>(facts.gpus.size())).arg(name), false);
    else
        setStatus(tr("%1: %n GPU(s) found; the runner cannot be built there yet (see the problems below).", nullptr,
                     static_cast<int>(facts.gpus.size()))
                      .arg(name),
                  false);
}

void NodesPage::onUntrustedKey(qint64 nodeId, const dispatch::HostKey& key, bool changed, const QString& message)
{
    const std::optional<store::Node> node = storedNode(nodeId);
    if (!node)
        return;
    if (m_trustDialog)
        m_trustDialog->close();
    setStatus(message, true);
    // The host that presented the key: for an ssh_config alias its HostName, or a jump host on the way.
    const bool presenterKnown = !key.host.empty() && key.port > 0;
    auto* dialog = new HostKeyTrustDialog(QString::fromStdString(node->name), QString::fromStdString(presenterKnown ? key.host : node->host),
                                          presenterKnown ? key.port : node->port, key, changed, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_trustDialog = dialog;
    connect(dialog, &QDialog::finished, this, [this, nodeId, key, changed](int result) {
        onTrustDecision(nodeId, key, !changed && result == QDialog::Accepted);
    });
    dialog->open();
}

void NodesPage::onTrustDecision(qint64 nodeId, const dispatch::HostKey& key, bool trusted)
{
    const std::optional<store::Node> node = storedNode(nodeId);
    if (!node)
        return;
    const QString name = QString::fromStdString(node->name);
    if (!trusted) {
        setStatus(tr("%1: the host key was not trusted, so Shardwise did not log in.").arg(name), true);
        return;
    }
    try {
        m_job->trustHostKey(*node, key);
        // The node's row remembers its own key; a jump host's key is only written to known_hosts.
        if (!key.jumpHost)
            store::acceptHostKey(*m_workspace.database(), nodeId, key.fingerprint);
    } catch (const std::exception& e) {
        setStatus(tr("%1: the host key could not be recorded: %2").arg(name, QString::fromUtf8(e.what())), true);
        return;
    }
    reload();
    // With the key trusted, connect again and find out what the node has.
    start(nodeId, Pending::Discover);
}

} // namespace shardwise::gui
