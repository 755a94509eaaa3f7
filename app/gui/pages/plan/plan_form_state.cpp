// The Plan form's models and saved state: the presets it offers, a config.json opened as a model,
// the form as JSON (QSettings, example plans) and back, and the settings a framework config states.
#include "pages/plan/plan_form.hpp"

#include "pages/plan/plan_form_parts.hpp"
#include "workspace/plan_input.hpp"

#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>

#include <nlohmann/json.hpp>

namespace shardwise::gui {

using namespace plan_form;

void PlanForm::populatePresets()
{
    const PresetCatalog& catalog = PresetCatalog::builtin();
    const QSignalBlocker blockModel(m_model);
    const QSignalBlocker blockGpu(m_gpu);
    for (const ModelSpec& m : catalog.models()) {
        const double params = static_cast<double>(m.parameterCount());
        const QString size = params >= 1e9 ? tr("%1 B parameters").arg(QLocale().toString(params / 1e9, 'f', 1))
            : params >= 1e6                ? tr("%1 M parameters").arg(QLocale().toString(params / 1e6, 'f', 0))
                                           : tr("%1 parameters").arg(QLocale().toString(m.parameterCount()));
        m_model->addItem(tr("%1 (%2)").arg(QString::fromStdString(m.name), size), QString::fromStdString(m.id));
    }
    for (const GpuSpec& g : catalog.gpus())
        m_gpu->addItem(
            tr("%1 (%2 GiB)").arg(QString::fromStdString(g.name)).arg(QLocale().toString(g.memoryGiB(), 'f', 1)),
            QString::fromStdString(g.id));
    m_gpu->addItem(tr("Custom GPU…"), kCustomGpu);
}

bool PlanForm::addModelFile(const QString& path, QString* error)
{
    try {
        const ModelSpec m = resolveModel(path.toStdString(), "model");
        const QSignalBlocker block(m_model);
        m_model->addItem(
            tr("%1 (from %2)").arg(QString::fromStdString(m.name.empty() ? m.id : m.name), QFileInfo(path).fileName()),
            QString::fromStdString(m.id));
        m_model->setItemData(m_model->count() - 1, path, kFileRole);
        m_model->setItemData(m_model->count() - 1, path, Qt::ToolTipRole);
        m_model->setCurrentIndex(m_model->count() - 1);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        emit modelFileFailed(path, QString::fromUtf8(e.what()));
        return false;
    }
    emit configurationChanged();
    return true;
}

void PlanForm::browseModelFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a model configuration"), QString(),
                                                      tr("Model configuration (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    addModelFile(path, nullptr); // a failure is shown on the page (modelFileFailed)
}

EstimateInput PlanForm::input() const
{
    return planInputFromState(state());
}

QJsonObject PlanForm::state() const
{
    QJsonObject s;
    const QString modelFile = m_model->currentData(kFileRole).toString();
    s[QStringLiteral("model")] = modelFile.isEmpty() ? m_model->currentData().toString() : modelFile;
    s[QStringLiteral("gpu")] = m_gpu->currentData().toString();
    s[QStringLiteral("custom_gpu")] = QJsonObject { { QStringLiteral("memory_gib"), m_customMemoryGiB->value() },
                                                    { QStringLiteral("bf16_tflops"), m_customTflops->value() },
                                                    { QStringLiteral("hbm_gbps"), m_customHbm->value() },
                                                    { QStringLiteral("nvlink_gbps"), m_customNvlink->value() },
                                                    { QStringLiteral("pcie_gbps"), m_customPcie->value() } };
    s[QStringLiteral("gpus_per_node")] = m_gpusPerNode->value();
    s[QStringLiteral("nodes")] = m_nodes->value();
    s[QStringLiteral("interconnect")] = m_interconnect->currentData().toString();
    s[QStringLiteral("host_ram_gib")] = m_hostRamGiB->value();
    s[QStringLiteral("precision")] = m_precision->currentData().toString();
    s[QStringLiteral("micro_batch")] = m_microBatch->value();
    s[QStringLiteral("seq_len")] = m_seqLen->value();
    s[QStringLiteral("expandable_segments")] = m_expandableSegments->isChecked();
    s[QStringLiteral("cuda_graphs")] = m_cudaGraphs->isChecked();
    s[QStringLiteral("activation_checkpointing")] = m_checkpointing->isChecked();
    s[QStringLiteral("checkpoint_policy")] = m_checkpointPolicy->currentData().toString();
    s[QStringLiteral("grad_accumulation")] = m_gradAccumulation->value();
    s[QStringLiteral("framework")] = m_framework->currentData().toString();
    s[QStringLiteral("framework_version")] = m_frameworkVersion->text().trimmed();
    s[QStringLiteral("compile")] = m_compile->isChecked() && m_compile->isEnabled();
    s[QStringLiteral("inter_node_gbps")] = m_interNodeGBps->value();
    if (!(toJson(m_knobs) == toJson(TuningKnobs {})))
        s[QStringLiteral("knobs")]
            = QJsonDocument::fromJson(QByteArray::fromStdString(toJson(m_knobs).dump())).object();
    return s;
}

void PlanForm::setState(const QJsonObject& s)
{
    {
        const QSignalBlocker block(this);
        const QString model = s.value(QStringLiteral("model")).toString();
        if (m_model->findData(model) >= 0)
            selectModel(model);
        else if (QFileInfo::exists(model))
            addModelFile(model, nullptr);
        const QJsonObject custom = s.value(QStringLiteral("custom_gpu")).toObject();
        m_customMemoryGiB->setValue(custom.value(QStringLiteral("memory_gib")).toDouble(m_customMemoryGiB->value()));
        m_customTflops->setValue(custom.value(QStringLiteral("bf16_tflops")).toDouble(m_customTflops->value()));
        m_customHbm->setValue(custom.value(QStringLiteral("hbm_gbps")).toDouble(m_customHbm->value()));
        m_customNvlink->setValue(custom.value(QStringLiteral("nvlink_gbps")).toDouble(m_customNvlink->value()));
        m_customPcie->setValue(custom.value(QStringLiteral("pcie_gbps")).toDouble(m_customPcie->value()));
        selectGpu(s.value(QStringLiteral("gpu")).toString());
        m_gpusPerNode->setValue(s.value(QStringLiteral("gpus_per_node")).toInt(m_gpusPerNode->value()));
        m_nodes->setValue(s.value(QStringLiteral("nodes")).toInt(m_nodes->value()));
        const int ic = m_interconnect->findData(s.value(QStringLiteral("interconnect")).toString());
        if (ic >= 0)
            m_interconnect->setCurrentIndex(ic);
        // Forms saved before the field existed were planned with the default.
        m_hostRamGiB->setValue(s.value(QStringLiteral("host_ram_gib")).toDouble(ClusterSpec {}.hostRamGiB));
        const int pr = m_precision->findData(s.value(QStringLiteral("precision")).toString());
        if (pr >= 0)
            m_precision->setCurrentIndex(pr);
        m_microBatch->setValue(s.value(QStringLiteral("micro_batch")).toInt(m_microBatch->value()));
        m_seqLen->setValue(s.value(QStringLiteral("seq_len")).toInt(m_seqLen->value()));
        m_expandableSegments->setChecked(s.value(QStringLiteral("expandable_segments")).toBool(false));
        // Workspaces saved before the option existed planned eager steps.
        m_cudaGraphs->setChecked(s.value(QStringLiteral("cuda_graphs")).toBool(false));
        m_checkpointing->setChecked(s.value(QStringLiteral("activation_checkpointing")).toBool(false));
        // Forms saved before the framework target existed planned for the native runner.
        const int fw = m_framework->findData(s.value(QStringLiteral("framework")).toString(QStringLiteral("native")));
        m_framework->setCurrentIndex(fw >= 0 ? fw : 0);
        m_frameworkVersion->setText(s.value(QStringLiteral("framework_version")).toString());
        m_compile->setChecked(s.value(QStringLiteral("compile")).toBool(false));
        const int cp = m_checkpointPolicy->findData(
            s.value(QStringLiteral("checkpoint_policy")).toString(QStringLiteral("full")));
        m_checkpointPolicy->setCurrentIndex(cp >= 0 ? cp : 0);
        m_gradAccumulation->setValue(s.value(QStringLiteral("grad_accumulation")).toInt(1));
        const double gbps = s.value(QStringLiteral("inter_node_gbps")).toDouble(ClusterSpec {}.interNodeGBps);
        const auto preset = frameworks::interNodePresetFor(gbps);
        int network = preset ? m_interNode->findData(fromView(preset->id)) : -1;
        // A measured network's figure selects it again (setMeasuredNetworks lists the store's).
        for (int i = 0; network < 0 && i < m_interNode->count(); ++i)
            if (m_interNode->itemData(i).toString().startsWith(kMeasuredNetworkPrefix)
                && m_interNode->itemData(i, kGBpsRole).toDouble() == gbps)
                network = i;
        m_interNode->setCurrentIndex(network >= 0 ? network : m_interNode->findData(kCustomNetwork));
        m_interNodeGBps->setValue(gbps);
        m_knobs = TuningKnobs {};
        if (const QJsonValue k = s.value(QStringLiteral("knobs")); k.isObject()) {
            try {
                m_knobs
                    = knobsFromJson(nlohmann::json::parse(QJsonDocument(k.toObject()).toJson().toStdString()), "knobs");
            } catch (const std::exception&) {
                m_knobs = TuningKnobs {}; // a damaged saved form plans with the defaults
            }
        }
        m_checkpointPolicy->setEnabled(m_checkpointing->isChecked());
        updateFrameworkWidgets();
        updateInterNodeWidgets();
    }
    emit configurationChanged();
}

void PlanForm::applyImported(const frameworks::ImportedSettings& settings)
{
    // Apply to the form's current input first so a setting that cannot be taken (a global batch that
    // does not divide over the GPUs) throws before the form changes.
    EstimateInput in = input();
    frameworks::applyImported(settings, in);
    {
        const QSignalBlocker block(this);
        selectFramework(in.framework.framework);
        m_compile->setChecked(in.framework.compiled);
        m_gpusPerNode->setValue(in.cluster.gpusPerNode);
        m_nodes->setValue(in.cluster.nodes);
        m_precision->setCurrentIndex(m_precision->findData(fromView(precisionId(in.training.precision))));
        m_microBatch->setValue(in.training.microBatch);
        m_gradAccumulation->setValue(in.training.gradAccumulation);
        m_seqLen->setValue(in.training.seqLen);
        m_checkpointing->setChecked(in.training.activationCheckpointing);
        m_checkpointPolicy->setCurrentIndex(
            m_checkpointPolicy->findData(fromView(checkpointPolicyId(in.training.checkpointPolicy))));
        m_knobs = in.knobs;
    }
    emit configurationChanged();
}

} // namespace shardwise::gui
