#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API, for driving a real Claude
agent CLI offline in tests: it makes the model's decisions, nothing else.

  fake_anthropic.py PORTFILE COMMAND

Listens on 127.0.0.1 (a free port, written to PORTFILE). A turn whose last
user text mentions RUN_TOOL is answered with one `mcp__acp__Bash` tool call
running COMMAND; one mentioning RUN_MCP with a call of the tool whose name
ends in `__run_command_in_current_shell` (WTA's session endpoint, as the
request's tool list names it) proposing COMMAND; a turn that carries a
tool's result is answered with the text `TOOL_DONE: <result>`; anything
else with `hello`. Streams SSE like
the real API (message_start … message_stop); `count_tokens` answers 10.

Proposals through the agent's own shell, the way WTA's prompt asks: a turn
whose user text mentions RUN_PROPOSAL, or whose WTA turn context is an
autofix turn (`"origin": "autofix"`), is answered with a `mcp__acp__Bash`
call of the canonical invocation read from the context (its channel, its
origin) proposing the first of COMMAND's steps (`step one ;; step two`);
each tool result that ends with a `next` line gets the next step on that
line's invocation, and the last result `TOOL_DONE: <result>`.
"""

import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, COMMAND = sys.argv[1], sys.argv[2]
STEPS = [c.strip() for c in COMMAND.split(";;") if c.strip()]
INVOCATION = re.compile(
    r'"\$WTA_CLI_PATH" propose-terminal-actions --channel (v1\.[0-9a-f]{32}\.[0-9a-f]{32}) '
    r"--payload-json '<compact-json-payload>'"
)
ORIGIN = re.compile(r'"origin":\s*"(terminal_agent|autofix)"')


def text_of(block):
    if isinstance(block, str):
        return block
    if block.get("type") == "text":
        return block.get("text", "")
    if block.get("type") == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return "".join(text_of(c) for c in content)
        return str(content)
    return ""


def blocks(message):
    content = message.get("content", [])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return content


def canonical(channel, origin, command):
    """The invocation WTA's context gives, with a one-`send` payload."""
    payload = json.dumps({
        "schema_version": 1, "origin": origin, "recommended_choice": 1,
        "choices": [{"choice": 1, "title": "Run " + command, "rationale": "offline test",
                     "actions": [{"type": "send", "input": command}]}],
    }, separators=(",", ":"))
    quoted = payload.replace("'", "'\\''")
    return f'"$WTA_CLI_PATH" propose-terminal-actions --channel {channel} --payload-json \'{quoted}\''


def bash(command):
    return ("tool", ("mcp__acp__Bash", {"command": command, "description": "propose", "timeout": 600000}))


def proposal_turn(messages):
    """The context of the turn the last user text started, if it proposes."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        text = "".join(text_of(b) for b in blocks(message) if b.get("type") == "text")
        if not text:
            continue
        found, origin = INVOCATION.search(text), ORIGIN.search(text)
        wanted = "RUN_PROPOSAL" in text or (origin and origin.group(1) == "autofix")
        if found and origin and wanted:
            return found.group(1), origin.group(1)
        return None
    return None


def next_line(result):
    """The `next` line the proposal CLI printed last, if any."""
    for line in reversed(result.splitlines()):
        line = line.strip()
        if line.startswith("{") and '"phase":"next"' in line.replace(" ", ""):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def decide(body):
    messages = body.get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    last = users[-1] if users else {}
    content = blocks(last)
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    turn = proposal_turn(messages)
    if turn and not results:
        channel, origin = turn
        return bash(canonical(channel, origin, STEPS[0]))
    if turn and results:
        result = "".join(text_of(b) for b in results)
        done = sum(1 for m in messages for b in blocks(m)
                   if isinstance(b, dict) and b.get("type") == "tool_result")
        following = next_line(result)
        if following and done < len(STEPS):
            return bash(canonical(following["channel"], turn[1], STEPS[done]))
        return ("text", "TOOL_DONE: " + result)
    if results:
        return ("text", "TOOL_DONE: " + "".join(text_of(b) for b in results))
    if any("RUN_TOOL" in text_of(b) for b in content):
        return ("tool", ("mcp__acp__Bash", {"command": COMMAND, "description": "run it", "timeout": 60000}))
    if any("RUN_MCP" in text_of(b) for b in content):
        names = [t.get("name", "") for t in body.get("tools", [])]
        wanted = [n for n in names if n.endswith("__run_command_in_current_shell")]
        if not wanted:
            return ("text", "NO_MCP_TOOL among " + ", ".join(names))
        return ("tool", (wanted[0], {"command": COMMAND, "explanation": "offline test"}))
    return ("text", "hello")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def event(self, kind, data):
        data["type"] = kind
        self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        if "count_tokens" in self.path:
            return self.send_json({"input_tokens": 10})
        if not self.path.startswith("/v1/messages"):
            return self.send_json({})
        kind, value = decide(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        usage = {"input_tokens": 10, "output_tokens": 1}
        self.event("message_start", {"message": {"id": "msg_fake", "type": "message",
            "role": "assistant", "model": body.get("model", "fake"), "content": [],
            "stop_reason": None, "usage": usage}})
        if kind == "tool":
            name, tool_input = value
            self.event("content_block_start", {"index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_fake1", "name": name, "input": {}}})
            partial = json.dumps(tool_input)
            self.event("content_block_delta", {"index": 0, "delta": {
                "type": "input_json_delta", "partial_json": partial}})
            stop = "tool_use"
        else:
            self.event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
            self.event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": value}})
            stop = "end_turn"
        self.event("content_block_stop", {"index": 0})
        self.event("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": 1}})
        self.event("message_stop", {})

    def do_GET(self):
        self.send_json({})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
