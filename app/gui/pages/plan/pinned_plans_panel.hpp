#pragma once
// The Plan page's pinned plans: "Pin this plan" keeps the form's current plan as a column beside the
// plans pinned before, one row per setting and figure (model, GPU, cluster, training, framework,
// recommendation, planned peak, tokens/s); a row whose values differ between the pinned plans is
// highlighted. Plans can be saved in the workspace's store under a name (store/saved_plans.hpp),
// pinned from there and opened in the form again.

#include "shardwise/estimate/estimate.hpp"

#include <QJsonObject>
#include <QList>
#include <QWidget>

#include <functional>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace shardwise::gui {

class Workspace;

class PinnedPlansPanel : public QWidget {
    Q_OBJECT

public:
    // Each cell's flag beside its text: the row's values differ between the pinned plans.
    static constexpr int DiffersRole = Qt::UserRole;
    // The form state a saved plan reproduces, as the input the planner takes; empty when it no
    // longer describes a valid input (a preset since removed).
    using InputOf = std::function<std::optional<EstimateInput>(const QJsonObject& form)>;

    PinnedPlansPanel(Workspace& workspace, InputOf inputOf, QWidget* parent = nullptr);

    // What "Pin this plan" and "Save" take: the form's state and its input; cleared while the form
    // describes no valid input.
    void setCurrent(const QJsonObject& form, const EstimateInput& input);
    void clearCurrent();

    // Pins the current plan under `name` (empty: "Plan N"); false when there is none.
    bool pinCurrent(const QString& name = {});
    void pin(const QString& name, const QJsonObject& form, const EstimateInput& input);
    int pinnedCount() const { return static_cast<int>(m_pins.size()); }
    QString pinnedName(int index) const;
    QJsonObject pinnedForm(int index) const;
    void unpin(int index);
    void clearPins();
    // The rows' labels whose values differ between the pinned plans.
    QStringList differingFields() const;
    QTableWidget* table() const { return m_table; }

    // Saves the current plan in the workspace's store as `name`; a taken name is replaced only when
    // `replace`. False with the store's reason (naming the name) otherwise.
    bool saveCurrent(const QString& name, bool replace, QString* error = nullptr);
    QStringList savedNames() const;
    // Pins a saved plan, re-planned from its saved form; false with the reason.
    bool pinSaved(const QString& name, QString* error = nullptr);
    std::optional<QJsonObject> savedForm(const QString& name) const;
    bool removeSaved(const QString& name);
    QString messageText() const;

    static QString tabTitle();

signals:
    // "Open in form": the page sets its form to this state.
    void openRequested(const QJsonObject& form);

private:
    struct Pin {
        QString name;
        QJsonObject form;
        QList<QPair<QString, QString>> fields; // label, value
    };
    static QList<QPair<QString, QString>> fieldsOf(const EstimateInput& input);
    void fillTable();
    void refreshSaved();
    void showMessage(const QString& text, bool error);
    int selectedPin() const;

    Workspace& m_workspace;
    InputOf m_inputOf;
    std::optional<QJsonObject> m_currentForm;
    std::optional<EstimateInput> m_currentInput;
    QList<Pin> m_pins;
    int m_pinCounter = 0;
    QTableWidget* m_table = nullptr;
    QPushButton* m_pin = nullptr;
    QPushButton* m_unpin = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_clear = nullptr;
    QLineEdit* m_saveName = nullptr;
    QPushButton* m_save = nullptr;
    QComboBox* m_saved = nullptr;
    QPushButton* m_pinSaved = nullptr;
    QPushButton* m_openSaved = nullptr;
    QPushButton* m_removeSaved = nullptr;
    QLabel* m_message = nullptr;
};

} // namespace shardwise::gui
