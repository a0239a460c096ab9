"""Long two-person chats over months, with labelled questions: the data of bench/longconv_recall.py.

Each conversation is two friends talking over 24-40 dated sessions (one API conversation per
session, 300-700 turns in all). Most turns are chit-chat that shares the vocabulary of the facts
(other people's dogs, trips one would like to take, jobs in general). Facts are planted in single
turns; some change over time (a new job, a second pet), some are picked up again sessions later
("remember that dresser?"), and events are told relative to the session's date ("yesterday").

Questions name the turns (session, seq) that answer them, in four kinds:

- single: one turn answers it; the question is a paraphrase that shares a word or two with it
- multi: 2-4 turns from different sessions answer it together (trips, jobs held, a thing found in
  one session and finished in another)
- temporal: when something happened, or which of two things came first; the answer needs the
  session date of the turn(s) (no since/until given: the asker does not know the dates)
- inference: the question shares no content word with its evidence (a swimmer's turn speaks of
  laps and chlorine; the question asks which sport the person practises)

`split="train"` and `split="heldout"` are different people, values and draws from the same
generator (different seeds): tune on train, report heldout.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass
class Turn:
    speaker: str
    role: str  # the first speaker is "user", the second "assistant" (their names go in metadata)
    content: str
    created_at: datetime


@dataclass
class Question:
    qtype: str
    text: str
    evidence: list[tuple[int, int]]  # (session index, seq)


@dataclass
class Conversation:
    speakers: tuple[str, str]
    sessions: list[list[Turn]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return sum(len(s) for s in self.sessions)


NAMES = {
    "train": ["Maya", "Omar", "Priya", "Jonas", "Elena", "Tomas", "Hana", "Felix"],
    "heldout": ["Nadia", "Lukas", "Sofia", "Marcus", "Ingrid", "Rafael", "Keiko", "Dmitri"],
}
CITIES = [
    "Lisbon",
    "Krakow",
    "Ljubljana",
    "Valencia",
    "Bruges",
    "Tallinn",
    "Seville",
    "Gdansk",
    "Trieste",
    "Bergen",
    "Ghent",
    "Riga",
    "Porto",
    "Bologna",
    "Vilnius",
    "Granada",
    "Salzburg",
    "Aarhus",
]
TOWNS = ["Hexham", "Ludlow", "Whitby", "Rye", "Frome", "Totnes", "Kendal", "Alnwick", "Tenby", "Oban"]
BREEDS = ["beagle", "corgi", "greyhound", "border collie", "dachshund", "labrador", "whippet", "spaniel"]
PET_NAMES = ["Pixel", "Waffles", "Comet", "Juniper", "Pretzel", "Biscuit", "Nutmeg", "Ziggy", "Olive", "Moose"]
CATS = ["tabby", "ginger kitten", "black cat", "siamese"]
JOBS = [
    ("nurse", "St Anne's hospital"),
    ("data analyst", "Brightline"),
    ("architect", "Holm & Berg"),
    ("pharmacist", "Greenway Pharmacy"),
    ("sound engineer", "Northside Studios"),
    ("logistics planner", "Cargoflex"),
    ("primary school teacher", "Elm Road School"),
    ("product designer", "Fieldnote"),
    ("paralegal", "Carter Pryce"),
    ("baker", "Crumb & Co"),
]
RELATIVES = [("sister", "Lena"), ("brother", "Ravi"), ("cousin", "Ines"), ("sister", "Tara"), ("brother", "Sami")]
SIB_JOBS = [
    ("marine biologist", "Aberdeen"),
    ("patent lawyer", "Denver"),
    ("pastry chef", "Lyon"),
    ("firefighter", "Leeds"),
    ("translator", "Geneva"),
    ("pilot", "Dublin"),
]
ITEMS = ["oak dresser", "vintage bike", "wingback armchair", "brass lamp", "old piano stool", "pine bookcase"]
COLOURS = ["teal", "mustard yellow", "forest green", "navy blue", "burnt orange", "dusty pink"]
CLASSES = [
    ("pottery", "wheel"),
    ("salsa", "dance floor"),
    ("watercolour", "brushes"),
    ("ukulele", "chords"),
    ("climbing", "wall"),
    ("Italian", "verbs"),
]
TEACHERS = ["Greta", "Paolo", "Mrs Okafor", "Bernard", "Yusuf", "Camille"]
ALLERGIES = ["sesame", "shellfish", "kiwi", "peanuts", "strawberries", "mustard"]
BANDS = ["Fleetwood Mac", "Radiohead", "Khruangbin", "ABBA", "Bon Iver", "the Cure"]
CARS = ["a used Skoda Octavia", "a red Mini", "an old Volvo estate", "a Toyota Yaris hybrid", "a Fiat Panda"]
EVENTS = [  # (told in the session, the question's name for it)
    ("ran my first half marathon, finished in just over two hours", "run a half marathon"),
    ("passed my driving test, on the second attempt", "pass the driving test"),
    ("had our housewarming party, the neighbours came too", "have a housewarming party"),
    ("got my wisdom tooth out, my face is still swollen", "have a wisdom tooth removed"),
    ("gave my first talk at a conference, my hands were shaking", "speak at a conference"),
    ("went to a Khruangbin gig at the arena", "see a live concert"),
    ("volunteered at the food bank for the first time", "volunteer at the food bank"),
    ("planted the apple tree in the back garden", "plant a tree"),
]
WHEN = [("Yesterday I", 1), ("Last Saturday I", None), ("This morning I", 0), ("Two days ago I", 2)]
# Inference: the evidence never names the concept the question asks about, and they share no content word.
INFERENCE = [
    (
        [
            "Forty laps before sunrise again, my goggles leak and my hair smells of chlorine all day.",
            "Shaved four seconds off my 200 metres freestyle at the lido this morning.",
        ],
        "What sport does {p} practise?",
    ),
    (
        [
            "Night shift on the oncology ward was brutal, three admissions in an hour and a patient's family crying.",
            "Did twelve hours on the cardiac unit, I must have taken fifty blood pressures.",
        ],
        "Does {p} work in healthcare?",
    ),
    (
        [
            "Our little one took her first wobbly steps across the kitchen this morning!",
            "Nappies, bottles at 3am, and she still smiles at me like I'm the best thing ever.",
        ],
        "Is {p} a parent?",
    ),
    (
        [
            "Haven't eaten meat for eight months now and honestly I don't miss bacon at all.",
            "Found a great lentil and mushroom recipe, it's my go-to now that animals are off my plate.",
        ],
        "Would {p} order a steak at a restaurant?",
    ),
    (
        [
            "Stayed out on the balcony until 2am with the telescope, Saturn's rings were crisp.",
            "Bought a star chart and a red torch, clear skies are forecast for Thursday.",
        ],
        "What does {p} like doing as a pastime after dark?",
    ),
    (
        [
            "Our landlord is putting the rent up again, I might need a cheaper flat.",
            "The letting agency still hasn't fixed the boiler, I've emailed them four times.",
        ],
        "Does {p} own property?",
    ),
    (
        [
            "Day 200 of my streak on the app, I can finally order ramen in Tokyo without pointing.",
            "My kanji flashcards are stacked all over the desk, hiragana feels easy now.",
        ],
        "Which foreign tongue is {p} studying?",
    ),
    (
        [
            "The physio says my knees can't take trail runs anymore, she wants me on a bike instead.",
            "Iced my kneecap again after the stairs, the cartilage is worn out apparently.",
        ],
        "Is {p} nursing an injury?",
    ),
    (
        [
            "Spent the weekend repotting all forty of my succulents and the monstera.",
            "My fiddle-leaf fig finally put out a new leaf, the windowsill is a jungle now.",
        ],
        "Does {p} have a green thumb?",
    ),
    (
        [
            "Finished my fourth sourdough loaf this week, the starter is called Gerald.",
            "The croissant lamination took six hours but they came out flaky.",
        ],
        "What does {p} enjoy making in the kitchen?",
    ),
    (
        [
            "I've been sleeping badly since the twins next door started drum practice.",
            "Wearing earplugs every night now, the walls here are paper thin.",
        ],
        "Is {p} bothered by noise at home?",
    ),
    (
        [
            "Signed the papers for the mortgage today, we get the keys on the fifteenth!",
            "Our solicitor finally completed the purchase, the deeds are in our name.",
        ],
        "Is {p} a homeowner now?",
    ),
]
GREETINGS = [
    "Hey {o}! How has your week been?",
    "Hi {o}, long time no chat!",
    "Morning {o}!",
    "{o}! Got a minute to catch up?",
    "Hello again {o}.",
    "Hey hey, how are things {o}?",
]
REACTIONS = [
    "No way, that's huge!",
    "Oh wow, tell me more.",
    "That's great news, {o}.",
    "Ha, I love that.",
    "Seriously? Good for you.",
    "That sounds like a lot.",
    "Oh nice, I'm really happy for you.",
    "Wait, really? Since when?",
    "Haha, of course you did.",
    "Hm, how do you feel about it?",
]
# Chit-chat that shares the facts' vocabulary without stating any fact: the distractors.
FILLER = [
    "My neighbour's {breed} barked all night again.",
    "I'd love to visit {city} someday, the photos look amazing.",
    "Do you think it will rain this weekend?",
    "Work has been hectic, so many meetings.",
    "I saw a {breed} at the park today, so fluffy.",
    "Someone at work just got back from {city}, jealous.",
    "I keep buying books and never finishing them.",
    "My back hurts from sitting all day.",
    "I might repaint the hallway, it looks tired.",
    "The train was late again this morning.",
    "Watched a documentary about octopuses, wild animals.",
    "Thinking about learning chess properly.",
    "My phone battery dies so fast now.",
    "I need a holiday somewhere warm.",
    "Cooking for one is harder than it sounds.",
    "My {rel} called three times today, about nothing.",
    "Job hunting must be exhausting, my friend has sent forty applications.",
    "There's a flea market every Sunday near the station, never been.",
    "Traffic was terrible on the ring road.",
    "I should really drink more water.",
    "We watched a film about a pianist last night, very slow.",
    "I dropped my coffee on the bus, what a start.",
    "Do you have any podcast recommendations?",
    "The new cafe on the corner does great pastries.",
    "My laptop fan sounds like a jet engine.",
    "Our office moved floors and nobody can find anything.",
    "It's so cold I wore gloves indoors.",
    "I tried a yoga video and gave up after ten minutes.",
    "Honestly I just want to sleep for a week.",
    "The supermarket changed its layout again.",
    "I can never decide what to cook on Mondays.",
    "A colleague is leaving for a job in {city}.",
    "There was a {breed} puppy on the train, everyone melted.",
    "Painting a room is never as quick as you think.",
    "I've been meaning to call my {rel}.",
    "Do you still use that running app?",
    "Concert tickets are so expensive now.",
    "My inbox is a disaster after the long weekend.",
    "Teachers deserve a pay rise, my friend works so late.",
    "Hospitals are so understaffed, you see it on the news every day.",
    "Fancy a walk by the river sometime?",
    "I burned the toast, the smoke alarm went off.",
    "The bakery near me closed down, sad.",
    "My plants are all dying, I forget to water them.",
    "Renting in this city is getting ridiculous.",
    "I watched the match last night, what a finish.",
    "Why are printers always broken?",
    "My manager wants a report by Friday, no pressure.",
    "The gym was packed, I turned around and left.",
]
REPLIES = [
    "Haha, same here.",
    "Oh no, that's annoying.",
    "Totally get it.",
    "Ugh, I know the feeling.",
    "That's so true.",
    "Really? I had no idea.",
    "Fair enough.",
    "Sounds about right.",
    "Oh that's nice.",
    "Hang in there.",
    "Lol, classic.",
    "Mm, I've been thinking the same.",
    "You should, honestly.",
    "Tell me about it.",
    "Hm, maybe next month?",
    "Good point.",
]


class _Planner:
    """Facts placed in sessions before the chit-chat is written around them."""

    def __init__(self, rng: random.Random, sessions: int) -> None:
        self.rng = rng
        self.sessions = sessions
        self.plans: dict[int, list[tuple[str, str, str]]] = {}  # session -> [(key, speaker, text)]

    def plant(self, session: int, key: str, speaker: str, text: str) -> None:
        self.plans.setdefault(session, []).append((key, speaker, text))

    def free(self, lo: int = 0, hi: int | None = None, avoid: set[int] | None = None) -> int:
        hi = self.sessions if hi is None else hi
        options = [s for s in range(lo, hi) if s not in (avoid or set())]
        # Prefer sessions with few facts so one session never turns into a list of facts.
        fewest = min(len(self.plans.get(s, [])) for s in options)
        return self.rng.choice([s for s in options if len(self.plans.get(s, [])) == fewest])

    def spread(self, n: int, lo: int = 0, hi: int | None = None) -> list[int]:
        """n distinct sessions, in order."""
        chosen: set[int] = set()
        for _ in range(n):
            chosen.add(self.free(lo, hi, chosen))
        return sorted(chosen)


def _person_facts(p: _Planner, rng: random.Random, who: str, pronoun: str) -> list[tuple[str, str, list[str]]]:
    """Plant one speaker's facts; return (qtype, question, [fact keys]) to resolve into turns later."""
    q: list[tuple[str, str, list[str]]] = []
    n = p.sessions

    # Two jobs, the second replacing the first (an update), the second told by referring back.
    (job1, co1), (job2, co2) = rng.sample(JOBS, 2)
    s1, s2 = p.free(0, n // 3), p.free(n // 2, n)
    p.plant(s1, f"{who}:job1", who, f"I got the job! I start as a {job1} at {co1} on Monday.")
    p.plant(
        s2,
        f"{who}:job2",
        who,
        f"Big change: I handed in my notice at {co1}. From next month I'm a {job2} at {co2}, the pay is better.",
    )
    q.append(("single", f"Where does {who} work now?", [f"{who}:job2"]))
    q.append(("multi", f"Which jobs has {who} had, and at which employers?", [f"{who}:job1", f"{who}:job2"]))

    # A dog, then later a cat: "what pets" needs both sessions.
    breed, dog = rng.choice(BREEDS), rng.choice(PET_NAMES)
    cat, cat_name = rng.choice(CATS), rng.choice([x for x in PET_NAMES if x != dog])
    ds, cs = p.free(0, n // 2), p.free(n // 2, n)
    p.plant(ds, f"{who}:dog", who, f"We adopted a {breed} last weekend, {dog} is already chewing every shoe we own.")
    p.plant(
        cs, f"{who}:cat", who, f"So we brought home a {cat} from the shelter, {cat_name}, and {dog} is not impressed."
    )
    q.append(("single", f"What is the name of {who}'s {breed}?", [f"{who}:dog"]))
    q.append(("multi", f"What animals live with {who}, and what are they called?", [f"{who}:dog", f"{who}:cat"]))

    # Trips in three or four sessions.
    cities = rng.sample(CITIES, rng.choice([3, 4]))
    for i, (s, city) in enumerate(zip(p.spread(len(cities)), cities, strict=True)):
        detail = rng.choice(
            [
                "the food was unreal",
                "we walked everywhere",
                "it rained the whole time",
                "the old town was lovely",
                "we found a tiny jazz bar",
            ]
        )
        p.plant(s, f"{who}:trip{i}", who, f"Just back from four days in {city}, {detail}.")
    q.append(("multi", f"Which cities did {who} travel to this year?", [f"{who}:trip{i}" for i in range(len(cities))]))
    q.append(("temporal", f"When was {who} in {cities[0]}?", [f"{who}:trip0"]))

    # A thing found in one session, finished sessions later (the second turn refers back).
    item, town, colour = rng.choice(ITEMS), rng.choice(TOWNS), rng.choice(COLOURS)
    f1, f2 = p.free(0, n // 2), p.free(n // 2 + 2, n)
    p.plant(
        f1,
        f"{who}:find",
        who,
        f"Found an {item} at a car boot sale in {town}, it needs a lot of love."
        if item[0] in "aeiou"
        else f"Found a {item} at a car boot sale in {town}, it needs a lot of love.",
    )
    p.plant(
        f2,
        f"{who}:finish",
        who,
        f"Remember the thing I dragged home a few months ago? Finally sanded it and"
        f" painted it {colour}, it looks brand new.",
    )
    q.append(
        (
            "multi",
            f"Where did {who} find the {item.split()[-1]} {pronoun} painted {colour}?",
            [f"{who}:find", f"{who}:finish"],
        )
    )

    # A class, its teacher named in a later session.
    (klass, thing), teacher = rng.choice(CLASSES), rng.choice(TEACHERS)
    k1, k2 = p.spread(2)
    p.plant(k1, f"{who}:class", who, f"I signed up for {klass} lessons on Tuesday evenings, wish me luck.")
    p.plant(k2, f"{who}:teacher", who, f"{teacher} says my {thing} work is getting better, I might stick with it.")
    q.append(("single", f"What evening lessons did {who} sign up for?", [f"{who}:class"]))
    q.append(("multi", f"Who teaches {who}'s {klass} class?", [f"{who}:class", f"{who}:teacher"]))

    # Single facts.
    rel, rel_name = rng.choice(RELATIVES)
    sib_job, sib_city = rng.choice(SIB_JOBS)
    subject = "he" if rel == "brother" else "she"
    p.plant(
        p.free(),
        f"{who}:sib",
        who,
        f"My {rel} {rel_name} is moving to {sib_city}, {subject} got a post as a {sib_job}.",
    )
    q.append(("single", f"What does {who}'s {rel} do for a living?", [f"{who}:sib"]))
    allergy = rng.choice(ALLERGIES)
    p.plant(
        p.free(), f"{who}:allergy", who, f"The allergy clinic confirmed it: {allergy} is off the menu for me for good."
    )
    q.append(("single", f"Which food is {who} allergic to?", [f"{who}:allergy"]))
    band = rng.choice(BANDS)
    p.plant(p.free(), f"{who}:band", who, f"I've had {band} on repeat all week, they never get old.")
    q.append(("single", f"What band has {who} been listening to a lot?", [f"{who}:band"]))
    car = rng.choice(CARS)
    car_s = p.free()
    p.plant(car_s, f"{who}:car", who, f"Bought {car} off a colleague, no more waiting for buses!")
    q.append(("single", f"What car does {who} drive?", [f"{who}:car"]))

    # Events told relative to the session date.
    for i, (event, name) in enumerate(rng.sample(EVENTS, 2)):
        opener = rng.choice(WHEN)[0]
        p.plant(p.free(), f"{who}:event{i}", who, f"{opener} {event}.")
        q.append(("temporal", f"When did {who} {name}?", [f"{who}:event{i}"]))
    q.append(("temporal", f"Did {who} get the {cat} before or after buying the car?", [f"{who}:cat", f"{who}:car"]))

    # Inference: two concepts, each told once or twice in different sessions.
    for i, (evidence, question) in enumerate(rng.sample(INFERENCE, 3)):
        told = rng.sample(evidence, rng.choice([1, 2]))
        for j, (s, text) in enumerate(zip(p.spread(len(told)), told, strict=True)):
            p.plant(s, f"{who}:inf{i}.{j}", who, text)
        q.append(("inference", question.format(p=who), [f"{who}:inf{i}.{j}" for j in range(len(told))]))
    return q


def generate(split: str, index: int) -> Conversation:
    rng = random.Random(f"longconv-{split}-{index}")
    a, b = rng.sample(NAMES[split], 2)
    conv = Conversation(speakers=(a, b))
    sessions = rng.randint(24, 40)
    planner = _Planner(rng, sessions)
    pending: list[tuple[str, str, list[str]]] = []
    for who, pronoun in ((a, rng.choice(["she", "he"])), (b, rng.choice(["she", "he"]))):
        pending += _person_facts(planner, rng, who, pronoun)

    where: dict[str, tuple[int, int]] = {}
    day = datetime(2025, 1, 6, 9) + timedelta(days=rng.randint(0, 60))
    for s in range(sessions):
        day += timedelta(days=rng.randint(3, 12))
        start = day.replace(hour=rng.randint(8, 21), minute=rng.choice([0, 15, 30, 45]))
        facts = list(planner.plans.get(s, []))
        rng.shuffle(facts)
        length = rng.randint(8, 22)
        turns: list[Turn] = []
        speaker = rng.choice([a, b])

        def say(who: str, text: str, _turns: list[Turn] = turns, _start: datetime = start) -> None:
            _turns.append(
                Turn(who, "user" if who == a else "assistant", text, _start + timedelta(minutes=2 * len(_turns)))
            )

        other = b if speaker == a else a
        say(speaker, rng.choice(GREETINGS).format(o=other))
        say(other, rng.choice(REPLIES))
        while len(turns) < length or facts:
            if facts and rng.random() < 0.35:
                key, who, text = facts.pop()
                say(who, text)
                where[key] = (s, len(turns))
                say(b if who == a else a, rng.choice(REACTIONS).format(o=who))
            else:
                who = rng.choice([a, b])
                say(
                    who,
                    rng.choice(FILLER).format(
                        breed=rng.choice(BREEDS), city=rng.choice(CITIES), rel=rng.choice(RELATIVES)[0]
                    ),
                )
                say(b if who == a else a, rng.choice(REPLIES))
        conv.sessions.append(turns)
    conv.questions = [Question(qtype, text, sorted(where[k] for k in keys)) for qtype, text, keys in pending]
    return conv


def conversations(split: str, count: int = 3) -> list[Conversation]:
    return [generate(split, i) for i in range(count)]


if __name__ == "__main__":  # a summary and a sample of each split
    from collections import Counter

    for split in ("train", "heldout"):
        convs = conversations(split)
        kinds = Counter(q.qtype for c in convs for q in c.questions)
        print(split, [c.turns for c in convs], [len(c.sessions) for c in convs], dict(kinds))
    c = generate("train", 0)
    for t in c.sessions[3][:12]:
        print(t.created_at, t.speaker, t.content)
    for qq in c.questions[:8]:
        print(qq.qtype, qq.text, [c.sessions[s][seq - 1].content for s, seq in qq.evidence])
