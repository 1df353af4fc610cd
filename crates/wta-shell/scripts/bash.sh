# WTA shell integration for bash (>= 4.4). Load from ~/.bashrc with:
#   eval "$(wta shell-integration bash)"
# Emits OSC 133 A/B/C/D and P (the cwd), each with aid=<shell pid> and
# wta=<nonce>, and OSC 7 (for other tools; WTA trusts only the nonce'd P),
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, never exported, and announced only through the pane option
# @wta_nonce_<pid>, so command output cannot forge a mark. Idempotent, silent.
#
# The hand-off (how a confirmed card reaches the line): WTA writes the command
# to the private file announced in @wta_inbox_<pid> and sends one of the
# private keys below, bound in every key map (emacs, vi-insert, vi-command).
# The line never travels as editing keys, so no key map, pending text or `!`
# can change it: the function puts it in READLINE_LINE (what was typed is
# kept and put back by the restore key), and for Run accepts it with history
# expansion off for that line. Enter (C-m, C-j) records the line as typed, so
# the command line reported is what the shell was given, whatever history
# keeps (HISTCONTROL, HISTIGNORE, set +o history).
if [[ $- == *i* && -z ${__wta_loaded-} ]] && (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
__wta_loaded=1
__wta_ran=0
__wta_c=0
__wta_ec=0
__wta_line=
__wta_kept=
export WTA_SHELL_INTEGRATION=bash
__wta_nonce=$(LC_ALL=C od -An -N16 -tx1 /dev/urandom 2>/dev/null)
__wta_nonce=${__wta_nonce//[!0-9a-f]/}
export -n __wta_nonce 2>/dev/null
# Where WTA leaves a confirmed command for this shell (its runtime dir).
if [[ ${WTA_RUNTIME_DIR-} == /* ]]; then __wta_inbox=$WTA_RUNTIME_DIR
elif [[ ${XDG_RUNTIME_DIR-} == /* ]]; then __wta_inbox=$XDG_RUNTIME_DIR/wta
else __wta_inbox=/tmp/wta-$EUID; fi
__wta_inbox+=/line-$__wta_nonce
# Percent-encodes $1 into REPLY. A long line goes through od in one pass
# (the loop takes ~25 us a byte).
__wta_urlencode() {
  local LC_ALL=C s=$1 i c out=
  if (( ${#s} > 512 )); then
    REPLY=$(printf '%s' "$s" | od -An -v -tx1 | tr -d ' \n' | sed 's/../%&/g')
    return
  fi
  for (( i = 0; i < ${#s}; i++ )); do
    c=${s:i:1}
    case $c in
      [a-zA-Z0-9.~_/-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=${c: -3} ;;
    esac
  done
  REPLY=$out
}
# $1 replaces the line; what was typed waits in __wta_kept.
__wta_put() {
  if [[ -n ${READLINE_LINE-} ]]; then
    __wta_kept=$READLINE_LINE
    __wta_kept_point=$READLINE_POINT
  fi
  READLINE_LINE=$1
  READLINE_POINT=${#1}
}
# The hand-off: the confirmed command from the inbox replaces the line. With
# no command waiting the line is emptied, so the Run key's accept runs nothing.
__wta_take() {
  local line=
  if [[ -f $__wta_inbox ]]; then
    IFS= read -r -d '' line < "$__wta_inbox"
    command rm -f -- "$__wta_inbox"
  fi
  __wta_put "$line"
}
# This line is read with history expansion off (precmd turns it back on).
__wta_noexpand() {
  if [[ $- == *H* ]]; then set +H; __wta_histexpand=1; fi
}
# Run: the same, with history expansion off.
__wta_take_run() {
  __wta_take
  __wta_noexpand
}
# Run over wta ssh (no inbox there): the command follows the key as hex
# digits up to a `.`, read here, unechoed, never by the line editor. A
# payload that is not whole (or not there within 5 s: the shell is never
# left reading) puts nothing on the line.
__wta_take_hex() {
  __wta_put_hex
  __wta_noexpand
}
# Insert over wta ssh: the same payload, put on the line.
__wta_put_hex() {
  local hex
  IFS= read -rs -t 5 -d . hex
  __wta_unhex "$hex"
  __wta_put "$REPLY"
}
# The bytes the payload $1 spells (its digit count in 8 hex digits, then
# two hex digits a byte), in REPLY; empty unless the count is right.
__wta_unhex() {
  local LC_ALL=C esc= i
  REPLY=
  [[ $1 =~ ^[0-9a-f]{8}([0-9a-f][0-9a-f])*$ ]] && (( 16#${1:0:8} == ${#1} - 8 )) || return
  for (( i = 8; i < ${#1}; i += 2 )); do esc+=\\x${1:i:2}; done
  printf -v REPLY '%b' "$esc"
}
# The text typed before a hand-off, back on an empty line.
__wta_restore() {
  if [[ -z ${READLINE_LINE-} && -n $__wta_kept ]]; then
    READLINE_LINE=$__wta_kept
    READLINE_POINT=${__wta_kept_point:-${#__wta_kept}}
  fi
  __wta_kept=
}
# Enter: the line as the shell gets it (history-expanded as bash will).
__wta_record() {
  local l=${READLINE_LINE-}
  if [[ $- == *H* && ( $l == *'!'* || $l == '^'* ) ]]; then
    l=$(builtin history -p -- "$l" 2>/dev/null) || l=${READLINE_LINE-}
  fi
  __wta_line+=${__wta_line:+$'\n'}$l
}
# Whether a private key is bound already (by the user: this runs once). Then
# WTA announces no inbox and types cards' commands as keys instead.
__wta_keys_taken() {
  local m keys
  for m in emacs vi-insert vi-command; do
    keys=$({ builtin bind -m "$m" -p; builtin bind -m "$m" -s; builtin bind -m "$m" -X; } 2>/dev/null)
    [[ $keys == *'\e[1777'[0-9]'~'* ]] && return 0
  done
  return 1
}
__wta_bind() {
  local m keys
  for m in emacs vi-insert vi-command; do
    builtin bind -m "$m" -x '"\e[17770~": __wta_take'
    builtin bind -m "$m" -x '"\e[17771~": __wta_take_run'
    builtin bind -m "$m" -x '"\e[17772~": __wta_record'
    builtin bind -m "$m" '"\e[17773~": accept-line'
    builtin bind -m "$m" '"\e[17777~": "\e[17771~\e[17772~\e[17773~"'
    builtin bind -m "$m" '"\e[17776~": "\e[17770~"'
    builtin bind -m "$m" -x '"\e[17778~": __wta_take_hex'
    builtin bind -m "$m" '"\e[17774~": "\e[17778~\e[17772~\e[17773~"'
    builtin bind -m "$m" -x '"\e[17779~": __wta_put_hex'
    builtin bind -m "$m" -x '"\e[17775~": __wta_restore'
    # Enter records the line, unless the user bound it to something else.
    keys=$(builtin bind -m "$m" -p 2>/dev/null)
    if [[ $keys == *'"\C-m": accept-line'* ]]; then
      builtin bind -m "$m" '"\C-m": "\e[17772~\e[17773~"'
    fi
    if [[ $keys == *'"\C-j": accept-line'* ]]; then
      builtin bind -m "$m" '"\C-j": "\e[17772~\e[17773~"'
    fi
  done
}
if __wta_keys_taken; then
  __wta_inbox=taken
else
  __wta_bind 2>/dev/null
fi
if [[ -n ${TMUX_PANE-} ]] && command -v tmux >/dev/null 2>&1; then
  command tmux set -p -t "$TMUX_PANE" @wta_integration "bash $$" \; \
    set -p -t "$TMUX_PANE" "@wta_nonce_$$" "$__wta_nonce" \; \
    set -p -t "$TMUX_PANE" "@wta_inbox_$$" "$__wta_inbox" >/dev/null 2>&1
fi
__wta_precmd() {
  __wta_ec=$?
  if [[ -n ${__wta_histexpand-} ]]; then set -H; __wta_histexpand=; fi
  if [[ $__wta_ran == 1 ]]; then
    printf '\e]133;D;%s;aid=%s;wta=%s\a' "$__wta_ec" "$$" "$__wta_nonce"
    __wta_ran=0
  fi
  __wta_line=
  __wta_c=0
  __wta_urlencode "$PWD"
  printf '\e]7;file://%s%s\e\\' "${HOSTNAME-}" "$REPLY"
  printf '\e]133;P;aid=%s;wta=%s;cwd_url=%s\a' "$$" "$__wta_nonce" "$REPLY"
  return $__wta_ec
}
__wta_wrap_ps1() {
  # Themes may rebuild PS1 in PROMPT_COMMAND: re-wrap it after them.
  # The marks name the nonce variable, not its value: PS1 may be exported.
  if [[ $PS1 != *'133;A;aid='* ]]; then
    PS1='\[\e]133;A;aid=$$;wta=${__wta_nonce}\a\]'"${PS1}"'\[\e]133;B;aid=$$;wta=${__wta_nonce}\a\]'
  fi
  return $__wta_ec
}
# The command line: as Enter recorded it, else (Enter bound to something of
# the user's) what history kept. bash shows PS0 again for each further line
# of one accepted buffer: those C marks carry no command line (it was said).
__wta_preexec_c() {
  if (( __wta_c > 1 )); then
    printf '\e]133;C;aid=%s;wta=%s\a' "$$" "$__wta_nonce"
    return
  fi
  local line=$__wta_line
  if [[ -z $line ]]; then
    line=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
    line=${line#*[0-9]  }
  fi
  __wta_urlencode "$line"
  printf '\e]133;C;aid=%s;wta=%s;cmdline_url=%s\a' "$$" "$__wta_nonce" "$REPLY"
}
if [[ $(declare -p PROMPT_COMMAND 2>/dev/null) == "declare -a"* ]]; then
  PROMPT_COMMAND=(__wta_precmd "${PROMPT_COMMAND[@]}" __wta_wrap_ps1)
else
  PROMPT_COMMAND=__wta_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}$'\n'__wta_wrap_ps1
fi
__wta_wrap_ps1
# ${x:0:$((...))} is an empty substring whose arithmetic sets the flag in the current shell.
PS0='${__wta_ran:0:$((__wta_ran=1, __wta_c+=1, 0))}$(__wta_preexec_c)'"${PS0-}"
fi
