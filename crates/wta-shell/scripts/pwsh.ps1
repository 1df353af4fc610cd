# WTA shell integration for PowerShell (pwsh 7+). UNTESTED: pwsh was not
# installable where WTA is developed. Load from $PROFILE with:
#   wta shell-integration pwsh | Out-String | Invoke-Expression
# Emits OSC 133 A/B/C/D (each with aid=<shell pid> and wta=<nonce>) and OSC 7,
# and marks the tmux pane with the @wta_integration option. The nonce is drawn
# here, kept in a global (not environment) variable and announced only through
# the pane option @wta_nonce_<pid>, so command output cannot forge a mark.
if (-not $Global:__wta_loaded) {
    $Global:__wta_loaded = $true
    $Global:__wta_lastHistoryId = -1
    $env:WTA_SHELL_INTEGRATION = 'pwsh'
    $Global:__wta_nonce = -join ([System.Security.Cryptography.RandomNumberGenerator]::GetBytes(16) | ForEach-Object { $_.ToString('x2') })
    if ($env:TMUX_PANE -and (Get-Command tmux -ErrorAction SilentlyContinue)) {
        & tmux set -p -t $env:TMUX_PANE '@wta_integration' "pwsh $PID" ';' set -p -t $env:TMUX_PANE "@wta_nonce_$PID" $Global:__wta_nonce *> $null
    }
    $Global:__wta_origPrompt = $function:prompt
    function Global:__wta_ExitCode {
        if ($?) { 0 }
        elseif ($Error[0] -and $Error[0].InvocationInfo.HistoryId -eq (Get-History -Count 1).Id) { -1 }
        else { $LASTEXITCODE }
    }
    function Global:prompt {
        $ec = __wta_ExitCode
        $h = Get-History -Count 1
        $o = ""
        if ($Global:__wta_lastHistoryId -ne -1 -and $h.Id -ne $Global:__wta_lastHistoryId) {
            $o += "`e]133;D;$ec;aid=$PID;wta=$($Global:__wta_nonce)`a"
        }
        $loc = $executionContext.SessionState.Path.CurrentLocation
        $path = [uri]::EscapeUriString(($loc.ProviderPath -replace '\\', '/'))
        $o += "`e]7;file://$([Environment]::MachineName)$path`e\"
        $o += "`e]133;P;aid=$PID;wta=$($Global:__wta_nonce);cwd_url=$path`a"
        $o += "`e]133;A;aid=$PID;wta=$($Global:__wta_nonce)`a" + (& $Global:__wta_origPrompt) + "`e]133;B;aid=$PID;wta=$($Global:__wta_nonce)`a"
        $Global:__wta_lastHistoryId = $h.Id
        $o
    }
    if (Get-Command PSConsoleHostReadLine -ErrorAction SilentlyContinue) {
        $Global:__wta_origReadLine = $function:PSConsoleHostReadLine
        function Global:PSConsoleHostReadLine {
            $line = & $Global:__wta_origReadLine
            [Console]::Write("`e]133;C;aid=$PID;wta=$($Global:__wta_nonce);cmdline_url=$([uri]::EscapeDataString($line))`a")
            $line
        }
    }
}
