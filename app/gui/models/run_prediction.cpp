#include "models/run_prediction.hpp"

#include "shell/core_messages.hpp"

#include <QCoreApplication>
#include <QLocale>

namespace shardwise::gui {

namespace {

struct PredictionText {
    Q_DECLARE_TR_FUNCTIONS(PredictionText)
};

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

PredictionSide sideOf(const calibrate::Comparison& c)
{
    PredictionSide s;
    s.tokensPerS = c.predictedTokensPerS;
    s.tokensError = c.tokensError;
    s.peakGiB = c.predictedPeakBytes / kGiBytes;
    s.peakError = c.peakError;
    s.fits = c.predictedFits;
    s.verdictWrong = c.verdictWrong();
    return s;
}

QString unsignedPercent(double fraction)
{
    return PredictionText::tr("%1 %").arg(QLocale().toString(fraction * 100.0, 'f', 1));
}

} // namespace

const CalibrationSummary* PredictionSet::calibrationFor(const QString& gpu) const
{
    for (const CalibrationSummary& c : calibrations)
        if (c.gpu == gpu)
            return &c;
    return nullptr;
}

PredictionSet toPredictionSet(const std::vector<calibrate::GpuComparison>& sections)
{
    PredictionSet set;
    for (const calibrate::GpuComparison& section : sections) {
        const QString gpu = QString::fromStdString(section.gpu);
        const calibrate::StoredCalibration& sc = section.calibration;
        CalibrationSummary c;
        c.gpu = gpu;
        c.source = sc.sourceMessage.id.empty() ? QString::fromStdString(sc.source) : coreMessageText(sc.sourceMessage);
        c.runs = sc.runs;
        c.confidence = sc.confidence;
        c.confidenceLabel = QString::fromStdString(sc.confidenceLabel);
        c.residualRuns = sc.tokens.count;
        c.tokensMedianAbs = sc.tokens.medianAbs;
        c.tokensWorstAbs = sc.tokens.worstAbs;
        c.peakMedianAbs = sc.peak.medianAbs;
        c.peakWorstAbs = sc.peak.worstAbs;
        set.calibrations.append(c);
        for (const calibrate::StoredRunComparison& row : section.rows)
            set.runs.insert(row.runId, RunPrediction { gpu, sideOf(row.presets), sideOf(row.calibrated) });
    }
    return set;
}

QString confidenceLabelText(const QString& label)
{
    if (label == QLatin1String("high"))
        return PredictionText::tr("high");
    if (label == QLatin1String("medium"))
        return PredictionText::tr("medium");
    if (label == QLatin1String("low"))
        return PredictionText::tr("low");
    return label;
}

QString describeCalibration(const CalibrationSummary& c)
{
    QString line
        = PredictionText::tr("GPU %1: calibration from %2, confidence %3 (%4)")
              .arg(c.gpu, c.source, confidenceLabelText(c.confidenceLabel), QLocale().toString(c.confidence, 'f', 2));
    // In-sample: the calibrated predictions are fitted to these same runs, so the residuals show what
    // calibration can explain, not how well it predicts a new run.
    if (c.runs > 0)
        line += PredictionText::tr("; in-sample residuals: tokens/s median %1, worst %2; peak median %3, worst %4")
                    .arg(unsignedPercent(c.tokensMedianAbs), unsignedPercent(c.tokensWorstAbs),
                         unsignedPercent(c.peakMedianAbs), unsignedPercent(c.peakWorstAbs));
    return line;
}

QString signedPercent(double fraction)
{
    const QString number = QLocale().toString(fraction * 100.0, 'f', 1);
    return PredictionText::tr("%1 %").arg(fraction > 0 ? QLatin1Char('+') + number : number);
}

QString fitVerdictText(const PredictionSide& side)
{
    const QString verdict = side.fits ? PredictionText::tr("fits") : PredictionText::tr("does not fit");
    return side.verdictWrong ? PredictionText::tr("%1 (wrong)").arg(verdict) : verdict;
}

} // namespace shardwise::gui
