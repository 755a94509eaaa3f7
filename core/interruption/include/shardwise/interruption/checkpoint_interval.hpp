#pragma once
// How often to checkpoint when interruptions (Spot preemption, host maintenance: GPU nodes are not
// live-migrated) arrive at a known average rate, given what a checkpoint save and a restart cost.
//
// Interruptions are modelled as a Poisson process with mean time between them M (the first-order
// model of both papers below). With C the time one save stops training and R the time to get
// running again after an interruption:
//   Young (1974), "A first order approximation to the optimum checkpoint interval", CACM 17(9):
//     tau = sqrt(2 C M)
//   Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
//   FGCS 22(3), for C < 2M:
//     tau = sqrt(2 C M) [1 + (1/3) sqrt(C / 2M) + (1/9) (C / 2M)] - C,   and tau = M for C >= 2M
//   Daly's expected wall time for work T_s computed in segments of tau:
//     T_w = M e^{R/M} (e^{(tau + C)/M} - 1) T_s / tau
// tau is compute time between saves; the recommendation rounds it to whole optimizer steps.

#include <string>

namespace shardwise::interruption {

struct InterruptionInput {
    double interruptionsPerHour = 0; // expected rate, > 0
    double stepTimeS = 0;            // one optimizer step, > 0
    double checkpointSaveS = 0;      // C: training stopped per save, > 0
    double restartS = 0;             // R: from an interruption to training again (load + reschedule), >= 0
};

struct CheckpointRecommendation {
    double meanTimeBetweenInterruptionsS = 0; // M = 3600 / rate
    double youngIntervalS = 0;                // sqrt(2 C M)
    double dalyIntervalS = 0;                 // Daly's higher-order optimum
    int intervalSteps = 0;                    // whole steps nearest Daly's optimum with the lower overhead
    double intervalS = 0;                     // intervalSteps x step time
    // Expected work redone per interruption: the part of the current segment (tau + C) that was lost,
    // E[t | t < tau + C] = M - (tau + C) / (e^{(tau + C)/M} - 1), about (tau + C) / 2 when tau << M.
    double expectedRecomputeS = 0;
    double expectedLostPerInterruptionS = 0; // recompute + restart
    // T_w / T_s - 1 at intervalSteps: the wall-time share spent saving, redoing and restarting.
    double expectedOverheadFraction = 0;
    double saveOverheadFraction = 0; // C / tau alone
};

// Throws std::invalid_argument naming the input ("interruptions_per_hour", "step_time_s",
// "checkpoint_save_s", "restart_s") when it is out of range.
CheckpointRecommendation recommendCheckpointInterval(const InterruptionInput& in);

double youngInterval(double saveS, double mtbfS);
double dalyInterval(double saveS, double mtbfS);
// Daly's T_w / T_s - 1 for compute interval tau.
double expectedOverheadFraction(double tauS, double saveS, double restartS, double mtbfS);
double expectedRecompute(double tauS, double saveS, double mtbfS);

} // namespace shardwise::interruption
