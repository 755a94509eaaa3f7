#!/bin/sh
# Stands in for shardwise-runner where the launch mechanics are under test (start, collect, exit
# statuses, cancel, re-attach): one protocol "log" event per step naming its torchrun environment
# (and the rendezvous file it was given, or none),
# one stderr line per step, then the exit code it was given.
# usage: fake_rank.sh STEPS PAUSE_SECONDS EXIT_CODE
# $FAKE_RANK_ARGS ("STEPS PAUSE_SECONDS EXIT_CODE"), set in one node's environment, overrides the
# arguments for that node's ranks: one node fails while the others run on.
if [ -n "$FAKE_RANK_ARGS" ]; then
    # shellcheck disable=SC2086
    set -- $FAKE_RANK_ARGS
fi
steps=$1
pause=$2
code=$3
i=0
while [ "$i" -lt "$steps" ]; do
    printf '{"v":1,"event":"log","rank":%s,"level":"info","message":"step %s world %s master %s:%s local %s of %s rendezvous %s","time":0}\n' \
        "$RANK" "$i" "$WORLD_SIZE" "$MASTER_ADDR" "$MASTER_PORT" "$LOCAL_RANK" "$LOCAL_WORLD_SIZE" \
        "${SHARDWISE_RENDEZVOUS_FILE:-none}"
    echo "rank $RANK stderr line $i" >&2
    i=$((i + 1))
    sleep "$pause"
done
exit "$code"
