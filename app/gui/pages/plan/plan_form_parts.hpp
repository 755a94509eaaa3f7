#pragma once
// What the Plan form's parts (plan_form*.cpp) share: the item data of its combo boxes and how a combo
// box is kept narrow.

#include <QComboBox>
#include <QString>

#include <string_view>

namespace shardwise::gui::plan_form {

inline const QString kCustomGpu = QStringLiteral("custom");                // the GPU combo's "Custom GPU…" entry
inline const QString kCustomNetwork = QStringLiteral("custom");            // the inter-node combo's "Custom…" entry
inline const QString kMeasuredNetworkPrefix = QStringLiteral("measured:"); // + a network probe's name
constexpr int kFileRole = Qt::UserRole + 1; // model entries loaded from a file carry its path
constexpr int kGBpsRole = Qt::UserRole + 1; // inter-node presets carry their GB/s

inline QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

// As wide as `chars` characters whatever its longest entry, so that the form fits beside the results
// in a 1024 px window; the open list shows every entry in full.
inline void keepNarrow(QComboBox* combo, int chars = 14)
{
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(chars);
}

} // namespace shardwise::gui::plan_form
