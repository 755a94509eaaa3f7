#include "pages/nodes/nodes_page.hpp"

#include "jobs/node_job.hpp"
#include "jobs/probe_job.hpp"
#include "models/node_facts_model.hpp"
#include "models/node_table_model.hpp"
#include "pages/nodes/host_key_trust_dialog.hpp"
#include "pages/nodes/ssh_node_dialog.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/store/probes.hpp"

#include <QCoreApplication>
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

} // namespace

std::function<dispatch::RemoteBundle()> NodesPage::defaultRunnerSources()
{
    return [] {
        return dispatch::makeRunnerBundle(
            session::findRunnerSources(QCoreApplication::applicationDirPath().toStdString()));
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
    m_addLocal = button(tr("Add &this machine"), "addLocalNode",
                        tr("Adds this machine as the node \"local\" and discovers its facts."));
    m_addSsh = button(tr("Add &SSH node…"), "addSshNode", tr("Adds a machine reached over SSH."));
    m_remove = button(tr("&Remove"), "removeNode", tr("Removes the node; runs measured on it keep its name."));
    m_test = button(tr("Test &connection"), "testNode", tr("Connects, checks the host key and runs one command."));
    m_discover = button(tr("&Discover facts"), "discoverNode",
                        tr("Finds the GPUs, driver, CUDA, NCCL, LibTorch and build tools on the node."));
    m_prepare = button(tr("&Prepare"), "prepareNode",
                       tr("Uploads the runner's sources to the SSH node and builds them there against its LibTorch; an "
                          "unchanged runner is not built again."));
    m_ncclEnv
        = button(tr("&NCCL settings…"), "editNcclEnv",
                 tr("Environment variables for NCCL that the node's runs get, e.g. NCCL_NVLS_ENABLE=0 where NVLink "
                    "multicast is forbidden; none by default."));
    m_cancelPrepare
        = button(tr("Cancel pr&eparation"), "cancelPreparation", tr("Stops the upload or the build on the node."));
    m_cancelPrepare->setEnabled(false);
    m_prepareProgress = new QProgressBar(this);
    m_prepareProgress->setObjectName(QStringLiteral("preparationProgress"));
    m_prepareProgress->setRange(0, 1000);
    m_prepareProgress->setVisible(false);
    m_probe = button(
        tr("Pro&be"), "probeNode",
        tr("Measures the node's matmul rate, copy bandwidths, CPU AdamW rate and, with several GPUs, collective "
           "bandwidths with the runner, and stores them for calibrated plans."));
    m_cancelProbe = button(tr("Cance&l probe"), "cancelProbe", tr("Stops the probe's runner processes on the node."));
    m_probeNetwork = button(tr("Probe net&work…"), "probeNetwork",
                            tr("Measures the network between the selected SSH node and another: one probe over every "
                               "GPU of both, whose collectives cross the network. The Plan page offers the result "
                               "as an inter-node network."));
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

    // Two rows, so that the page fits a 1024 px window: the node list's own actions, then what is
    // done to the selected node.
    auto* buttons = new QVBoxLayout;
    auto* listRow = new QHBoxLayout;
    for (QPushButton* b : { m_addLocal, m_addSsh, m_remove, m_ncclEnv, m_probeNetwork })
        listRow->addWidget(b);
    listRow->addStretch(1);
    auto* actionRow = new QHBoxLayout;
    for (QPushButton* b : { m_test, m_discover, m_prepare, m_cancelPrepare, m_probe, m_cancelProbe })
        actionRow->addWidget(b);
    actionRow->addStretch(1);
    buttons->addLayout(listRow);
    buttons->addLayout(actionRow);
    QWidget* previous = nullptr; // Tab follows the rows
    for (QPushButton* b : { m_addLocal, m_addSsh, m_remove, m_ncclEnv, m_probeNetwork, m_test, m_discover, m_prepare,
                            m_cancelPrepare, m_probe, m_cancelProbe }) {
        if (previous)
            setTabOrder(previous, b);
        previous = b;
    }

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
    connect(m_ncclEnv, &QPushButton::clicked, this, &NodesPage::editNcclEnvironmentOfSelected);
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
    connect(m_probeNetwork, &QPushButton::clicked, this, &NodesPage::probeNetworkInteractively);
    connect(m_probeJob, &ProbeJob::progress, this, [this](qint64, const QString& line) { setStatus(line, false); });
    connect(m_probeJob, &ProbeJob::finished, this, &NodesPage::onProbeFinished);
    connect(m_probeJob, &ProbeJob::busyChanged, this, [this](bool busy) {
        m_probeProgress->setVisible(busy);
        updateButtons();
    });
    connect(m_nodeView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                showFactsOf(current.isValid() ? current.data(NodeTableModel::NodeIdRole).toLongLong() : 0);
                updateButtons();
            });
    connect(m_job, &NodeJob::connectionTested, this,
            [this](qint64, const QString& summary) { setStatus(summary, false); });
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

HostKeyTrustDialog* NodesPage::trustDialog() const
{
    return m_trustDialog.data();
}

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
    m_probeNetwork->setEnabled(writable && node && node->kind == store::NodeKind::Ssh && !m_probeJob->busy()
                               && !otherSshNodes().isEmpty());
    m_ncclEnv->setEnabled(writable && node);
}

void NodesPage::showFactsOf(qint64 nodeId)
{
    const int row = m_nodes->rowOf(nodeId);
    const store::Node* node = m_nodes->nodeAt(row);
    if (!node || !node->facts.is_object() || node->facts.empty())
        m_facts->clear();
    else
        m_facts->setFacts(session::nodeFactsFromJson(node->facts));
    if (!node || !m_workspace.database())
        return;
    try {
        m_facts->setProbe(store::latestProbe(*m_workspace.database(), node->name));
    } catch (const std::exception& e) {
        setStatus(tr("The probes of %1 could not be read: %2")
                      .arg(QString::fromStdString(node->name), QString::fromUtf8(e.what())),
                  true);
    }
}

} // namespace shardwise::gui
