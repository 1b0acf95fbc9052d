"""Stand-in for tabulate: one line per row, each cell as tabulate's
default float format writes it (format(v, "g")), cells joined by " | "
(the form of mlperf-host's qwen3-vl details, which verify.sh compares)."""


def tabulate(rows, headers=(), tablefmt=None):
    def cell(v):
        return format(v, "g") if isinstance(v, float) else str(v)

    lines = [" | ".join(str(h) for h in headers)]
    lines += [" | ".join(cell(v) for v in row) for row in rows]
    return "\n".join(lines)
