"""``cardtable i18n missing [LANG...]``: the strings each language still lacks.

A key of the English catalog that another catalog does not have is shown in English there (the
fallback is per key); this command lists them per language, and ``cardtable i18n check`` also
names entries that do not parse or whose placeholders differ from English (docs/translating.md).
"""

from __future__ import annotations

import argparse
import json

from cardtable.i18n import DEFAULT, SUPPORTED, catalog, missing, problems

HELP = "the languages' catalogs: which strings are missing per language, which are broken"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "what",
        choices=("missing", "check"),
        help="missing: untranslated keys; "
        "check: also entries that do not parse or differ from English in placeholders",
    )
    p.add_argument(
        "langs",
        nargs="*",
        metavar="LANG",
        help=f"languages (default: all of {', '.join(SUPPORTED)})",
    )
    p.add_argument("--json", action="store_true", help="print {lang: [keys]} as JSON")


def run(args: argparse.Namespace) -> int:
    langs = args.langs or [lang for lang in SUPPORTED if lang != DEFAULT]
    unknown = [lang for lang in langs if lang not in SUPPORTED]
    if unknown:
        raise ValueError(f"no catalog for {', '.join(unknown)} (languages: {', '.join(SUPPORTED)})")
    report = {lang: missing(lang) for lang in langs}
    broken = {lang: problems(lang) for lang in langs} if args.what == "check" else {}
    if args.json:
        print(json.dumps({"missing": report, **({"broken": broken} if broken else {})}, indent=1))
    else:
        total = len(catalog(DEFAULT))
        for lang in langs:
            keys = report[lang]
            print(f"{lang}: {total - len(keys)} of {total} strings translated, {len(keys)} missing")
            for key in keys:
                print(f"  {key}: {catalog(DEFAULT)[key]}")
            for problem in broken.get(lang, []):
                print(f"  BROKEN {problem}")
    return 1 if any(broken.values()) else 0
