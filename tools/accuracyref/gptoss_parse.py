"""Random model outputs and what gpt-oss-120b's eval_accuracy.py extracts
from them: parse_multiple_choice (A-D and A-J), parse_aime_answer,
parse_code and parse_boxed_math, for internal/bench/gptoss's TestParseOfficial
(GPTOSS_PARSE=FILE). The outputs are built from the pieces the patterns
look for: harmony markers (corrupted ones too), Answer/ANSWER/FINAL
ANSWER, letters, digits (Arabic-Indic, fullwidth), \\boxed{, code fences,
markdown bold, Python's Unicode spaces, escaped newlines, word characters
beyond ASCII.

Usage: gptoss_parse.py EVAL_ACCURACY_DIR COUNT SEED OUT.json (PYTHONPATH
must reach tools/accuracyref/shims, for transformers)."""
import json
import random
import sys

sys.path.insert(0, sys.argv[1])
import eval_accuracy as ev  # noqa: E402

PIECES = ["<|channel|>", "final", "analysis", "<|message|>", "<|return|>", "<|end|>", "<|start|>", "final 明",
          "Answer", "ANSWER", "answer", "FINAL", "Final", "FINAL ANSWER", "Answer:", ":", ".", "=", "(", ")", "[", "]",
          "'", '"', "**", "*", " ", "  ", "\n", "\t", "\u202f", "\u00a0", "\u3000", "\x1c", "\\n", "\\'",
          "A", "B", "C", "D", "E", "J", "K", "a", "b", "c", "d", "j", "x", "é", "_", "ſ", "\u212a",
          "1", "2", "7", "42", "999", "1000", "007", "٤", "٢", "７", "\\boxed{", "\\boxed{ ", "}", "{",
          "```python\n", "```py\n", "```\n", "```", "print(1)", "\n```", "so", "the", "is"]


# Half the outputs are drawn from the AIME patterns' pieces alone.
AIME = ["Answer:", "answer:", "ANSWER:", " ", "\u202f", "\n", "42", "7", "0", ".", "5", "٤", "٢", "x", "_", "\\boxed{", "}",
        " }", "{", "1000", "-"]


def text(rng):
    pieces = AIME if rng.random() < 0.5 else PIECES
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))


def main():
    count, seed, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        t = text(rng)
        aime = ev.parse_aime_answer(t)
        rows.append({"text": t, "gpqa": ev.parse_multiple_choice(t, "D"), "mmlu": ev.parse_multiple_choice(t, "J"),
                     "aime": aime, "code": ev.parse_code(t), "math": ev.parse_boxed_math(t)})
    with open(out, "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
