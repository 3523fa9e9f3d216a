#!/usr/bin/env python3
"""Writes conformance rows whose expected values are conda's own answers.

Reads `input<TAB>fields` lines (fields comma-separated, `<invalid>` for a spec
conda rejects; `match:<record json>` asks whether the spec matches a record)
and prints rows for tests/unit/specs/data/*.tsv, asking conda's oracle
(../shared/oracle/conda_driver.py, run with the test-tools venv). The source
column says where the value came from.

  derive_rows.py --venv build/deps/test-tools --oracle ../shared/oracle \
      --note 'issue 10: parens' < inputs.tsv
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ORACLE_COMMIT = "0f64223"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", required=True)
    parser.add_argument("--oracle", required=True)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    wanted = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
    requests = []
    for i, (text, fields) in enumerate(wanted):
        if fields.startswith("match:"):
            requests.append({"id": i, "op": "match", "s": text, "rec": json.loads(fields[6:])})
        else:
            requests.append({"id": i, "op": "matchspec", "s": text})
    home = Path(tempfile.mkdtemp(prefix="oracle-home-"))
    (home / "condarc").write_text("")
    oracle = Path(args.oracle).resolve()
    env = {"HOME": str(home), "CONDARC": str(home / "condarc"), "PYTHONPATH": str(oracle),
           "PATH": os.environ.get("PATH", "")}
    done = subprocess.run([str(Path(args.venv).absolute() / "bin" / "python"),
                           str(oracle / "conda_driver.py")],
                          input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, text=True, env=env, cwd=home, check=True)
    source = f"derived: conda oracle {ORACLE_COMMIT}" + (f" ({args.note})" if args.note else "")
    for (text, fields), line in zip(wanted, done.stdout.splitlines()):
        answer = json.loads(line)
        if fields.startswith("match:"):
            print(f"{text}\t{fields[6:]}\t{str(answer['r']).lower()}\t{source}")
            continue
        for field in fields.split(","):
            if not answer["ok"]:
                print(f"{text}\t<invalid>\ttrue\t{source}")
                break
            value = answer["str"] if field == "str" else answer["fields"][field]
            value = "<raises>" if value is None and field == "conda_build_form" else value
            value = "<none>" if value is None else value
            print(f"{text}\t{field}\t{str(value).lower() if isinstance(value, bool) else value}"
                  f"\t{source}")


if __name__ == "__main__":
    main()
