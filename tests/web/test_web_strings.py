"""The web pages' words come from the catalogs (``src/cardtable/i18n/catalogs/*.json``).

- No English sentence for people remains in the translated web code (``web_strings.py`` finds
  them; the files not translated yet are listed in ``PENDING`` and must still hold some, so the
  list only shrinks).
- The check finds English where it is (lines of the code before the catalogs).
- Every ``t("web.…")`` key the pages use exists in every catalog, and every ``web.*`` message of
  every catalog parses with the browser's formatter (``static/i18n.js`` in Node.js) and formats
  with the same arguments as the English one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from web_strings import scan_html, scan_js

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src/cardtable/server/web/static"
CATALOGS = ROOT / "src/cardtable/i18n/catalogs"
LANGUAGES = ("en", "de", "fr", "nl", "it")

#: pages whose words are still English only (issue 38): none left; a page added before its
#: catalog keys would be listed here until translated
PENDING: dict[str, str] = {}


def findings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    found = scan_html(path.name, text) if path.suffix == ".html" else scan_js(path.name, text)
    return [str(f) for f in found]


def web_files() -> list[Path]:
    return sorted(p for p in STATIC.iterdir() if p.suffix in (".js", ".html"))


def test_no_english_sentence_in_the_translated_web_code() -> None:
    left = {p.name: findings(p) for p in web_files() if p.name not in PENDING}
    assert left and not any(left.values()), "\n".join(f for fs in left.values() for f in fs)


def test_the_pending_pages_still_hold_english() -> None:
    """A page translated since is taken off PENDING (then the first test guards it)."""
    for name in PENDING:
        assert findings(STATIC / name), f"{name} holds no English now: take it off PENDING"


@pytest.mark.parametrize(
    "line",
    [
        'panel("You are the auctioneer", h("p", {}, "No bid yet."))',
        'h("p", { class: "stage" }, obs.over ? "no animals" : "no animals yet")',
        'toast(`Type your bid (at least ${min}), or pass.`, "error");',
        'h("button", { type: "button", title: "A short beep" }, soundOn ? "Sound: on" : "x")',
        'const YOUR_TURN = "● Your turn — cardtable";',
        # the server's English as data (the bot page's threshold sentence before the catalogs)
        'h("p", {}, `${g.threshold[0].toUpperCase()}${g.threshold.slice(1)}.`)',
        't("web.botpage.mistakes_in", { loss: s.loss.toFixed(1), unit: g.unit })',
        'h("td", {}, r.mistake_kind)',
        # numbers and moments by hand, outside the page's language (German reads "9,0 %")
        'h("td", { class: "rating" }, r.rating.toFixed(2))',
        "const pct = (x) => `${(100 * x).toFixed(1)}%`;",
        'svg("title", {}, t("web.x", { r: p.r.toFixed(2), at: new Date(p.t).toLocaleString() }))',
        'h("td", {}, new Date(g.ended_at).toLocaleDateString())',
        # one English word joining two values (the rating chart's point before the catalogs)
        'svg("title", {}, `${s.name}: ${rating} at ${moment}`)',
    ],
)
def test_the_check_finds_english_where_it_is(line: str) -> None:
    assert scan_js("x.js", line)


@pytest.mark.parametrize(
    "line",
    [
        'panel(t("web.kh.you_auctioneer"), h("p", { class: "stage muted" }, t("web.kh.bid")))',
        'root.querySelector(".kh-center .bids li.new"); localStorage.getItem("cardtable.sound")',
        'if (ev.kind === "pass_chosen") return null; import { h } from "./dom.js";',
        't("web.analysis.threshold", { loss: data.threshold.loss_at_least, unit: unit() })',
        'r.mistake_kind = say(r.mistake_words, r.mistake_kind); h("td", {}, r.mistake_kind)',
        # SVG coordinates no person reads keep toFixed; a moment in the page's language
        'svg("circle", { cx: x(p.t).toFixed(1), cy: y(p.r).toFixed(1), r: 3 })',
        'list.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`)',
        'h("td", {}, num(r.rating, TWO), new Date(t).toLocaleString(lang))',
        'h("span", { class: `note n${v} other ${extra}` }, `${a}, ${b}`)',
    ],
)
def test_the_check_leaves_codes_alone(line: str) -> None:
    assert not scan_js("x.js", line)


def test_the_check_reads_html_text_and_labels() -> None:
    assert scan_html("x.html", '<nav aria-label="Main"><a href="/">Lobby</a></nav>')
    assert not scan_html(
        "x.html",
        '<nav data-i18n-attr="aria-label:web.nav.main"><a data-i18n="web.nav.lobby"></a></nav>',
    )


def catalogs() -> dict[str, dict[str, str]]:
    return {lang: json.loads((CATALOGS / f"{lang}.json").read_text()) for lang in LANGUAGES}


def test_every_key_the_pages_use_is_in_every_catalog() -> None:
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in web_files():
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"\bt(?:Parts)?\(\s*\"([\w.-]+)\"", text))
        if path.suffix == ".html":
            used |= set(re.findall(r"data-i18n(?:-attr)?=\"(?:[\w-]+:)?([\w.-]+)\"", text))
        prefixes |= set(re.findall(r"\bt\(\s*`([\w.-]+)\$\{", text))
    assert len(used) > 300, len(used)
    cats = catalogs()
    for lang, cat in cats.items():
        missing = sorted(k for k in used if k not in cat)
        assert not missing, f"{lang}: {missing}"
        for prefix in prefixes - {"ruleset."}:  # looked up with has(): optional per rule set
            assert any(k.startswith(prefix) for k in cat), f"{lang}: nothing under {prefix}"
    web = {k for k in cats["en"] if k.startswith("web.")}
    for lang, cat in cats.items():
        assert web <= set(cat), f"{lang} lacks {sorted(web - set(cat))}"


NODE_CHECK = """
import { check, formatIn } from %s;
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const { cats, args } = JSON.parse(input);
  const out = {};
  for (const [lang, cat] of Object.entries(cats)) {
    for (const [key, message] of Object.entries(cat)) {
      if (!key.startsWith("web.")) continue;
      try { check(message); out[`${lang} ${key}`] = formatIn(lang, message, args[key] || {}); }
      catch (err) { out[`${lang} ${key}`] = `BROKEN ${err.message}`; }
    }
  }
  process.stdout.write(JSON.stringify(out));
});
"""


def placeholders(message: str) -> set[str]:
    """The argument names of an ICU message (``{name}``, ``{count, plural, …}``), read through
    the branches of plurals and selects (a branch's text is no argument)."""
    names: set[str] = set()

    def body(i: int) -> int:  # message text from i up to its closing "}" (or the end)
        while i < len(message) and message[i] != "}":
            if message[i] == "{":
                i = argument(i + 1)
            else:
                i += 1
        return i

    def argument(i: int) -> int:  # after "{": name [, type [, branches]] "}"
        m = re.compile(r"\s*(\w+)\s*(?:,\s*(\w+)\s*)?").match(message, i)
        assert m, message
        names.add(m.group(1))
        i = m.end()
        if message[i] == "}":
            return i + 1
        i += 1  # the "," before the branches (or a style)
        while i < len(message) and message[i] != "}":
            if message[i] == "{":
                i = body(i + 1) + 1
            else:
                i += 1
        return i + 1

    body(0)
    return names


def test_every_web_message_parses_and_takes_the_english_arguments() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    cats = catalogs()
    # the arguments of each message, as the English one names them: counts 1 and 5, words
    args: dict[str, dict[str, object]] = {}
    for key, message in cats["en"].items():
        names = placeholders(message)
        args[key] = {
            n: 5 if n in ("count", "rounds", "place", "times", "n") else "X" for n in names
        }
    for lang, cat in cats.items():
        for key, message in cat.items():
            if key.startswith("web.") and key in cats["en"]:
                assert placeholders(message) <= placeholders(cats["en"][key]) | {"you"}, (lang, key)
    run = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECK % json.dumps((STATIC / "i18n.js").as_uri())],
        input=json.dumps({"cats": cats, "args": args}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(run.stdout)
    broken = {k: v for k, v in out.items() if v.startswith("BROKEN")}
    assert not broken, broken
    assert len(out) >= 5 * 300
    # plural categories come from Intl.PluralRules: five notes are "5 Scheine", one is not
    assert out["de web.count.notes"] == "5 Scheine"
