#!/usr/bin/env python3
"""Issue 19's tables: recall of feedback hunks and precision, per run and per lens.

usage: feedback_tally.py KEY_JSON LABELS_JSONL RUN_DIR...

Each RUN_DIR holds score.json from `council bench score RUN_DIR --truth DATASET --judge ...`:
recall and matching precision at L1 (same file, within 3 lines) and L3 (the judge), overall
and per reviewer (each reviewer's findings matched alone). KEY_JSON and LABELS_JSONL are
judgeprep.py's key and the blind judges' labels. A run shows its findings up front (reported
inline, or other notes in the body) and, after the validator, the minor ones in one collapsed
list; bench score counts both as predictions. "judged valid" is the share of shown findings
the judges labelled valid, up front and in all; "judged true" counts minor labels too (true of
the code, if of low value); "judge-marked recall" is the share of feedback items that some
shown finding raises, in the judges' opinion ("truth": [ids]).
"""
import collections, json, os, sys

UP_FRONT = ("reported", "other_note")
SHOWN = UP_FRONT + ("minor",)


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
    head = ("run", "samples", "truth items", "shown/PR (up front)", "recall L1", "recall L3 (judge)", "precision L1",
            "precision L3", "judged valid: up front", "judged valid: all shown", "judged true: all shown",
            "judge-marked recall: up front", "judge-marked recall: all shown")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    lens_rows = []

    def share(items, ok):
        n = sum(1 for _, _, l in items if ok(l))
        return "%s (%d/%d)" % (fmt(n / len(items) if items else None), n, len(items))

    def marked(items, truth_items):
        m = {(k["case"], t) for _, k, l in items for t in (l.get("truth") or [])}
        return "%s (%d/%d)" % (fmt(len(m) / truth_items if truth_items else None), len(m), truth_items)

    for run in runs:
        name = os.path.basename(os.path.normpath(run))
        sc = json.load(open(os.path.join(run, "score.json")))
        l1, l3 = tier(sc["tiers"], "L1"), tier(sc["tiers"], "L3")
        items = [(i, k, labels.get(i, {})) for i, k in key.items() if k["run"] == name and k["status"] in SHOWN]
        front = [x for x in items if x[1]["status"] in UP_FRONT]
        n = max(1, sc["samples"])
        print("| %s | %d | %d | %.2f (%.2f) | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, sc["samples"], sc["truth_items"], len(items) / n, len(front) / n,
            fmt(l1["micro"]["recall"]), fmt(l3["micro"]["recall"] if l3 else None),
            fmt(l1["micro"]["precision"]), fmt(l3["micro"]["precision"] if l3 else None),
            share(front, lambda l: l.get("label") == "valid"), share(items, lambda l: l.get("label") == "valid"),
            share(items, lambda l: l.get("label") in ("valid", "minor")),
            marked(front, sc["truth_items"]), marked(items, sc["truth_items"])))
        for rv in sc["by_reviewer"]:
            r1, r3 = tier(rv["tiers"], "L1"), tier(rv["tiers"], "L3")
            own = [(i, k, l) for i, k, l in items if (k.get("lenses") or [""])[0] == rv["reviewer"]]
            v = sum(1 for _, _, l in own if l.get("label") == "valid")
            lens_rows.append((name, rv["reviewer"], rv["findings"], r1, r3, v, len(own)))
    print()
    head = ("run", "reviewer", "findings", "recall L1", "recall L3 (judge)", "precision L1", "precision L3",
            "judged valid of the shown findings it owns")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, rev, n, r1, r3, v, own in lens_rows:
        print("| %s | %s | %d | %s | %s | %s | %s | %s (%d/%d) |" % (
            name, rev, n, fmt(r1["micro"]["recall"]), fmt(r3["micro"]["recall"] if r3 else None),
            fmt(r1["micro"]["precision"]), fmt(r3["micro"]["precision"] if r3 else None),
            fmt(v / own if own else None), v, own))


if __name__ == "__main__":
    main()
