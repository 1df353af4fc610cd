@MARKER@ version @VERSION@
// Tells WTA (the tmux agent bridge) when this OpenCode session starts, works,
// waits and stops, by running `wta hook --cli-source opencode --event E` with a
// small JSON on stdin: ids, cwd and tool names only, never prompts or tool
// input/output. Remove it with `wta hooks uninstall --cli opencode`.
import { spawn } from "node:child_process";

const WTA = process.env.WTA_CLI_PATH || "wta";

function send(event, payload) {
  // Outside tmux there is no pane to tell about; in a WTA agent pane
  // (`opencode acp`) WTA already follows the session over ACP.
  if (!process.env.TMUX_PANE || process.env.OPENCODE_CLIENT === "acp") return;
  try {
    const child = spawn(WTA, ["hook", "--cli-source", "opencode", "--event", event], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    const timer = setTimeout(() => {
      try {
        child.kill();
      } catch {}
    }, 5000);
    if (timer.unref) timer.unref();
  } catch {}
}

const BUS = {
  "session.created": "session_start",
  "session.deleted": "session_end",
  "permission.asked": "notification",
  "permission.updated": "notification",
  "session.idle": "stop",
  "session.error": "error",
};

export const WtaAgentHooks = async ({ directory }) => ({
  event: async ({ event }) => {
    const kind = BUS[event.type];
    if (!kind) return;
    const p = event.properties || {};
    const info = p.info || {};
    send(kind, {
      session_id: p.sessionID || info.id,
      cwd: info.directory || directory,
      message: kind === "notification" ? p.title : undefined,
    });
  },
  "chat.message": async (input) => {
    send("prompt_submit", { session_id: input.sessionID, cwd: directory });
  },
  "tool.execute.before": async (input) => {
    send("tool_starting", { session_id: input.sessionID, cwd: directory, tool_name: input.tool });
  },
});
