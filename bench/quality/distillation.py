"""Topic distillation on a labelled set: which leaves the overlap test picks, what the LLM step makes
of them, whether the details survive, and whether recall still finds every fact.

    .venv/bin/python -m bench.quality.distillation [--services 8] [--lossy 0.05] [--seed 5]

The set: services described by twelve kinds of fact (deploy branch and time, database host, on-call
owner, port and load balancer, rollback cluster, retries, alert channel, log retention, cache TTL,
a dependency, the SLO, the runbook), each full of names, numbers and ids.
  - "restated" services: six kinds of fact, each written twice in other words (12 memories, every
    one overlapping its twin): what distillation is for;
  - "distinct" services: all twelve kinds once each (12 memories, no two saying the same): related
    memories that must stay as they are.
All are written through the API, embedded with the local MiniLM model, and the topic tree is built
by a consolidation run. Then:
1. The overlap test (engram.consolidation.distilling.leaf_overlap) per service at several Jaccard
   thresholds, with the pair Jaccards it rests on (twins vs different facts of one service).
2. Applied runs (steps distill + topics) until no leaf is left, with a Messages API that answers
   from the labels: the wordings of each fact condensed into one memory (its first wording, which
   keeps that source), or two facts to a new memory; nothing when a leaf holds no twins. Leaves
   distilled, members before/after, LLM calls, details kept (numbers, ids and names of the sources
   found in the distilled texts).
3. A lossy model (two facts to a memory; --lossy: that share of its texts lose one number) in a
   fresh namespace: how many of its distillations the check refuses, and whether a lossy text was
   ever stored.
4. Recall before and after: for every fact of a restated service, a question; a hit when the fact's
   detail is in the top 3 results.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
from collections import Counter
from typing import Any
from uuid import UUID

from bench.harness import local_stack, new_tenant
from engram_local.json_stand_in import JsonStandIn, Request, message

SERVICES = [
    "payments", "billing", "search", "checkout", "inventory", "shipping", "auth", "reporting",
    "pricing", "catalog", "notifications", "ledger", "refunds", "loyalty", "reviews", "gateway",
]  # fmt: skip
OWNERS = ["Maria Lopez", "Ken Ito", "Ana Costa", "Liam Walsh", "Priya Nair", "Tomas Berg", "Ewa Nowak", "Sam Okafor"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-2", "ap-south-1"]
MONTHS = ["January", "March", "May", "July", "September", "November"]

# (kind, first wording, second wording or None, question, the slot whose value answers it)
FACTS: list[tuple[str, str, str | None, str, str]] = [
    (
        "deploy",
        "The {svc} service deploys from the {branch} branch every {day} at {hh}:00 UTC.",
        "Every {day} at {hh}:00 UTC the {svc} service is deployed from the {branch} branch.",
        "which branch does the {svc} service deploy from",
        "branch",
    ),
    (
        "database",
        "The {svc} service database is {host} running PostgreSQL {pg} in {region}.",
        "The {svc} service keeps its data in {host}, a PostgreSQL {pg} database in {region}.",
        "which database host does the {svc} service use",
        "host",
    ),
    (
        "owner",
        "The {svc} service on-call is owned by {owner} until {date}.",
        "{owner} owns the {svc} service on-call rota until {date}.",
        "who is on call for the {svc} service",
        "owner",
    ),
    (
        "port",
        "The {svc} service API listens on port {port} behind the load balancer {lb}.",
        "Behind the load balancer {lb} the {svc} service API answers on port {port}.",
        "which port does the {svc} service API listen on",
        "port",
    ),
    (
        "rollback",
        "Roll back the {svc} service with kubectl rollout undo in the cluster {cluster}.",
        "To undo a bad {svc} service release, run kubectl rollout undo in the cluster {cluster}.",
        "how do I roll back the {svc} service",
        "cluster",
    ),
    (
        "retries",
        "The {svc} service retries failed calls {retries} times with a {backoff} second backoff.",
        "Failed {svc} service calls are retried {retries} times, waiting {backoff} seconds between tries.",
        "how often does the {svc} service retry failed calls",
        "backoff",
    ),
    (
        "alerts",
        "Alerts for the {svc} service go to the {svc}-alerts-{n} channel and page after {m} minutes.",
        None,
        "",
        "",
    ),
    ("logs", "The {svc} service logs are kept for {days} days in the {svc}-logs-{n} index.", None, "", ""),
    ("cache", "The {svc} service caches responses in Redis for {ttl} seconds.", None, "", ""),
    ("depends", "The {svc} service depends on the {other} service for every request.", None, "", ""),
    ("slo", "The {svc} service SLO is {slo} percent availability over {window} days.", None, "", ""),
    ("runbook", "The {svc} runbook lives at wiki/{svc}/runbook-{n} and was reviewed on {date2}.", None, "", ""),
]
RESTATED = [f for f in FACTS if f[2] is not None]


def slots(rng: random.Random, svc: str, others: list[str]) -> dict[str, str]:
    return {
        "svc": svc,
        "branch": f"release-{rng.randint(2020, 2026)}.{rng.randint(1, 12)}",
        "day": rng.choice(DAYS),
        "hh": f"{rng.randint(8, 18):02d}",
        "host": f"{svc[:4]}-db-{rng.randint(1, 99):02d}",
        "pg": str(rng.choice([14, 15, 16])),
        "region": rng.choice(REGIONS),
        "owner": rng.choice(OWNERS),
        "date": f"{rng.randint(1, 28)} {rng.choice(MONTHS)} 2026",
        "port": str(rng.randint(8000, 9999)),
        "lb": f"lb-{svc[:4]}-{rng.randint(1, 9)}",
        "cluster": f"prod-{rng.choice(['eu', 'us', 'ap'])}-{rng.randint(1, 5)}",
        "retries": str(rng.randint(2, 6)),
        "backoff": str(rng.choice([5, 10, 15, 30, 45, 60])),
        "n": str(rng.randint(1, 9)),
        "m": str(rng.randint(2, 30)),
        "days": str(rng.choice([7, 14, 30, 90])),
        "ttl": str(rng.choice([30, 60, 120, 300, 600])),
        "other": rng.choice([o for o in others if o != svc]),
        "slo": rng.choice(["99.9", "99.95", "99.5", "99.99"]),
        "window": str(rng.choice([7, 28, 30])),
        "date2": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    }


class Labelled:
    """The memories, and what each one is: (service, fact kind, restated or not)."""

    def __init__(self, services: int, seed: int) -> None:
        rng = random.Random(seed)
        names = SERVICES[: 2 * services] if 2 * services <= len(SERVICES) else [f"svc{i}" for i in range(2 * services)]
        self.restated = names[:services]
        self.distinct = names[services:]
        self.texts: list[str] = []
        self.label: dict[str, tuple[str, str]] = {}  # text -> (service, fact kind)
        self.questions: list[tuple[str, str]] = []  # (question, the detail that answers it)
        for svc in names:
            values = slots(rng, svc, names)
            facts = RESTATED if svc in self.restated else FACTS
            for kind, first, second, question, answer in facts:
                wordings = [first, second] if svc in self.restated and second else [first]
                for w in wordings:
                    text = w.format(**values)
                    self.texts.append(text)
                    self.label[text] = (svc, kind)
                if svc in self.restated:
                    self.questions.append((question.format(**values), values[answer]))


# --- a Messages API that answers from the labels -------------------------------------------------


class LabelledClaude:
    """Distils the memories of a prompt as a careful model would: the wordings of one fact become
    its first wording (`per_memory` facts to a distilled memory); nothing when no fact is stated
    twice. With `lossy` > 0 that share of the distilled texts lose one number."""

    def __init__(self, labelled: Labelled, lossy: float, seed: int, per_memory: int = 1) -> None:
        self.labelled, self.lossy, self.rng, self.per_memory = labelled, lossy, random.Random(seed), per_memory
        self.calls = 0
        self.lossy_texts: list[str] = []

        def respond(request: Request) -> dict[str, Any]:
            prompt = request.body["messages"][0]["content"]
            text = self.answer(prompt)
            return message(request.body, text, (len(prompt) // 4 + 250, len(text) // 4 + 5))

        self.stand_in = JsonStandIn(respond)
        self.url = self.stand_in.url

    def answer(self, prompt: str) -> str:
        self.calls += 1
        numbered = re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", prompt, re.M)
        by_fact: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for number, text in numbered:
            if text in self.labelled.label:
                by_fact.setdefault(self.labelled.label[text], []).append((int(number), text))
        twins = [members for members in by_fact.values() if len(members) > 1]
        out = []
        for i in range(0, len(twins), self.per_memory):
            group = twins[i : i + self.per_memory]
            content = " ".join(members[0][1] for members in group)
            if self.lossy and self.rng.random() < self.lossy:
                numbers = re.findall(r"\d+", content)
                if numbers:
                    content = content.replace(self.rng.choice(numbers), "", 1)
                    self.lossy_texts.append(content.strip())
            out.append({"sources": [n for members in group for n, _t in members], "content": content})
        return json.dumps({"distilled": out})

    def stop(self) -> None:
        self.stand_in.close()


# --- through the API ---------------------------------------------------------------------------


class Api:
    def __init__(self, key: str) -> None:
        self.key = key

    def __call__(self, method: str, path: str, body: Any = None) -> Any:
        from engram_local import gateway

        headers = {"content-type": "application/json", "authorization": f"Bearer {self.key}"}
        resp = gateway.handle(method, path, headers, b"" if body is None else json.dumps(body).encode())
        assert resp.status < 300, (resp.status, resp.body[:500])
        return json.loads(resp.body) if resp.body else None


def write(api: Api, namespace: str, texts: list[str]) -> None:
    for start in range(0, len(texts), 100):
        items = [{"namespace": namespace, "content": t} for t in texts[start : start + 100]]
        api("POST", "/v1/memories/batch", {"items": items})


def run(api: Api, dsn: str, tenant_id: str, namespace: str, steps: list[str]) -> dict[str, Any]:
    from engram.consolidation import service

    started = api("POST", "/v1/consolidate", {"namespace": namespace, "steps": steps})
    service.run_cycle(dsn, UUID(tenant_id), UUID(started["id"]), time_budget_s=3600)
    return api("GET", f"/v1/consolidation-runs/{started['id']}?limit=200")


def leaves(api: Api, namespace: str) -> list[tuple[str, list[str]]]:
    """Each leaf with its members' texts."""

    def walk(nodes: list[dict[str, Any]]) -> list[str]:
        out: list[str] = []
        for n in nodes:
            out += [n["id"]] if n["is_leaf"] else walk(n["children"])
        return out

    ids = walk(api("GET", f"/v1/topics?namespace={namespace}")["topics"])
    found = []
    for start in range(0, len(ids), 50):
        body = {"ids": ids[start : start + 50], "limit": 100, "summary_chars": 4000}
        for t in api("POST", "/v1/topics/lookup", body)["topics"]:
            found.append((t["id"], [m["summary"] for m in t["memories"]]))
    return found


def recall_hits(api: Api, namespace: str, questions: list[tuple[str, str]]) -> tuple[int, list[str]]:
    """How many questions find their detail in the top 3, and the top result of each one missed."""
    hits, missed = 0, []
    for question, detail in questions:
        body = {"query": question, "namespace": namespace, "limit": 3, "touch": False, "diversify": False}
        results = api("POST", "/v1/recall", body)["results"]
        if any(detail in r["chunk"]["text"] for r in results):
            hits += 1
        else:
            missed.append(f"{question!r} ({detail}) -> {[r['chunk']['text'][:70] for r in results]}")
    return hits, missed


def distil_until_done(api: Api, dsn: str, tenant_id: str, namespace: str) -> list[dict[str, Any]]:
    """Applied runs of distill + topics until a run distils nothing; returns every distill action."""
    actions: list[dict[str, Any]] = []
    while True:
        got = [a for a in run(api, dsn, tenant_id, namespace, ["distill", "topics"])["actions"]["items"]]
        mine = [a for a in got if a["step"] == "distill"]
        actions += mine
        if not mine:
            return actions


def spread(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"min {xs[0]:.2f} / median {xs[len(xs) // 2]:.2f} / max {xs[-1]:.2f} ({len(xs)} pairs)"


def overlap_report(labelled: Labelled) -> None:
    """The overlap test on each service as a leaf of its own, at several thresholds, and the pair
    Jaccards it rests on."""
    from engram.consolidation.distilling import leaf_overlap
    from engram.consolidation.settings import consolidation_settings
    from engram.consolidation.similarity import common_tokens, jaccard, tokens

    s = consolidation_settings()  # the step counts the namespace's tokens as reconcile does
    common = common_tokens(labelled.texts, s.consolidation_reconcile_rare_share, s.consolidation_reconcile_rare_min)
    twins: list[float] = []
    different: list[float] = []
    plain_twins: list[float] = []
    plain_different: list[float] = []
    by_service = {
        svc: [t for t in labelled.texts if labelled.label[t][0] == svc] for svc in labelled.restated + labelled.distinct
    }
    for texts in by_service.values():
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                same = labelled.label[a] == labelled.label[b]
                (twins if same else different).append(jaccard(tokens(a) - common, tokens(b) - common))
                (plain_twins if same else plain_different).append(jaccard(tokens(a), tokens(b)))
    print(f"{len(common)} tokens common in the set (in more than {s.consolidation_reconcile_rare_min} memories)")
    print(f"Jaccard of all tokens, one fact in two wordings: {spread(plain_twins)}")
    print(f"Jaccard of all tokens, two facts of one service:  {spread(plain_different)}")
    print(f"Jaccard of uncommon tokens, one fact in two wordings: {spread(twins)}")
    print(f"Jaccard of uncommon tokens, two facts of one service:  {spread(different)}")
    print("threshold | restated services that qualify (>= 10 of 12 overlap) | distinct services that qualify")
    for threshold in (0.3, 0.35, 0.4, 0.45, 0.5):
        qualify: Counter[str] = Counter()
        for svc, texts in by_service.items():
            if len(leaf_overlap(texts, threshold, common).overlapping) >= 10:
                qualify["restated" if svc in labelled.restated else "distinct"] += 1
        print(
            f"   {threshold:.2f}   | {qualify['restated']} of {len(labelled.restated)}"
            f" | {qualify['distinct']} of {len(labelled.distinct)}"
        )


def use_model(model: LabelledClaude) -> None:
    from engram_local.stack import LocalStack

    os.environ.update(
        ENGRAM_LLM_LEVEL="auto",
        ANTHROPIC_API_KEY="sk-bench",
        ENGRAM_ANTHROPIC_BASE_URL=model.url,
        ENGRAM_LLM_BACKOFF_S="0.01",
    )
    LocalStack.refresh_settings()


def truthful(api: Api, stack: Any, tenant_id: str, labelled: Labelled, namespace: str, model: LabelledClaude) -> None:
    """Distillation until done with a model that keeps every detail: what it condensed, what it kept,
    and recall of every restated fact before and after."""
    from engram.consolidation.distilling import details, missing_details

    before, _missed = recall_hits(api, namespace, labelled.questions)
    use_model(model)
    t0 = time.perf_counter()
    actions = distil_until_done(api, stack.dsn, tenant_id, namespace)
    seconds = time.perf_counter() - t0
    applied = [a for a in actions if a["action"] == "distill"]
    content = {}  # memory id -> text, of every source and distilled memory
    kept = wanted = 0
    for a in applied:
        for d in a["details"]["distilled"]:
            for m in [d["memory_id"], *d["sources"]]:
                content[m] = api("GET", f"/v1/memories/{m}")["content"]
            for s in d["sources"]:
                want = details(content[s])
                lost = missing_details([content[s]], content[d["memory_id"]])
                wanted, kept = wanted + len(want), kept + len(want) - len(lost)
    sources = [s for a in applied for d in a["details"]["distilled"] for s in d["sources"]]
    created = [d["memory_id"] for a in applied for d in a["details"]["distilled"]]
    of_distinct = sum(1 for s in sources if labelled.label[content[s]][0] in labelled.distinct)
    restated = sum(1 for t in labelled.texts if labelled.label[t][0] in labelled.restated)
    stack.embed_poller.drain()
    after, missed = recall_hits(api, namespace, labelled.questions)
    print(
        f"  {len(applied)} leaf distillations over the runs, {dict(Counter(a['action'] for a in actions))};"
        f" {model.calls} LLM calls, {seconds:.1f} s\n"
        f"  memories: {len(sources)} sources -> {len(created)} distilled; the namespace {len(labelled.texts)} ->"
        f" {len(labelled.texts) - len(sources) + len(created)} live ({restated} were restatements);"
        f" memories of distinct services distilled: {of_distinct}\n"
        f"  details of the sources in their distilled text: {kept} of {wanted} ({100 * kept / max(1, wanted):.1f}%)\n"
        f"  recall, the fact's detail in the top 3: before {before}/{len(labelled.questions)},"
        f" after {after}/{len(labelled.questions)}"
    )
    for line in missed:
        print(f"    missed after: {line}")
    model.stop()


def scale(api: Api, stack: Any, tenant_id: str, n: int, seed: int) -> None:
    """The step's own cost on a namespace of about `n` memories (half restated services): a plan
    (ranking every leaf, no call) and an applied run with the truthful model, timed per step."""
    labelled = Labelled(max(1, n // 24), seed)
    t0 = time.perf_counter()
    write(api, "scale", labelled.texts)
    stack.embed_poller.drain()
    run(api, stack.dsn, tenant_id, "scale", ["topics"])
    print(
        f"\nscale: {len(labelled.texts):,} memories written, embedded and clustered in {time.perf_counter() - t0:.0f} s"
    )
    model = LabelledClaude(labelled, 0.0, seed, 1)
    use_model(model)
    for dry_run in (True, False):
        body = {"namespace": "scale", "steps": ["distill"], "dry_run": dry_run}
        started = api("POST", "/v1/consolidate", body)
        from engram.consolidation import service

        t1 = time.perf_counter()
        service.run_cycle(stack.dsn, UUID(tenant_id), UUID(started["id"]), time_budget_s=3600)
        wall = time.perf_counter() - t1
        got = api("GET", f"/v1/consolidation-runs/{started['id']}?limit=200")
        (counts,) = got["step_counts"]
        print(
            f"  {'plan' if dry_run else 'applied'}: {counts['seconds']:.2f} s in the step ({wall:.2f} s wall),"
            f" {dict(Counter(a['action'] for a in got['actions']['items']))}, {got['llm_calls']} LLM calls"
        )
    model.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--services", type=int, default=8, help="restated services, and as many distinct ones")
    parser.add_argument("--lossy", type=float, default=0.05, help="share of the lossy model's texts missing a number")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--scale", type=int, default=0, help="also time the step on a namespace of this many memories")
    args = parser.parse_args()
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ["ENGRAM_LLM_LEVEL"] = "off"

    labelled = Labelled(args.services, args.seed)
    print(
        f"labelled set: {len(labelled.restated)} restated services x 12 memories (6 facts twice),"
        f" {len(labelled.distinct)} distinct services x 12 memories (12 facts once): {len(labelled.texts)} memories"
    )
    overlap_report(labelled)

    with local_stack(durable=False) as stack:
        made = new_tenant(stack, "distillation", ["read", "write", "admin"])
        api, tenant_id = Api(made.key), str(made.tenant_id)
        namespaces = ("one-fact", "two-facts", "lossy")
        t0 = time.perf_counter()
        for namespace in namespaces:
            write(api, namespace, labelled.texts)
        stack.embed_poller.drain()
        for namespace in namespaces:
            run(api, stack.dsn, tenant_id, namespace, ["topics"])
        print(f"\nwritten, embedded and clustered {len(namespaces)} times in {time.perf_counter() - t0:.0f} s")
        tree = leaves(api, "one-fact")
        sizes = sorted((len(texts) for _id, texts in tree), reverse=True)
        one_service = sum(1 for _id, texts in tree if len({labelled.label[t][0] for t in texts}) == 1)
        one_kind = sum(1 for _id, texts in tree if len({labelled.label[t][1] for t in texts}) == 1)
        print(
            f"topic tree: {len(tree)} leaves of {sizes} members; {one_service} hold one service only,"
            f" {one_kind} one kind of fact only"
        )

        print("\ntruthful model, each fact's wordings condensed into one memory:")
        truthful(api, stack, tenant_id, labelled, "one-fact", LabelledClaude(labelled, 0.0, args.seed, 1))
        print("truthful model, two facts to a distilled memory:")
        truthful(api, stack, tenant_id, labelled, "two-facts", LabelledClaude(labelled, 0.0, args.seed, 2))

        lossy = LabelledClaude(labelled, args.lossy, args.seed, 2)
        use_model(lossy)
        actions = distil_until_done(api, stack.dsn, tenant_id, "lossy")
        counts = Counter(a["action"] for a in actions)
        import psycopg

        with psycopg.connect(stack.dsn) as conn:  # every text distillation wrote, as the owner
            rows = conn.execute(
                "SELECT content FROM memories WHERE tenant_id = %s AND namespace = 'lossy' AND source = 'distill'",
                (tenant_id,),
            ).fetchall()
        stored = {r[0] for r in rows}
        slipped = [t for t in lossy.lossy_texts if t in stored]
        print(
            f"\nlossy model ({args.lossy:.0%} of its texts lose a number): {lossy.calls} calls,"
            f" {len(lossy.lossy_texts)} lossy texts; distillations refused {counts['distill_refused']},"
            f" applied {counts['distill']}, declined {counts['distill_declined']};"
            f" distilled memories written: {len(stored)}, lossy ones among them: {len(slipped)} {slipped[:3]}"
        )
        lossy.stop()
        if args.scale:
            scale(api, stack, tenant_id, args.scale, args.seed)


if __name__ == "__main__":
    main()
