# WTA shell integration for fish. Load from ~/.config/fish/config.fish with:
#   wta shell-integration fish | source
# Emits OSC 133 A/B/C/D (each with aid=<shell pid>) and OSC 7, and marks the
# tmux pane with the @wta_integration option. fish >= 4 emits OSC 133 by
# itself, so there only the pane option and OSC 7 are added. Idempotent, silent.
if status is-interactive; and not set -q __wta_loaded
    set -g __wta_loaded 1
    set -g __wta_ran 0
    set -gx WTA_SHELL_INTEGRATION fish
    if set -q TMUX_PANE; and command -sq tmux
        command tmux set -p -t $TMUX_PANE @wta_integration "fish $fish_pid" >/dev/null 2>&1
    end
    # fish >= 4 emits OSC 133 A/B/C/D by itself: adding ours would mark twice.
    function __wta_fish_has_native_marks --argument-names v
        not string match -qr '^[0-3]\.' -- $v
    end
    # Preset __wta_native_marks (0 or 1) to override the version check, e.g.
    # for a fish 3 whose prompt plugin already emits the marks.
    if not set -q __wta_native_marks
        set -g __wta_native_marks 0
        __wta_fish_has_native_marks $version; and set -g __wta_native_marks 1
    end

    function __wta_osc7 --on-event fish_prompt
        printf '\e]7;file://%s%s\e\\' $hostname (string escape --style=url -- $PWD | string replace -a '%2F' '/')
    end
    if test $__wta_native_marks = 0
        function __wta_prompt_start --on-event fish_prompt
            printf '\e]133;A;aid=%s\a' $fish_pid
        end
        function __wta_preexec --on-event fish_preexec
            set -g __wta_ran 1
            printf '\e]133;C;aid=%s;cmdline_url=%s\a' $fish_pid (string escape --style=url -- $argv[1])
        end
        function __wta_postexec --on-event fish_postexec
            set -l ec $status
            if test $__wta_ran = 1
                printf '\e]133;D;%s;aid=%s\a' $ec $fish_pid
                set -g __wta_ran 0
            end
        end
        functions -q fish_prompt; and functions -c fish_prompt __wta_orig_prompt
        function fish_prompt
            functions -q __wta_orig_prompt; and __wta_orig_prompt
            printf '\e]133;B;aid=%s\a' $fish_pid
        end
    end
end
