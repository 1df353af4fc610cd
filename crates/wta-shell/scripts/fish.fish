# WTA shell integration for fish. Load from ~/.config/fish/config.fish with:
#   wta shell-integration fish | source
# Emits OSC 133 A/B/C/D and P (the cwd), each with aid=<shell pid> and
# wta=<nonce>, and OSC 7 (for other tools; WTA trusts only the nonce'd P),
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, never exported, and announced only through the pane option
# @wta_nonce_<pid>, so command output cannot forge a mark. fish >= 4 also
# emits marks of its own; they carry no nonce, so WTA ignores them and reads
# these. Idempotent and silent.
#
# The hand-off (how a confirmed card reaches the line): WTA writes the command
# to the private file announced in @wta_inbox_<pid> and sends one of three
# private keys, bound in every bind mode (default, insert, visual; again at
# each prompt, since fish_vi_key_bindings and friends erase bindings). The
# command replaces the command line (what was typed is kept, and the restore
# key puts it back) and, for Run, is executed. The command line reported is
# fish_preexec's argument: what the shell was given, whatever history keeps.
if status is-interactive; and not set -q __wta_loaded
    set -g __wta_loaded 1
    set -g __wta_ran 0
    set -g __wta_kept
    set -gx WTA_SHELL_INTEGRATION fish
    set -g __wta_nonce (od -An -N16 -tx1 /dev/urandom 2>/dev/null | string join '' | string replace -ar '[^0-9a-f]' '')
    # Where WTA leaves a confirmed command for this shell (its runtime dir).
    if string match -q '/*' -- "$WTA_RUNTIME_DIR"
        set -g __wta_inbox $WTA_RUNTIME_DIR
    else if string match -q '/*' -- "$XDG_RUNTIME_DIR"
        set -g __wta_inbox $XDG_RUNTIME_DIR/wta
    else
        set -g __wta_inbox /tmp/wta-(id -u)
    end
    set -g __wta_inbox $__wta_inbox/line-$__wta_nonce

    # $argv[1] replaces the command line; what was typed is kept.
    function __wta_put
        set -l typed (commandline | string collect)
        if test -n "$typed"
            set -g __wta_kept $typed
        end
        commandline -r -- $argv[1]
    end
    # The hand-off: the confirmed command replaces the command line; false
    # when none is waiting.
    function __wta_take
        test -f $__wta_inbox; or return 1
        set -l line (string collect -N < $__wta_inbox)
        command rm -f -- $__wta_inbox
        __wta_put $line
    end
    # Run over wta ssh (no inbox there): the command follows the key as its
    # digit count (8 hex digits), two hex digits a byte and a `.`, read from
    # the terminal with echo off by `dd` (fish's `read` would draw them),
    # never by fish's line editor. A payload that is not whole (or a byte of
    # it not there within 5 s: the shell is never left reading) runs nothing.
    function __wta_put_hex
        set -l hex (command sh -c 's=$(stty -g); stty -echo -icanon min 0 time 50
            n=$(dd bs=1 count=8 2>/dev/null)
            case $n in *[!0-9a-f]*|"") n=0 ;; esac
            dd bs=1 count=$((0x$n + 1)) 2>/dev/null; stty "$s"' </dev/tty)
        string match -qr '^([0-9a-f]{2})*\.$' -- "$hex"; or return 1
        set hex (string sub -e -1 -- $hex)
        # `string` ends what it prints with a newline, which `collect` trims
        # with the command's own: those are put back one by one.
        __wta_put (string unescape --style=url -- (string replace -ar '(..)' '%$1' -- $hex) | string collect)
        set -l nl (string match -r '(?:0a)*$' -- $hex)
        for i in (seq (math (string length -- "$nl") / 2))
            commandline -a -- \n
        end
        return 0
    end
    function __wta_run_hex
        __wta_put_hex; and commandline -f execute
    end
    # Insert over wta ssh: the same payload, put on the line.
    function __wta_insert_hex
        __wta_put_hex
        return 0
    end
    function __wta_insert
        __wta_take
        return 0
    end
    function __wta_run
        __wta_take; and commandline -f execute
    end
    function __wta_restore
        set -l now (commandline | string collect)
        if test -z "$now"; and test -n "$__wta_kept"
            commandline -r -- $__wta_kept
        end
        set -g __wta_kept
    end
    function __wta_bind
        test "$__wta_inbox" = taken; and return
        for mode in default insert visual
            bind -M $mode \e\[17777\~ __wta_run 2>/dev/null
            bind -M $mode \e\[17776\~ __wta_insert 2>/dev/null
            bind -M $mode \e\[17775\~ __wta_restore 2>/dev/null
            bind -M $mode \e\[17774\~ __wta_run_hex 2>/dev/null
            bind -M $mode \e\[17779\~ __wta_insert_hex 2>/dev/null
        end
    end
    # A private key bound already (by the user): no inbox is announced, and
    # WTA types cards' commands as keys instead.
    for mode in default insert visual
        for key in \e\[17777\~ \e\[17776\~ \e\[17775\~ \e\[17774\~ \e\[17779\~
            bind -M $mode $key >/dev/null 2>&1; and set -g __wta_inbox taken
        end
    end
    __wta_bind
    if set -q TMUX_PANE; and command -sq tmux
        command tmux set -p -t $TMUX_PANE @wta_integration "fish $fish_pid" \; \
            set -p -t $TMUX_PANE "@wta_nonce_$fish_pid" "$__wta_nonce" \; \
            set -p -t $TMUX_PANE "@wta_inbox_$fish_pid" "$__wta_inbox" >/dev/null 2>&1
    end

    function __wta_osc7 --on-event fish_prompt
        set -l url (string escape --style=url -- $PWD | string replace -a '%2F' '/')
        printf '\e]7;file://%s%s\e\\' $hostname $url
        printf '\e]133;P;aid=%s;wta=%s;cwd_url=%s\a' $fish_pid $__wta_nonce $url
        __wta_bind
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
