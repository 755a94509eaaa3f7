<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>CaptionText</name>
    <message numerus="yes">
        <source>%1 on %2: %n run(s)</source>
        <translation>
            <numerusform>%1 on %2: %n run</numerusform>
            <numerusform>%1 on %2: %n runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CoreMessage</name>
    <message numerus="yes">
        <source>No failure was recognised in %n record(s).</source>
        <translation>
            <numerusform>No failure was recognised in %n record.</numerusform>
            <numerusform>No failure was recognised in %n records.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) reported a run summary.</source>
        <translation>
            <numerusform>%n rank reported a run summary.</numerusform>
            <numerusform>%n ranks reported a run summary.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n primary failure(s) carry no time and could not be ordered against the root cause.</source>
        <translation>
            <numerusform>%n primary failure carries no time and could not be ordered against the root cause.</numerusform>
            <numerusform>%n primary failures carry no time and could not be ordered against the root cause.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n run</numerusform>
            <numerusform>%n runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodesPage</name>
    <message numerus="yes">
        <source>Probing %1: %n rank(s) on %2…</source>
        <translation>
            <numerusform>Probing %1: %n rank on %2…</numerusform>
            <numerusform>Probing %1: %n ranks on %2…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored.</source>
        <translation>
            <numerusform>%1 probed: %n rank measured and stored.</numerusform>
            <numerusform>%1 probed: %n ranks measured and stored.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored; calibrated plans for %2 start from this probe.</source>
        <translation>
            <numerusform>%1 probed: %n rank measured and stored; calibrated plans for %2 start from this probe.</numerusform>
            <numerusform>%1 probed: %n ranks measured and stored; calibrated plans for %2 start from this probe.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found.</source>
        <translation>
            <numerusform>%1: %n GPU found.</numerusform>
            <numerusform>%1: %n GPUs found.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found; the runner cannot be built there yet (see the problems below).</source>
        <translation>
            <numerusform>%1: %n GPU found; the runner cannot be built there yet (see the problems below).</numerusform>
            <numerusform>%1: %n GPUs found; the runner cannot be built there yet (see the problems below).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Probing the network %1: %n rank(s), %2…</source>
        <translation>
            <numerusform>Probing the network %1: %n rank, %2…</numerusform>
            <numerusform>Probing the network %1: %n ranks, %2…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PlanPage</name>
    <message numerus="yes">
        <source>Queued %n run(s) on %1; the Runs page shows them with the rest of the queue.</source>
        <translation>
            <numerusform>Queued %n run on %1; the Runs page shows them with the rest of the queue.</numerusform>
            <numerusform>Queued %n runs on %1; the Runs page shows them with the rest of the queue.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunHistoryModel</name>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n rank</numerusform>
            <numerusform>%n ranks</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunOriginBar</name>
    <message numerus="yes">
        <source>%n run(s) on node “example” are examples shipped with Shardwise: the project&apos;s own measurements on an NVIDIA H200, each with the planner&apos;s prediction for it.</source>
        <translation>
            <numerusform>%n run on node “example” is an example shipped with Shardwise: the project&apos;s own measurement on an NVIDIA H200, with the planner&apos;s prediction for it.</numerusform>
            <numerusform>%n runs on node “example” are examples shipped with Shardwise: the project&apos;s own measurements on an NVIDIA H200, each with the planner&apos;s prediction for it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) are published results (launcher “published”).</source>
        <translation>
            <numerusform>%n run is a published result (launcher “published”).</numerusform>
            <numerusform>%n runs are published results (launcher “published”).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunQueueModel</name>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n rank</numerusform>
            <numerusform>%n ranks</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunRequestForm</name>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n rank</numerusform>
            <numerusform>%n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n step</numerusform>
            <numerusform>%n steps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sequence(s)</source>
        <translation>
            <numerusform>%n sequence</numerusform>
            <numerusform>%n sequences</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunsPage</name>
    <message numerus="yes">
        <source>Queued %1 on %2 with %n rank(s).</source>
        <translation>
            <numerusform>Queued %1 on %2 with %n rank.</numerusform>
            <numerusform>Queued %1 on %2 with %n ranks.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left unknown: a queued run carries no predicted step time.</source>
        <translation>
            <numerusform>%n run in the queue; time left unknown: a queued run carries no predicted step time.</numerusform>
            <numerusform>%n runs in the queue; time left unknown: a queued run carries no predicted step time.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left: %1.</source>
        <translation>
            <numerusform>%n run in the queue; time left: %1.</numerusform>
            <numerusform>%n runs in the queue; time left: %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::Workspace</name>
    <message numerus="yes">
        <source>Imported %n run(s) from %1.</source>
        <translation>
            <numerusform>Imported %n run from %1.</numerusform>
            <numerusform>Imported %n runs from %1.</numerusform>
        </translation>
    </message>
</context>
</TS>
