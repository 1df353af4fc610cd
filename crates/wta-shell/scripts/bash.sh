# WTA shell integration for bash (>= 4.4). Load from ~/.bashrc with:
#   eval "$(wta shell-integration bash)"
# Emits OSC 133 A/B/C/D and P (the cwd), each with aid=<shell pid> and
# wta=<nonce>, and OSC 7 (for other tools; WTA trusts only the nonce'd P),
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, never exported, and announced only through the pane option
# @wta_nonce_<pid>, so command output cannot forge a mark. Idempotent, silent.
if [[ $- == *i* && -z ${__wta_loaded-} ]] && (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
__wta_loaded=1
__wta_ran=0
__wta_ec=0
export WTA_SHELL_INTEGRATION=bash
__wta_nonce=$(LC_ALL=C od -An -N16 -tx1 /dev/urandom 2>/dev/null)
__wta_nonce=${__wta_nonce//[!0-9a-f]/}
export -n __wta_nonce 2>/dev/null
if [[ -n ${TMUX_PANE-} ]] && command -v tmux >/dev/null 2>&1; then
  command tmux set -p -t "$TMUX_PANE" @wta_integration "bash $$" \; \
    set -p -t "$TMUX_PANE" "@wta_nonce_$$" "$__wta_nonce" >/dev/null 2>&1
fi
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
__wta_precmd() {
  __wta_ec=$?
  if [[ $__wta_ran == 1 ]]; then
    printf '\e]133;D;%s;aid=%s;wta=%s\a' "$__wta_ec" "$$" "$__wta_nonce"
    __wta_ran=0
  fi
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
__wta_preexec_c() {
  local line
  line=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
  line=${line#*[0-9]  }
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
PS0='${__wta_ran:0:$((__wta_ran=1, 0))}$(__wta_preexec_c)'"${PS0-}"
fi
