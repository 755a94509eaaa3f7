// The Plan page's framework configs and report: "Open config…" reads a ds_config.json or Accelerate
// YAML into the form, the Export menu writes the selected candidate (the recommendation when none is
// selected) for each framework, and the plan's report (reasoning, memory chart, candidates' CSV).
#include "pages/plan/plan_page.hpp"

#include "export/export_file.hpp"
#include "export/plan_report.hpp"
#include "models/candidate_table_model.hpp"
#include "models/display_format.hpp"
#include "pages/plan/plan_form.hpp"

#include "shardwise/plan/plan.hpp"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>

namespace shardwise::gui {

namespace {
QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}
} // namespace

QHBoxLayout* PlanPage::createExportRow()
{
    auto* configRow = new QHBoxLayout;
    m_openConfig = new QPushButton(tr("&Open config…"));
    m_openConfig->setObjectName(QStringLiteral("openConfigButton"));
    m_openConfig->setToolTip(
        tr("Read a DeepSpeed ds_config.json or an Accelerate config YAML into the form: framework, "
           "strategy, precision, micro-batch, accumulation, GPUs, checkpointing and DeepSpeed's knobs."));
    m_exportButton = new QToolButton;
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setText(tr("E&xport"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolTip(
        tr("Write the selected candidate (or the recommendation) as a config for the framework you "
           "train with; each file names the plan it came from."));
    m_exportMenu = new QMenu(m_exportButton);
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    const struct {
        frameworks::ConfigKind kind;
        QString text;
    } exports[] = {
        { frameworks::ConfigKind::DsConfig, tr("DeepSpeed ds_config.json…") },
        { frameworks::ConfigKind::Accelerate, tr("Accelerate config YAML…") },
        { frameworks::ConfigKind::Torchtitan, tr("torchtitan job config TOML…") },
        { frameworks::ConfigKind::Fsdp2Python, tr("PyTorch FSDP2 script…") },
        { frameworks::ConfigKind::Launch, tr("Launch lines (torchrun, deepspeed, srun)…") },
        { frameworks::ConfigKind::Sbatch, tr("Slurm batch script…") },
    };
    for (const auto& e : exports) {
        QAction* action = m_exportMenu->addAction(e.text);
        action->setObjectName(QStringLiteral("export-") + fromView(frameworks::configKindId(e.kind)));
        action->setData(static_cast<int>(e.kind));
        const frameworks::ConfigKind kind = e.kind;
        connect(action, &QAction::triggered, this, [this, kind] { browseExport(kind); });
    }
    m_exportMenu->addSeparator();
    QAction* report = m_exportMenu->addAction(tr("Report: reasoning, charts and CSV…"));
    report->setObjectName(QStringLiteral("export-report"));
    report->setData(-1); // not a framework config: updateExportActions leaves it alone
    report->setToolTip(
        tr("Write the plan's reasoning (Markdown), its memory chart (SVG, PNG) and the candidates' figures "
           "(CSV) into one folder."));
    connect(report, &QAction::triggered, this, &PlanPage::browseReport);
    m_exportButton->setMenu(m_exportMenu);
    configRow->addWidget(m_openConfig);
    configRow->addWidget(m_exportButton);
    configRow->addStretch(1);
    m_importMessage = new QLabel;
    m_importMessage->setObjectName(QStringLiteral("importMessageLabel"));
    m_importMessage->setWordWrap(true);
    m_importMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_importMessage->hide();
    connect(m_openConfig, &QPushButton::clicked, this, &PlanPage::browseOpenConfig);
    connect(m_exportMenu, &QMenu::aboutToShow, this, &PlanPage::updateExportActions);
    return configRow;
}

std::optional<Strategy> PlanPage::exportStrategy() const
{
    const PlanView& plan = currentPlan();
    const QModelIndexList rows
        = m_candidateView->selectionModel() ? m_candidateView->selectionModel()->selectedRows() : QModelIndexList {};
    if (!rows.isEmpty() && rows.front().row() < plan.candidates.size())
        return plan.candidates.at(rows.front().row()).strategy;
    if (plan.hasRecommendation)
        return plan.recommendation;
    return std::nullopt;
}

void PlanPage::updateExportActions()
{
    const std::optional<Strategy> strategy = exportStrategy();
    std::optional<EstimateInput> input;
    try {
        input = m_form->input();
    } catch (const std::exception&) {
    }
    for (QAction* action : m_exportMenu->actions()) {
        if (action->isSeparator() || action->data().toInt() < 0)
            continue;
        const auto kind = static_cast<frameworks::ConfigKind>(action->data().toInt());
        if (!strategy || !input) {
            action->setEnabled(false);
            action->setToolTip(tr("Nothing to export: no candidate is selected and nothing fits."));
            continue;
        }
        const bool ok = frameworks::exportSupports(kind, *input, *strategy);
        action->setEnabled(ok);
        QString tip = ok
            ? tr("Write %1 for %2.").arg(fromView(frameworks::configKindFileName(kind)), strategyLabel(*strategy))
            : QString::fromStdString(frameworks::unsupportedReason(kind, *input, *strategy));
        const Framework reader = frameworks::configFramework(kind, *input, *strategy);
        if (ok && reader != input->framework.framework)
            tip += QLatin1Char(' ')
                + tr("%1 reads it, while this plan's figures are for %2; choose %1 as the framework for its defaults "
                     "and figures.")
                      .arg(fromView(traits(reader).label), fromView(traits(input->framework.framework).label));
        action->setToolTip(tip);
    }
    m_exportMenu->setToolTipsVisible(true);
}

bool PlanPage::exportConfig(frameworks::ConfigKind kind, const QString& path, QString* error)
{
    const std::optional<Strategy> strategy = exportStrategy();
    try {
        if (!strategy)
            throw std::runtime_error(tr("Nothing to export: no candidate is selected and nothing fits.").toStdString());
        const EstimateInput in = m_form->input();
        const std::string text = frameworks::exportConfig(kind, in, *strategy, frameworks::planIdentity(in, *strategy));
        // Written aside and renamed over the target: a failed write keeps the previous file.
        if (const QString why = writeExportFile(path, QByteArray::fromStdString(text)); !why.isEmpty())
            throw std::runtime_error((tr("Cannot write %1.").arg(path) + QLatin1Char(' ') + why).toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void PlanPage::browseExport(frameworks::ConfigKind kind)
{
    const QString name = fromView(frameworks::configKindFileName(kind));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(name), name);
    if (path.isEmpty())
        return;
    QString error;
    if (exportConfig(kind, path, &error)) {
        m_importMessage->setStyleSheet(QString());
        m_importMessage->setText(tr("Wrote %1.").arg(QFileInfo(path).fileName()));
    } else {
        m_importMessage->setStyleSheet(QStringLiteral("color: #d03b3b"));
        m_importMessage->setText(error);
    }
    m_importMessage->show();
}

void PlanPage::browseReport()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export report into folder"));
    if (dir.isEmpty())
        return;
    const ExportResult result = writePlanReport(currentPlan(), dir);
    m_importMessage->setStyleSheet(result.ok ? QString() : QStringLiteral("color: #d03b3b"));
    m_importMessage->setText(result.ok ? tr("Wrote the report into %1.").arg(dir) : result.error);
    m_importMessage->show();
}

bool PlanPage::openConfig(const QString& path, QString* error)
{
    const QString name = QFileInfo(path).fileName();
    try {
        const frameworks::ImportedSettings settings = frameworks::importConfigFile(path.toStdString());
        m_form->applyImported(settings);
        m_selectAfterPlan = settings.strategy;
        QStringList lines;
        lines << tr("Read %1 (%2).").arg(name, fromView(frameworks::configFormatId(settings.format)));
        for (const frameworks::ConfigWarning& w : settings.warnings)
            lines << tr("Warning: %1: %2").arg(QString::fromStdString(w.key), QString::fromStdString(w.message));
        if (!settings.autoKeys.empty())
            lines << tr("Left to the plan (\"auto\"): %1").arg(QString::fromStdString([&] {
                std::string keys;
                for (const std::string& k : settings.autoKeys)
                    keys += (keys.empty() ? "" : ", ") + k;
                return keys;
            }()));
        m_importMessage->setStyleSheet(settings.warnings.empty() ? QString() : QStringLiteral("color: #b8860b"));
        m_importMessage->setText(lines.join(QLatin1Char('\n')));
        m_importMessage->show();
    } catch (const std::exception& e) {
        const QString message = tr("Cannot read %1: %2").arg(name, QString::fromUtf8(e.what()));
        m_importMessage->setStyleSheet(QStringLiteral("color: #d03b3b"));
        m_importMessage->setText(message);
        m_importMessage->show();
        if (error)
            *error = message;
        return false;
    }
    return true;
}

QString PlanPage::importMessageText() const
{
    return m_importMessage->isHidden() ? QString() : m_importMessage->text();
}

QString PlanPage::openConfigFilter()
{
    return tr("Framework configs (*.json *.yaml *.yml *.toml);;All files (*)");
}

void PlanPage::browseOpenConfig()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a DeepSpeed, Accelerate or torchtitan config"),
                                                      QString(), openConfigFilter());
    if (!path.isEmpty())
        openConfig(path);
}

} // namespace shardwise::gui
