"""Find English words for people in the web code (``static/*.js``, ``*.html``) outside the
catalogs: the check behind ``test_web_strings.py``.

A JavaScript string literal (quotes or a template's text parts) counts as words for people when
it holds a capitalised word or two words in a row, unless its place says it is a code: a CSS
class, a role, a type, a selector, a storage key, a ``case`` label, a comparison, a catalog key
(``t("web.…")``)… A number or a moment written by hand (``x.toFixed(1)``, ``toLocaleString()``)
counts too: it reads "9.0" in German and the browser's language, not the page's; numbers people
read go through ``num()`` and moments through ``when()`` (``static/i18n.js``, Intl in the page's
language), and only an SVG coordinate (:data:`COORDINATE`) keeps ``toFixed``.
In HTML every text node and every ``title``, ``aria-label``, ``placeholder`` and ``alt`` counts,
except on an element whose text the catalog fills (``data-i18n``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

#: a literal in one of these places is a code, not words for people
CODE_BEFORE = re.compile(
    r"""(?:
      \b(?:class|className|role|type|name|autocomplete|inputmode|autocapitalize|rel|target|method
        |id|for|href|src|viewBox|lang|dir|key|kind|lobby|code|game|rules|preset|phase|stage
        |termination|focusable|width|height|fill|stroke|d|points|transform|easing|credentials
        |mode|textAlign|position|display|pointerEvents|cursor|behavior|block|inline|placeholder_code)
        \s*:\s*
      | "(?:class|role|type|aria-hidden|aria-live|aria-current|aria-pressed|aria-labelledby
        |aria-describedby|aria-controls|aria-expanded|aria-modal|data-[\w-]+|viewBox|focusable
        |stroke-width|text-anchor|dominant-baseline|font-size|font-weight)"\s*:\s*
      | (?<![\w$])(?:querySelector|querySelectorAll|closest|matches|getItem|setItem|removeItem
        |add|remove|toggle|contains|addEventListener|removeEventListener|createElement|createElementNS
        |getAttribute|setAttribute|removeAttribute|hasAttribute|startsWith|endsWith|includes
        |split|join|replace|indexOf|fetch|getJSON|postJSON|matchMedia|t|has|navigate
        |pushState|replaceState|dispatchEvent|CustomEvent|Event|postMessage|send|on|emit
        |toLocaleString|toLocaleDateString|toLocaleTimeString|DateTimeFormat|NumberFormat|open
        |Set|Map|test|exec|RegExp|log|error
        |warn|animate|wsUrl|encodeURIComponent|post|put|del|Error|import|from)\(\s*(?:[^()]*,\s*)?
      | (?:===|!==|==|!=|\bcase|\?\?|\bin|\btypeof\s+\w+\s*===)\s*
      | \.(?:className|type|kind|code|key|mode|dataset\.\w+|name|id|value|role|href)\s*=\s*
      | [\w\])]\[\s*
      | \bh\("(?:pre|code|kbd)",\s*\{[^{}]*\},\s*
    )$""",
    re.VERBOSE,
)
WORDS = re.compile(r"[A-Za-zÀ-ÿ]{2,}[,.:;!?'’…-]*\s+[(]?[A-Za-zÀ-ÿ]{2,}|\b[A-Z][a-z]{2,}\b")
#: words that are no language: the brand, the games' own names, the rats' card name in the
#: events (a code), the
#: languages' own names (the switcher)
ALLOWED = {
    "cardtable",
    "Kuhhandel",
    "Cunegonda",
    "Rat",
    "English",
    "Deutsch",
    "Français",
    "Nederlands",
    "Italiano",
}
#: one lowercase word between two values of a template literal
JOINING = re.compile(r"\}\s+[a-zà-ÿ]{2,}\s+\$\{")
#: a class list, or a CSS value: codes however they read
CODE_TEXT = re.compile(r"^[a-z0-9 _.-]*$")
#: a literal placed as a class (also behind a ternary), a constant's value, an object's key
CLASS_BEFORE = re.compile(r"\bclass(?:Name)?\s*[:=][^,{}\n]*$")


#: the fields the server fills with English beside their words in no language, for bots and
#: scripts (``analysis/review.py``: a review's ``taken_label``, ``best_label``, ``mistake_kind``
#: beside ``*_words``; the player summaries' ``threshold`` and ``unit`` beside the numbers and the
#: game): English that reaches a page as data, which no literal shows. A page words them with
#: ``say()`` or ``t()``: a read of one is English for people unless its line calls ``say(``, it
#: reads a part of it (``threshold.loss_at_least``), or the file sets the field itself (words it
#: once where the data arrives, ``r.taken_label = say(r.taken_words, r.taken_label)``).
SERVER_ENGLISH = ("taken_label", "best_label", "mistake_kind", "threshold", "unit")
SERVER_READ = re.compile(r"(?<=[\w\])])\.(" + "|".join(SERVER_ENGLISH) + r")\b(?!\s*\.\s*\w)")


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text!r}"


def _literals(source: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of every string literal of ``source`` (comments and regular
    expressions skipped; a template's ``${…}`` parts dropped, nested templates read too)."""
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(source)
    prev = ""  # the last significant character (a "/" after it starts a regex or divides)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
            continue
        if source.startswith("/*", i):
            j = source.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "/" and (
            not prev
            or prev in "(,=:[!&|?{};+-*%<>~^"
            or source[:i].rstrip().endswith(("return", "case"))
        ):
            j = i + 1
            klass = False
            while j < n and (source[j] != "/" or klass):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    klass = True
                elif source[j] == "]":
                    klass = False
                elif source[j] == "\n":
                    break
                j += 1
            i = j + 1
            prev = "x"
            continue
        if c in "\"'":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append((i, j + 1, source[i + 1 : j]))
            i = j + 1
            prev = "x"
            continue
        if c == "`":
            j = i + 1
            parts: list[str] = []
            buf = ""
            while j < n and source[j] != "`":
                if source[j] == "\\":
                    buf += source[j : j + 2]
                    j += 2
                    continue
                if source.startswith("${", j):
                    depth, k = 1, j + 2
                    while k < n and depth:
                        if source[k] == "{":
                            depth += 1
                        elif source[k] == "}":
                            depth -= 1
                        elif source[k] == "`":  # a template inside: read it for its own text
                            inner_end = source.find("`", k + 1)
                            out.extend(
                                (k + a, k + b, txt)
                                for a, b, txt in _literals(source[k : inner_end + 1])
                            )
                            k = inner_end
                        k += 1
                    parts.append(buf)
                    buf = ""
                    j = k
                    continue
                buf += source[j]
                j += 1
            parts.append(buf)
            out.append((i, j + 1, " ".join(p for p in parts)))
            i = j + 1
            prev = "x"
            continue
        if not c.isspace():
            prev = c
        i += 1
    return out


def scan_js(name: str, source: str) -> list[Finding]:
    found = []
    for start, _end, text in _literals(source):
        # a word between two values of a template (`${name}: ${rating} at ${when}`): a sentence
        joins = source[start] == "`" and JOINING.search(source[start:_end])
        if not WORDS.search(text) and not joins:
            continue
        if all(w in ALLOWED for w in re.findall(r"[A-Za-z.]{2,}", text)):
            continue
        if re.match(r"^\s*(?:translate|scale|rotate|rgba?|calc|url)\(", text):
            continue  # a CSS value
        before = source[max(0, start - 120) : start]
        if CODE_BEFORE.search(before) or CLASS_BEFORE.search(before):
            continue
        if re.match(r"\s*:", source[_end : _end + 3]) and re.fullmatch(r"[\w-]+", text):
            continue  # an object's key
        if source[max(0, start - 7) : start].rstrip().endswith(("import", "from")):
            continue
        # one or two lowercase words ("muted small"): a class list, unless it stands where text
        # goes (a child of h() after its attributes, a branch of a ternary)
        lowercase_pair = CODE_TEXT.search(text) and len(text.split()) <= 2
        if lowercase_pair and not joins and not re.search(r"(?:[?:]|[})]\s*,)\s*$", before):
            continue
        found.append(Finding(name, source.count("\n", 0, start) + 1, text))
    return found + _server_english(name, source) + _by_hand(name, source)


#: what ``toFixed`` may round: an SVG coordinate no person reads (a path's ``px``/``py``, a
#: chart's ``x(…)``/``y(…)`` scale), the allow-list of the check below
COORDINATE = re.compile(r"(?:p[xy]|[xy]\([^()]*\))")
BY_HAND = re.compile(r"\.(toFixed|toLocaleString|toLocaleDateString|toLocaleTimeString)\(\s*(\)?)")


def _by_hand(name: str, source: str) -> list[Finding]:
    """Numbers and moments formatted outside the page's language: ``toFixed`` (a dot for every
    language) on anything but a coordinate, ``toLocale…String()`` without the page's language."""
    found = []
    for m in BY_HAND.finditer(source):
        if m.group(1) != "toFixed":
            if m.group(2):  # no language given: the browser's, not the page's
                found.append(Finding(name, source.count("\n", 0, m.start()) + 1, m.group(0)))
            continue
        # the receiver: the expression before ".toFixed(" (a name, a call, a member)
        i, depth = m.start(), 0
        while i > 0:
            c = source[i - 1]
            if c == ")":
                depth += 1
            elif c == "(" and depth:
                depth -= 1
            elif not depth and not (c.isalnum() or c in "_$."):
                break
            i -= 1
        receiver = source[i : m.start()]
        if not COORDINATE.fullmatch(receiver):
            found.append(Finding(name, source.count("\n", 0, m.start()) + 1, f"{receiver}.toFixed"))
    return found


def _server_english(name: str, source: str) -> list[Finding]:
    """Reads of :data:`SERVER_ENGLISH` fields that put the server's English on the page."""
    spans = [(a, b) for a, b, _ in _literals(source) if source[a] in "\"'"]  # a template's
    # ${…} parts are code
    found = []
    for m in SERVER_READ.finditer(source):
        line_start = source.rfind("\n", 0, m.start()) + 1
        in_key = re.search(r"[\"'][\w.-]*$", source[line_start : m.start()]) and re.match(
            r"[\w.-]*[\"']", source[m.end() :]
        )
        if in_key or any(a <= m.start() < b for a, b in spans):
            continue  # inside a literal ("web.analysis.unit"): a key, not a read
        field = m.group(1)
        if re.search(r"\." + field + r"\s*=[^=]", source):
            continue  # the file words the field itself where the data arrives
        line_end = source.find("\n", m.end())
        line = source[line_start : line_end if line_end >= 0 else len(source)]
        if "say(" in line:
            continue
        found.append(
            Finding(name, source.count("\n", 0, m.start()) + 1, f"server English: .{field}")
        )
    return found


class _Html(HTMLParser):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found: list[Finding] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, filled by the catalog or code)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        filled = "data-i18n" in a or tag in ("script", "style", "noscript")
        for attr in ("title", "aria-label", "placeholder", "alt"):
            value = a.get(attr) or ""
            if value and WORDS.search(value) and "data-i18n-attr" not in a:
                self.found.append(Finding(self.name, self.getpos()[0], f"{attr}={value}"))
        if tag not in ("meta", "link", "input", "br", "img"):
            self.stack.append((tag, filled))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        text = data.strip()
        if not text or any(filled for _, filled in self.stack):
            return
        if all(w in ALLOWED for w in re.findall(r"[A-Za-z.]{2,}", text)):
            return
        if re.search(r"[A-Za-z]{2,}", text):
            self.found.append(Finding(self.name, self.getpos()[0], text))


def scan_html(name: str, source: str) -> list[Finding]:
    parser = _Html(name)
    parser.feed(source)
    return parser.found
