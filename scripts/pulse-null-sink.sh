#!/usr/bin/env bash
# A private PulseAudio server with a null sink, so that tests can play
# through a real sound stream on a machine without a sound card and record
# what was played from the sink's monitor.
#   eval "$(scripts/pulse-null-sink.sh start)"   # exports PULSE_SERVER, COMPANION_PULSE_DIR
#   scripts/pulse-null-sink.sh stop "$COMPANION_PULSE_DIR"
set -euo pipefail
case "${1:-}" in
  start)
    command -v pulseaudio >/dev/null || { echo "echo 'pulse-null-sink: pulseaudio is not installed' >&2"; exit 0; }
    dir="$(mktemp -d /tmp/companion-pulse.XXXXXX)"
    mkdir -p "$dir/home" "$dir/run"
    chmod 700 "$dir" "$dir/run"
    HOME="$dir/home" XDG_RUNTIME_DIR="$dir/run" pulseaudio -D -n \
      --exit-idle-time=-1 --disallow-exit --use-pid-file=yes \
      --load=module-native-protocol-unix \
      --load="module-null-sink sink_name=vsink rate=22050" \
      --load=module-always-sink >"$dir/log" 2>&1 || {
        echo "echo 'pulse-null-sink: pulseaudio did not start (see $dir/log)' >&2"; exit 0; }
    for _ in $(seq 50); do [ -S "$dir/run/pulse/native" ] && break; sleep 0.1; done
    echo "export PULSE_SERVER=unix:$dir/run/pulse/native COMPANION_PULSE_DIR=$dir"
    ;;
  stop)
    dir="${2:-${COMPANION_PULSE_DIR:-}}"
    [ -n "$dir" ] && [ -d "$dir" ] || exit 0
    pid="$(cat "$dir/run/pulse/pid" 2>/dev/null || true)"
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start | stop [DIR]" >&2; exit 2 ;;
esac
