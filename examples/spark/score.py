#!/usr/bin/env python3
"""Score a JSONL corpus with Segue on Apache Spark.

Each partition's lines are piped through one `segue score --jsonl` process (`RDD.pipe`), which
writes one result line per input line, in order. Spark starts one process per partition and runs
as many partitions at a time as the master allows (`local[2]`: two).

    python examples/spark/score.py --input corpus.jsonl --output results/ [--master local[2]]
        [--partitions 8] [--segue target/release/segue] [-- extra segue arguments…]

The results are written as text files under --output (one `part-*` per partition); each line is
Segue's JSON result for one document, in the order of the input within its partition.
"""

import argparse
import os
import shlex
import shutil
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", required=True, help="JSON lines: {id, text, format?} or {id, paragraphs}")
    ap.add_argument("--output", required=True, help="folder for the results (replaced)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--segue", default="segue", help="the segue binary (absolute path, or on PATH)")
    ap.add_argument("extra", nargs="*", help="more arguments for `segue score --jsonl` (after --)")
    args = ap.parse_args()

    from pyspark.sql import SparkSession  # imported late: --help works without PySpark

    segue = shutil.which(args.segue) or args.segue
    command = [segue, "score", "--jsonl", *args.extra]
    spark = (
        SparkSession.builder.master(args.master)
        .appName("segue-score")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        lines = spark.sparkContext.textFile(os.path.abspath(args.input), minPartitions=args.partitions)
        # Spark runs partitions in parallel; one thread per segue process avoids oversubscribing.
        results = lines.pipe(
            shlex.join(command),
            env={"RAYON_NUM_THREADS": "1", "NO_COLOR": "1"},
            checkCode=True,
        )
        if os.path.exists(args.output):
            shutil.rmtree(args.output)
        results.saveAsTextFile(os.path.abspath(args.output))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
