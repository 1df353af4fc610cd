# WTA shell integration for fish. Load from ~/.config/fish/config.fish with:
#   wta shell-integration fish | source
# Emits OSC 133 A/B/C/D and P (the cwd), each with aid=<shell pid> and
# wta=<nonce>, and OSC 7 (for other tools; WTA trusts only the nonce'd P),
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, never exported, and announced only through the pane option
# @wta_nonce_<pid>, so command output cannot forge a mark. fish >= 4 also
# emits marks of its own; they carry no nonce, so WTA ignores them and reads
# these. Idempotent and silent.
if status is-interactive; and not set -q __wta_loaded
    set -g __wta_loaded 1
    set -g __wta_ran 0
    set -gx WTA_SHELL_INTEGRATION fish
    set -g __wta_nonce (od -An -N16 -tx1 /dev/urandom 2>/dev/null | string join '' | string replace -ar '[^0-9a-f]' '')
    if set -q TMUX_PANE; and command -sq tmux
        command tmux set -p -t $TMUX_PANE @wta_integration "fish $fish_pid" \; \
            set -p -t $TMUX_PANE "@wta_nonce_$fish_pid" "$__wta_nonce" >/dev/null 2>&1
    end

    function __wta_osc7 --on-event fish_prompt
        set -l url (string escape --style=url -- $PWD | string replace -a '%2F' '/')
        printf '\e]7;file://%s%s\e\\' $hostname $url
        printf '\e]133;P;aid=%s;wta=%s;cwd_url=%s\a' $fish_pid $__wta_nonce $url
    end
    function __wta_prompt_start --on-event fish_prompt
        printf '\e]133;A;aid=%s;wta=%s\a' $fish_pid $__wta_nonce
    end
    function __wta_preexec --on-event fish_preexec
        set -g __wta_ran 1
        printf '\e]133;C;aid=%s;wta=%s;cmdline_url=%s\a' $fish_pid $__wta_nonce (string escape --style=url -- $argv[1])
    end
    function __wta_postexec --on-event fish_postexec
        set -l ec $status
        if test $__wta_ran = 1
            printf '\e]133;D;%s;aid=%s;wta=%s\a' $ec $fish_pid $__wta_nonce
            set -g __wta_ran 0
        end
    end
    functions -q fish_prompt; and functions -c fish_prompt __wta_orig_prompt
    function fish_prompt
        functions -q __wta_orig_prompt; and __wta_orig_prompt
        printf '\e]133;B;aid=%s;wta=%s\a' $fish_pid $__wta_nonce
    end
end
