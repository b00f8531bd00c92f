#!/usr/bin/env python3
"""Sift benchmark (Python 3.11, stdlib only).

Generates Sift programs into a temporary directory and times
`sift verify --json` on each:

  (a) chain   -- the paper's Figure 11 snippet: n cells created and set,
                 then an assertion on the first one;
  (b) ifs     -- section 6.1's method with n independent if-statements,
                 without joins, with one `join true;` in the middle, and
                 with a `join true;` after every if-statement;
  (c) straight-- a straight-line method of 10,000 assignments.

Every generated program must verify (exit status 0); anything else is a
failed row.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
DEFAULT_SIFT = REPO / "target" / "release" / "sift"

# A run whose first wall time is below this is repeated (best of 3).
SMALL_SECONDS = 5.0


# --------------------------------------------------------------------------
# Program generators
# --------------------------------------------------------------------------

CELL = """\
class Cell {
  int x;
  Cell(int v) ensures valid() && getX() == v; { x = v; close valid(); use getX(); }
  void setX(int v) requires valid(); ensures valid() && getX() == v;
  { open valid(); x = v; close valid(); use getX(); }
  predicate valid() { return acc(x); }
  pure int getX() requires valid(); { return opening valid() in x; }
}
"""


def gen_chain(n: int) -> str:
    """Figure 11: create n cells, set each, assert on the first."""
    lines = [CELL, "class Main {", "  static void main() {"]
    for i in range(1, n + 1):
        lines.append(f"    Cell c{i} = new Cell(0); c{i}.setX({i});")
    lines.append("    assert c1.getX() == 1;")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_ifs(n: int, joins: str) -> str:
    """Section 6.1: n independent if-statements.

    joins: "none", "middle" (one `join true;` after if n//2) or "every"
    (a `join true;` after every if-statement)."""
    params = ", ".join(f"int x{i}" for i in range(1, n + 1))
    lines = ["class Main {", f"  static void m({params}) {{", "    int y = 0;"]
    for i in range(1, n + 1):
        lines.append(f"    if (x{i} == 0) {{ y = 1; }} else {{ y = 2; }}")
        if joins == "every" or (joins == "middle" and i == n // 2):
            lines.append("    join true;")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_straight(n: int) -> str:
    """A straight-line method of n assignments, then an assertion."""
    lines = ["class Main {", "  static void m() {", "    int x = 0;"]
    lines.extend("    x = x + 1;" for _ in range(n))
    lines.append(f"    assert x == {n};")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


@dataclass
class Row:
    suite: str          # "chain", "ifs-none", "ifs-middle", "ifs-every", "straight"
    n: int
    method: str         # method whose time_ms / queries is reported
    ok: bool = False
    status: str = ""    # "ok", "exit N", "timeout", "bad json", ...
    wall: float | None = None          # best wall-clock seconds
    walls: list[float] = field(default_factory=list)
    method_ms: float | None = None     # verifier's own time for `method`
    queries: int | None = None         # verifier's query count for `method`
    total_ms: float | None = None      # sum of time_ms over all members
    total_queries: int | None = None
    size_kb: float = 0.0
    detail: str = ""    # first error lines on failure

    def num_paths(self) -> int:
        if self.suite == "ifs-none":
            return 2 ** self.n
        if self.suite == "ifs-middle":
            return 2 ** (self.n // 2) + 2 ** (self.n - self.n // 2)
        if self.suite == "ifs-every":
            return 2 * self.n
        return 1

    def paths(self) -> str:
        if self.suite == "ifs-none":
            return f"2^{self.n}"
        if self.suite == "ifs-middle":
            a, b = self.n // 2, self.n - self.n // 2
            return f"2^{a}+2^{b}"
        if self.suite == "ifs-every":
            return f"{self.n}x2"
        return "1"


def run_once(sift: Path, path: Path, timeout: float, jobs: int | None):
    cmd = [str(sift), "verify", "--json", str(path)]
    if jobs is not None:
        cmd[2:2] = ["--jobs", str(jobs)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "", ""
    return p.returncode, time.perf_counter() - t0, p.stdout, p.stderr


def first_errors(stdout: str, stderr: str, limit: int = 5) -> str:
    out: list[str] = []
    try:
        doc = json.loads(stdout)
        for f in doc.get("files", []):
            for e in f.get("errors", []):
                out.append(f"{e.get('kind')} at {e.get('line')}:{e.get('column')}"
                           f" in {e.get('method')}: {e.get('message')}")
    except (json.JSONDecodeError, AttributeError):
        out.extend(l for l in stdout.splitlines() if l.strip())
    out.extend(l for l in stderr.splitlines() if l.strip())
    return "\n".join(out[:limit])


def measure(row: Row, src: str, workdir: Path, sift: Path, timeout: float,
            jobs: int | None, reps: int) -> Row:
    path = workdir / f"{row.suite}_{row.n}.sift"
    path.write_text(src)
    row.size_kb = len(src.encode()) / 1024
    for rep in range(reps):
        rc, wall, out, err = run_once(sift, path, timeout, jobs)
        if rc is None:
            row.status = f"timeout >{timeout:g}s"
            row.detail = f"no result within {timeout:g} s"
            return row
        if rc != 0:
            row.status = f"exit {rc}"
            row.detail = first_errors(out, err)
            return row
        row.walls.append(wall)
        try:
            doc = json.loads(out)
            methods = [m for f in doc["files"] for m in f["methods"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            row.status = "bad json"
            row.detail = out[:300]
            return row
        # Best of the runs, for each measure separately.
        row.wall = min(row.walls)
        total_ms = sum(float(m.get("time_ms") or 0) for m in methods)
        row.total_ms = total_ms if row.total_ms is None else min(row.total_ms, total_ms)
        row.total_queries = sum(int(m.get("queries") or 0) for m in methods)
        for m in methods:
            if m.get("name") == row.method:
                ms = m.get("time_ms")
                if ms is not None:
                    ms = float(ms)
                    row.method_ms = ms if row.method_ms is None else min(row.method_ms, ms)
                row.queries = m.get("queries")
        # Best of 3 only for small runs; big ones run once.
        if rep == 0 and wall >= SMALL_SECONDS:
            break
    row.ok = True
    row.status = "ok"
    return row


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    if x < 10:
        return f"{x:.3f}"
    return f"{x:.1f}"


def fmt_ms(x) -> str:
    if x is None:
        return "-"
    return f"{float(x):.1f}"


def table(rows: list[Row], with_paths: bool) -> str:
    head = ["n"]
    if with_paths:
        head.append("paths")
    head += ["status", "wall s (best)", "runs", "method ms", "method queries",
             "all members ms", "all queries", "ratio wall", "ratio method ms"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    prev: Row | None = None
    for r in rows:
        ratio = mratio = "-"
        if prev is not None and prev.ok and r.ok and prev.wall and r.wall:
            ratio = f"{r.wall / prev.wall:.2f}"
            if prev.method_ms and r.method_ms:
                mratio = f"{float(r.method_ms) / float(prev.method_ms):.2f}"
        cells = [str(r.n)]
        if with_paths:
            cells.append(r.paths())
        cells += [r.status, fmt_s(r.wall), str(len(r.walls)), fmt_ms(r.method_ms),
                  "-" if r.queries is None else str(r.queries), fmt_ms(r.total_ms),
                  "-" if r.total_queries is None else str(r.total_queries), ratio, mratio]
        lines.append("| " + " | ".join(cells) + " |")
        prev = r
    return "\n".join(lines)


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares line y = a + b x; returns (slope b, residual sum of squares)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    return b, sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))


def growth(rows: list[Row], base_ms: float) -> str:
    """Describe how the verifier's own time for the method grows with n.

    Uses `time_ms` of the benchmarked method minus that of an empty method
    (fixed per-method cost), ignoring points where what is left is under
    5 ms or under the empty method's time: those are noise.
    Fits both t ~ n^k (log t against log n) and t ~ b^n (log t against n)
    and reports the better fit."""
    pts = [(r.n, float(r.method_ms) - base_ms) for r in rows
           if r.ok and r.method_ms is not None]
    pts = [(n, t) for n, t in pts if t > max(5.0, base_ms)]
    if len(pts) < 2:
        return ("fewer than two rows where the method's own time clearly exceeds "
                "an empty method's, so there is no growth to measure")
    steps = [f"{n1}->{n2}: x{t2 / t1:.2f}" for (n1, t1), (n2, t2) in zip(pts, pts[1:])]
    ns = [float(n) for n, _ in pts]
    lt = [math.log(t) for _, t in pts]
    k, res_poly = _fit([math.log(n) for n in ns], lt)
    lb, res_exp = _fit(ns, lt)
    b = math.exp(lb)
    if len(pts) == 2:
        use_exp = ns[1] - ns[0] <= 2 and b > 1.4
    else:
        use_exp = res_exp < res_poly and b > 1.2
    if use_exp:
        verdict = (f"exponential: time multiplies by ~{b:.2f} per extra n "
                   f"(best fit t ~ {b:.2f}^n)")
    else:
        kind = ("sub-linear / dominated by fixed costs" if k < 0.8 else
                "linear" if k < 1.3 else
                "between linear and quadratic" if k < 1.7 else
                "quadratic" if k < 2.4 else "super-quadratic")
        verdict = f"{kind}: best fit t ~ n^{k:.2f}"
    last = [r for r in rows if r.ok and r.method_ms is not None][-1]
    if last.num_paths() > 1:
        verdict += (f"; at n = {last.n}, {last.num_paths()} paths: "
                    f"{float(last.method_ms) / last.num_paths():.3f} ms per path")
    if len(pts) > 2:
        verdict += (f"; the other fit: {'t ~ n^%.2f' % k if use_exp else 't ~ %.2f^n' % b}"
                    f" (log residuals: power {res_poly:.3f}, exponential {res_exp:.3f})")
    else:
        verdict += "; only two usable rows, so the shape is a guess"
    return (verdict + f" (fit over n = {pts[0][0]}..{pts[-1][0]}, method ms minus "
            f"an empty method's {base_ms:.1f} ms). Successive ratios of method ms: "
            + ", ".join(steps))


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine_info() -> dict[str, str]:
    info: dict[str, str] = {}
    info["nproc"] = str(os.cpu_count())
    try:
        info["nproc"] = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or info["nproc"]
    except OSError:
        pass
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["cpu"] = cpu
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                kb = int(line.split()[1])
                mem = f"{kb / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    info["memory"] = mem
    info["os"] = f"{platform.system()} {platform.release()}"
    info["date"] = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    commit = "uncommitted"
    try:
        p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            commit = p.stdout.strip()
            d = subprocess.run(["git", "status", "--porcelain", "--", "src",
                                "Cargo.toml", "Cargo.lock", "prelude.smt2"],
                               cwd=REPO, capture_output=True, text=True)
            if d.stdout.strip():
                commit += " + uncommitted changes in src/"
    except OSError:
        pass
    info["commit"] = commit
    z3 = "z3 binary not found (Sift links Z3 through the z3 crate)"
    if shutil.which("z3"):
        p = subprocess.run(["z3", "--version"], capture_output=True, text=True)
        z3 = p.stdout.strip() or z3
    info["z3"] = z3
    info["load_before"] = loadavg()
    return info


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def plan(quick: bool):
    """Yield (suite, n, method, generator) in run order."""
    if quick:
        chain_ns = [10, 100]
        ifs_ns = list(range(4, 11))
        every_ns = list(range(4, 11)) + [100]
        straight_ns = [1000]
    else:
        chain_ns = [10, 100, 1000, 10000]
        ifs_ns = list(range(4, 17))
        every_ns = list(range(4, 17)) + [100]
        straight_ns = [10000]
    for n in chain_ns:
        yield "chain", n, "Main.main", lambda n=n: gen_chain(n)
    for n in ifs_ns:
        yield "ifs-none", n, "Main.m", lambda n=n: gen_ifs(n, "none")
    for n in ifs_ns:
        yield "ifs-middle", n, "Main.m", lambda n=n: gen_ifs(n, "middle")
    for n in every_ns:
        yield "ifs-every", n, "Main.m", lambda n=n: gen_ifs(n, "every")
    for n in straight_ns:
        yield "straight", n, "Main.m", lambda n=n: gen_straight(n)


SUITE_TITLES = {
    "chain": "(a) Figure 11 chain of cells (static method, n cells created and set, assert on c1)",
    "ifs-none": "(b1) n independent if-statements, no join",
    "ifs-middle": "(b2) n independent if-statements, one `join true;` after if n/2",
    "ifs-every": "(b3) n independent if-statements, `join true;` after every if",
    "straight": "(c) straight-line method (`x = x + 1;` n times, then `assert x == n;`)",
}


SUITE_EXPECTED = {
    "chain": "one path; expected linear in n (each cell adds two statements and one `valid()` chunk)",
    "ifs-none": "2^n paths; expected exponential, base 2 per extra n",
    "ifs-middle": "2^(n/2) + 2^(n - n/2) paths; expected exponential, base sqrt(2) ~ 1.41 per extra n",
    "ifs-every": "2 paths per if; expected linear in n",
    "straight": "one path; expected linear in n",
}


def targets(rows: list[Row]) -> list[tuple[str, str, str]]:
    def find(suite: str, n: int) -> Row | None:
        for r in rows:
            if r.suite == suite and r.n == n:
                return r
        return None

    out = []
    for desc, suite, n, limit in [
        ("chain n=1000 < 1 s", "chain", 1000, 1.0),
        ("chain n=10000 < 20 s", "chain", 10000, 20.0),
        ("2^14 paths (ifs, no join, n=14) < 10 s", "ifs-none", 14, 10.0),
        ("join after every if, n=100 < 1 s", "ifs-every", 100, 1.0),
        ("straight line, 10,000 statements verifies", "straight", 10000, None),
    ]:
        r = find(suite, n)
        if r is None:
            out.append((desc, "not run", "-"))
        elif not r.ok:
            out.append((desc, "NOT MET", r.status))
        elif limit is None:
            out.append((desc, "met", f"{fmt_s(r.wall)} s"))
        else:
            out.append((desc, "met" if r.wall < limit else "NOT MET", f"{fmt_s(r.wall)} s"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="small n only (well under 30 s in total)")
    ap.add_argument("--write", action="store_true",
                    help="write bench/RESULTS.md")
    ap.add_argument("--sift", type=Path, default=DEFAULT_SIFT,
                    help=f"sift binary (default {DEFAULT_SIFT})")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="per-run timeout in seconds (default 120)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="pass --jobs N to sift (default: sift's own default)")
    ap.add_argument("--only", default=None,
                    help="comma-separated suites to run (chain, ifs-none, ifs-middle, ifs-every, straight)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="write the generated programs to this directory and keep them")
    ap.add_argument("--no-build", action="store_true",
                    help="do not run `cargo build --release` first")
    args = ap.parse_args(argv)

    if not args.no_build and args.sift == DEFAULT_SIFT:
        print("building: cargo build --release", flush=True)
        b = subprocess.run(["cargo", "build", "--release"], cwd=REPO,
                           capture_output=True, text=True)
        if b.returncode != 0:
            print(b.stderr[-3000:], file=sys.stderr)
            print("build failed", file=sys.stderr)
            return 2
    if not args.sift.exists():
        print(f"no sift binary at {args.sift}", file=sys.stderr)
        return 2

    only = set(args.only.split(",")) if args.only else None
    info = machine_info()
    print(f"machine: {info['nproc']} cpus, {info['cpu']}, {info['memory']}; "
          f"sift {info['commit']}; {info['z3']}", flush=True)

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        tmp_ctx = None
        workdir = args.keep
    else:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="sift-bench-")
        workdir = Path(tmp_ctx.name)

    try:
        # Start-up baseline: a trivial program.
        base = Row("baseline", 0, "Main.m")
        measure(base, "class Main { static void m() { } }\n", workdir, args.sift,
                args.timeout, args.jobs, 3)
        base_ms = float(base.method_ms or 0.0)
        print(f"start-up baseline (empty method): {fmt_s(base.wall)} s [{base.status}]",
              flush=True)

        rows: list[Row] = []
        skip_suite: set[str] = set()
        t_start = time.perf_counter()
        for suite, n, method, gen in plan(args.quick):
            if only and suite not in only:
                continue
            row = Row(suite, n, method)
            if suite in skip_suite:
                row.status = "skipped (smaller n timed out)"
                rows.append(row)
                print(f"{suite:10} n={n:<6} {row.status}", flush=True)
                continue
            measure(row, gen(), workdir, args.sift, args.timeout, args.jobs, 3)
            rows.append(row)
            print(f"{suite:10} n={n:<6} {row.status:8} wall {fmt_s(row.wall)} s "
                  f"(runs {len(row.walls)}), method {fmt_ms(row.method_ms)} ms, "
                  f"queries {row.queries}", flush=True)
            if not row.ok:
                for l in row.detail.splitlines():
                    print("    " + l)
                if row.status.startswith("timeout"):
                    skip_suite.add(suite)
        elapsed = time.perf_counter() - t_start
    finally:
        if tmp_ctx is not None:
            tmp_ctx.cleanup()

    # ---------------------------------------------------------------- report
    md: list[str] = []
    md.append("# Sift benchmark results\n")
    md.append("Generated by `python3 bench/run.py --write"
              + (" --quick" if args.quick else "") + "`"
              + (f" with `--jobs {args.jobs}`" if args.jobs is not None else "")
              + ". Wall clock of the whole `sift verify --json FILE` process;"
              f" best of 3 when a run takes under {SMALL_SECONDS:g} s, else 1 run;"
              f" per-run timeout {args.timeout:g} s. \"method ms\" / \"method"
              " queries\" are the verifier's own `time_ms` / `queries` for the"
              " benchmarked method (Main.main or Main.m) from `--json`; \"all"
              " members\" sums them over every member (the chain also verifies"
              " the Cell class).\n")
    md.append("## Machine\n")
    md.append(f"- date: {info['date']}")
    md.append(f"- CPUs (nproc): {info['nproc']}")
    md.append(f"- CPU model: {info['cpu']}")
    md.append(f"- memory: {info['memory']}")
    md.append(f"- OS: {info['os']}")
    md.append(f"- sift commit: {info['commit']}")
    md.append(f"- Z3: {info['z3']}")
    md.append(f"- sift threads: {'--jobs ' + str(args.jobs) if args.jobs is not None else 'default (one per core)'}")
    md.append(f"- start-up baseline (empty method): wall {fmt_s(base.wall)} s, "
              f"method {fmt_ms(base.method_ms)} ms")
    md.append(f"- load average (1/5/15 min) before: {info['load_before']}, after: {loadavg()}"
              " (other work on the machine; a 1-minute load above the CPU count"
              " makes wall times noisy and inflated)")
    md.append(f"- total benchmark time: {elapsed:.1f} s\n")

    md.append("Profiling notes (where the time goes): see `bench/PROFILE.md`.\n")
    md.append("## Targets\n")
    md.append("| target | result | measured |")
    md.append("|---|---|---|")
    for desc, res, meas in targets(rows):
        md.append(f"| {desc} | {res} | {meas} |")
    md.append("")

    suites = [s for s in SUITE_TITLES if any(r.suite == s for r in rows)]
    for s in suites:
        srows = [r for r in rows if r.suite == s]
        md.append(f"## {SUITE_TITLES[s]}\n")
        md.append(f"Shape: {SUITE_EXPECTED[s]}.\n")
        md.append(table(srows, with_paths=s.startswith("ifs")))
        md.append("")
        grow_rows = srows
        if len(grow_rows) >= 2:
            md.append("Growth: " + growth(grow_rows, base_ms) + "\n")
        fails = [r for r in srows if not r.ok]
        for r in fails:
            md.append(f"- n={r.n}: {r.status}")
            for l in r.detail.splitlines():
                md.append(f"  - `{l}`")
        if fails:
            md.append("")

    text = "\n".join(md) + "\n"
    print()
    print(text)
    if args.write:
        (BENCH_DIR / "RESULTS.md").write_text(text)
        print(f"wrote {BENCH_DIR / 'RESULTS.md'}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
