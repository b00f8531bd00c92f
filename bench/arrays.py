#!/usr/bin/env python3
"""Array benchmark (Python 3.11, stdlib only).

Generates Sift programs and times `sift verify --json` on each:

  loop      -- `new int[n]`, then a loop summing its n elements with the
               invariant `untouched(acc(a.elems)) && s == sum(a, i)`
               (`sum` a recursive pure method with `decreases`); the
               loop is verified once, whatever n is.
  writes    -- n element writes at literal indices in straight-line code,
               then an assertion on the first and the last element.
  symbolic  -- n element writes at indices `i + k` (i a parameter), then
               an assertion on element `i`: every read goes through Z3's
               array theory.

Every program must verify (exit status 0); anything else is a failed row.

  python3 bench/arrays.py [--quick] [--write] [--sift PATH] [--no-build]

`--write` replaces the "Arrays" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
DEFAULT_SIFT = REPO / "target" / "release" / "sift"
SECTION = "## Arrays"


def loop_program(n: int) -> str:
    return f"""class Loop {{
  static pure int sum(int[] a, int n)
    requires acc(a.elems) && 0 <= n && n <= a.length;
    decreases n;
  {{ return n == 0 ? 0 : sum(a, n - 1) + a[n - 1]; }}

  static void main() {{
    int[] a = new int[{n}];
    int s = 0;
    int i = 0;
    while (i < a.length)
      invariant acc(a.elems) && untouched(acc(a.elems));
      invariant 0 <= i && i <= a.length && s == sum(a, i);
    {{ s = s + a[i]; i = i + 1; }}
    assert i == {n} && s == sum(a, {n});
  }}
}}
"""


def writes_program(n: int) -> str:
    body = "\n".join(f"    a[{k}] = {k};" for k in range(n))
    return f"""class Writes {{
  static void main() {{
    int[] a = new int[{n}];
{body}
    assert a[0] == 0 && a[{n - 1}] == {n - 1};
  }}
}}
"""


def symbolic_program(n: int) -> str:
    body = "\n".join(f"    a[i + {k}] = {k};" for k in range(n))
    return f"""class Symbolic {{
  static void main(int[] a, int i)
    requires acc(a.elems) && 0 <= i && i + {n} <= a.length;
  {{
{body}
    assert a[i] == 0 && a[i + {n - 1}] == {n - 1};
  }}
}}
"""


SUITES = {
    "loop": (loop_program, [10, 1000, 1000000], [10, 1000]),
    "writes": (writes_program, [10, 100, 1000, 10000], [10, 100]),
    "symbolic": (symbolic_program, [10, 100, 500, 1000], [10, 50]),
}


def run(sift: Path, path: Path, timeout: float) -> tuple[str, float, int]:
    """Status, wall seconds and solver queries of one `sift verify --json`."""
    t = time.monotonic()
    try:
        p = subprocess.run(
            [str(sift), "verify", "--json", str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - t, 0
    wall = time.monotonic() - t
    queries = 0
    try:
        doc = json.loads(p.stdout)
        for f in doc["files"]:
            for m in f.get("methods", []):
                queries += m.get("queries", 0)
    except (json.JSONDecodeError, KeyError):
        pass
    return ("verified" if p.returncode == 0 else f"exit {p.returncode}"), wall, queries


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--sift", type=Path)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    sift = args.sift or DEFAULT_SIFT
    if not args.sift and not args.no_build:
        subprocess.run(["cargo", "build", "--release"], cwd=REPO, check=True)
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, (gen, full, quick) in SUITES.items():
            for n in quick if args.quick else full:
                path = Path(tmp) / f"{name}_{n}.sift"
                path.write_text(gen(n))
                status, wall, queries = run(sift, path, args.timeout)
                failed |= status != "verified"
                rows.append((name, n, status, wall, queries))
                print(f"{name:9} n={n:<8} {status:9} {wall:7.2f} s {queries:6} queries", flush=True)
    table = ["| suite | n | result | wall (s) | solver queries |", "|---|---|---|---|---|"]
    table += [f"| {s} | {n} | {st} | {w:.2f} | {q} |" for s, n, st, w, q in rows]
    if args.write:
        write_section("\n".join(table))
    return 1 if failed else 0


def write_section(table: str) -> None:
    results = BENCH_DIR / "RESULTS.md"
    text = results.read_text() if results.exists() else ""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    section = f"""{SECTION}

`python3 bench/arrays.py --write` (commit {commit}; the machine of the
section above). `loop`: a loop over a `new int[n]` summing its elements
(invariant with `untouched(acc(a.elems))` and a recursive `sum` with
`decreases`); `writes`: n writes `a[k] = k;` at literal indices, then
an assertion on the first and last; `symbolic`: n writes `a[i + k] = k;`
at symbolic indices, then the same assertion. Every row must verify.

{table}
"""
    if SECTION in text:
        start = text.index(SECTION)
        rest = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[rest + 1 :] if rest >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    results.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
