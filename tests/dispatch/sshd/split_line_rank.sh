#!/bin/sh
# Stands in for shardwise-runner where a rank writes its lines in pieces (as stdio does when a
# buffer fills mid-line): each protocol line and stderr line is written in two parts with a pause
# longer than the follower's poll between them, so polls find unfinished lines.
# usage: split_line_rank.sh LINES PAUSE_SECONDS
lines=$1
pause=$2
i=0
while [ "$i" -lt "$lines" ]; do
    printf '{"v":1,"event":"log","rank":%s,"level":"info",' "$RANK"
    printf 'rank %s stderr li' "$RANK" >&2
    sleep "$pause"
    printf '"message":"line %s of rank %s","time":0}\n' "$i" "$RANK"
    printf 'ne %s\n' "$i" >&2
    i=$((i + 1))
done
exit 0
