"""Compares the `RESULT {...}` lines two runs of a GPU check printed (gpuenv's
build and the machine's own pip-installed one), as gpu_check.sh and
gpu_check_part2.sh ask: for each timing KEY, gpuenv's time over pip's must be
at most 1.10; `--also KEY` prints a timing without judging it.

    python compare_results.py GPUENV.txt PIP.txt KEY... [--also KEY...]
"""
import argparse
import json
import sys


def result(path):
    with open(path) as lines:
        for line in lines:
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ours")
    parser.add_argument("theirs")
    parser.add_argument("keys", nargs="+")
    parser.add_argument("--also", nargs="*", default=[])
    args = parser.parse_args()
    ours, theirs = result(args.ours), result(args.theirs)
    if not ours or not theirs:
        print("COMPARE missing a result")
        return 1
    worst = 0.0
    for key in args.keys + args.also:
        ratio = ours[key] / theirs[key]
        judged = key in args.keys
        if judged:
            worst = max(worst, ratio)
        print(f"COMPARE {key}: gpuenv {ours[key] * 1e3:.3f} ms, pip {theirs[key] * 1e3:.3f} ms, ratio {ratio:.3f}"
              + ("" if judged else " (not judged)"))
    print(f"COMPARE worst ratio {worst:.3f} (at most 1.10)")
    return 0 if worst <= 1.10 else 1


if __name__ == "__main__":
    sys.exit(main())
