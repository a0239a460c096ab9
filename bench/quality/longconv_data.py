"""Long two-person chats over months, with labelled questions: the data of bench/quality/longconv_recall.py.

Each conversation is two friends talking over 24-40 dated sessions (one API conversation per
session, 300-700 turns in all). Most turns are chit-chat that shares the vocabulary of the facts
(other people's dogs, trips one would like to take, jobs in general), written from ~170 templates
with slots (people, places, foods, times, small details), openers and second clauses, and never
said twice in a conversation (`_Filler`; it has its own random stream, so the facts, questions and
evidence turns are those of the earlier filler, whose ~75 sentences repeated word for word in ~78%
of the small-talk turns). Facts are planted in single
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
from collections.abc import Callable
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
# The earlier small talk: generate() still draws one of these and drops it, so the facts keep their turns.
FILLER = [
    "My neighbour's {breed} barked all night again.",
    "I'd love to visit {city} someday, the photos look amazing.",
    "Do you think it will rain this weekend?",
    "Work has been hectic, so many meetings.",
    "I saw a {breed} at the park today, so fluffy.",
    "Someone at work just got back from {city}, jealous.",
    "I keep buying books and never finishing them.",
    "My back hurts from sitting all day.",
    "I might repaint the hallway on {day}, it looks tired.",
    "The train was late again this morning.",
    "Watched a documentary about octopuses, wild animals.",
    "Thinking about learning chess properly, {friend} offered to teach me.",
    "My phone battery dies so fast now.",
    "I need a holiday somewhere warm, it's {weather} here.",
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
    "Honestly I just want to sleep until {day}.",
    "The supermarket changed its layout again.",
    "I can never decide what to cook on Mondays.",
    "A colleague is leaving for a job in {city}.",
    "There was a {breed} puppy on the train, everyone melted.",
    "Painting a room is never as quick as you think, {friend} took {n} days.",
    "I've been meaning to call my {rel}.",
    "Do you still use that running app?",
    "Concert tickets are so expensive now, {friend} paid a fortune.",
    "My inbox is a disaster after {day}, {n} threads.",
    "Teachers deserve a pay rise, my friend works so late.",
    "Hospitals are so understaffed, you see it on the news every day.",
    "Fancy a walk by the river on {day}?",
    "I burned the toast, the smoke alarm went off.",
    "The bakery near me closed down, sad.",
    "My plants are all dying, I forget to water them.",
    "Renting in this city is getting ridiculous, {friend} says so too.",
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

# Small talk: the distractors. Every turn that is not a fact is written by _Filler from its own random
# stream, so its wording can change without moving a fact: intents with several templates each, slots
# (people, places, foods, times, small details) and often a second clause, and no turn said twice in
# a conversation. It shares the facts' vocabulary (other people's dogs, cities one would like to see,
# jobs in general, relatives) without stating a fact about either speaker.
FRIENDS = ["Bea", "Colm", "Dara", "Ezra", "Freya", "Gus", "Ilse", "Jude", "Kofi", "Leo", "Mina", "Nico", "Pia", "Quinn"]
FRIENDS += ["Rosa", "Theo", "Uma", "Wren", "Yara", "Zeb", "Aoife", "Bram", "Cleo", "Idris", "Noor", "Otto"]
PLACES = ["the station", "the market", "the library", "the park", "the high street", "the river path", "the pier"]
PLACES += ["the office", "the bus stop", "the corner shop", "the laundrette", "the post office", "the car park"]
TIMES = ["this morning", "last night", "at lunch", "after work", "on the way home", "around midnight", "at dawn"]
TIMES += ["over the weekend", "on Monday", "on Wednesday", "before breakfast", "during a meeting", "at 6am"]
FOODS = ["lasagne", "pho", "a chickpea curry", "fish tacos", "risotto", "dumplings", "shakshuka", "a jacket potato"]
FOODS += ["pad thai", "a cheese toastie", "paella", "leftover pizza", "goulash", "a falafel wrap", "pancakes"]
DRINKS = ["coffee", "tea", "hot chocolate", "a smoothie", "an oat latte", "lemonade", "a flat white"]
THINGS = ["umbrella", "keys", "headphones", "charger", "scarf", "water bottle", "library card", "glasses", "wallet"]
SHOWS = ["a baking show", "a heist film", "a nature documentary", "a detective series", "a cooking contest"]
SHOWS += ["a space documentary", "an old western", "a reality show about islands", "a true crime podcast"]
WORK_THINGS = ["spreadsheet", "slide deck", "quarterly report", "budget review", "rota", "client call"]
WORK_THINGS += ["team offsite", "audit", "software update", "performance review"]
GENERIC_JOBS = ["a nurse", "a teacher", "an architect", "a lawyer", "a chef", "an electrician", "an accountant"]
GENERIC_JOBS += ["a vet", "a pilot", "a plumber", "a dentist"]
WEATHER = ["pouring", "freezing", "weirdly warm", "so windy", "foggy", "grey and drizzly", "bright but cold"]
MOODS = ["typical", "no idea why", "which made my day", "so that was fun", "honestly", "go figure", "classic"]
INTENTS: list[list[str]] = [
    [
        "My neighbour's {breed} barked half the night {again}.",
        "The {breed} two doors down howled {time}, {mood}.",
        "Someone's {breed} got loose near {place} {time}.",
        "The {breed} upstairs scratches at the door every {day} morning.",
        "{friend}'s {breed} chewed through a sofa cushion, {mood}.",
    ],
    [
        "I'd love to see {city} someday, {friend} keeps sending photos.",
        "{city} looks amazing in {friend}'s pictures, I'm jealous.",
        "Have you ever been to {city}? It's on my someday list.",
        "Saw a travel piece on {city} {time}, the old squares look gorgeous.",
        "If I won the lottery I'd spend a month in {city}.",
    ],
    [
        "{friend} from work just got back from {city} with a tan.",
        "A colleague is off to {city} for a conference, lucky thing.",
        "{friend} is thinking of moving to {city}, can you imagine.",
        "My {rel} keeps talking about a weekend in {city}.",
        "{friend} sent a postcard from {city}, who even does that now.",
    ],
    [
        "Work has been hectic, {n} meetings {time} alone.",
        "Spent {time} fighting a {work}, {mood}.",
        "My manager wants the {work} by {day}, no pressure.",
        "The {work} ate my whole {day}.",
        "Our office moved floors and nobody can find the {work} files.",
        "{friend} booked a meeting about the {work} at 8am, why.",
    ],
    [
        "Saw a {breed} at {place} {time}, so fluffy.",
        "There was a {breed} puppy on the bus {time}, everyone melted.",
        "A {breed} stole a sandwich at {place}, {mood}.",
        "A {breed} in a tiny raincoat walked past me {time}.",
        "Got chatting to a {breed} owner at {place}, the dog ignored me.",
    ],
    [
        "I keep buying books and never finishing them, that's {n} this month.",
        "Started a novel {friend} lent me, I'm on page {n}.",
        "The library fined me {n} pence for a book I swear I returned.",
        "Read {n} pages {time} and fell asleep on the sofa.",
        "{friend} started a book club, first meeting is on {day}.",
    ],
    [
        "My back hurts from sitting all {day}.",
        "Slept funny and my neck is stiff, {mood}.",
        "I need a better chair, my shoulders ache by {time2}.",
        "Pulled something carrying shopping up the stairs {time}.",
        "{friend} swears by a standing desk, I'm tempted.",
    ],
    [
        "The train was late {time}, {n} minutes standing on the platform.",
        "Bus didn't turn up {time}, I walked from {place}.",
        "Traffic on the ring road was awful {time}.",
        "Missed my stop {time} because I was reading.",
        "The tram broke down outside {place}, we all had to get off.",
        "Cycled to work {time} and got soaked.",
    ],
    [
        "Watched {show} {time}, {mood}.",
        "{friend} recommended {show}, it's oddly gripping.",
        "Fell asleep halfway through {show} {time}.",
        "Binged {n} episodes of {show}, no regrets.",
        "My {rel} won't stop quoting {show}.",
    ],
    [
        "Made {food} {time}, far too much of it.",
        "I can never decide what to cook on {day}s, it was {food} again.",
        "Tried a new recipe for {food}, it needed more salt.",
        "Cooking for one is harder than it sounds, I ended up with {food}.",
        "{friend} brought round {food} {time}, what a hero.",
        "Ordered {food} {time} and it took {n} minutes to arrive.",
    ],
    [
        "My {rel} called {n} times {time}, about nothing.",
        "I've been meaning to ring my {rel}, it's been weeks.",
        "My {rel} sent me a voice note that lasted {n} minutes.",
        "My {rel} wants help with a new phone on {day}.",
        "Family group chat is on fire {time}, my {rel} started it.",
    ],
    [
        "There's a flea market by {place} every Sunday, never been.",
        "The new cafe near {place} does great pastries.",
        "The bakery by {place} closed down, sad.",
        "They're opening a climbing gym near {place}, apparently.",
        "A pop-up selling {food} appeared by {place} {time}.",
        "The chippy by {place} finally reopened.",
    ],
    [
        "I should really drink more water, it's been {drink} all {day}.",
        "Spilled my {drink} on the bus {time}, what a start.",
        "Third {drink} of the day and it's not even noon.",
        "The machine at work only does {drink} now, tragic.",
        "{friend} made me {drink} {time}, it was terrible.",
    ],
    [
        "Any podcast recommendations for the walk to {place}?",
        "{friend} got me into a podcast about shipwrecks.",
        "Any good series for a rainy {day}?",
        "Listened to a podcast about bees {time}, fascinating.",
        "My {rel} started a podcast, {n} listeners so far.",
    ],
    [
        "My laptop fan sounded like a jet engine {time}.",
        "My phone battery dies by {time2} now.",
        "Cracked my phone screen at {place}, {mood}.",
        "The printer at work jammed {n} times {time}.",
        "My laptop decided to update itself {time}, lost an hour.",
        "The wifi dropped {n} times during a video call.",
    ],
    [
        "It's {weather} out, I wore gloves indoors.",
        "It was {weather} at {place} {time}.",
        "Do you think it'll be {weather} all weekend?",
        "The forecast says {weather} until {day}, lovely.",
        "Got caught in the rain by {place} without an umbrella.",
    ],
    [
        "Tried a yoga video and gave up after {n} minutes.",
        "The gym was packed {time}, I turned round and left.",
        "{friend} dragged me to a spin class, my legs are jelly.",
        "Did {n} press-ups {time} and now I can't lift my arms.",
        "Walked {n} thousand steps {time}, my watch is proud of me.",
    ],
    [
        "Honestly I just want to sleep until {day}.",
        "Went to bed at {time3} and still woke up tired.",
        "I napped for {n} minutes and feel worse.",
        "Woke up at {time3} for no reason and stared at the ceiling.",
        "{friend} says naps are a skill, I don't have it.",
    ],
    [
        "The supermarket by {place} moved everything around {again}.",
        "Forgot my shopping list {time} and came home with snacks only.",
        "The self-checkout at {place} hates me.",
        "Eggs cost how much now? Nearly fainted {time}.",
        "Queued {n} minutes at the supermarket {time}.",
    ],
    [
        "{friend} works as {job} and never gets a proper lunch break.",
        "{friend}'s cousin is {job}, the hours sound brutal.",
        "Met {job} at {friend}'s party, really interesting job.",
        "Always wondered what being {job} is really like.",
        "My {rel} once wanted to be {job}.",
    ],
    [
        "Teachers deserve a pay rise, {friend} marks essays till midnight.",
        "Hospitals are so understaffed, it's on the news every {day}.",
        "Job hunting must be exhausting, {friend} has sent {n} applications.",
        "{friend} had {n} interviews for one job, madness.",
        "{friend} is on strike on {day}, fair enough.",
    ],
    [
        "Fancy a walk by the river on {day}?",
        "We should get {food} together soon.",
        "Coffee at {place} on {day}?",
        "Free on {day} evening? I owe you {drink}.",
        "Let's do a film night soon, {friend} can come too.",
    ],
    [
        "I burned the toast {time}, the smoke alarm went off.",
        "Left the oven on at {time3}, {mood}.",
        "Set off the fire alarm making {food}, the neighbours loved it.",
        "Dropped a whole pan of {food} on the floor {time}.",
    ],
    [
        "My plants are dying, I forgot to water them for {n} days.",
        "The basil on my windowsill gave up {time}.",
        "{friend} gave me a cactus, even I can't kill that.",
        "Bought a tomato plant at {place}, it has one tomato.",
    ],
    [
        "Renting in this city is getting ridiculous, {friend} says so too.",
        "{friend} is paying a fortune for a tiny flat near {place}.",
        "The flat above mine has been empty for {n} months.",
        "Saw a studio advertised near {place}, the price made me laugh.",
    ],
    [
        "Watched the match {time}, what a finish.",
        "{friend} was shouting at the telly during the match {time}.",
        "Our team lost again, {n} games in a row.",
        "Went to a pub quiz {time}, we came {n}th out of 40.",
    ],
    [
        "Lost my {thing} {time}, found it in the fridge.",
        "Left my {thing} at {place}, {mood}.",
        "I've bought three {thing}s this year and lost every one.",
        "Sat on my {thing} {time}, it didn't survive.",
        "{friend} found my {thing} in their car.",
    ],
    [
        "Thinking about learning chess properly, {friend} offered to teach me.",
        "{friend} beat me at chess in {n} moves.",
        "Maybe I'll finally learn to juggle, {friend} can do {n} balls.",
        "Did a {n}-piece jigsaw {time}, one piece missing.",
        "Started a crossword {time} and gave up on 4 down.",
    ],
    [
        "I might repaint the hallway on {day}, it looks tired.",
        "Painting a room is never as quick as you think, {friend} took {n} days.",
        "The bathroom tap has been dripping since {day}.",
        "Assembled a flat-pack shelf {time}, {n} screws left over.",
        "A light bulb blew {time} and I don't have a spare.",
    ],
    [
        "My inbox is a disaster after {day}, {n} threads.",
        "{n} unread emails, I'm declaring bankruptcy.",
        "Someone replied-all to the whole company {time}.",
        "Sent an email to the wrong {friend} {time}, mortifying.",
    ],
    [
        "Concert tickets are so expensive now, {friend} paid a fortune.",
        "{friend} queued online for tickets for {n} minutes and got none.",
        "There's a free gig at {place} on {day}, apparently.",
        "A busker at {place} was brilliant {time}.",
    ],
    [
        "I need a holiday somewhere warm, it's {weather} here.",
        "Counting the days until my next day off, {n} to go.",
        "Booked nothing for summer yet, {mood}.",
        "{friend} found cheap flights to {city}, tempting.",
        "Daydreaming about a beach {time} instead of working.",
    ],
    [
        "Bumped into {friend} at {place} {time}, haven't seen them in ages.",
        "{friend} is having a birthday thing on {day}, are you going?",
        "{friend} got engaged {time}, everyone is thrilled.",
        "Haven't heard from {friend} in weeks, hope all's fine.",
    ],
    [
        "My washing machine flooded the kitchen {time}.",
        "The boiler made a weird noise {time}, fingers crossed.",
        "Spent {time} cleaning the oven, it was grim.",
        "Finally hoovered under the bed, found {n} socks.",
    ],
    [
        "Got a parking ticket outside {place}, {mood}.",
        "Someone parked across my drive {time}.",
        "Filled up the bike tyres {time}, felt very productive.",
        "Roadworks by {place} again, the detour takes {n} minutes.",
    ],
]
AGAIN = ["again", "for the third time", "as usual", "", ""]
PROPER = frozenset(FRIENDS + CITIES)
INTERJECTIONS = ["Ha, ", "Oh, ", "Mm, ", "Aw, ", "Ooh, ", "Yeah, ", "Ah, ", "Hah, ", "Well, ", "Honestly, "]
TAGS = ["", "!", " :)", " haha", " {o}.", ", {o}.", " lol", " :D", "..."]
JOINS = [" Also, ", " Anyway, ", " Oh and ", " Unrelated, but ", " Plus, "]
OPENERS = ["", "", "", "", "Random thought: ", "Okay so ", "Ugh, ", "Funny thing, ", "Small update: ", "Hm, "]
FOLLOW_UPS = [
    "Was that at {place}?",
    "Same thing happened to {friend}.",
    "{friend} says hi, by the way.",
    "What time was that?",
    "You deserve {drink} after that.",
    "That's so you.",
    "I'd have done the same.",
    "{friend} would laugh.",
    "Remind me on {day}.",
    "We should talk about it over {food}.",
    "Been there {time}.",
    "Me {time}, honestly.",
    "My {rel} says the same.",
    "Story of my week.",
    "That's {n} times now.",
    "Did you tell {friend}?",
    "Sounds like my {rel}.",
    "Bet {place} was heaving.",
    "Next time, call me.",
    "I'm still laughing at that.",
    "Was {friend} there too?",
    "Can't wait to hear the rest on {day}.",
    "Hope the rest of the {period} is calmer.",
    "At least there was {food}.",
    "Happens to the best of us.",
]
PERIODS = ["week", "month", "day", "evening", "weekend"]
# Short answers beside REPLIES and REACTIONS (which the main stream still draws from).
ACKS = [
    "Ha, relatable.",
    "Oof.",
    "Classic.",
    "Same, honestly.",
    "That tracks.",
    "Oh dear.",
    "Makes sense.",
    "Yep, been there.",
    "Brutal.",
    "Honestly, same.",
    "Not ideal.",
    "Could be worse!",
    "Typical.",
    "I feel that.",
    "You and me both.",
    "Ha, fair.",
    "Good grief.",
    "Oh I believe it.",
    "Poor you.",
    "Nice one.",
    "Noted!",
    "Amazing, honestly.",
    "Yikes.",
    "Love that for you.",
    "Wild.",
    "That's the dream.",
    "Oh, stop.",
    "So jealous.",
    "Every single time.",
    "Right?!",
    "No comment, ha.",
    "Sounds familiar.",
    "Can't argue with that.",
    "Go on then.",
    "Oh, bless.",
    "I'd pay to see that.",
    "That's a whole mood.",
    "Naturally.",
    "Well, that's one way to do it.",
    "Good for them.",
]
CHEERS = [
    "Whoa, congratulations!",
    "Get in!",
    "That's brilliant, {o}.",
    "Wow, big news.",
    "Ooh, exciting.",
    "Finally!",
    "Look at you go.",
    "Proud of you, {o}.",
    "That's lovely.",
    "Oh my, really?",
    "How did that come about?",
    "And how do you feel?",
    "We need to celebrate.",
    "That's a big step.",
    "You kept that quiet!",
    "Oh that's so good to hear.",
    "Tell me everything.",
    "Well done, {o}!",
]
GREETING_TAILS = [
    "It's {weather} here.",
    "I'm on {drink} number {n}.",
    "Just got back from {place}.",
    "Sorry I went quiet, busy {day}.",
    "Finally a free minute.",
    "{friend} says hi.",
    "What a {day}.",
    "I'm sitting at {place} with {drink}.",
    "Escaped the {work} for five minutes.",
    "The {breed} next door is at it again.",
    "Had {food} for lunch and need a nap.",
    "Quick one, I'm off to {place} soon.",
    "Can't believe it's {day} already.",
    "Still recovering from {time}.",
    "Been a {period}, honestly.",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TIMES2 = ["noon", "lunchtime", "three o'clock", "mid-afternoon", "teatime"]
TIMES3 = ["10pm", "11pm", "midnight", "1am", "9pm"]


def _mid(clause: str) -> str:
    """A clause that no longer starts its sentence: lower-case unless it starts with a name or "I"."""
    first = clause.split(" ", 1)[0].rstrip(",.'s")
    return clause if first in PROPER or first == "I" or first.startswith("I'") else clause[0].lower() + clause[1:]


class _Filler:
    """Writes every turn that is not a fact, from its own random stream, never twice the same in a conversation."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()
        self.said: set[str] = set()  # the small-talk templates used so far
        self.counts: dict[str, int] = {}  # follow-ups and greeting tails: how often each was used

    def _fill(self, template: str, **given: str) -> str:
        r = self.rng
        slots = {
            "breed": r.choice(BREEDS),
            "city": r.choice(CITIES),
            "rel": r.choice(RELATIVES)[0],
            "friend": r.choice(FRIENDS),
            "place": r.choice(PLACES),
            "time": r.choice(TIMES),
            "time2": r.choice(TIMES2),
            "time3": r.choice(TIMES3),
            "day": r.choice(DAYS),
            "food": r.choice(FOODS),
            "drink": r.choice(DRINKS),
            "thing": r.choice(THINGS),
            "show": r.choice(SHOWS),
            "work": r.choice(WORK_THINGS),
            "job": r.choice(GENERIC_JOBS),
            "weather": r.choice(WEATHER),
            "mood": r.choice(MOODS),
            "again": r.choice(AGAIN),
            "n": str(r.randint(2, 40)),
            "period": r.choice(PERIODS),
        }
        slots.update({k: v for k, v in given.items() if r.random() < 0.5})
        text = template.format(**slots).replace(" .", ".").replace(" ,", ",")
        return text[0].upper() + text[1:]

    def _unique(self, write: Callable[[], str], extend: Callable[[], str]) -> str:
        for _ in range(20):
            text = write()
            if text not in self.used:
                break
        while text in self.used:
            text = f"{text} {extend()}"
        self.used.add(text)
        return text

    def _least_used(self, templates: list[str]) -> str:
        fewest = min(self.counts.get(t, 0) for t in templates)
        template = self.rng.choice([t for t in templates if self.counts.get(t, 0) == fewest])
        self.counts[template] = fewest + 1
        return self._fill(template)

    def _follow_up(self) -> str:
        """A few words more, the least used so far of FOLLOW_UPS."""
        return self._least_used(FOLLOW_UPS)

    def chat(self, **given: str) -> str:
        def write() -> str:
            r = self.rng
            # Each template once before any twice; a template said again gets a second clause.
            for _ in range(30):
                first = r.choice(INTENTS)
                template = r.choice(first)
                if template not in self.said:
                    break
            again = template in self.said
            self.said.add(template)
            opener = r.choice(OPENERS)
            text = self._fill(template, **given)
            text = opener + _mid(text) if opener else text
            if again or r.random() < 0.15:
                second = r.choice([i for i in INTENTS if i is not first])
                text += r.choice(JOINS) + _mid(self._fill(r.choice(second)))
            return text

        return self._unique(write, self._follow_up)

    def reply(self, drawn: str, to: str, pool: list[str]) -> str:
        """A short answer (to small talk or to a fact, with no content of its own): the drawn one or one
        of pool, re-worded a little or followed by a few words more."""

        def write() -> str:
            r = self.rng
            base = drawn if r.random() < 0.35 else r.choice(pool).format(o=to)
            if r.random() < 0.4:
                return f"{base} {self._follow_up()}"
            text = base.rstrip(".!") + r.choice(TAGS).format(o=to) if r.random() < 0.7 else base
            return r.choice(INTERJECTIONS) + _mid(text) if r.random() < 0.5 else text

        return self._unique(write, self._follow_up)

    def greeting(self, base: str) -> str:
        return self._unique(
            lambda: base if self.rng.random() < 0.2 else f"{base} {self._least_used(GREETING_TAILS)}",
            self._follow_up,
        )


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
    filler = _Filler(f"longconv-filler-{split}-{index}")
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
        # The main stream draws what the filler always drew (a greeting, a reply, a reaction, a FILLER
        # sentence and its slots), so every fact lands on the turn it always did; the wording of the
        # small talk comes from the filler's own stream.
        say(speaker, filler.greeting(rng.choice(GREETINGS).format(o=other)))
        say(other, filler.reply(rng.choice(REPLIES), speaker, ACKS))
        while len(turns) < length or facts:
            if facts and rng.random() < 0.35:
                key, who, text = facts.pop()
                say(who, text)
                where[key] = (s, len(turns))
                say(b if who == a else a, filler.reply(rng.choice(REACTIONS).format(o=who), who, CHEERS))
            else:
                who = rng.choice([a, b])
                rng.choice(FILLER)  # drawn and dropped
                breed, city, rel = rng.choice(BREEDS), rng.choice(CITIES), rng.choice(RELATIVES)[0]
                say(who, filler.chat(breed=breed, city=city, rel=rel))
                say(b if who == a else a, filler.reply(rng.choice(REPLIES), who, ACKS))
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
