"""The benchmark's table: figures (median of runs with the spread min–max, target, PASS/MISS,
note), ratios between two tools, and the Markdown table Scripts/bench prints."""
import statistics


def fmt_rows(rows):
    if rows >= 1_000_000 and rows % 1_000_000 == 0:
        return f"{rows // 1_000_000}M"
    if rows >= 1000 and rows % 1000 == 0:
        return f"{rows // 1000}k"
    return str(rows)


class Figures:
    """The table's rows, in order, and the raw data behind them."""

    def __init__(self):
        self.rows = []
        self.raw = {}

    def add(self, label, samples=None, unit="", target="", passed=None, value=None, spread=None, note="", digits=2,
            runs=None):
        """A figure: the median of `samples` (or a given `value`) with the spread min–max."""
        if samples:
            value = statistics.median(samples)
            spread = (min(samples), max(samples))
            runs = len(samples)
        self.rows.append({"figure": label, "value": value, "spread": spread, "runs": runs,
                          "unit": unit, "target": target, "passed": passed, "note": note, "digits": digits})

    def unavailable(self, label, target, why):
        self.rows.append({"figure": label, "value": None, "spread": None, "runs": None, "unit": "", "target": target,
                          "passed": None, "note": why, "digits": 0})


def ratio_spread(num, den):
    """Median ratio and its spread from the samples' extremes."""
    return statistics.median(num) / statistics.median(den), (min(num) / max(den), max(num) / min(den))


def fmt_number(v, digits):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if abs(v) >= 10000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def table(figs, machine):
    """The figures as one Markdown table, then the machine."""
    header = ("figure", "median", "spread (min–max)", "runs", "target", "result", "note")
    body = []
    for r in figs.rows:
        value = fmt_number(r["value"], r["digits"])
        if r["value"] is not None and r["unit"]:
            value += ("" if r["unit"] == "×" else " ") + r["unit"]
        spread = "" if not r["spread"] or r["spread"][0] is None else \
            f"{fmt_number(r['spread'][0], r['digits'])}–{fmt_number(r['spread'][1], r['digits'])}"
        result = "n/a" if r["value"] is None else {True: "PASS", False: "MISS", None: ""}[r["passed"]]
        body.append((r["figure"], value, spread, str(r["runs"] or ""), r["target"], result, r["note"]))
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    fmt = lambda row: ("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |").replace("|  |", "| |")
    lines = [fmt(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines.extend(fmt(row) for row in body)
    lines.append("")
    lines.append("machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()))
    return "\n".join(lines)
