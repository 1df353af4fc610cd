#!/usr/bin/env bash
# Installs independent ACP peers for interop tests into target/test-peers/:
#   - the Python SDK (`agent-client-protocol` from PyPI) in a venv,
#   - its examples (only in the sdist), and
#   - target/test-peers/echo-agent, a wrapper that runs examples/echo_agent.py,
#   - @zed-industries/claude-code-acp from npm (a real agent CLI).
# Idempotent; scripts/test calls it before the tests. Needs python3 with venv +
# pip, and Node.js with npm.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${ACP_PY_VERSION:-0.12.1}"
DEST="$PWD/target/test-peers"
mkdir -p "$DEST"
if [ ! -x "$DEST/venv/bin/python" ]; then
  python3 -m venv "$DEST/venv"
fi
"$DEST/venv/bin/pip" install -q "agent-client-protocol==$VERSION"
if [ ! -f "$DEST/examples/echo_agent.py" ]; then
  rm -rf "$DEST/sdist" && mkdir -p "$DEST/sdist"
  "$DEST/venv/bin/pip" download -q --no-binary :all: --no-deps "agent-client-protocol==$VERSION" -d "$DEST/sdist"
  tar -xzf "$DEST"/sdist/agent_client_protocol-"$VERSION".tar.gz -C "$DEST/sdist"
  rm -rf "$DEST/examples"
  cp -r "$DEST/sdist/agent_client_protocol-$VERSION/examples" "$DEST/examples"
fi
cat > "$DEST/echo-agent" <<SH
#!/bin/sh
exec "$DEST/venv/bin/python" "$DEST/examples/echo_agent.py" "\$@"
SH
chmod +x "$DEST/echo-agent"
echo "installed: $DEST/echo-agent"

# A real agent CLI that runs its shell tool through the client's terminal/*:
# @zed-industries/claude-code-acp, driven offline by crates/wta/tests/peers/
# fake_anthropic.py (no network, no account).
CLAUDE_ACP_VERSION="${CLAUDE_ACP_VERSION:-0.16.2}"
mkdir -p "$DEST/claude-code-acp"
if [ ! -x "$DEST/claude-code-acp/node_modules/.bin/claude-code-acp" ]; then
  (cd "$DEST/claude-code-acp" && npm install --no-audit --no-fund --silent \
    "@zed-industries/claude-code-acp@$CLAUDE_ACP_VERSION")
fi
echo "installed: $DEST/claude-code-acp/node_modules/.bin/claude-code-acp"
