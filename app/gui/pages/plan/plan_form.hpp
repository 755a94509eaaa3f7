#pragma once
// The configuration half of the Plan page: model (preset or a config.json), GPU (preset or custom),
// cluster shape, interconnect, inter-node network, the framework target, precision, micro-batch,
// accumulation, sequence, allocator setting, CUDA graphs and activation checkpointing.
// Emits configurationChanged() on every edit; the page re-plans from input().

#include "shardwise/calibrate/network.hpp"
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/frameworks/configs.hpp"

#include <QJsonObject>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace shardwise::gui {

class PlanForm : public QWidget {
    Q_OBJECT

public:
    explicit PlanForm(QWidget* parent = nullptr);

    // Throws SpecError naming the field when the form does not describe a valid input.
    EstimateInput input() const;

    // The form as JSON for QSettings and the demo workspace:
    // {"model": id-or-path, "gpu": id | "custom", "custom_gpu": {...}, "gpus_per_node": N, "nodes": N,
    //  "interconnect": "nvlink"|"pcie", "host_ram_gib": GiB, "precision": id, "micro_batch": N, "seq_len": N,
    //  "expandable_segments": B, "cuda_graphs": B, "activation_checkpointing": B, "checkpoint_policy": id,
    //  "grad_accumulation": N, "framework": id, "framework_version": V, "compile": B, "inter_node_gbps": GB/s,
    //  "knobs": {...} (only when a config set them)}
    QJsonObject state() const;
    // Unknown presets and files that no longer load are skipped with the form's defaults.
    void setState(const QJsonObject& state);

    // Adds a Hugging Face config.json or Shardwise model file and selects it; false + message on error,
    // also emitted as modelFileFailed so that the page shows it.
    bool addModelFile(const QString& path, QString* error);
    // The form's name (translated) for a SpecError's field path ("training.seq_len" -> "Sequence"),
    // empty when the field is none of the form's.
    QString fieldLabel(const std::string& field) const;
    void selectModel(const QString& presetId);
    void selectGpu(const QString& presetId);
    void setGpuCount(int gpusPerNode, int nodes);
    void setSequence(int microBatch, int seqLen);
    void selectFramework(Framework f);
    // The networks between nodes the store holds a probe of (calibrate::measuredNetworks), offered in
    // the inter-node list after the presets as "Measured: a+b"; the current choice is kept.
    void setMeasuredNetworks(const std::vector<calibrate::MeasuredNetwork>& networks);
    // Fills the form with the settings a ds_config.json or Accelerate YAML stated (core/frameworks);
    // the rest stays. Throws SpecError naming the key when the settings cannot be applied.
    void applyImported(const frameworks::ImportedSettings& settings);

signals:
    void configurationChanged();
    // A model file could not be read: `message` names what is wrong in it.
    void modelFileFailed(const QString& path, const QString& message);

private:
    QGroupBox* createHardwareBox(); // plan_form_hardware.cpp
    void populatePresets();
    void onGpuChanged();
    void onPrecisionChanged();
    void onFrameworkChosen(); // the user picked a framework: take its default precision and checkpointing
    void updateFrameworkWidgets();
    void updateInterNodeWidgets();
    void browseModelFile();
    GpuSpec selectedGpu() const;

    QComboBox* m_model = nullptr;
    QPushButton* m_openModel = nullptr;
    QComboBox* m_gpu = nullptr;
    QGroupBox* m_customGpu = nullptr;
    QDoubleSpinBox* m_customMemoryGiB = nullptr;
    QDoubleSpinBox* m_customTflops = nullptr;
    QDoubleSpinBox* m_customHbm = nullptr;
    QDoubleSpinBox* m_customNvlink = nullptr;
    QDoubleSpinBox* m_customPcie = nullptr;
    QSpinBox* m_gpusPerNode = nullptr;
    QSpinBox* m_nodes = nullptr;
    QComboBox* m_interconnect = nullptr;
    QDoubleSpinBox* m_hostRamGiB = nullptr;
    QComboBox* m_precision = nullptr;
    QSpinBox* m_microBatch = nullptr;
    QSpinBox* m_seqLen = nullptr;
    QCheckBox* m_expandableSegments = nullptr;
    QCheckBox* m_cudaGraphs = nullptr;
    QCheckBox* m_checkpointing = nullptr;
    QComboBox* m_checkpointPolicy = nullptr;
    QSpinBox* m_gradAccumulation = nullptr;
    QComboBox* m_framework = nullptr;
    QLineEdit* m_frameworkVersion = nullptr;
    QCheckBox* m_compile = nullptr;
    QLabel* m_interNodeLabel = nullptr;
    QComboBox* m_interNode = nullptr;
    QDoubleSpinBox* m_interNodeGBps = nullptr;
    TuningKnobs m_knobs; // DeepSpeed's knobs as an opened config set them; defaults otherwise
};

} // namespace shardwise::gui
