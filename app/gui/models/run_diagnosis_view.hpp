#pragma once
// A stored diagnosis (core/diagnose's JSON document) as the Runs page shows it: the failures in time
// order with the root cause marked, the explanation, and the suggested next steps.

#include "shardwise/spec/strategy.hpp"

#include <nlohmann/json_fwd.hpp>

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace shardwise::gui {

struct DiagnosisEvidence {
    QString source; // log or events name, e.g. "rank1.log"
    int line = 0;   // 1-based; 0 for launcher facts
    QString text;
};

struct DiagnosisFailure {
    QString kind; // failure kind id: "oom", "config", "lost_rank", ...
    std::optional<int> rank;
    QString node;
    QString loggedTime;
    QString message;
    bool symptom = false;
    bool rootCause = false;
    QList<DiagnosisEvidence> evidence;
    QList<DiagnosisEvidence> lastLines;
};

struct DiagnosisAction {
    QString kind; // action kind id: "rerun_with_expandable_segments", "deeper_sharding", ...
    QString text;
    std::optional<Strategy> strategy;
    QString node;
    QList<int> ranks;
    // Whether the Runs page can carry the action out as a new run of the same configuration.
    bool isRerun() const;
};

struct RunDiagnosisView {
    QString verdict; // "clean" | "root_cause" | "symptoms_only"
    QString explanation;
    bool orderingCertain = true;
    std::optional<int> rootCause; // index into failures
    QList<DiagnosisFailure> failures;
    QList<DiagnosisAction> actions;
    QStringList notes;

    const DiagnosisFailure* rootCauseFailure() const;
};

// Reads core/diagnose's toJson(Diagnosis). Throws std::runtime_error naming the field that is wrong.
RunDiagnosisView diagnosisViewFromJson(const nlohmann::json& document);

QString failureKindText(const QString& kindId);

} // namespace shardwise::gui
