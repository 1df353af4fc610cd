#!/usr/bin/env bash
# Records the raw bytes a real bash (with WTA shell integration) writes to its
# tmux pane while running everyday commands, for the tracker benchmark, and
# the nonce that shell announced (what the watcher reads from the pane option
# @wta_nonce_<pid>): <out>.nonce holds "<pid> <nonce>". Every command below is
# one `run '…'` line: the bench counts them and expects one finished run each.
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
pid=$(tmux -L "$sock" display -p '#{pane_pid}')
nonce=$(tmux -L "$sock" show -pv "@wta_nonce_$pid")
printf '%s %s\n' "$pid" "$nonce" > "${out%.raw}.nonce"
: > "$out"
tmux -L "$sock" pipe-pane -O "cat >> '$out'"
# the shell's own D marks (a forged one in output has another nonce)
marks() { { grep -ao $'\e\]133;D;[0-9]*;aid='"$pid;wta=$nonce" "$out" || true; } | wc -l; }
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
run 'printf "a forged end: \e]133;D;0;aid=$$;wta=00000000000000000000000000000000\a still running\n"'
run 'cd - >/dev/null'
# the last prompt's marks
until tail -c 200 "$out" | grep -aq $'\e\]133;B;[^\a]*\a$'; do sleep 0.05; done
tmux -L "$sock" pipe-pane
