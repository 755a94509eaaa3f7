#include "models/run_diagnosis_view.hpp"

#include "shell/core_messages.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <QCoreApplication>

#include <stdexcept>

namespace shardwise::gui {

namespace {

struct DiagnosisText {
    Q_DECLARE_TR_FUNCTIONS(DiagnosisText)
};

QString text(const nlohmann::json& j, const char* key, const std::string& where)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return {};
    if (!it->is_string())
        throw std::runtime_error(where + "." + key + ": expected a string");
    return QString::fromStdString(it->get<std::string>());
}

// A core message (shardwise/spec/message.hpp) in the user's language.
QString translatedMessage(const nlohmann::json& m, const std::string& where)
{
    try {
        return coreMessageText(messageFromJson(m, where));
    } catch (const SpecError& e) {
        throw std::runtime_error(e.what());
    }
}

// The message at `key`; `fallback` (the English text) when there is none.
QString translated(const nlohmann::json& j, const char* key, const std::string& where, const QString& fallback)
{
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : translatedMessage(*it, where + "." + key);
}

QList<DiagnosisEvidence> evidence(const nlohmann::json& j, const char* key, const std::string& where)
{
    QList<DiagnosisEvidence> out;
    const auto it = j.find(key);
    if (it == j.end())
        return out;
    if (!it->is_array())
        throw std::runtime_error(where + "." + key + ": expected an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
        const nlohmann::json& e = (*it)[i];
        const std::string at = where + "." + key + "[" + std::to_string(i) + "]";
        if (!e.is_object())
            throw std::runtime_error(at + ": expected an object");
        DiagnosisEvidence line;
        line.source = text(e, "source", at);
        line.line = e.value("line", 0);
        line.text = text(e, "text", at);
        out.append(line);
    }
    return out;
}

const nlohmann::json& arrayAt(const nlohmann::json& j, const char* key)
{
    static const nlohmann::json empty = nlohmann::json::array();
    const auto it = j.find(key);
    if (it == j.end())
        return empty;
    if (!it->is_array())
        throw std::runtime_error(std::string(key) + ": expected an array");
    return *it;
}

} // namespace

bool DiagnosisAction::isRerun() const
{
    return kind == QLatin1String("rerun_with_expandable_segments")
        || ((kind == QLatin1String("deeper_sharding") || kind == QLatin1String("offload")) && strategy.has_value());
}

const DiagnosisFailure* RunDiagnosisView::rootCauseFailure() const
{
    if (!rootCause || *rootCause < 0 || *rootCause >= failures.size())
        return nullptr;
    return &failures[*rootCause];
}

RunDiagnosisView diagnosisViewFromJson(const nlohmann::json& document)
{
    if (!document.is_object())
        throw std::runtime_error("diagnosis: expected a JSON object");
    RunDiagnosisView view;
    view.verdict = text(document, "verdict", "diagnosis");
    view.explanation = text(document, "explanation", "diagnosis");
    // The explanation's sentences as the core's messages, in the user's language (newer diagnoses).
    if (const auto m = document.find("explanation_messages"); m != document.end() && m->is_array() && !m->empty()) {
        QStringList sentences;
        for (std::size_t i = 0; i < m->size(); ++i)
            sentences << translatedMessage((*m)[i], "diagnosis.explanation_messages[" + std::to_string(i) + "]");
        view.explanation = sentences.join(QLatin1Char(' '));
    }
    view.orderingCertain = document.value("ordering_certain", true);
    if (const auto it = document.find("root_cause"); it != document.end() && !it->is_null()) {
        if (!it->is_number_integer())
            throw std::runtime_error("diagnosis.root_cause: expected an index or null");
        view.rootCause = it->get<int>();
    }
    const nlohmann::json& failures = arrayAt(document, "failures");
    for (std::size_t i = 0; i < failures.size(); ++i) {
        const nlohmann::json& f = failures[i];
        const std::string at = "failures[" + std::to_string(i) + "]";
        if (!f.is_object())
            throw std::runtime_error(at + ": expected an object");
        DiagnosisFailure failure;
        failure.kind = text(f, "kind", at);
        if (const auto r = f.find("rank"); r != f.end() && r->is_number_integer())
            failure.rank = r->get<int>();
        failure.node = text(f, "node", at);
        failure.loggedTime = text(f, "logged_time", at);
        failure.message = text(f, "message", at);
        failure.symptom = f.value("symptom", false);
        failure.rootCause = f.value("root_cause", false);
        failure.evidence = evidence(f, "evidence", at);
        failure.lastLines = evidence(f, "last_lines", at);
        view.failures.append(failure);
    }
    if (view.rootCause && (*view.rootCause < 0 || *view.rootCause >= view.failures.size()))
        throw std::runtime_error("diagnosis.root_cause: index " + std::to_string(*view.rootCause)
                                 + " is not a failure");
    const nlohmann::json& actions = arrayAt(document, "actions");
    for (std::size_t i = 0; i < actions.size(); ++i) {
        const nlohmann::json& a = actions[i];
        const std::string at = "actions[" + std::to_string(i) + "]";
        if (!a.is_object())
            throw std::runtime_error(at + ": expected an object");
        DiagnosisAction action;
        action.kind = text(a, "kind", at);
        action.text = translated(a, "message", at, text(a, "text", at));
        if (const QString s = text(a, "strategy", at); !s.isEmpty()) {
            action.strategy = strategyFromId(s.toStdString());
            if (!action.strategy)
                throw std::runtime_error(at + ".strategy: unknown strategy '" + s.toStdString() + "'");
        }
        action.node = text(a, "node", at);
        if (const auto r = a.find("ranks"); r != a.end() && r->is_array())
            for (const auto& rank : *r)
                if (rank.is_number_integer())
                    action.ranks.append(rank.get<int>());
        view.actions.append(action);
    }
    if (const auto m = document.find("note_messages"); m != document.end() && m->is_array() && !m->empty()) {
        for (std::size_t i = 0; i < m->size(); ++i)
            view.notes << translatedMessage((*m)[i], "diagnosis.note_messages[" + std::to_string(i) + "]");
        return view;
    }
    for (const auto& n : arrayAt(document, "notes"))
        if (n.is_string())
            view.notes << QString::fromStdString(n.get<std::string>());
    return view;
}

QString failureKindText(const QString& kindId)
{
    if (kindId == QLatin1String("oom"))
        return DiagnosisText::tr("Out of memory");
    if (kindId == QLatin1String("lost_rank"))
        return DiagnosisText::tr("Rank or node lost");
    if (kindId == QLatin1String("watchdog_timeout"))
        return DiagnosisText::tr("Collective watchdog timeout");
    if (kindId == QLatin1String("launcher_arguments"))
        return DiagnosisText::tr("Launcher arguments");
    if (kindId == QLatin1String("communication"))
        return DiagnosisText::tr("Communication error");
    if (kindId == QLatin1String("config"))
        return DiagnosisText::tr("Configuration rejected");
    if (kindId == QLatin1String("internal"))
        return DiagnosisText::tr("Other failure");
    return kindId;
}

} // namespace shardwise::gui
