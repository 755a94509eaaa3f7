#pragma once
// The Plan form's saved shape (QSettings, the demo workspace's example plans) turned into the
// planner's input. One function so the form and the example plans cannot disagree.

#include "shardwise/estimate/estimate.hpp"

#include <QJsonObject>

namespace shardwise::gui {

// Throws SpecError naming the field ("model", "gpu", "cluster.gpus_per_node", ...).
EstimateInput planInputFromState(const QJsonObject& state);

} // namespace shardwise::gui
