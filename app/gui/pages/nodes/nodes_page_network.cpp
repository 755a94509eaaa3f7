// The Nodes page's Probe network: the network between the selected SSH node and others, measured by one
// probe over all of them (session::probeNetwork through ProbeJob), stored under the nodes' names joined
// by '+' and reported with the figure the Plan page offers (calibrate::measuredNetwork).
#include "pages/nodes/nodes_page.hpp"

#include "jobs/node_job.hpp"
#include "jobs/probe_job.hpp"
#include "models/node_table_model.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/calibrate/network.hpp"

#include <QInputDialog>
#include <QLocale>
#include <QProgressBar>

namespace shardwise::gui {

QStringList NodesPage::otherSshNodes() const
{
    const std::optional<qint64> selected = selectedNodeId();
    QStringList names;
    for (const store::Node& n : m_nodes->nodes())
        if (n.kind == store::NodeKind::Ssh && (!selected || n.id != *selected))
            names << QString::fromStdString(n.name);
    return names;
}

void NodesPage::probeNetworkInteractively()
{
    const QStringList others = otherSshNodes();
    if (others.isEmpty())
        return;
    bool ok = false;
    const QString other = QInputDialog::getItem(
        this, tr("Probe network"), tr("Measure the network between the selected node and:"), others, 0, false, &ok);
    if (ok && !other.isEmpty())
        probeNetworkWith({ other });
}

bool NodesPage::probeNetworkWith(const QStringList& others)
{
    const std::optional<qint64> id = selectedNodeId();
    const std::optional<store::Node> first = id ? storedNode(*id) : std::nullopt;
    if (!first || first->kind != store::NodeKind::Ssh) {
        setStatus(tr("Select an SSH node to probe the network from."), true);
        return false;
    }
    std::vector<store::Node> nodes { *first };
    for (const QString& name : others) {
        const auto n = m_workspace.database() ? store::findNodeByName(*m_workspace.database(), name.toStdString())
                                              : std::nullopt;
        if (!n || n->kind != store::NodeKind::Ssh || n->id == first->id) {
            setStatus(tr("%1 is not another SSH node of this workspace.").arg(name), true);
            return false;
        }
        nodes.push_back(*n);
    }
    const session::ProbeRequest request = m_probeJob->networkRequestFor(nodes);
    m_probeJob->setSshOptions(m_job->sshOptions());
    if (!m_probeJob->probeNetwork(nodes))
        return false;
    setStatus(tr("Probing the network %1: %n rank(s), %2…", nullptr, request.ranks)
                  .arg(QString::fromStdString(request.node),
                       QString::fromUtf8(std::string(deviceId(request.device)).c_str())),
              false);
    return true;
}

void NodesPage::onNetworkProbeFinished(const session::ProbeRequest& request,
                                       const session::ProbeSessionResult& measured)
{
    const QString name = QString::fromStdString(request.node);
    session::ProbeSessionResult result = measured;
    if (result.ok() && m_workspace.database()) {
        session::storeNetworkProbes(result, request.node, *m_workspace.database());
        if (!result.stored.empty())
            m_workspace.notifyNodesChanged(); // the Plan page lists the measured network
    }
    if (result.failure == session::ProbeFailure::Cancelled) {
        setStatus(tr("The probe of the network %1 was cancelled; nothing was stored.").arg(name), false);
        return;
    }
    if (!result.ok()) {
        setStatus(tr("The probe of the network %1 failed: %2").arg(name, QString::fromStdString(result.reason)), true);
        return;
    }
    const auto network = calibrate::measuredNetwork(request.node, result.events);
    if (!network) {
        setStatus(tr("The network %1 was probed, but no collective was measured.").arg(name), true);
        return;
    }
    const QLocale locale;
    setStatus(
        tr("Network %1: collectives reached %2 GB/s bus bandwidth; the Plan page offers it as an inter-node "
           "network of %3 GB/s per node.")
            .arg(name, locale.toString(network->busGBps, 'f', 2), locale.toString(network->interNodeGBps, 'f', 1)),
        false);
}

} // namespace shardwise::gui
