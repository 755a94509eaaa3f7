// The Nodes page's actions: add, remove, test, discover, prepare, probe, trust a host key and edit a
// node's NCCL settings. Every write goes through core's node management (session/node_management.hpp).
#include "pages/nodes/nodes_page.hpp"

#include "jobs/node_job.hpp"
#include "jobs/probe_job.hpp"
#include "models/node_table_model.hpp"
#include "pages/nodes/host_key_trust_dialog.hpp"
#include "pages/nodes/ssh_node_dialog.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/calibrate/network.hpp"
#include "shardwise/session/node_management.hpp"

#include <QInputDialog>
#include <QLabel>
#include <QProgressBar>
#include <QStringList>

namespace shardwise::gui {

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
            id = session::addNode(db, local, m_job->sshOptions()).id;
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
        const qint64 id = session::addNode(*m_workspace.database(), node, m_job->sshOptions()).id;
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
    dialog->setSshOptions(m_job->sshOptions());
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
        if (const auto node = storedNode(*id))
            session::removeNode(*m_workspace.database(), node->name);
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
    setStatus(
        tr("Probing %1: %n rank(s) on %2…", nullptr, request.ranks)
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

void NodesPage::onProbeFinished(qint64 nodeId, const session::ProbeRequest& request,
                                const session::ProbeSessionResult& measured)
{
    if (!calibrate::networkNodes(request.node).empty()) {
        onNetworkProbeFinished(request, measured);
        return;
    }
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
        setStatus(
            tr("%1 probed: %n rank(s) measured and stored.", nullptr, static_cast<int>(result.events.size())).arg(name),
            false);
    else
        setStatus(tr("%1 probed: %n rank(s) measured and stored; calibrated plans for %2 start from this probe.",
                     nullptr, static_cast<int>(result.events.size()))
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
        session::recordPreparedRunner(*m_workspace.database(), nodeId, runner);
    } catch (const std::exception& e) {
        setStatus(tr("%1 was prepared, but the store did not take it: %2")
                      .arg(QString::fromStdString(node->name), QString::fromUtf8(e.what())),
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
        status += QLatin1Char(' ')
            + tr("The torch backend can run there (%1).").arg(QString::fromStdString(runner.torchRunnerPath));
    } else {
        QStringList missing;
        for (const std::string& p : runner.torchBackendProblems)
            missing << QString::fromStdString(p);
        status
            += QLatin1Char(' ') + tr("The torch backend cannot run there: %1.").arg(missing.join(QStringLiteral("; ")));
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
        session::recordNodeFacts(*m_workspace.database(), nodeId, facts);
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
    auto* dialog = new HostKeyTrustDialog(QString::fromStdString(node->name),
                                          QString::fromStdString(presenterKnown ? key.host : node->host),
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
        session::trustNodeHostKey(*m_workspace.database(), *node, key, m_job->sshOptions().knownHosts.app);
    } catch (const std::exception& e) {
        setStatus(tr("%1: the host key could not be recorded: %2").arg(name, QString::fromUtf8(e.what())), true);
        return;
    }
    reload();
    // With the key trusted, connect again and find out what the node has.
    start(nodeId, Pending::Discover);
}

QString NodesPage::ncclEnvironmentText(const std::map<std::string, std::string>& env)
{
    QStringList lines;
    for (const auto& [name, value] : env)
        lines << QString::fromStdString(name + "=" + value);
    return lines.join(QLatin1Char('\n'));
}

bool NodesPage::setNcclEnvironment(qint64 nodeId, const QString& text)
{
    const std::optional<store::Node> node = storedNode(nodeId);
    if (!node || !m_workspace.database())
        return false;
    const QString name = QString::fromStdString(node->name);
    try {
        std::map<std::string, std::string> env;
        for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (line.trimmed().isEmpty())
                continue;
            const auto [key, value] = session::parseEnvAssignment(line.trimmed().toStdString());
            env[key] = value;
        }
        session::setNodeNcclEnv(*m_workspace.database(), nodeId, env);
    } catch (const std::exception& e) {
        setStatus(tr("The NCCL settings of %1 were not changed: %2").arg(name, QString::fromUtf8(e.what())), true);
        return false;
    }
    reload();
    m_workspace.notifyNodesChanged();
    const auto after = storedNode(nodeId);
    setStatus(after && !after->ncclEnv.empty()
                  ? tr("%1: runs give its ranks %2.")
                        .arg(name, ncclEnvironmentText(after->ncclEnv).replace(QLatin1Char('\n'), QLatin1Char(' ')))
                  : tr("%1: no NCCL settings; NCCL chooses its defaults.").arg(name),
              false);
    return true;
}

void NodesPage::editNcclEnvironmentOfSelected()
{
    const std::optional<qint64> id = selectedNodeId();
    const std::optional<store::Node> node = id ? storedNode(*id) : std::nullopt;
    if (!node)
        return;
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("ncclEnvDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setOption(QInputDialog::UsePlainTextEditForTextInput);
    dialog->setWindowTitle(tr("NCCL settings of %1").arg(QString::fromStdString(node->name)));
    dialog->setLabelText(
        tr("One NAME=VALUE per line, given to every rank this node runs (e.g. NCCL_NVLS_ENABLE=0 where NVLink "
           "multicast is forbidden). Empty: none."));
    dialog->setTextValue(ncclEnvironmentText(node->ncclEnv));
    const qint64 nodeId = *id;
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, nodeId](const QString& text) { setNcclEnvironment(nodeId, text); });
    m_ncclDialog = dialog;
    dialog->open();
}

} // namespace shardwise::gui
