"""The Node helper (js/streamharness): its own tests, its package, and drivers written on it
replayed by the harness.

The JS example driver (examples/drivers/js/driver.mjs) with ``--fetch`` reads each turn as an
SDK does, through ``ctx.fetch`` and a TextDecoderStream, the body in bytes cut anywhere: it
passes every quirk case of its dialect, as it does through ``ctx.chunks``, and its bug is
caught the same way. The openai-style example (js/streamharness/examples/openai-chat.mjs, the
one docs/PROTOCOL.md shows) passes every first-party scenario of its dialect. Skipped without
Node.js.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.adapters.process import ProcessAdapter
from harness.adapters.registry import resolve_adapter
from harness.model.driver import TextOut, TurnEnd
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.scenario import load_scenario
from harness.scenario.cases import ALL, first_party
from tests.budgets import within
from tests.processes_for_tests import collected
from tests.scenarios_for_tests import load_folder
from tests.test_process_driver_history import JS_DRIVER, MULTI_CYCLE, describe

ROOT = Path(__file__).resolve().parents[1]
HELPER = ROOT / "js" / "streamharness"
OPENAI_EXAMPLE = HELPER / "examples" / "openai-chat.mjs"
PROTOCOL_DOC = ROOT / "docs" / "PROTOCOL.md"

SCENARIOS, PROBLEMS = load_folder(ROOT / "scenarios")
DRIVER_SCENARIOS = [s for s in SCENARIOS if s.layer == "driver"]

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None, reason="`node` is not on PATH: the Node helper needs Node.js 20"
)


@pytest.fixture(autouse=True)
def _collect_adapters():
    with collected():
        yield


def node(*argv: str | Path) -> str:
    return "exec:" + shlex.join(["node", *map(str, argv)])


def test_the_example_in_the_protocol_doc_is_the_one_tested() -> None:
    """docs/PROTOCOL.md shows examples/openai-chat.mjs as a user writes it: the two imports
    name the packages, the rest is the same, and it is under 30 lines."""
    example = OPENAI_EXAMPLE.read_text(encoding="utf-8")
    shown = re.search(
        r"```js\n(import OpenAI from 'openai';\n.*?)```", PROTOCOL_DOC.read_text("utf-8"), re.S
    )
    assert shown is not None, "docs/PROTOCOL.md shows no driver on the openai package"
    as_installed = re.sub(
        r"import (\S+|\{ \w+ \}) from '[^']+'; // yours: (import .*;)", r"\2", example
    )
    assert shown.group(1) == as_installed
    assert len(example.splitlines()) < 30


@pytest.mark.slow
def test_the_node_test_suite_passes() -> None:
    done = subprocess.run(
        ["node", "--test"], cwd=HELPER, capture_output=True, text=True, timeout=within(120)
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert re.search(r"^# pass [1-9]\d*$", done.stdout, re.M), done.stdout[-2000:]
    assert re.search(r"^# fail 0$", done.stdout, re.M), done.stdout[-2000:]


PACKAGE_FILES = {
    "package.json",
    "README.md",
    "index.js",
    "index.d.ts",
    "guard.js",
    "guard.d.ts",
    "lib/driver.js",
    "lib/io.js",
    "lib/layers.js",
    "lib/serve.js",
    "lib/sse.js",
}


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("`npm` is not on PATH")
    return npm


@pytest.mark.slow
def test_npm_pack_lists_the_package_files() -> None:
    done = subprocess.run(
        [_npm(), "pack", "--dry-run", "--json"],
        cwd=HELPER,
        capture_output=True,
        text=True,
        timeout=within(60),
    )
    assert done.returncode == 0, done.stderr
    (package,) = json.loads(done.stdout)
    assert package["name"] == "streamharness"
    assert {f["path"] for f in package["files"]} == PACKAGE_FILES


DRIVER_BY_NAME = """\
import 'streamharness/guard';
import { runDriver } from 'streamharness';

console.log('a banner');
runDriver({
  name: 'installed', dialect: 'anthropic',
  async turn(ctx) {
    for await (const chunk of ctx.chunks) ctx.emit({ type: 'text', text: chunk });
    ctx.emit({ type: 'turn_end', stop_reason: 'end_turn' });
  },
});
"""


@pytest.mark.slow
def test_installed_from_its_tarball_a_driver_imports_it_by_name(tmp_path: Path) -> None:
    npm = _npm()
    subprocess.run(
        [npm, "pack", "--pack-destination", str(tmp_path)],
        cwd=HELPER,
        check=True,
        capture_output=True,
        timeout=within(60),
    )
    (tarball,) = tmp_path.glob("streamharness-*.tgz")
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "project", "private": true, "type": "module"}')
    subprocess.run(
        [npm, "install", "--offline", "--no-audit", "--no-fund", str(tarball)],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=within(60),
    )
    driver = project / "driver.mjs"
    driver.write_text(DRIVER_BY_NAME)
    adapter = ProcessAdapter(["node", str(driver)])
    try:
        assert adapter.name == "installed" and adapter.dialect == "anthropic"
        outputs = list(adapter.drive(iter(["a", "b"])))
        assert outputs == [TextOut("a"), TextOut("b"), TurnEnd("end_turn")]
    finally:
        adapter.close()


# -- drivers on the helper, replayed by the harness ---------------------------------------------------

#: make test replays every FETCH_SAMPLE-th quirk case through the driver reading by fetch, the
#: exhaustive tier the others
FETCH_SAMPLE = 10


@pytest.mark.slow
@pytest.mark.parametrize(
    "sampled",
    [
        pytest.param(True, id=f"every-{FETCH_SAMPLE}th-case"),
        pytest.param(False, marks=pytest.mark.exhaustive, id="the-other-cases"),
    ],
)
def test_the_js_driver_reading_by_fetch_passes_every_quirk_case(sampled: bool) -> None:
    adapter = node(JS_DRIVER, "--fetch")
    cases = cases_for(DRIVER_SCENARIOS, resolve_adapter(adapter), ALL)
    assert len(cases) > 300
    cases = [c for i, c in enumerate(cases) if (i % FETCH_SAMPLE == 0) == sampled]
    results = [replay(c, adapter) for c in cases]
    bad = [describe(r) for r in results if r.status not in ("pass", "skip")]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_the_js_driver_reading_by_fetch_shows_its_bug() -> None:
    adapter = node(JS_DRIVER, "--fetch", "--bug=ends-at-first-message-stop")
    result = replay(load_scenario(MULTI_CYCLE), adapter)
    assert result.status == "fail", describe(result)
    assert "turn-lifetime" in {v.rule for v in result.violations}, describe(result)


@pytest.mark.slow
def test_the_openai_example_passes_every_first_party_scenario_of_its_dialect() -> None:
    """The 29-line driver on an openai-node stand-in: what fails is a shape only gateways send
    (calls sharing an index, calls without one), which its accumulation by index gets wrong."""
    adapter = node(OPENAI_EXAMPLE)
    results = [replay(s, adapter) for s in DRIVER_SCENARIOS]
    ran = [r for r in results if r.status != "skip"]
    assert len(ran) > 20
    errors = [describe(r) for r in ran if r.status == "error"]
    assert not errors, "\n".join(errors)
    first_party_failures = [
        describe(r) for r in ran if r.status == "fail" and first_party(r.scenario)
    ]
    assert not first_party_failures, "\n".join(first_party_failures)


@pytest.mark.slow
def test_harness_run_replays_a_driver_on_the_helper(tmp_path: Path) -> None:
    """The command line, as docs/PROTOCOL.md gives it."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            str(MULTI_CYCLE),
            "--adapter",
            node(JS_DRIVER, "--fetch"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=within(120),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b[1-9]\d* passed, 0 failed, 0 errors", done.stdout), done.stdout


#: the stand-in stores the UI reducers of docs/ADAPTERS.md import: each keeps the messages the
#: protocol's events start, enough to show the events reach it and the view comes back
STAND_INS = {
    "my-store.js": """export function createStore() {
  return {
    messages: [],
    dispatch(event) {
      if (event.type === 'TEXT_MESSAGE_START') this.messages.push({ id: event.messageId, role: event.role });
    },
  };
}
""",
    "my-chat-store.js": """export function createChatStore() {
  return {
    messages: [],
    apply(chunk) {
      if (chunk.type === 'start') this.messages.push({ id: chunk.messageId, role: 'assistant', parts: [] });
    },
  };
}
""",
}


def ui_reducers() -> dict[str, str]:
    """The JavaScript UI reducers docs/ADAPTERS.md shows: file name -> its code."""
    doc = (ROOT / "docs" / "ADAPTERS.md").read_text(encoding="utf-8")
    section = doc.split("#### A reducer in JavaScript, with the Node helper", 1)[1]
    section = section.split("\n## ", 1)[0]
    blocks = re.findall(r"```js\n(.*?)```", section, re.S)
    return {re.match(r"// (\S+\.mjs):", code).group(1): code for code in blocks}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "dialect"), [("ag-ui-reducer.mjs", "ag-ui"), ("ui-message-reducer.mjs", "ai-sdk-ui")]
)
def test_the_ui_reducers_in_the_adapters_doc_run_as_shown(
    tmp_path: Path, name: str, dialect: str
) -> None:
    """Each is under 30 lines, and, with a stand-in store, is a session adapter of its dialect
    that the harness feeds and asks for its view (no error; the stand-in shows too little to
    pass)."""
    code = ui_reducers()[name]
    assert len(code.splitlines()) < 30
    (tmp_path / name).write_text(code, encoding="utf-8")
    for store, text in STAND_INS.items():
        (tmp_path / store).write_text(text, encoding="utf-8")
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "streamharness").symlink_to(HELPER, target_is_directory=True)
    info = resolve_adapter(node(tmp_path / name))
    assert getattr(info.factory, "session_dialect", None) == dialect
    scenario = load_scenario(ROOT / "scenarios" / "session" / "tool-first-turn.yaml")
    result = replay(scenario, info, timeout=within(30))
    assert result.status == "fail", result.error
    assert result.observation
