#include "pages/runs/run_diagnosis_panel.hpp"

#include "models/display_format.hpp"
#include "models/run_failure_model.hpp"

#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace shardwise::gui {

RunDiagnosisPanel::RunDiagnosisPanel(QWidget* parent)
    : QWidget(parent)
{
    qRegisterMetaType<shardwise::gui::DiagnosisAction>();
    m_headline = new QLabel(this);
    m_headline->setObjectName(QStringLiteral("diagnosisHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextFormat(Qt::PlainText);
    QFont bold = m_headline->font();
    bold.setBold(true);
    m_headline->setFont(bold);
    m_explanation = new QLabel(this);
    m_explanation->setWordWrap(true);
    m_explanation->setTextFormat(Qt::PlainText);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_failures = new RunFailureModel(this);
    m_failureView = new QTableView(this);
    m_failureView->setObjectName(QStringLiteral("failureTable"));
    m_failureView->setModel(m_failures);
    m_failureView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_failureView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_failureView->verticalHeader()->hide();
    m_failureView->horizontalHeader()->setStretchLastSection(true);
    connect(m_failureView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showEvidence(current.row()); });

    m_evidence = new QPlainTextEdit(this);
    m_evidence->setObjectName(QStringLiteral("failureEvidence"));
    m_evidence->setReadOnly(true);
    m_evidence->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_evidence->setFont(mono);
    m_evidence->setPlaceholderText(tr("The lines that show the selected failure appear here."));

    m_actionsBox = new QGroupBox(tr("Suggested next steps"), this);
    m_actionsLayout = new QVBoxLayout(m_actionsBox);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_failureView);
    split->addWidget(m_evidence);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_headline);
    layout->addWidget(m_explanation);
    layout->addWidget(split, 1);
    layout->addWidget(m_actionsBox);
    showNothing(tr("Select a run that did not complete to see why."));
}

void RunDiagnosisPanel::showNothing(const QString& reason)
{
    m_runId = 0;
    m_diagnosis = {};
    m_failures->clear();
    m_headline->setText(reason);
    m_explanation->clear();
    m_evidence->clear();
    rebuildActions();
}

QString RunDiagnosisPanel::headlineFor(const RunDiagnosisView& diagnosis)
{
    if (const DiagnosisFailure* root = diagnosis.rootCauseFailure()) {
        const QString where
            = root->rank ? tr("rank %1").arg(*root->rank) : (root->node.isEmpty() ? tr("the launcher") : root->node);
        //: headline of a diagnosis: where the first failure happened, its kind, its message
        return tr("First failure on %1: %2. %3").arg(where, failureKindText(root->kind), root->message);
    }
    if (diagnosis.verdict == QLatin1String("symptoms_only"))
        return tr(
            "Only symptoms were found (e.g. timeouts after a peer vanished); the cause left no trace in these logs.");
    return tr("No failure was recognised in the ranks' logs and events.");
}

void RunDiagnosisPanel::showDiagnosis(qint64 runId, const RunDiagnosisView& diagnosis)
{
    m_runId = runId;
    m_diagnosis = diagnosis;
    m_failures->setDiagnosis(diagnosis);
    m_headline->setText(headlineFor(diagnosis));
    QString explanation = diagnosis.explanation;
    if (!diagnosis.orderingCertain)
        explanation += QLatin1Char('\n')
            + tr("Another failure happened within the clock uncertainty of the first one, so their order is not "
                 "certain.");
    for (const QString& note : diagnosis.notes)
        explanation += QLatin1Char('\n') + note;
    m_explanation->setText(explanation);
    const int root = m_failures->rootCauseRow();
    if (root >= 0) {
        m_failureView->selectRow(root);
        m_failureView->setCurrentIndex(m_failures->index(root, 0));
        showEvidence(root);
    } else if (m_failures->rowCount() > 0) {
        m_failureView->setCurrentIndex(m_failures->index(0, 0));
        showEvidence(0);
    } else {
        m_evidence->clear();
    }
    rebuildActions();
}

void RunDiagnosisPanel::showEvidence(int row)
{
    m_evidence->clear();
    if (row < 0 || row >= m_failures->failures().size())
        return;
    const DiagnosisFailure& f = m_failures->failures()[row];
    QStringList lines;
    for (const DiagnosisEvidence& e : f.evidence)
        lines << (e.line > 0 ? tr("%1:%2: %3").arg(e.source).arg(e.line).arg(e.text)
                             : tr("%1: %2").arg(e.source, e.text));
    if (!f.lastLines.isEmpty()) {
        lines << QString() << tr("Last lines it wrote:");
        for (const DiagnosisEvidence& e : f.lastLines)
            lines << tr("%1:%2: %3").arg(e.source).arg(e.line).arg(e.text);
    }
    m_evidence->setPlainText(lines.join(QLatin1Char('\n')));
}

void RunDiagnosisPanel::rebuildActions()
{
    for (QPushButton* b : std::as_const(m_actionButtons))
        b->deleteLater();
    m_actionButtons.clear();
    while (QLayoutItem* item = m_actionsLayout->takeAt(0)) {
        if (QWidget* w = item->widget(); w && !qobject_cast<QPushButton*>(w))
            w->deleteLater();
        delete item;
    }
    m_actionsBox->setVisible(!m_diagnosis.actions.isEmpty());
    for (const DiagnosisAction& action : std::as_const(m_diagnosis.actions)) {
        if (action.isRerun()) {
            QString label;
            if (action.kind == QLatin1String("rerun_with_expandable_segments"))
                label = tr("Rerun with expandable segments");
            else if (action.kind == QLatin1String("offload"))
                label = tr("Rerun with %1 (offload)").arg(strategyLabel(*action.strategy));
            else
                label = tr("Rerun with %1").arg(strategyLabel(*action.strategy));
            auto* button = new QPushButton(label, m_actionsBox);
            button->setObjectName(QStringLiteral("diagnosisAction_") + action.kind);
            button->setToolTip(action.text);
            const qint64 runId = m_runId;
            connect(button, &QPushButton::clicked, this,
                    [this, runId, action] { emit actionTriggered(runId, action); });
            m_actionsLayout->addWidget(button);
            m_actionButtons.append(button);
        } else {
            auto* text = new QLabel(QStringLiteral("• ") + action.text, m_actionsBox);
            text->setWordWrap(true);
            text->setTextFormat(Qt::PlainText);
            text->setTextInteractionFlags(Qt::TextSelectableByMouse);
            m_actionsLayout->addWidget(text);
        }
    }
}

} // namespace shardwise::gui
