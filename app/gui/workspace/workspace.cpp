#include "workspace/workspace.hpp"

#include "workspace/plan_input.hpp"

#include "jobs/run_job.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/published/examples.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/plans.hpp"
#include "shardwise/store/runs.hpp"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimeZone>
#include <QtConcurrent/QtConcurrentRun>

#include <fstream>

namespace shardwise::gui {

namespace {

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

RunOutcome outcomeOf(store::RunStatus s)
{
    switch (s) {
    case store::RunStatus::Completed:
        return RunOutcome::Completed;
    case store::RunStatus::Oom:
        return RunOutcome::OutOfMemory;
    case store::RunStatus::Timeout:
        return RunOutcome::Timeout;
    case store::RunStatus::Cancelled:
        return RunOutcome::Cancelled;
    case store::RunStatus::Running:
        return RunOutcome::Running;
    case store::RunStatus::Detached: // its ranks go on running on their nodes until re-attached
        return RunOutcome::Detached;
    case store::RunStatus::Failed:
    case store::RunStatus::Lost:
    case store::RunStatus::Interrupted:
        return RunOutcome::Failed;
    }
    return RunOutcome::Failed;
}

QString hardwareText(const store::RunSummary& s)
{
    QString gpu = fromStd(s.gpuName.empty() ? s.gpuId : s.gpuName);
    if (gpu.isEmpty())
        gpu = Workspace::tr("unknown device");
    QString text = Workspace::tr("%1 × %2").arg(s.worldSize).arg(gpu);
    if (!s.interconnect.empty())
        text += QStringLiteral(" (%1)").arg(s.interconnect == "nvlink" ? Workspace::tr("NVLink")
                                                                       : Workspace::tr("PCIe"));
    if (s.nodeCount > 1)
        text += Workspace::tr(", %1 nodes").arg(s.nodeCount);
    return text;
}

RunRecord toRecord(const store::RunSummary& s)
{
    constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;
    RunRecord r;
    r.id = s.id;
    const ModelSpec* model = PresetCatalog::builtin().findModel(s.modelId);
    r.model = model && !model->name.empty() ? fromStd(model->name) : fromStd(s.modelId);
    r.hardware = hardwareText(s);
    QStringList nodes;
    for (const std::string& n : s.nodes)
        nodes << fromStd(n);
    r.node = nodes.join(QStringLiteral(", "));
    r.strategy = s.strategy;
    r.backend = s.backend;
    if (s.backend == RunBackend::Torch) {
        const protocol::SoftwareVersions& v = s.versions;
        auto orUnknown
            = [](const std::string& text) { return text.empty() ? Workspace::tr("unknown") : fromStd(text); };
        r.backendDetail = Workspace::tr("PyTorch %1, Transformers %2 (model: %3), Python %4")
                              .arg(orUnknown(v.torch),
                                   v.transformers.empty() ? Workspace::tr("not installed") : fromStd(v.transformers),
                                   orUnknown(v.modelImpl), orUnknown(v.python));
    }
    r.started = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(s.startedAt * 1000.0), QTimeZone::utc());
    r.outcome = outcomeOf(s.status);
    r.failure = fromStd(s.note);
    r.readOnly = published::isReadOnlyRun(s);
    if (r.readOnly)
        r.origin = published::isExampleRun(s.importSource) ? QStringLiteral("example") : QStringLiteral("published");
    if (s.status == store::RunStatus::Interrupted && r.failure.isEmpty())
        r.failure = Workspace::tr("The process recording this run stopped answering; it was interrupted.");
    r.tokensPerS = s.tokensPerS.value_or(0.0);
    r.medianStepS = s.medianStepS.value_or(0.0);
    r.peakAllocatedGiB = static_cast<double>(s.peakAllocated.value_or(0)) / kGiBytes;
    r.peakReservedGiB = static_cast<double>(s.peakReserved.value_or(0)) / kGiBytes;
    if (const GpuSpec* gpu = PresetCatalog::builtin().findGpu(s.gpuId))
        r.capacityGiB = gpu->memoryGiB();
    r.ncclShare = s.ncclShare.value_or(0.0);
    r.predictedTokensPerS = s.predicted.tokensPerS;
    if (s.predicted.peakBytes)
        r.predictedPeakGiB = static_cast<double>(*s.predicted.peakBytes) / kGiBytes;
    r.world = s.worldSize;
    r.rehearsedWorld = s.rehearsedWorld;
    r.warmupSteps = s.warmupSteps.value_or(0);
    r.timedSteps = s.timedSteps.value_or(0);
    r.microBatch = s.microBatch.value_or(0);
    r.seqLen = s.seqLen.value_or(0);
    r.precision = fromStd(s.precision);
    r.onCpu = s.gpuName == "cpu";
    return r;
}

constexpr std::string_view kTorchBackendId = protocol::kTorchBackend;

QString versionsText(const protocol::SoftwareVersions& v)
{
    QStringList parts;
    auto add = [&parts](const char* name, const std::string& value) {
        if (!value.empty())
            parts << QStringLiteral("%1 %2").arg(QLatin1String(name), QString::fromStdString(value));
    };
    // The harness names its backend and framework; the native runner its LibTorch build.
    if (v.backend == kTorchBackendId) {
        if (!v.runner.empty())
            parts << fromStd(v.runner); // "shardwise-torch X.Y.Z"
        add("PyTorch", v.torch);
        add("Transformers", v.transformers);
        add("model", v.modelImpl);
        add("Python", v.python);
    } else {
        add("shardwise-runner", v.runner);
        add("LibTorch", v.libtorch);
    }
    add("CUDA", v.cuda);
    add("NCCL", v.nccl);
    add("driver", v.driver);
    return parts.join(QStringLiteral(", "));
}

} // namespace

Workspace::Workspace(QObject* parent)
    : QObject(parent)
{
}

Workspace::~Workspace()
{
    // The import writes through its own connection to the file; it ends before the store is closed.
    if (m_exampleImport)
        m_exampleImport->waitForFinished();
}

QString Workspace::defaultDatabasePath()
{
    return QString::fromStdString(store::resolveDatabasePath().string());
}

bool Workspace::open(const QString& databasePath, QString* error)
{
    waitForExampleRuns();
    try {
        m_createdOnOpen = !QFileInfo::exists(databasePath);
        m_db = std::make_unique<store::Database>(store::Database::open(databasePath.toStdString()));
        m_path = databasePath;
        if (m_runQueue)
            m_runQueue->setDatabasePath(databasePath);
        if (m_createdOnOpen && !m_db->readOnly()) {
            seedDemoContent();
            if (m_seedsExampleRuns)
                startExampleRunsImport();
        }
    } catch (const std::exception& e) {
        m_db.reset();
        if (error)
            *error = tr("Cannot open the workspace %1: %2").arg(databasePath, QString::fromUtf8(e.what()));
        return false;
    }
    emit runsChanged();
    return true;
}

QList<ExamplePlan> Workspace::examplePlans()
{
    QFile file(QStringLiteral(":/demo/example-plans.json"));
    QList<ExamplePlan> plans;
    if (!file.open(QIODevice::ReadOnly))
        return plans;
    const QJsonArray array = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("plans")).toArray();
    for (const QJsonValue& v : array)
        plans.append({ v.toObject().value(QStringLiteral("id")).toString(),
                       v.toObject().value(QStringLiteral("title")).toString(),
                       v.toObject().value(QStringLiteral("form")).toObject() });
    return plans;
}

ExamplePlan Workspace::examplePlan(const QString& id)
{
    for (const ExamplePlan& plan : examplePlans())
        if (plan.id == id)
            return plan;
    return {};
}

void Workspace::seedDemoContent()
{
    if (!store::findNodeByName(*m_db, "local")) {
        store::Node local;
        local.name = "local";
        local.kind = store::NodeKind::Local;
        store::addNode(*m_db, local);
    }
    // The example plans are planned now, with this build's estimate, so their numbers match what
    // the Plan page shows for the same form.
    for (const ExamplePlan& example : examplePlans()) {
        const EstimateInput in = planInputFromState(example.form);
        const Plan plan = makePlan(in);
        store::StoredPlan stored;
        stored.title = example.title.toStdString();
        stored.modelId = in.model.id;
        stored.gpuId = in.gpu.id;
        stored.worldSize = in.cluster.worldSize();
        stored.recommended = plan.recommendation.strategy;
        stored.document = toJson(plan);
        store::savePlan(*m_db, stored);
    }
}

void Workspace::setSeedsExampleRuns(bool seeds, const QString& directory)
{
    m_seedsExampleRuns = seeds;
    m_exampleRunsDirectory = directory;
}

void Workspace::startExampleRunsImport()
{
    // Off the GUI thread, through its own connection to the store (SQLite's write-ahead log lets the
    // pages read meanwhile): a workspace without its examples is still a workspace, the reason is kept
    // for the status line.
    m_exampleRunsError.clear();
    const std::string path = m_path.toStdString();
    const std::filesystem::path dir = m_exampleRunsDirectory.isEmpty()
        ? published::defaultExamplesDirectory()
        : std::filesystem::path(m_exampleRunsDirectory.toStdString());
    m_exampleImport = new QFutureWatcher<QString>(this);
    connect(m_exampleImport, &QFutureWatcher<QString>::finished, this, &Workspace::finishExampleRunsImport);
    m_exampleImport->setFuture(QtConcurrent::run([path, dir]() -> QString {
        try {
            store::Database db = store::Database::open(path);
            published::importExamples(db, published::loadExampleSets(dir));
            return {};
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what());
        }
    }));
}

void Workspace::finishExampleRunsImport()
{
    if (!m_exampleImport)
        return;
    QFutureWatcher<QString>* done = m_exampleImport;
    m_exampleImport = nullptr;
    done->disconnect(this);
    done->waitForFinished();
    const QString error = done->result();
    done->deleteLater();
    if (!error.isEmpty())
        m_exampleRunsError = tr("The example runs were not loaded: %1").arg(error);
    emit runsChanged();
    emit exampleRunsImported();
}

bool Workspace::importingExampleRuns() const
{
    return m_exampleImport != nullptr;
}

void Workspace::waitForExampleRuns()
{
    if (m_exampleImport)
        finishExampleRunsImport();
}

bool Workspace::removeRun(qint64 id, QString* error)
{
    try {
        if (m_db && published::removeUserRun(*m_db, id)) {
            emit runsChanged();
            return true;
        }
        if (error)
            *error = tr("There is no run %1 in this workspace.").arg(id);
    } catch (const std::exception& e) {
        if (error) {
            const std::optional<store::RunSummary> run = m_db ? store::findRun(*m_db, id) : std::nullopt;
            *error = run && published::isReadOnlyRun(*run)
                ? tr("Run %1 is an example shipped with Shardwise (measured by the project on an NVIDIA H200). Example "
                     "and "
                     "published runs are read-only: they cannot be removed.")
                      .arg(id)
                : tr("Run %1 could not be removed: %2").arg(id).arg(QString::fromUtf8(e.what()));
        }
    }
    return false;
}

bool Workspace::importRuns(const QString& filePath, QString* message)
{
    const QString name = QFileInfo(filePath).fileName();
    std::ifstream in(filePath.toStdString());
    if (!m_db || !in) {
        if (message)
            *message = tr("%1: cannot be read").arg(filePath);
        return false;
    }
    try {
        const bool csv = filePath.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive);
        const store::ImportResult result = csv ? store::importRunsCsv(*m_db, in, name.toStdString())
                                               : store::importRunsJson(*m_db, in, name.toStdString());
        if (message)
            *message = tr("Imported %n run(s) from %1.", nullptr, static_cast<int>(result.runIds.size())).arg(name);
    } catch (const std::exception& e) {
        if (message)
            *message = tr("%1: %2; nothing was imported.").arg(name, QString::fromUtf8(e.what()));
        return false;
    }
    emit runsChanged();
    return true;
}

QList<RunRecord> Workspace::runs() const
{
    QList<RunRecord> out;
    if (!m_db)
        return out;
    for (const store::RunSummary& s : store::listRuns(*m_db)) {
        RunRecord r = toRecord(s);
        if (auto detail = store::runDetail(*m_db, s.id)) {
            r.versions = versionsText(detail->versions);
            r.allocator = fromStd(detail->allocator.conf);
        }
        out.append(r);
    }
    return out;
}

std::optional<RunRecord> Workspace::run(qint64 id) const
{
    if (!m_db)
        return std::nullopt;
    auto detail = store::runDetail(*m_db, id);
    if (!detail)
        return std::nullopt;
    RunRecord r = toRecord(detail->summary);
    r.versions = versionsText(detail->versions);
    r.allocator = fromStd(detail->allocator.conf);
    return r;
}

QStringList Workspace::nodeNames() const
{
    QStringList names { QStringLiteral("local") };
    if (!m_db)
        return names;
    for (const store::Node& n : store::listNodes(*m_db))
        if (!names.contains(fromStd(n.name)))
            names << fromStd(n.name);
    return names;
}

void Workspace::notifyRunsChanged()
{
    emit runsChanged();
}

RunJob* Workspace::runQueue()
{
    if (!m_runQueue) {
        m_runQueue = new RunJob(m_path, this);
        connect(m_runQueue, &RunJob::runFinished, this, &Workspace::notifyRunsChanged);
    }
    return m_runQueue;
}

void Workspace::notifyNodesChanged()
{
    emit nodesChanged();
}

} // namespace shardwise::gui
