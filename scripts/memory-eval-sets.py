#!/usr/bin/env python3
"""Writes the two JSON Lines evaluation sets of `bob memory bench --dataset` (format: one
{"memories":[{"id","text"}...]} line, then {"query","relevant":[ids]} lines).

usage: scripts/memory-eval-sets.py OUT_DIR [--seed N]

* OUT_DIR/debian.jsonl -- public text that ships with the machine: every package in
  /var/lib/dpkg/status with a long description becomes a memory (the long description), and
  its one-line synopsis is the query whose relevant memory it is. Package names are removed
  from both, duplicate descriptions and duplicate synopses are dropped.
* OUT_DIR/paraphrase.jsonl -- everyday personal facts, as a user would tell an assistant,
  and questions about them phrased with other words (the way people ask later). Each fact is
  made from a template whose slots are filled at random (seeded), and each question from the
  template's question forms; the relevant memory of a question is the fact its template made.
  The templates are written so the question shares no content word with the fact: they test
  recall by meaning, which a word index cannot do.
"""
import json
import os
import random
import re
import sys

# (fact template, [question forms], slot values)
TEMPLATES = [
    ("{name} is my puppy", ["what is my dog called?", "name of my young dog"],
     {"name": ["Rex", "Biscuit", "Pepper", "Milo", "Nala"]}),
    ("My kitten is named {name}", ["what do we call our cat?", "which cat do I have"],
     {"name": ["Luna", "Simba", "Tiger", "Oreo"]}),
    ("My sister lives in {city}", ["where does my sibling reside?", "which town is my sibling's home"],
     {"city": ["Lisbon", "Porto", "Krakow", "Ghent", "Turin"]}),
    ("I am allergic to {drug}", ["which medication must I avoid?", "what medicine gives me a reaction"],
     {"drug": ["penicillin", "ibuprofen", "sulfa drugs", "aspirin"]}),
    ("My dentist appointment is on {day}", ["when do I see the tooth doctor?", "day of my dental checkup"],
     {"day": ["Monday", "Tuesday", "Thursday", "Friday"]}),
    ("I drive a {car}", ["what vehicle do I own?", "which automobile is mine"],
     {"car": ["blue Corolla", "red Golf", "grey Civic", "white Clio"]}),
    ("My wife's birthday is on {date}", ["when is my spouse's anniversary of being born?", "when should I celebrate my partner turning a year older"],
     {"date": ["March 3", "July 19", "October 8", "May 27"]}),
    ("I take the {time} train to the office", ["when does my commute leave?", "what time is my morning ride to work"],
     {"time": ["7:40", "8:05", "6:55", "7:15"]}),
    ("My favourite food is {food}", ["what dish do I like best?", "which meal do I enjoy the most"],
     {"food": ["lasagne", "ramen", "paella", "falafel"]}),
    ("The wifi password is {pw}", ["how do I get the laptop online at home?", "credentials for the wireless network"],
     {"pw": ["tulip-42-river", "blue-otter-9", "maple77sun"]}),
    ("I am learning to play the {instr}", ["which musical instrument am I practising?", "what am I taking music lessons for"],
     {"instr": ["cello", "violin", "piano", "saxophone"]}),
    ("My son goes to {school} school", ["where does my boy study?", "name of my kid's place of education"],
     {"school": ["Riverside", "Oakwood", "Hillcrest", "Maplewood"]}),
    ("I need to renew my passport before {month}", ["when does my travel document expire?", "deadline for the ID I use abroad"],
     {"month": ["June", "September", "December", "February"]}),
    ("My doctor is Dr. {doc}", ["who is my physician?", "which GP do I see"],
     {"doc": ["Okafor", "Lindqvist", "Moreau", "Tanaka"]}),
    ("I am vegetarian", ["do I eat meat?", "any dietary restrictions at dinner"], {}),
    ("I keep the spare house key under the {spot}", ["where is the extra key to get inside?", "if I get locked out, what helps"],
     {"spot": ["blue flowerpot", "doormat", "garden gnome"]}),
    ("My gym sessions are on {days}", ["when do I work out?", "which days are for exercise"],
     {"days": ["Mondays and Thursdays", "Tuesdays and Saturdays", "weekday mornings"]}),
    ("My mother's phone number is {num}", ["how can I call mum?", "contact for my mom"],
     {"num": ["555-0142", "555-0199", "555-0123"]}),
    ("I'm saving money for a trip to {place}", ["what holiday am I putting funds aside for?", "destination of the vacation I budget for"],
     {"place": ["Japan", "Iceland", "Peru", "Kenya"]}),
    ("I work as a {job}", ["what is my profession?", "what do I do for a living"],
     {"job": ["nurse", "carpenter", "data analyst", "teacher"]}),
    ("My blood type is {bt}", ["what kind of blood do I have?", "information needed if I donate plasma"],
     {"bt": ["O negative", "A positive", "B positive"]}),
    ("The car insurance renews every {month}", ["when is the vehicle policy due?", "when must I pay for auto coverage"],
     {"month": ["January", "April", "August"]}),
    ("I prefer tea over coffee", ["what hot drink do I want in the morning?", "which beverage should you offer me"], {}),
    ("My landlord is called {name}", ["who owns the flat I rent?", "who do I pay rent to"],
     {"name": ["Mr. Alvarez", "Mrs. Chen", "Mr. Novak"]}),
    ("I'm afraid of {fear}", ["what scares me?", "what is my phobia"],
     {"fear": ["spiders", "heights", "deep water"]}),
    ("My daughter's football practice is on {day} evenings", ["when does my girl have soccer training?", "which night is the kid's sport club"],
     {"day": ["Wednesday", "Tuesday", "Friday"]}),
    ("I wear glasses for reading", ["do I need spectacles?", "eyesight help for books"], {}),
    ("My bike was stolen last {month}", ["what happened to my bicycle?", "when did I lose my two-wheeler"],
     {"month": ["March", "May", "November"]}),
    ("The plumber's name is {name}", ["who fixes the pipes?", "who to call about a leaking tap"],
     {"name": ["Gary", "Marek", "Tomasz"]}),
    ("I was born in {city}", ["what is my hometown?", "where did I grow up as a baby"],
     {"city": ["Leeds", "Cork", "Dresden", "Bilbao"]}),
]

# Facts nobody asks about: the other things a personal store holds.
DISTRACTORS = [
    "Bought new curtains for the living room",
    "The library closes early on Sundays",
    "Remember to water the basil twice a week",
    "Our neighbour's hedge needs trimming",
    "The recycling is collected on alternate Tuesdays",
    "Meeting notes: the budget review moved to next quarter",
    "The printer in the hall needs a new toner cartridge",
    "I liked the documentary about octopuses",
    "The electricity meter reading was 48213",
    "Grandpa's watch is in the top drawer",
    "Pick up the dry cleaning on the way home",
    "The bakery on the corner sells sourdough on Fridays",
    "Warranty for the fridge lasts until next year",
    "The book club is reading a novel about lighthouses",
    "Need to replace the smoke alarm battery",
    "The parking permit is valid for zone C",
]


def words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


def paraphrase(rng):
    memories, queries = [], []
    for i, (fact, questions, slots) in enumerate(TEMPLATES):
        filled = fact.format(**{k: rng.choice(v) for k, v in slots.items()})
        mid = f"fact{i:02d}"
        memories.append({"id": mid, "text": filled})
        for q in questions:
            queries.append({"query": q, "relevant": [mid]})
    for j, d in enumerate(DISTRACTORS):
        memories.append({"id": f"other{j:02d}", "text": d})
    rng.shuffle(memories)
    return memories, queries


def debian(status="/var/lib/dpkg/status"):
    pkgs, cur = [], {}
    with open(status, encoding="utf-8", errors="replace") as f:
        key = None
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur:
                    pkgs.append(cur)
                cur, key = {}, None
            elif line[0] in " \t" and key:
                cur[key] += "\n" + line[1:]
            elif ":" in line:
                key, _, val = line.partition(":")
                cur[key] = val.strip()
        if cur:
            pkgs.append(cur)
    memories, queries, seen_body, seen_q = [], [], set(), set()
    for p in pkgs:
        name, desc = p.get("Package", ""), p.get("Description", "")
        synopsis, _, body = desc.partition("\n")
        body = " ".join(l.strip() for l in body.split("\n") if l.strip() != ".")
        strip = lambda s: re.sub(re.escape(name), "", s, flags=re.I).strip()
        body, synopsis = strip(body), strip(synopsis)
        if len(body) < 40 or len(synopsis) < 10 or body in seen_body or synopsis.lower() in seen_q:
            continue
        seen_body.add(body)
        seen_q.add(synopsis.lower())
        mid = f"deb{len(memories):04d}"
        memories.append({"id": mid, "text": body})
        queries.append({"query": synopsis, "relevant": [mid]})
    return memories, queries


def write(path, memories, queries):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"memories": memories}) + "\n")
        for q in queries:
            f.write(json.dumps(q) + "\n")
    print(f"{path}: {len(memories)} memories, {len(queries)} queries", file=sys.stderr)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 26
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    m, q = paraphrase(rng)
    overlap = sum(1 for x in q for y in m if y["id"] in x["relevant"]
                  and words(x["query"]) & words(y["text"]) - {"my", "i", "the", "a", "is", "do", "what", "to", "of", "for", "on", "in"})
    print(f"paraphrase: {overlap} of {len(q)} questions share a content word with their fact", file=sys.stderr)
    write(os.path.join(out, "paraphrase.jsonl"), m, q)
    m, q = debian()
    write(os.path.join(out, "debian.jsonl"), m, q)


if __name__ == "__main__":
    main()
