#!/usr/bin/env python3
"""Issue 19's tables: recall of feedback hunks and precision, per run and per lens.

usage: feedback_tally.py KEY_JSON LABELS_JSONL RUN_DIR...

Each RUN_DIR holds score.json from `council bench score RUN_DIR --truth DATASET --judge ...`:
recall and matching precision at L1 (same file, within 3 lines) and L3 (the judge), overall
and per reviewer (each reviewer's findings matched alone). KEY_JSON and LABELS_JSONL are
judgeprep.py's key and the blind judges' labels: "judged precision" is the share of the
findings a run shows (reported and other notes) that the judges found valid ("valid+minor":
true of the code, if of low value), and "judge-marked recall" the share of feedback items some
shown finding of the run raises, in the judges' opinion ("truth": [ids]).
"""
import collections, json, os, sys

SHOWN = ("reported", "other_note")


def tier(tiers, name):
    for t in tiers:
        if t["tier"] == name:
            return t
    return None


def fmt(x):
    return "–" if x is None else "%.2f" % x


def main():
    key = json.load(open(sys.argv[1]))
    labels = {}
    for line in open(sys.argv[2]):
        if line.strip():
            o = json.loads(line)
            labels[o["item"]] = o
    missing = [i for i, k in key.items() if k["status"] in SHOWN and i not in labels]
    if missing:
        print("warning: %d shown findings without a label: %s" % (len(missing), ", ".join(missing[:10])))
    runs = sys.argv[3:]
    head = ("run", "samples", "truth items", "findings shown/PR", "recall L1", "recall L3 (judge)", "precision L1",
            "precision L3", "judged precision (valid)", "valid+minor", "judge-marked recall")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    lens_rows = []
    for run in runs:
        name = os.path.basename(os.path.normpath(run))
        sc = json.load(open(os.path.join(run, "score.json")))
        l1, l3 = tier(sc["tiers"], "L1"), tier(sc["tiers"], "L3")
        items = [(i, k, labels.get(i, {})) for i, k in key.items() if k["run"] == name and k["status"] in SHOWN]
        valid = sum(1 for _, _, l in items if l.get("label") == "valid")
        true_ = sum(1 for _, _, l in items if l.get("label") in ("valid", "minor"))
        marked = {(k["case"], t) for _, k, l in items for t in (l.get("truth") or [])}
        print("| %s | %d | %d | %.2f | %s | %s | %s | %s | %s (%d/%d) | %s | %s (%d/%d) |" % (
            name, sc["samples"], sc["truth_items"], len(items) / max(1, sc["samples"]),
            fmt(l1["micro"]["recall"]), fmt(l3["micro"]["recall"] if l3 else None),
            fmt(l1["micro"]["precision"]), fmt(l3["micro"]["precision"] if l3 else None),
            fmt(valid / len(items) if items else None), valid, len(items),
            fmt(true_ / len(items) if items else None),
            fmt(len(marked) / sc["truth_items"] if sc["truth_items"] else None), len(marked), sc["truth_items"]))
        for rv in sc["by_reviewer"]:
            r1, r3 = tier(rv["tiers"], "L1"), tier(rv["tiers"], "L3")
            own = [(i, k, l) for i, k, l in items if (k.get("lenses") or [""])[0] == rv["reviewer"]]
            v = sum(1 for _, _, l in own if l.get("label") == "valid")
            lens_rows.append((name, rv["reviewer"], rv["findings"], r1, r3, v, len(own)))
    print()
    head = ("run", "reviewer", "findings", "recall L1", "recall L3 (judge)", "precision L1", "precision L3",
            "judged precision of the findings it owns")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, rev, n, r1, r3, v, own in lens_rows:
        print("| %s | %s | %d | %s | %s | %s | %s | %s (%d/%d) |" % (
            name, rev, n, fmt(r1["micro"]["recall"]), fmt(r3["micro"]["recall"] if r3 else None),
            fmt(r1["micro"]["precision"]), fmt(r3["micro"]["precision"] if r3 else None),
            fmt(v / own if own else None), v, own))


if __name__ == "__main__":
    main()
