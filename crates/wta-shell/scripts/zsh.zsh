# WTA shell integration for zsh. Load from ~/.zshrc with:
#   eval "$(wta shell-integration zsh)"
# Emits OSC 133 A/B/C/D and P (the cwd), each with aid=<shell pid> and
# wta=<nonce>, and OSC 7 (for other tools; WTA trusts only the nonce'd P),
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, never exported, and announced only through the pane option
# @wta_nonce_<pid>, so command output cannot forge a mark. Idempotent, silent.
#
# The hand-off (how a confirmed card reaches the line): WTA writes the command
# to the private file announced in @wta_inbox_<pid> and sends one of two
# private keys, bound in the emacs, viins and vicmd key maps to widgets that
# put it in BUFFER (what was typed is pushed, `push-line`, and comes back at
# the next prompt) and, for Run, accept it with history expansion off for
# that line. The command line reported is preexec's first argument: what
# the shell was given, whatever history keeps.
if [[ -o interactive ]] && (( ! ${+__wta_loaded} )); then
typeset -g __wta_loaded=1
export WTA_SHELL_INTEGRATION=zsh
typeset -g __wta_nonce=${"$(LC_ALL=C od -An -N16 -tx1 /dev/urandom 2>/dev/null)"//[^0-9a-f]/}
typeset +x __wta_nonce
# Where WTA leaves a confirmed command for this shell (its runtime dir).
if [[ ${WTA_RUNTIME_DIR-} == /* ]]; then typeset -g __wta_inbox=$WTA_RUNTIME_DIR
elif [[ ${XDG_RUNTIME_DIR-} == /* ]]; then typeset -g __wta_inbox=$XDG_RUNTIME_DIR/wta
else typeset -g __wta_inbox=/tmp/wta-$EUID; fi
__wta_inbox+=/line-$__wta_nonce
autoload -Uz add-zsh-hook
# zsh prints PROMPT_SP (EOL mark + padding + "\r \r") before precmd hooks, so D is
# emitted from the EOL mark: %(9V..) is true while psvar[9] is set (by preexec).
PROMPT_EOL_MARK=$'%(9V.%{\e]133;D;%?;aid='$$';wta='$__wta_nonce$'\a%}.)'"${PROMPT_EOL_MARK-%B%S%#%s%b}"
# Percent-encodes $1 into REPLY, byte by byte, in one substitution (a loop
# over a long command line took seconds).
__wta_urlencode() {
  emulate -L zsh
  setopt extendedglob
  local LC_ALL=C
  REPLY=${1//(#m)[^a-zA-Z0-9.~_\/-]/%${(l:2::0:)$(( [##16] #MATCH ))}}
}
# The hand-off: the confirmed command replaces the line (what was typed is
# pushed for the next prompt); false when no command is waiting.
__wta_take() {
  local line
  [[ -f $__wta_inbox ]] || return 1
  IFS= read -r -d '' line < "$__wta_inbox"
  command rm -f -- "$__wta_inbox"
  [[ -n $BUFFER ]] && zle push-line
  BUFFER=$line
  CURSOR=${#BUFFER}
  return 0
}
__wta_insert_widget() { __wta_take; return 0 }
# Run: the same, accepted with no history expansion for this line (zsh reads
# `!` and `^` through histchars, which precmd puts back).
__wta_run_widget() {
  __wta_take || return 0
  typeset -g __wta_histchars=$histchars
  histchars=$'\0\0'${histchars[3]-#}
  zle accept-line
}
# Run over wta ssh (no inbox there): the command follows the key as hex
# digits up to a `.`, read here (zle does not echo them), never through
# zle's own input, which in a C locale turns each non-ASCII byte into `?`.
# A payload that is not whole (or not there within 5 s: the shell is never
# left reading) puts nothing on the line.
__wta_run_hex_widget() {
  __wta_put_hex
  typeset -g __wta_histchars=$histchars
  histchars=$'\0\0'${histchars[3]-#}
  zle accept-line
}
# Insert over wta ssh: the same payload, put on the line.
__wta_insert_hex_widget() { __wta_put_hex; return 0 }
__wta_put_hex() {
  emulate -L zsh
  setopt extended_glob
  local hex= c
  while read -t 5 -k 1 c && [[ $c != . ]]; do hex+=$c; done
  # The digit count first (8 hex digits), then two digits a byte.
  [[ $hex == [0-9a-f](#c8)([0-9a-f][0-9a-f])# ]] && (( 16#${hex[1,8]} == $#hex - 8 )) || hex=00000000
  hex=${hex[9,-1]}
  [[ -n $BUFFER ]] && zle push-line
  hex=${hex//(#b)(??)/\\x$match[1]}
  BUFFER=${(g::)hex}
  CURSOR=${#BUFFER}
}
# The restore key other shells need: push-line already brings the text back.
__wta_restore_widget() { return 0 }
zle -N __wta_insert_widget
zle -N __wta_run_widget
zle -N __wta_restore_widget
zle -N __wta_run_hex_widget
zle -N __wta_insert_hex_widget
# A private key bound already (by the user): no inbox is announced, and WTA
# types cards' commands as keys instead.
for __wta_map in emacs viins vicmd; do
  for __wta_key in '^[[17777~' '^[[17776~' '^[[17775~' '^[[17774~' '^[[17779~'; do
    [[ $(bindkey -M $__wta_map $__wta_key) == *undefined-key ]] || __wta_inbox=taken
  done
done
if [[ $__wta_inbox != taken ]]; then
  for __wta_map in emacs viins vicmd; do
    bindkey -M $__wta_map '^[[17777~' __wta_run_widget
    bindkey -M $__wta_map '^[[17776~' __wta_insert_widget
    bindkey -M $__wta_map '^[[17775~' __wta_restore_widget
    bindkey -M $__wta_map '^[[17774~' __wta_run_hex_widget
    bindkey -M $__wta_map '^[[17779~' __wta_insert_hex_widget
  done
fi
unset __wta_map __wta_key
if [[ -n ${TMUX_PANE-} ]] && (( ${+commands[tmux]} )); then
  command tmux set -p -t "$TMUX_PANE" @wta_integration "zsh $$" \; \
    set -p -t "$TMUX_PANE" "@wta_nonce_$$" "$__wta_nonce" \; \
    set -p -t "$TMUX_PANE" "@wta_inbox_$$" "$__wta_inbox" >/dev/null 2>&1
fi
__wta_precmd() {
  local ec=$?
  if (( ${+__wta_histchars} )); then
    histchars=$__wta_histchars
    unset __wta_histchars
  fi
  if [[ -n ${psvar[9]-} && ! -o prompt_sp ]]; then
    printf '\e]133;D;%s;aid=%s;wta=%s\a' $ec $$ $__wta_nonce
  fi
  psvar[9]=()
  __wta_urlencode "$PWD"
  printf '\e]7;file://%s%s\e\\' "$HOST" "$REPLY"
  printf '\e]133;P;aid=%s;wta=%s;cwd_url=%s\a' $$ $__wta_nonce "$REPLY"
  printf '\e]133;A;aid=%s;wta=%s\a' $$ $__wta_nonce
  # Re-append B if a theme rebuilt PS1.
  [[ $PS1 == *'133;B;aid='* ]] || PS1+=$'%{\e]133;B;aid='$$';wta='$__wta_nonce$'\a%}'
  return $ec
}
__wta_preexec() {
  psvar[9]=1
  __wta_urlencode "$1"
  printf '\e]133;C;aid=%s;wta=%s;cmdline_url=%s\a' $$ $__wta_nonce "$REPLY"
}
add-zsh-hook precmd __wta_precmd
add-zsh-hook preexec __wta_preexec
fi
