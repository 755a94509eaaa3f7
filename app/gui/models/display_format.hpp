#pragma once
// Numbers as the user reads them: always with a unit, in the user's locale.

#include "shardwise/spec/strategy.hpp"

#include <QString>

namespace shardwise::gui {

QString formatGiB(double gib);
QString formatTokensPerS(double tokensPerS);
QString formatPercent(double fraction); // 0..1 -> "12.3 %"
QString formatSeconds(double seconds);
QString strategyLabel(Strategy s);   // the strategy table's label
QString strategyIdText(Strategy s);  // the stable id ("zero3_offload")
QString strategySummary(Strategy s); // one translated sentence

// Explanations shown as tooltips on every number of the same kind.
QString peakMemoryExplanation();
QString tokensPerSExplanation();
QString mfuExplanation();
QString ncclShareExplanation();
QString reservedExplanation();

// A rehearsal of one rank of world N: its world as every page names it ("rehearsal of 8"), and why
// it shows no tokens/s, step time or NCCL share.
QString rehearsalWorldText(int rehearsedWorld);
QString rehearsalMemoryOnlyExplanation(int rehearsedWorld);
// The text in place of a figure a run does not measure.
QString notMeasuredText();

} // namespace shardwise::gui
