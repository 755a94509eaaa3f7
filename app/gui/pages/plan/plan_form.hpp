#pragma once
// The configuration half of the Plan page: model (preset or a config.json), GPU (preset or custom),
// cluster shape, interconnect, precision, micro-batch, sequence, allocator setting and CUDA graphs.
// Emits configurationChanged() on every edit; the page re-plans from input().

#include "shardwise/estimate/estimate.hpp"

#include <QJsonObject>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
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
    //  "expandable_segments": B, "cuda_graphs": B, "activation_checkpointing": B}
    QJsonObject state() const;
    // Unknown presets and files that no longer load are skipped with the form's defaults.
    void setState(const QJsonObject& state);

    // Adds a Hugging Face config.json or Shardwise model file and selects it; false + message on error.
    bool addModelFile(const QString& path, QString* error);
    void selectModel(const QString& presetId);
    void selectGpu(const QString& presetId);
    void setGpuCount(int gpusPerNode, int nodes);
    void setSequence(int microBatch, int seqLen);

signals:
    void configurationChanged();

private:
    void populatePresets();
    void onGpuChanged();
    void onPrecisionChanged();
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
};

} // namespace shardwise::gui
