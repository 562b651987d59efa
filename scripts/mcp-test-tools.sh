#!/usr/bin/env bash
# The independent MCP clients the slow tests drive (test/mcp/*.slow.test.ts), installed
# once into node_modules/.cache/strata-mcp/ (idempotent; `.ci/run` calls it, and so does
# each test's setup):
#   venv/         the official Python SDK, `mcp`, in a virtual environment
#   conformance/  the official conformance suite, `@modelcontextprotocol/conformance`, with
#                 the Node 22 it needs (the package node-linux-<arch>: the binary is inside)
# Versions are pinned; strata itself stays on Node >= 20.19.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON_MCP=2.3.0
CONFORMANCE=0.1.16
NODE22=22.23.5
dir=node_modules/.cache/strata-mcp
mkdir -p "$dir"

if ! "$dir/venv/bin/python" -c "import mcp, sys; from importlib.metadata import version; sys.exit(version('mcp') != '$PYTHON_MCP')" 2>/dev/null; then
  rm -rf "$dir/venv"
  python3 -m venv "$dir/venv"
  # --retries 0: a mirror that has the package answers at once; do not wait on one that does not.
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --retries 0 "mcp==$PYTHON_MCP"
fi

arch=$(node -p process.arch)
conf="$dir/conformance"
if [ ! -x "$conf/node_modules/node-linux-$arch/bin/node" ] ||
  ! grep -q "\"version\": \"$CONFORMANCE\"" "$conf/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  rm -rf "$conf"
  mkdir -p "$conf"
  echo '{ "private": true }' >"$conf/package.json"
  (cd "$conf" && npm install --silent --no-audit --no-fund --save-exact \
    "node-linux-$arch@$NODE22" "@modelcontextprotocol/conformance@$CONFORMANCE")
fi
echo "python: $dir/venv/bin/python"
echo "conformance: $conf/node_modules/node-linux-$arch/bin/node $conf/node_modules/@modelcontextprotocol/conformance/dist/index.js"
