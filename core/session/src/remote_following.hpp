#pragma once
// Following a remote run to its end, shared by a fresh run (runRemote) and a re-attach
// (reattachRemote): every line recorded with the follower's offsets, the heartbeat kept fresh, and
// then either a detach (the run stays 'running' with its offsets) or the same conclusion for both.

#include "run_recording.hpp"

#include <map>
#include <string>
#include <vector>

namespace shardwise::session::detail {

// What the ranks wrote before this follower started reading (a re-attach): the events and log
// lines up to the stored offsets, needed for the run's outcome and diagnosis, never recorded again.
struct EarlierOutput {
    std::map<int, std::vector<protocol::Event>> events;
    std::map<int, std::vector<std::string>> protocolErrors;
    std::map<int, std::vector<std::string>> logLines;
};

struct FollowedRun {
    const RunConfig& requested;
    const dispatch::RemoteRun& handle;
    const std::vector<dispatch::SshSession*>& sessions;
    const std::vector<std::string>& nodeNames;
    dispatch::FollowOptions follow;
    int masterPort = 0;
    double earlierWallSeconds = 0; // how long the run had been going when this follower took it up
};

// Follows until every rank ended (then concludes the run into `result`) or SessionOptions::detach
// was set (then the run is left 'running' with the offsets reached and result.detached is set).
void followToConclusion(RunRecording& recording, const FollowedRun& run, dispatch::RemoteRunOffsets& offsets,
                        const EarlierOutput& earlier, const SessionOptions& options, const SessionCallbacks& callbacks,
                        const std::atomic<bool>* cancel, SessionResult& result);

} // namespace shardwise::session::detail
