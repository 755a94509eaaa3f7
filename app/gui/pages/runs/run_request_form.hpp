#pragma once
// The Runs page's "new run" form: model preset, strategy, backend (the native runner or the PyTorch
// harness, which runs only the strategies PyTorch expresses: the others are disabled with the reason
// while it is chosen), ranks, steps, sequence length, the allocator switch, CUDA graphs (native) and
// torch.compile (torch), turned into a RunConfig. CPU only on this machine's LibTorch; a
// CUDA runner uses the same form once a GPU node exists.

#include "shardwise/spec/specs.hpp"

#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace shardwise::gui {

class RunRequestForm : public QWidget {
    Q_OBJECT

public:
    explicit RunRequestForm(QWidget* parent = nullptr);

    // The configuration the form describes; nullopt with `error` naming the field when it is invalid.
    std::optional<RunConfig> config(QString* error) const;
    QString node() const;
    void setNodes(const QStringList& names);

    QComboBox* modelBox() const { return m_model; }
    QComboBox* strategyBox() const { return m_strategy; }
    QComboBox* deviceBox() const { return m_device; }
    QComboBox* nodeBox() const { return m_node; }
    QSpinBox* ranksBox() const { return m_ranks; }
    QSpinBox* warmupBox() const { return m_warmup; }
    QSpinBox* stepsBox() const { return m_steps; }
    QSpinBox* seqBox() const { return m_seq; }
    QSpinBox* microBatchBox() const { return m_microBatch; }
    QCheckBox* expandableSegmentsBox() const { return m_expandable; }
    QCheckBox* cudaGraphsBox() const { return m_cudaGraphs; }
    QComboBox* backendBox() const { return m_backend; }
    QCheckBox* torchCompileBox() const { return m_torchCompile; }
    RunBackend backend() const;
    QPushButton* queueButton() const { return m_queue; }

signals:
    void queueRequested();

private:
    // Enables what the chosen backend can run and explains what it cannot.
    void applyBackend();

    QComboBox* m_model = nullptr;
    QComboBox* m_strategy = nullptr;
    QComboBox* m_device = nullptr;
    QComboBox* m_node = nullptr;
    QSpinBox* m_ranks = nullptr;
    QSpinBox* m_warmup = nullptr;
    QSpinBox* m_steps = nullptr;
    QSpinBox* m_seq = nullptr;
    QSpinBox* m_microBatch = nullptr;
    QCheckBox* m_expandable = nullptr;
    QCheckBox* m_cudaGraphs = nullptr;
    QComboBox* m_backend = nullptr;
    QCheckBox* m_torchCompile = nullptr;
    QPushButton* m_queue = nullptr;
};

} // namespace shardwise::gui
