#!/usr/bin/env python3
"""Numbers for a set of runs, from the reviews and a blind judge's labels.

usage: tally.py KEY_JSON LABELS_JSONL RUN_DIR...

LABELS_JSONL has one object per finding item of judgeprep.py:
  {"item": "i1a2b3c4d", "issue": "c1", "label": "valid" | "minor" | "wrong", "truth": "fix-..." or null}
"issue" groups items that make the same point (the judge's clusters, across runs); "truth"
names the known bug an item catches. Shown means reported or other_note (what a reader is asked
to look at); minor notes are counted apart.
"""
import collections, json, os, sys

SHOWN = ("reported", "other_note")


def prompt(u):
    return u.get("input_tokens", 0) + u.get("cache_read_tokens", 0) + u.get("cache_write_tokens", 0)


def main():
    key = json.load(open(sys.argv[1]))
    labels = {}
    for line in open(sys.argv[2]):
        if line.strip():
            o = json.loads(line)
            labels[o["item"]] = o
    missing = [i for i in key if i not in labels]
    if missing:
        print("warning: %d items without a label: %s" % (len(missing), ", ".join(missing[:10])))
    by_run = collections.defaultdict(list)
    for item, k in key.items():
        by_run[k["run"]].append((item, k, labels.get(item, {})))
    rows = []
    for run in sys.argv[3:]:
        name = os.path.basename(os.path.normpath(run))
        cases = sorted(f[:-5] for f in os.listdir(os.path.join(run, "reviews")) if f.endswith(".json"))
        caught, caught_minor, inline, shown, minor, dups, valid_inline, valid_issues, rejected_real, rejected, valid_minor = set(), set(), 0, 0, 0, 0, 0, 0, 0, 0, 0
        rev_prompt = val_prompt = out_tokens = 0
        for c in cases:
            rep = json.load(open(os.path.join(run, "reviews", c + ".json")))
            for rv in rep.get("reviewers") or []:
                rev_prompt += prompt(rv.get("usage") or {})
                out_tokens += (rv.get("usage") or {}).get("output_tokens", 0)
            rev_prompt += prompt((rep.get("usage") or {}).get("cache_warmup") or {})
            vu = (rep.get("validation") or {}).get("usage") or {}
            val_prompt += prompt(vu)
            out_tokens += vu.get("output_tokens", 0)
            items = [(i, k, l) for i, k, l in by_run[name] if k["case"] == c]
            issues = set()
            valid = set()
            for i, k, l in items:
                st = k["status"]
                if st in SHOWN:
                    shown += 1
                    issues.add(l.get("issue") or i)
                    if l.get("label") == "valid":
                        valid.add(l.get("issue") or i)
                    if l.get("truth"):
                        caught.add((c, l["truth"]))
                if st == "reported":
                    inline += 1
                    valid_inline += l.get("label") == "valid"
                if st == "minor":
                    minor += 1
                    valid_minor += l.get("label") == "valid"
                    if l.get("truth"):
                        caught_minor.add((c, l["truth"]))
                if st == "filtered" and k["filter_reason"].startswith("validator:"):
                    rejected += 1
                    rejected_real += l.get("label") == "valid"
            dups += sum(1 for i, k, l in items if k["status"] in SHOWN) - len(issues)
            valid_issues += len(valid)
        n = max(1, len(cases))
        rows.append((name, len(cases), "%d (%d)" % (len(caught), len(caught | caught_minor)), inline / n, shown / n, minor / n, dups / n, valid_issues,
                     (valid_inline / inline) if inline else 0, rejected, rejected_real, valid_minor, rev_prompt / n, val_prompt / n, out_tokens / n))
    head = ("run", "cases", "bugs caught (with minor notes)", "inline/case", "shown/case", "minor/case", "dups/case", "distinct valid issues",
            "inline valid", "validator rejections", "of them real", "minor notes judged valid", "reviewer prompt tok/case", "validator prompt tok/case", "output tok/case")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %d | %.0f%% | %d | %d | %d | %.0f | %.0f | %.0f |" % (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], 100 * r[8], r[9], r[10], r[11], r[12], r[13], r[14]))


if __name__ == "__main__":
    main()
