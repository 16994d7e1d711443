#!/usr/bin/env python3
"""Make a corpus of real documents for the Spark test from the dev corpus (JSONL of paragraphs).

Each dev document is cut into documents of three consecutive paragraphs; they alternate between
the pre-split form (`{"id", "paragraphs"}`) and plain text (`{"id", "text", "format": "plain"}`).

    python examples/spark/corpus.py ../shared/data/dev.jsonl out.jsonl [--max 3000]
"""

import argparse
import json


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--max", type=int, default=3000)
    args = ap.parse_args()
    n = 0
    with open(args.source, encoding="utf-8") as src, open(args.out, "w", encoding="utf-8") as out:
        for line in src:
            doc = json.loads(line)
            paragraphs = doc["paragraphs"]
            for k in range(0, len(paragraphs) - 2, 3):
                part = paragraphs[k : k + 3]
                id_ = f"{doc['id']}#{k // 3}"
                if n % 2 == 0:
                    record = {"id": id_, "paragraphs": part}
                else:
                    text = "\n\n".join(" ".join(p) for p in part)
                    record = {"id": id_, "text": text, "format": "plain"}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                n += 1
                if n >= args.max:
                    return


if __name__ == "__main__":
    main()
