"""Calibrate consolidation's cosine thresholds for an embedding model on labelled pairs.

Three kinds of pairs, written for this purpose (ops notes, preferences, project facts):
  duplicate  the same fact restated (case, punctuation, word order, a few words added or dropped)
  update     the same subject with newer information (a value, name, date or place changed)
  related    the same topic, a different fact (must never merge or supersede)

For each kind it prints the cosine and token-Jaccard spread, then sweeps the near-duplicate
cosine threshold through the whole rule (engram.consolidation.similarity.classify_pair): how many
duplicates merge (recall) and how many updates / related pairs would wrongly merge, and which
updates and related pairs land in the reconcile window (they go to the LLM, which decides).

    .venv/bin/python -m bench.quality.consolidation_thresholds            # the local MiniLM model
    .venv/bin/python -m bench.quality.consolidation_thresholds --json     # only the chosen values
    .venv/bin/python -m bench.quality.consolidation_thresholds --store    # write them to the space's row
"""

from __future__ import annotations

import argparse
import json
import statistics
from datetime import UTC, datetime, timedelta

from engram.consolidation.similarity import (
    SimilarityThresholds,
    classify_pair,
    common_tokens,
    jaccard,
    shared_rare_tokens,
    tokens,
)

DUPLICATES = [
    ("The staging database is db-stage-01 in eu-west-1.", "the staging database is db-stage-01 in eu-west-1"),
    ("Deploys to production happen on Tuesdays and Thursdays.", "Production deploys happen on Tuesdays and Thursdays."),
    ("The user prefers dark mode in every editor.", "User prefers dark mode in every editor"),
    ("Always run the migrations before deploying the API.", "Always run migrations before deploying the API!"),
    ("The on-call rotation changes every Monday at 09:00 UTC.", "On-call rotation changes every Monday at 09:00 UTC."),
    ("Maria owns the billing service.", "The billing service is owned by Maria."),
    (
        "The API rate limit is 600 requests per minute per key.",
        "The API rate limit is 600 requests per minute per API key.",
    ),
    ("Use pnpm, not npm, in the frontend repository.", "In the frontend repository use pnpm, not npm."),
    ("The design review for the search page is on 2026-03-12.", "Design review for the search page: 2026-03-12."),
    (
        "Backups of the orders database run nightly at 02:00 UTC.",
        "Backups of the orders database run nightly at 02:00 UTC to S3.",
    ),
    ("The user's name is Priya and she works in Lisbon.", "The user is Priya; she works in Lisbon."),
    ("Never commit secrets to the repository.", "Never commit secrets to the repo."),
    ("The mobile app is written in Kotlin and Swift.", "The mobile app is written in Swift and Kotlin."),
    (
        "Invoices are generated on the first day of each month.",
        "Invoices get generated on the first day of every month.",
    ),
    (
        "The Grafana dashboard for payments is at grafana.internal/d/pay-01.",
        "Payments Grafana dashboard: grafana.internal/d/pay-01",
    ),
    ("Customer support hours are 8:00 to 18:00 CET on weekdays.", "Support hours are 8:00-18:00 CET on weekdays."),
    ("We decided to use PostgreSQL because of pgvector.", "We decided on PostgreSQL because of pgvector."),
    ("The search index is rebuilt every Sunday night.", "Every Sunday night the search index is rebuilt."),
    ("Tom is allergic to peanuts.", "Tom has a peanut allergy."),
    (
        "The VPN gateway for the Berlin office is vpn-ber-2.example.net.",
        "Berlin office VPN gateway: vpn-ber-2.example.net.",
    ),
]

UPDATES = [
    ("The staging database is db-stage-01 in eu-west-1.", "The staging database moved to db-stage-02 in eu-central-1."),
    ("The team standup is at 9:30.", "The team standup is now at 10:00."),
    (
        "The payments service deploys from the release-2024 branch.",
        "The payments service now deploys from release-2025.",
    ),
    ("Maria owns the billing service.", "Jonas took over the billing service from Maria."),
    (
        "The API rate limit is 600 requests per minute per key.",
        "The API rate limit was raised to 1000 requests per minute per key.",
    ),
    ("The user prefers dark mode in every editor.", "The user switched to light mode in every editor."),
    (
        "The design review for the search page is on 2026-03-12.",
        "The design review for the search page moved to 2026-03-19.",
    ),
    (
        "Customer support hours are 8:00 to 18:00 CET on weekdays.",
        "Customer support hours are now 7:00 to 20:00 CET on weekdays.",
    ),
    ("The user's name is Priya and she works in Lisbon.", "Priya moved from Lisbon to Porto."),
    ("The mobile app targets Android 12 and later.", "The mobile app now targets Android 13 and later."),
    ("Our main office is in Amsterdam.", "Our main office relocated from Amsterdam to Rotterdam."),
    ("The frontend uses React 17.", "The frontend was upgraded to React 18."),
    ("The production cluster has 12 nodes.", "The production cluster was scaled to 20 nodes."),
    ("The release freeze starts on December 15.", "The release freeze now starts on December 10."),
    ("Tom leads the data platform team.", "Aisha now leads the data platform team; Tom moved to infra."),
    ("The company VPN uses OpenVPN.", "The company VPN was migrated from OpenVPN to WireGuard."),
]

RELATED = [
    ("The staging database is db-stage-01 in eu-west-1.", "The production database is db-prod-01 in us-east-1."),
    ("Deploys to production happen on Tuesdays and Thursdays.", "Deploys to staging happen after every merge."),
    ("The user prefers dark mode in every editor.", "The user prefers tabs over spaces."),
    ("Maria owns the billing service.", "Maria is on vacation until next Friday."),
    ("The API rate limit is 600 requests per minute per key.", "The API returns 429 when the rate limit is exceeded."),
    ("Backups of the orders database run nightly at 02:00 UTC.", "Restores of the orders database are tested monthly."),
    ("The on-call rotation changes every Monday at 09:00 UTC.", "The on-call engineer carries the pager phone."),
    ("Never commit secrets to the repository.", "Secrets live in AWS Secrets Manager."),
    ("The mobile app is written in Kotlin and Swift.", "The web app is written in TypeScript."),
    ("Invoices are generated on the first day of each month.", "Invoices are sent to customers by email."),
    ("The search index is rebuilt every Sunday night.", "The search index uses BM25 ranking."),
    ("Tom is allergic to peanuts.", "Tom likes spicy food."),
    (
        "The VPN gateway for the Berlin office is vpn-ber-2.example.net.",
        "The VPN gateway for the Paris office is vpn-par-1.example.net.",
    ),
    ("Postgres listens on port 5432 on the primary.", "Postgres listens on port 5433 on the replica."),
    ("The team standup is at 9:30.", "The team retrospective is every second Friday."),
    ("We decided to use PostgreSQL because of pgvector.", "We decided against MongoDB because of licensing."),
    ("The frontend uses React 18.", "The frontend uses Vite for builds."),
    ("The production cluster has 20 nodes.", "The production cluster runs Kubernetes 1.29."),
    ("Customer support hours are 8:00 to 18:00 CET on weekdays.", "Customer support is closed on public holidays."),
    (
        "The design review for the search page is on 2026-03-12.",
        "The design review for the checkout page is on 2026-03-14.",
    ),
]


def embed(texts: list[str]) -> list[list[float]]:
    from engram.adapters.embeddings.local import MODEL_ID, LocalEmbedder

    print(f"model: {MODEL_ID}")
    return LocalEmbedder().embed(texts)


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb)


def spread(values: list[float]) -> str:
    q = statistics.quantiles(values, n=10)
    return (
        f"min {min(values):.3f}  p10 {q[0]:.3f}  median {statistics.median(values):.3f}"
        f"  p90 {q[-1]:.3f}  max {max(values):.3f}"
    )


def rare_token_rule(texts: list[str]) -> None:
    """Reconcile also needs a pair to share a rare token (a text rule: the same for every model). The
    labelled texts stand in for a namespace, with the defaults (rare: in at most 5 of them)."""
    defaults = SimilarityThresholds(0.88, 0.7, 0.5, 0.63, 1.0, 3600)
    common = common_tokens(texts, defaults.reconcile_rare_share, defaults.reconcile_rare_min)
    print(f"\nreconcile's rare-token rule over the {len(texts)} labelled texts (common: {', '.join(sorted(common))}):")
    for label, pairs in (("updates", UPDATES), ("related", RELATED)):
        kept = [p for p in pairs if shared_rare_tokens(*p, common)]
        print(f"  {label:8} sharing a rare token: {len(kept)}/{len(pairs)}")
        for a, b in pairs:
            if label == "updates" and (a, b) not in kept:
                print(f"    not asked: {a} | {b}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print only the chosen thresholds as JSON")
    parser.add_argument(
        "--store",
        action="store_true",
        help="write them to this model's embedding_spaces row (ENGRAM_DATABASE_URL, owner role)",
    )
    args = parser.parse_args()
    labelled = (
        [("duplicate", p) for p in DUPLICATES] + [("update", p) for p in UPDATES] + [("related", p) for p in RELATED]
    )
    texts = sorted({t for _, p in labelled for t in p})
    vectors = dict(zip(texts, embed(texts), strict=True))
    rows = [(label, a, b, cosine(vectors[a], vectors[b]), jaccard(tokens(a), tokens(b))) for label, (a, b) in labelled]
    older, newer = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=3)

    def rule(dedupe: float, reconcile_min: float, near_exact: float = 0.7) -> dict[str, dict[str, int]]:
        t = SimilarityThresholds(
            dedupe_cosine=dedupe,
            near_exact_jaccard=near_exact,
            merge_jaccard=0.5,
            reconcile_min_cosine=reconcile_min,
            reconcile_max_cosine=1.0,
            reconcile_min_gap_s=3600,
        )
        out: dict[str, dict[str, int]] = {}
        for label, a, b, cos, _ in rows:
            cls = classify_pair(a, b, older, newer, cos, t).cls or "none"
            out.setdefault(label, {}).setdefault(cls, 0)
            out[label][cls] += 1
        return out

    if not args.json:
        print(f"pairs: {len(DUPLICATES)} duplicates, {len(UPDATES)} updates, {len(RELATED)} related-but-different\n")
        for label in ("duplicate", "update", "related"):
            cos = [r[3] for r in rows if r[0] == label]
            jac = [r[4] for r in rows if r[0] == label]
            print(f"{label:9}  cosine  {spread(cos)}")
            print(f"{'':9}  jaccard {spread(jac)}")
        print(
            "\nnear-duplicate cosine sweep (merged: exact + near_exact; ->LLM: merge candidates; reconcile from 0.55):"
        )
        print(
            f"{'cosine':>7} {'dup merged':>11} {'dup->LLM':>9} {'upd->merge':>11} {'rel->merge':>11} "
            f"{'upd->reconcile':>15} {'rel->reconcile':>15}"
        )
        for dedupe in (0.70, 0.75, 0.78, 0.80, 0.82, 0.85, 0.88, 0.90, 0.92):
            r = rule(dedupe, 0.55)

            def n(label: str, *classes: str, r: dict[str, dict[str, int]] = r) -> int:
                return sum(r.get(label, {}).get(c, 0) for c in classes)

            print(
                f"{dedupe:7.2f} {n('duplicate', 'exact', 'near_exact'):>5}/{len(DUPLICATES):<5}"
                f" {n('duplicate', 'merge_candidate'):>9} {n('update', 'exact', 'near_exact', 'merge_candidate'):>11}"
                f" {n('related', 'exact', 'near_exact', 'merge_candidate'):>11}"
                f" {n('update', 'reconcile_candidate'):>9}/{len(UPDATES):<5}"
                f" {n('related', 'reconcile_candidate'):>9}/{len(RELATED):<5}"
            )
        print("\nmerges without an LLM (exact + near_exact) by token-Jaccard threshold, near-duplicate cosine 0.88:")
        print(f"{'jaccard':>7} {'dup merged':>11} {'upd merged':>11} {'rel merged':>11}")
        for near in (0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
            r = rule(0.88, 0.55, near)
            print(
                f"{near:7.2f} {sum(r['duplicate'].get(c, 0) for c in ('exact', 'near_exact')):>5}/{len(DUPLICATES):<5}"
                f" {sum(r['update'].get(c, 0) for c in ('exact', 'near_exact')):>11}"
                f" {sum(r['related'].get(c, 0) for c in ('exact', 'near_exact')):>11}"
            )
        print("\nreconcile window lower bound (pairs the LLM is asked about), near-duplicate cosine 0.88:")
        print(f"{'cosine':>7} {'updates asked':>14} {'related asked':>14}")
        for low in (0.50, 0.55, 0.60, 0.65, 0.70, 0.75):
            r = rule(0.88, low)
            print(
                f"{low:7.2f} {r['update'].get('reconcile_candidate', 0):>8}/{len(UPDATES):<5}"
                f" {r['related'].get('reconcile_candidate', 0):>8}/{len(RELATED):<5}"
            )
        rare_token_rule(texts)
    dup = sorted(r[3] for r in rows if r[0] == "duplicate")
    rel = sorted(r[3] for r in rows if r[0] == "related")
    upd = sorted(r[3] for r in rows if r[0] == "update")
    # Near-duplicates: halfway between the closest related pair and the farthest duplicate. Reconcile:
    # just under the farthest update, so every labelled update reaches the LLM.
    chosen = {"dedupe_cosine": round((max(rel) + min(dup)) / 2, 2), "reconcile_min_cosine": round(min(upd) - 0.02, 2)}
    print(json.dumps(chosen) if args.json else f"\nchosen for this model: {json.dumps(chosen)}")
    if args.store:
        import psycopg

        from engram.adapters.embeddings.local import MODEL_ID
        from engram.core.config import database_dsn

        with psycopg.connect(database_dsn()) as conn:
            found = conn.execute(
                "UPDATE embedding_spaces SET consolidation_thresholds = consolidation_thresholds || %s::jsonb"
                " WHERE model_id = %s RETURNING model_id",
                (json.dumps(chosen), MODEL_ID),
            ).fetchone()
        print(f"stored for {MODEL_ID}" if found else f"no embedding space {MODEL_ID} registered yet")


if __name__ == "__main__":
    main()
