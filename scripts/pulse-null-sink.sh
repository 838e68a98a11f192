#!/usr/bin/env bash
# A private PulseAudio server with one null sink ("vsink"), so that the tests
# can play through a real sound stream on a machine without a sound card and
# record what was played from the sink's monitor ("vsink.monitor").
#
#   eval "$(scripts/pulse-null-sink.sh start)"
#       starts it and prints the variables to export:
#       PULSE_SERVER (where clients connect), COMPANION_PULSE_DIR (its files)
#       and COMPANION_PULSE=required (tests that need it fail instead of skipping).
#       If it cannot start, prints the reason and `false`, so the eval fails.
#   scripts/pulse-null-sink.sh stop [DIR]     (DIR defaults to $COMPANION_PULSE_DIR)
#       stops that server by its pid and removes its files.
#
# The server gets a HOME and XDG_RUNTIME_DIR of its own (mode 700), so it works
# as root (where pulseaudio warns but runs) and never meets a desktop's server.
set -euo pipefail

fail() {
  echo "echo 'pulse-null-sink: $1' >&2; false"
  exit 1
}

case "${1:-}" in
  start)
    command -v pulseaudio >/dev/null || fail "pulseaudio is not installed (Debian: pulseaudio pulseaudio-utils libasound2-plugins)"
    command -v pactl >/dev/null || fail "pactl is not installed (Debian: pulseaudio-utils)"
    dir="$(mktemp -d "${TMPDIR:-/tmp}/companion-pulse.XXXXXX")"
    mkdir -p "$dir/home" "$dir/run"
    chmod 700 "$dir" "$dir/home" "$dir/run"
    # rate=22050: espeak-ng's rate, so the test stream is not resampled.
    if ! HOME="$dir/home" XDG_RUNTIME_DIR="$dir/run" pulseaudio -D -n \
        --exit-idle-time=-1 --disallow-exit --use-pid-file=yes \
        --load=module-native-protocol-unix \
        --load="module-null-sink sink_name=vsink rate=22050" \
        --load=module-always-sink >"$dir/log" 2>&1; then
      fail "pulseaudio did not start: $(tail -n 1 "$dir/log" | tr -d "'")"
    fi
    server="unix:$dir/run/pulse/native"
    for _ in $(seq 100); do
      PULSE_SERVER="$server" pactl info >/dev/null 2>&1 && break
      sleep 0.1
    done
    PULSE_SERVER="$server" pactl info >/dev/null 2>&1 \
      || fail "pulseaudio started but does not answer at $server (see $dir/log)"
    echo "export PULSE_SERVER=$server COMPANION_PULSE_DIR=$dir COMPANION_PULSE=required"
    ;;
  stop)
    dir="${2:-${COMPANION_PULSE_DIR:-}}"
    [ -n "$dir" ] && [ -d "$dir" ] || exit 0
    pid="$(cat "$dir/run/pulse/pid" 2>/dev/null || true)"
    # Only that server: the pid must still be a pulseaudio process.
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = pulseaudio ]; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do  # gone, or a zombie nobody reaps: either way stopped
        state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
        [ -z "$state" ] || [ "$state" = Z ] && break
        sleep 0.1
      done
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start | stop [DIR]" >&2
    exit 2
    ;;
esac
