#!/usr/bin/env bash
# The README's pictures of the HTML report: one failing scenario per layer, run against a
# bundled mutant with `harness run --html`, photographed by headless Chromium.
#   docs/screenshots.sh            (from the repository root, with the .venv of `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."
harness=${HARNESS:-.venv/bin/harness}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "no chromium on PATH (apt-get install chromium)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shoot() {  # layer, adapter, scenario, harness run options...
    local layer=$1 adapter=$2 scenario=$3
    shift 3
    "$harness" run "scenarios/$scenario" --adapter "$adapter" --html "$work/$layer.html" "$@" \
        >/dev/null || true  # a failing run is the point
    HOME="$work" "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --hide-scrollbars --user-data-dir="$work/profile" --window-size=1300,1900 \
        --screenshot="docs/report-$layer.png" "file://$work/$layer.html" 2>/dev/null
    echo "docs/report-$layer.png"
}

shoot session session-mutant-keyed-by-tool-id session/same-id-parent-and-subsession.yaml
shoot history history-mutant-subagent-into-parent history/restored-subagent-leakage-orphans.yaml
shoot driver driver-mutant-anthropic-ends-at-first-message-stop driver/multi-cycle-turn.yaml --quirks none
