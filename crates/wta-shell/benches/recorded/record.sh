#!/usr/bin/env bash
# Records the raw bytes a real bash (with WTA shell integration) writes to its
# tmux pane while running everyday commands, for the tracker benchmark.
# Usage (from the repository root):
#   crates/wta-shell/benches/recorded/record.sh target/debug/wta crates/wta-shell/benches/recorded/bash-session.raw
set -euo pipefail
wta="$1"; out="$2"
sock="wta-record-$$"
rc="$(mktemp)"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "$rc"' EXIT
printf 'PS1="\\w \\$ "\neval "$(%q shell-integration bash)"\n' "$wta" > "$rc"
tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 "bash --noprofile --rcfile $rc -i"
until tmux -L "$sock" show -pv @wta_integration 2>/dev/null | grep -q bash; do sleep 0.1; done
: > "$out"
tmux -L "$sock" pipe-pane -O "cat >> '$out'"
marks() { { grep -ao $'\e\]133;D' "$out" || true; } | wc -l; }
run() {
  local n; n=$(marks)
  tmux -L "$sock" send-keys -l "$1"; tmux -L "$sock" send-keys Enter
  # wait for this command's D mark
  until [ "$(marks)" -gt "$n" ]; do sleep 0.05; done
}
run 'ls -la --color=always /usr/bin | head -400'
run 'for i in $(seq 1 100); do printf "\rbuilding %3d%%" $i; done; echo'
run 'seq 1 3000'
run 'grep -rn --color=always "fn " crates/wta-shell/src | head -600'
run 'git log --stat -n 40 --color=always | cat'
run 'ls /nope'
run 'cd "/tmp" && pwd'
run 'printf "\e[?1049h\e[Hfull screen\e[?1049l"; echo back'
run 'printf "tab\tsep\x1b[1;31mred\x1b[0m h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c\n"'
run 'cd - >/dev/null'
tmux -L "$sock" pipe-pane
