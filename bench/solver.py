#!/usr/bin/env python3
"""Sift solver benchmark (Python 3.11, stdlib only): what the solver's
configuration and the parallel paths buy.

  failures   -- time to report failing assertions: the dozen failing methods
                of tests/programs/verify/fast_failures.sift (with their twelve
                verifying twins), and n copies of `assert x > 0;` on an
                unconstrained x; the verifier's own time per failing method
                (`time_ms` from --json), counterexamples included;
  parallel   -- section 6.1's n independent if-statements with --jobs 1 and
                --jobs 2 (the paths of one method split over both cores);
  inference  -- the Figure 11 chain and the if-statements with and without
                --no-infer (the cost of inference where nothing needs it).

`--write` replaces the solver section of bench/RESULTS.md (between its
markers); `python3 bench/run.py --write` keeps it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as base  # noqa: E402  (the generators and machine info)

BEGIN = "<!-- solver: begin (python3 bench/solver.py --write) -->"
END = "<!-- solver: end -->"
REPS = 5


def verify(sift: Path, path: Path, *flags: str) -> tuple[float, dict, int]:
    """Best-of wall time is taken by the caller; one run here."""
    t = time.perf_counter()
    p = subprocess.run([str(sift), "verify", "--json", *flags, str(path)],
                       capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t
    return wall, json.loads(p.stdout), p.returncode


def best(sift: Path, path: Path, *flags: str, reps: int = REPS):
    runs = [verify(sift, path, *flags) for _ in range(reps)]
    wall = min(r[0] for r in runs)
    doc, rc = runs[0][1], runs[0][2]
    return wall, doc, rc


def gen_unconstrained(n: int) -> str:
    lines = ["class Main {"]
    lines += [f"  static void m{i}(int x) {{ assert x > 0; }}" for i in range(n)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def failures(sift: Path, tmp: Path) -> list[str]:
    out = ["### Failing assertions\n",
           "Verifier time (`time_ms`, a fresh Z3 context per member included) of each failing"
           " method, median and maximum; wall clock of the whole process, best of"
           f" {REPS}.\n",
           "| program | failing methods | errors with a counterexample | gave up | wall s |"
           " median ms per failing method | max ms |",
           "|---|---|---|---|---|---|---|"]
    progs = [("fast_failures.sift (12 failing, 12 verifying)",
              base.REPO / "tests" / "programs" / "verify" / "fast_failures.sift")]
    for n in (1, 3, 12, 100):
        p = tmp / f"unconstrained{n}.sift"
        p.write_text(gen_unconstrained(n))
        progs.append((f"{n} x `assert x > 0;`", p))
    for name, path in progs:
        wall, doc, rc = best(sift, path, "--jobs", "1")
        f = doc["files"][0]
        failed = [m for m in f["methods"] if m["status"] == "failed"]
        times = [m["time_ms"] for m in failed]
        with_cex = sum(1 for e in f["errors"] if e["counterexample"])
        gave_up = sum(1 for e in f["errors"] if any("gave up" in n for n in e["notes"]))
        out.append(f"| {name} | {len(failed)} | {with_cex} of {len(f['errors'])} | {gave_up} |"
                   f" {wall:.3f} | {statistics.median(times):.1f} | {max(times):.1f} |")
    out.append("\n`assert false;` has no variable to show, so its counterexample is empty;"
               " every other error has one.\n")
    return out


def method_ms(doc: dict, name: str) -> float:
    return next(m["time_ms"] for m in doc["files"][0]["methods"] if m["name"] == name)


def parallel(sift: Path, tmp: Path, ns: list[int]) -> list[str]:
    out = ["### One method's paths on both cores\n",
           "n independent if-statements, no join (2^n paths); wall clock, best of 3"
           " (1 run above 5 s).\n",
           "| n | paths | --jobs 1 s | --jobs 2 s | speed-up | queries |", "|---|---|---|---|---|---|"]
    for n in ns:
        p = tmp / f"ifs{n}.sift"
        p.write_text(base.gen_ifs(n, "none"))
        row = []
        for jobs in ("1", "2"):
            w, doc, rc = verify(sift, p, "--jobs", jobs)
            if w < 5:
                w = min(w, *(verify(sift, p, "--jobs", jobs)[0] for _ in range(2)))
            assert rc == 0, doc
            row.append((w, doc))
        q = row[1][1]["files"][0]["methods"][0]["queries"]
        out.append(f"| {n} | 2^{n} | {row[0][0]:.3f} | {row[1][0]:.3f} |"
                   f" x{row[0][0] / row[1][0]:.2f} | {q} |")
    out.append("")
    return out


def instructions(sift: Path, path: Path, *flags: str) -> int | None:
    """Instructions of the whole process under callgrind: the same count
    for the same binary and input whatever the machine's load."""
    if shutil.which("valgrind") is None:
        return None
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        str(sift), "verify", "--jobs", "1", *flags, str(path)],
                       capture_output=True, text=True, timeout=1800)
    m = re.search(r"refs:\s+([\d,]+)", p.stderr)
    return int(m.group(1).replace(",", "")) if m else None


def inference(sift: Path, tmp: Path) -> list[str]:
    out = ["### The cost of inference where nothing needs it\n",
           "Verifier time of the benchmarked method (`time_ms`, `--jobs 1`), best of"
           f" {REPS}; the programs carry every ghost statement. Times are noisy when"
           " the machine is loaded; the instruction counts (valgrind's callgrind, whole"
           " process: start-up, parsing and the other members included) are not.\n",
           "| program | with inference ms | --no-infer ms | cost | with inference instructions"
           " | --no-infer instructions | cost |", "|---|---|---|---|---|---|---|"]
    cases = [("chain n=1000", base.gen_chain(1000), "Main.main"),
             ("chain n=10000", base.gen_chain(10000), "Main.main"),
             ("ifs n=12", base.gen_ifs(12, "none"), "Main.m"),
             ("ifs n=14", base.gen_ifs(14, "none"), "Main.m")]
    for name, src, member in cases:
        p = tmp / (name.replace(" ", "_").replace("=", "") + ".sift")
        p.write_text(src)
        on = min(method_ms(verify(sift, p, "--jobs", "1")[1], member) for _ in range(REPS))
        off = min(method_ms(verify(sift, p, "--jobs", "1", "--no-infer")[1], member)
                  for _ in range(REPS))
        ir_on, ir_off = instructions(sift, p), instructions(sift, p, "--no-infer")
        ir = (f"{ir_on:,} | {ir_off:,} | {100 * (ir_on - ir_off) / ir_off:+.1f}%"
              if ir_on and ir_off else "- | - | -")
        out.append(f"| {name} | {on:.1f} | {off:.1f} | {100 * (on - off) / off:+.1f}% | {ir} |")
    out.append("")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="write the solver section of RESULTS.md")
    ap.add_argument("--sift", type=Path, default=base.DEFAULT_SIFT)
    ap.add_argument("--quick", action="store_true", help="small n only")
    args = ap.parse_args()
    if args.sift == base.DEFAULT_SIFT:
        subprocess.run(["cargo", "build", "--release"], cwd=base.REPO, check=True,
                       capture_output=True)
    info = base.machine_info()
    md = [BEGIN, "## Solver configuration, failures and parallel paths\n",
          f"`python3 bench/solver.py --write` on {info['date']}, sift {info['commit']},"
          f" {info['nproc']} CPUs ({info['cpu']}), {info['z3']}; load before:"
          f" {info['load_before']}.\n"]
    with tempfile.TemporaryDirectory(prefix="sift-bench-solver-") as d:
        tmp = Path(d)
        md += failures(sift := args.sift, tmp)
        md += parallel(sift, tmp, [10, 12] if args.quick else [12, 14, 16])
        md += inference(sift, tmp)
    md.append(f"Load after: {base.loadavg()}.\n")
    md.append(END)
    text = "\n".join(md) + "\n"
    print(text)
    if args.write:
        results = base.BENCH_DIR / "RESULTS.md"
        old = results.read_text() if results.exists() else ""
        if BEGIN in old and END in old:
            new = old[:old.index(BEGIN)] + text.rstrip("\n") + old[old.index(END) + len(END):]
        else:
            new = old.rstrip("\n") + "\n\n" + text
        results.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
