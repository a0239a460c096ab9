"""Deterministic multi-session chat data with labelled questions for bench/quality/conversation_recall.py.

One user talks to an assistant over many sessions (one conversation per session, weeks apart).
Facts are planted in specific user turns among topical small talk that shares their vocabulary;
each question names the turns (session, seq) whose text answers it. Question types:

- single: one turn answers it (paraphrased question)
- keyword: an exact token (a code, a name) answers it
- multi: several turns in different sessions together answer it
- update: the fact changed over time; only the latest turn answers it
- temporal: "what was I ... in the week of <date>" (the harness scopes with since/until)

`variant="train"` and `variant="heldout"` use disjoint phrasings, slot values and filler, so the
held-out figure is not tuned to the set the defaults were chosen on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any


@dataclass
class Turn:
    role: str
    content: str
    created_at: datetime


@dataclass
class Question:
    qtype: str
    text: str
    evidence: list[tuple[int, int]]  # (session index, seq)
    since: datetime | None = None
    until: datetime | None = None


@dataclass
class Dataset:
    sessions: list[list[Turn]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return sum(len(s) for s in self.sessions)


V: dict[str, dict[str, Any]] = {  # variant -> vocabulary; the two never share a template or a value
    "train": {
        "pets": [("beagle", "Pixel"), ("corgi", "Waffles"), ("greyhound", "Comet")],
        "pet_t": "We finally adopted a {breed} puppy, we named him {name}.",
        "pet_q": ["What is my dog called?", "What breed is our new puppy?"],
        "job_t": "My sister {s} just started a new job as a {job} in {city}.",
        "jobs": [("Lena", "marine biologist", "Lisbon"), ("Tara", "patent lawyer", "Denver")],
        "job_q": "What does my sister do for a living now?",
        "allergy_t": "The doctor confirmed I'm allergic to {food}, so no more of that for me.",
        "foods": ["sesame", "shellfish", "kiwi"],
        "allergy_q": "Which food did the tests show I can't eat?",
        "code_t": "Note to self: the wifi password at the cabin is {code}.",
        "code_q": "What is the wifi password for the cabin?",
        "trip_t": "Just got back from a few days in {city}, the old town was lovely.",
        "trip_cities": ["Porto", "Krakow", "Ljubljana", "Valencia", "Bruges", "Tallinn"],
        "trip_q": "Which cities have I visited on my trips?",
        "book_t": "These days I'm reading {book} before bed.",
        "books": ["The Left Hand of Darkness", "Middlemarch", "Piranesi", "The Overstory", "Stoner"],
        "book_q_update": "What book am I reading at the moment?",
        "book_q_time": "What book was I reading in the week of {date}?",
        "filler_user": [
            "My neighbour's dog barked all night again.",
            "Do you think it will rain this weekend?",
            "Work has been hectic, lots of meetings.",
            "I should really drink more water.",
            "I tried a new pasta recipe, it was okay.",
            "Airports are so stressful lately.",
            "I keep buying books and never finishing them.",
            "My back hurts from sitting all day.",
            "I might repaint the living room green.",
            "The train was late again this morning.",
            "I watched a documentary about octopuses.",
            "Thinking about learning to play chess.",
            "Dogs at the park are always so happy.",
            "My phone battery dies so fast now.",
            "I need a holiday somewhere warm.",
            "Cooking for one is harder than it sounds.",
        ],
        "filler_assistant": [
            "That sounds frustrating, how are you handling it?",
            "Good idea, small habits add up.",
            "I hope it gets better soon.",
            "That's interesting, tell me more.",
            "Would you like some suggestions?",
            "Sounds like a nice plan.",
        ],
        "ack": "Thanks for telling me, I'll remember that.",
    },
    "heldout": {
        "pets": [("tabby cat", "Miso"), ("border collie", "Juniper"), ("dachshund", "Pretzel")],
        "pet_t": "Big news: there's a {breed} living with us now, {name} is settling in well.",
        "pet_q": ["What's the name of the animal that moved in with us?", "What kind of pet do we have now?"],
        "job_t": "Guess what, {s} got hired as a {job} over in {city}.",
        "jobs": [("my brother Ravi", "sound engineer", "Glasgow"), ("my cousin Ines", "pastry chef", "Lyon")],
        "job_q": "What job did my relative just get hired for?",
        "allergy_t": "Turns out {food} gives me hives, the allergist was very clear about it.",
        "foods": ["peanuts", "strawberries", "mustard"],
        "allergy_q": "What am I allergic to according to the allergist?",
        "code_t": "Remember this for me: the garage door code is {code}.",
        "code_q": "What's the code for the garage door?",
        "trip_t": "Landed this morning after a long weekend in {city}, great food there.",
        "trip_cities": ["Seville", "Gdansk", "Trieste", "Bergen", "Ghent", "Riga"],
        "trip_q": "Where have I travelled recently? List the places.",
        "book_t": "I started a new audiobook: {book}.",
        "books": ["Dune", "Moby-Dick", "Circe", "The Road", "Beloved"],
        "book_q_update": "Which audiobook am I listening to currently?",
        "book_q_time": "Which audiobook was I on during the week of {date}?",
        "filler_user": [
            "The cat next door sits on our car every day.",
            "It's been foggy all week.",
            "Quarterly planning is eating my whole calendar.",
            "I bought a new kettle.",
            "Made soup from leftovers, surprisingly good.",
            "Packing for trips always takes me hours.",
            "My reading list is getting absurd.",
            "I slept badly, the street was noisy.",
            "Thinking of getting a standing desk.",
            "The bus schedule changed again.",
            "Saw a great film about deep sea creatures.",
            "I want to get better at crosswords.",
            "Pets make a house feel alive.",
            "My laptop fan is really loud now.",
            "I could use a week at the seaside.",
            "Grocery prices keep climbing.",
        ],
        "filler_assistant": [
            "Oh no, that's annoying.",
            "Nice, enjoy it!",
            "Hang in there.",
            "Interesting, what happened next?",
            "Want me to help plan something?",
            "That makes sense.",
        ],
        "ack": "Got it, noted.",
    },
}


def generate(
    variant: str = "train", seed: int = 7, sessions: int = 36, turns_per_session: int = 14, end: datetime | None = None
) -> Dataset:
    v = V[variant]
    rng = random.Random(f"{variant}-{seed}")
    end = end or datetime(2026, 1, 1)
    start = end - timedelta(days=7 * sessions)
    ds = Dataset()
    plans: dict[int, list[tuple[str, str]]] = {}  # session -> [(fact key, user turn text)]

    def plant(session: int, key: str, text: str) -> None:
        plans.setdefault(session, []).append((key, text))

    order = list(range(sessions))
    rng.shuffle(order)
    slots = iter(order * 4)
    breed, name = rng.choice(v["pets"])
    pet_s = next(slots)
    plant(pet_s, "pet", v["pet_t"].format(breed=breed, name=name))
    s_name, job, city = rng.choice(v["jobs"])
    plant(next(slots), "job", v["job_t"].format(s=s_name, job=job, city=city))
    plant(next(slots), "allergy", v["allergy_t"].format(food=rng.choice(v["foods"])))
    code = f"{rng.choice(['QX', 'ZV', 'KM'])}-{rng.randint(1000, 9999)}-{rng.choice(['alpha', 'delta', 'echo'])}"
    plant(next(slots), "code", v["code_t"].format(code=code))
    trip_sessions = sorted(next(slots) for _ in range(4))
    for s, c in zip(trip_sessions, rng.sample(v["trip_cities"], 4), strict=True):
        plant(s, "trip", v["trip_t"].format(city=c))
    book_sessions = sorted(rng.sample(range(sessions), 4))
    for s, b in zip(book_sessions, rng.sample(v["books"], 4), strict=True):
        plant(s, f"book{s}", v["book_t"].format(book=b))

    where: dict[str, list[tuple[int, int]]] = {}
    for s in range(sessions):
        day = start + timedelta(days=7 * s + rng.randint(0, 2), hours=rng.randint(8, 20))
        facts = list(plans.get(s, []))
        fact_at = set(rng.sample(range(0, turns_per_session, 2), len(facts))) if facts else set()
        turns: list[Turn] = []
        for i in range(turns_per_session):
            at = day + timedelta(minutes=2 * i)
            if i in fact_at:
                key, text = facts.pop()
                turns.append(Turn("user", text, at))
                where.setdefault(key, []).append((s, i + 1))
                if key.startswith("book"):
                    where.setdefault("book", []).append((s, i + 1))
            elif i % 2 == 0:
                turns.append(Turn("user", rng.choice(v["filler_user"]), at))
            else:
                prev = turns[-1].content if turns else ""
                reply = (
                    v["ack"]
                    if prev and not any(prev == f for f in v["filler_user"])
                    else rng.choice(v["filler_assistant"])
                )
                turns.append(Turn("assistant", reply, at))
        ds.sessions.append(turns)

    q = ds.questions
    q.append(Question("single", v["pet_q"][0], where["pet"]))
    q.append(Question("single", v["pet_q"][1], where["pet"]))
    q.append(Question("single", v["job_q"], where["job"]))
    q.append(Question("single", v["allergy_q"], where["allergy"]))
    q.append(Question("keyword", v["code_q"], where["code"]))
    q.append(Question("keyword", code, where["code"]))
    q.append(Question("multi", v["trip_q"], where["trip"]))
    latest = max(where["book"])
    q.append(Question("update", v["book_q_update"], [latest]))
    for s in book_sessions:
        when = ds.sessions[s][0].created_at
        monday = (when - timedelta(days=when.weekday())).replace(hour=0, minute=0)
        q.append(
            Question(
                "temporal",
                v["book_q_time"].format(date=monday.strftime("%B %d")),
                where[f"book{s}"],
                since=monday,
                until=monday + timedelta(days=7),
            )
        )
    return ds


def datasets(variant: str, seeds: tuple[int, ...] = (7, 11, 13)) -> list[Dataset]:
    """Several users (one per seed): more questions per run, each user in its own namespace."""
    return [generate(variant, seed) for seed in seeds]
