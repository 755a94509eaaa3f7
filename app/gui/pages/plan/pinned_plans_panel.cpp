#include "pages/plan/pinned_plans_panel.hpp"

#include "models/display_format.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/plan/sweep.hpp"
#include "shardwise/store/saved_plans.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace shardwise::gui {

namespace {

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

nlohmann::json toNlohmann(const QJsonObject& o)
{
    return nlohmann::json::parse(QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(), nullptr, false);
}

QJsonObject toQt(const nlohmann::json& j)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(j.dump())).object();
}

} // namespace

PinnedPlansPanel::PinnedPlansPanel(Workspace& workspace, InputOf inputOf, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
    , m_inputOf(std::move(inputOf))
{
    setObjectName(QStringLiteral("pinnedPlansPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* pinRow = new QHBoxLayout;
    m_pin = new QPushButton(tr("Pin this plan"), this);
    m_pin->setObjectName(QStringLiteral("pinPlanButton"));
    m_pin->setToolTip(tr("Keep the form's plan as a column here, to compare it with the plans pinned before."));
    m_unpin = new QPushButton(tr("Unpin"), this);
    m_unpin->setObjectName(QStringLiteral("unpinPlanButton"));
    m_open = new QPushButton(tr("Open in form"), this);
    m_open->setObjectName(QStringLiteral("openPinnedButton"));
    m_clear = new QPushButton(tr("Clear pins"), this);
    m_clear->setObjectName(QStringLiteral("clearPinsButton"));
    pinRow->addWidget(m_pin);
    pinRow->addWidget(m_unpin);
    pinRow->addWidget(m_open);
    pinRow->addWidget(m_clear);
    pinRow->addStretch(1);
    layout->addLayout(pinRow);

    auto* saveRow = new QHBoxLayout;
    m_saveName = new QLineEdit(this);
    m_saveName->setObjectName(QStringLiteral("savePlanName"));
    m_saveName->setPlaceholderText(tr("Name of the saved plan"));
    m_save = new QPushButton(tr("Save plan"), this);
    m_save->setObjectName(QStringLiteral("savePlanButton"));
    m_save->setToolTip(tr("Save the form's plan in the workspace under this name."));
    m_saved = new QComboBox(this);
    m_saved->setObjectName(QStringLiteral("savedPlansCombo"));
    m_saved->setMinimumContentsLength(8);
    m_saved->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pinSaved = new QPushButton(tr("Pin saved"), this);
    m_pinSaved->setObjectName(QStringLiteral("pinSavedButton"));
    m_openSaved = new QPushButton(tr("Open saved"), this);
    m_openSaved->setObjectName(QStringLiteral("openSavedButton"));
    m_removeSaved = new QPushButton(tr("Delete saved"), this);
    m_removeSaved->setObjectName(QStringLiteral("removeSavedButton"));
    saveRow->addWidget(m_saveName, 1);
    saveRow->addWidget(m_save);
    layout->addLayout(saveRow);
    auto* savedRow = new QHBoxLayout;
    savedRow->addWidget(m_saved, 1);
    savedRow->addWidget(m_pinSaved);
    savedRow->addWidget(m_openSaved);
    savedRow->addWidget(m_removeSaved);
    layout->addLayout(savedRow);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("pinnedMessage"));
    m_message->setWordWrap(true);
    m_message->hide();
    layout->addWidget(m_message);

    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("pinnedPlansTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectColumns);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    layout->addWidget(m_table, 1);

    connect(m_pin, &QPushButton::clicked, this, [this] { pinCurrent(); });
    connect(m_unpin, &QPushButton::clicked, this, [this] {
        if (const int i = selectedPin(); i >= 0)
            unpin(i);
    });
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (const int i = selectedPin(); i >= 0)
            emit openRequested(m_pins.at(i).form);
    });
    connect(m_clear, &QPushButton::clicked, this, &PinnedPlansPanel::clearPins);
    connect(m_save, &QPushButton::clicked, this, [this] {
        QString error;
        if (saveCurrent(m_saveName->text().trimmed(), false, &error))
            showMessage(tr("Saved as %1.").arg(m_saveName->text().trimmed()), false);
        else
            showMessage(error, true);
    });
    connect(m_pinSaved, &QPushButton::clicked, this, [this] {
        QString error;
        if (!pinSaved(m_saved->currentText(), &error))
            showMessage(error, true);
    });
    connect(m_openSaved, &QPushButton::clicked, this, [this] {
        if (const auto form = savedForm(m_saved->currentText()))
            emit openRequested(*form);
    });
    connect(m_removeSaved, &QPushButton::clicked, this, [this] { removeSaved(m_saved->currentText()); });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_unpin->setEnabled(selectedPin() >= 0);
        m_open->setEnabled(selectedPin() >= 0);
    });
    refreshSaved();
    fillTable();
}

QString PinnedPlansPanel::tabTitle()
{
    return tr("Pinned plans");
}

void PinnedPlansPanel::setCurrent(const QJsonObject& form, const EstimateInput& input)
{
    m_currentForm = form;
    m_currentInput = input;
    m_pin->setEnabled(true);
    m_save->setEnabled(true);
}

void PinnedPlansPanel::clearCurrent()
{
    m_currentForm.reset();
    m_currentInput.reset();
    m_pin->setEnabled(false);
    m_save->setEnabled(false);
}

bool PinnedPlansPanel::pinCurrent(const QString& name)
{
    if (!m_currentForm || !m_currentInput)
        return false;
    pin(name.isEmpty() ? tr("Plan %1").arg(m_pinCounter + 1) : name, *m_currentForm, *m_currentInput);
    return true;
}

void PinnedPlansPanel::pin(const QString& name, const QJsonObject& form, const EstimateInput& input)
{
    ++m_pinCounter;
    m_pins.append({ name, form, fieldsOf(input) });
    fillTable();
}

QString PinnedPlansPanel::pinnedName(int index) const
{
    return index >= 0 && index < m_pins.size() ? m_pins.at(index).name : QString();
}

QJsonObject PinnedPlansPanel::pinnedForm(int index) const
{
    return index >= 0 && index < m_pins.size() ? m_pins.at(index).form : QJsonObject();
}

void PinnedPlansPanel::unpin(int index)
{
    if (index < 0 || index >= m_pins.size())
        return;
    m_pins.removeAt(index);
    fillTable();
}

void PinnedPlansPanel::clearPins()
{
    m_pins.clear();
    fillTable();
}

QList<QPair<QString, QString>> PinnedPlansPanel::fieldsOf(const EstimateInput& in)
{
    // The plan's figures as the what-if grid and `plan --sweep` give them: one definition of the peak.
    const SweepPoint p = runSweep(in, {}).points.front();
    const QString framework = text(traits(in.framework.framework).label)
        + (in.framework.effectiveVersion().empty() ? QString()
                                                   : QLatin1Char(' ') + text(in.framework.effectiveVersion()))
        + (in.framework.compiled ? tr(" with torch.compile") : QString());
    const QString checkpointing
        = in.training.activationCheckpointing ? text(checkpointPolicyId(in.training.checkpointPolicy)) : tr("off");
    return {
        { tr("Model"), text(in.model.name.empty() ? in.model.id : in.model.name) },
        { tr("GPU"), text(in.gpu.name.empty() ? in.gpu.id : in.gpu.name) },
        { tr("GPUs per node"), QString::number(in.cluster.gpusPerNode) },
        { tr("Nodes"), QString::number(in.cluster.nodes) },
        { tr("Interconnect"), text(interconnectId(in.cluster.intraNode)) },
        { tr("Inter-node network"), tr("%1 GB/s").arg(QLocale().toString(in.cluster.interNodeGBps, 'g', 4)) },
        { tr("Host RAM per node"), formatGiB(in.cluster.hostRamGiB) },
        { tr("Framework"), framework },
        { tr("Precision"), text(precisionId(in.training.precision)) },
        { tr("Micro-batch"), QString::number(in.training.microBatch) },
        { tr("Sequence"), QString::number(in.training.seqLen) },
        { tr("Accumulation"), QString::number(in.training.gradAccumulation) },
        { tr("Activation checkpointing"), checkpointing },
        { tr("CUDA graphs"), in.training.cudaGraphs ? tr("on") : tr("off") },
        { tr("Recommendation"), p.fits ? strategyIdText(p.strategy) : tr("nothing fits") },
        { tr("Peak per GPU"),
          formatGiB(p.peakBytes / kGiB) + (p.fits ? QString() : tr(" (%1)").arg(strategyIdText(p.strategy))) },
        { tr("Predicted"), formatTokensPerS(p.tokensPerS) },
    };
}

QStringList PinnedPlansPanel::differingFields() const
{
    QStringList differing;
    if (m_pins.size() < 2)
        return differing;
    for (qsizetype row = 0; row < m_pins.front().fields.size(); ++row)
        for (const Pin& p : m_pins)
            if (p.fields.at(row).second != m_pins.front().fields.at(row).second) {
                differing << m_pins.front().fields.at(row).first;
                break;
            }
    return differing;
}

void PinnedPlansPanel::fillTable()
{
    m_table->clear();
    const QStringList differing = differingFields();
    m_table->setColumnCount(static_cast<int>(m_pins.size()));
    m_table->setRowCount(m_pins.isEmpty() ? 0 : static_cast<int>(m_pins.front().fields.size()));
    QStringList headers;
    for (const Pin& p : m_pins)
        headers << p.name;
    m_table->setHorizontalHeaderLabels(headers);
    if (!m_pins.isEmpty()) {
        QStringList rows;
        for (const auto& field : m_pins.front().fields)
            rows << field.first;
        m_table->setVerticalHeaderLabels(rows);
    }
    for (int c = 0; c < m_pins.size(); ++c)
        for (int r = 0; r < m_pins.at(c).fields.size(); ++r) {
            const auto& field = m_pins.at(c).fields.at(r);
            auto* item = new QTableWidgetItem(field.second);
            const bool differs = differing.contains(field.first);
            item->setData(DiffersRole, differs);
            if (differs) {
                item->setBackground(QColor(0xff, 0xe0, 0x8a)); // amber: this setting or figure differs
                item->setForeground(QColor(Qt::black));
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setToolTip(tr("%1 differs between the pinned plans.").arg(field.first));
            }
            m_table->setItem(r, c, item);
        }
    m_unpin->setEnabled(false);
    m_open->setEnabled(false);
    m_clear->setEnabled(!m_pins.isEmpty());
}

int PinnedPlansPanel::selectedPin() const
{
    const QModelIndexList selected = m_table->selectionModel()->selectedIndexes();
    return selected.isEmpty() ? -1 : selected.front().column();
}

void PinnedPlansPanel::showMessage(const QString& message, bool error)
{
    m_message->setText(message);
    m_message->setStyleSheet(error ? QStringLiteral("color: #d03b3b") : QString());
    m_message->setVisible(!message.isEmpty());
}

QString PinnedPlansPanel::messageText() const
{
    return m_message->isVisibleTo(this) ? m_message->text() : QString();
}

bool PinnedPlansPanel::saveCurrent(const QString& name, bool replace, QString* error)
{
    store::Database* db = m_workspace.database();
    if (!db || !m_currentForm || !m_currentInput) {
        if (error)
            *error = tr("No plan to save: the form has an error, or no workspace is open.");
        return false;
    }
    try {
        const EstimateInput& in = *m_currentInput;
        const Plan plan = makePlan(in);
        store::StoredPlan stored;
        stored.title = name.toStdString();
        stored.modelId = in.model.id;
        stored.gpuId = in.gpu.id.empty() ? std::string("custom") : in.gpu.id;
        stored.worldSize = in.cluster.worldSize();
        stored.recommended = plan.recommendation.strategy;
        stored.document = toJson(plan);
        store::savePlanAs(*db, name.toStdString(), stored, toNlohmann(*m_currentForm), replace);
    } catch (const std::exception& e) {
        if (error)
            *error = tr("Cannot save the plan: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    refreshSaved();
    m_saved->setCurrentText(name);
    return true;
}

QStringList PinnedPlansPanel::savedNames() const
{
    QStringList names;
    if (const store::Database* db = m_workspace.database())
        for (const store::SavedPlan& p : store::listSavedPlans(*db))
            names << QString::fromStdString(p.name);
    return names;
}

std::optional<QJsonObject> PinnedPlansPanel::savedForm(const QString& name) const
{
    const store::Database* db = m_workspace.database();
    if (!db)
        return std::nullopt;
    const auto saved = store::findSavedPlan(*db, name.toStdString());
    if (!saved)
        return std::nullopt;
    return toQt(saved->input);
}

bool PinnedPlansPanel::pinSaved(const QString& name, QString* error)
{
    const auto form = savedForm(name);
    if (!form) {
        if (error)
            *error = tr("No saved plan is named %1.").arg(name);
        return false;
    }
    const auto input = m_inputOf(*form);
    if (!input) {
        if (error)
            *error = tr("The saved plan %1 no longer describes a plan this version can make.").arg(name);
        return false;
    }
    pin(name, *form, *input);
    return true;
}

bool PinnedPlansPanel::removeSaved(const QString& name)
{
    store::Database* db = m_workspace.database();
    bool removed = false;
    try {
        removed = db && store::removeSavedPlan(*db, name.toStdString());
    } catch (const std::exception& e) {
        showMessage(tr("Cannot delete the saved plan: %1").arg(QString::fromUtf8(e.what())), true);
    }
    refreshSaved();
    return removed;
}

void PinnedPlansPanel::refreshSaved()
{
    const QString current = m_saved->currentText();
    m_saved->clear();
    m_saved->addItems(savedNames());
    const int at = m_saved->findText(current);
    if (at >= 0)
        m_saved->setCurrentIndex(at);
    const bool any = m_saved->count() > 0;
    m_pinSaved->setEnabled(any);
    m_openSaved->setEnabled(any);
    m_removeSaved->setEnabled(any);
}

} // namespace shardwise::gui
