"""CrewAI's system prompt for every agent of agents.yaml files, from CrewAI's own rules.

Reads each file with PyYAML's safe_load (as CrewAI's CrewBase does), keeps the records
with string role, goal and backstory, fills each field's {name} placeholders with
interpolate_only (crewai/utilities/string_utils.py: the placeholders the pattern
\\{([A-Za-z_][A-Za-z0-9_\\-]*)} finds, each replaced in turn with str(value)), and writes
the role_playing slice ("You are {role}. {backstory}\\nYour personal goal is: {goal}")
as Prompts._build_prompt does (replace {goal}, then {role}, then {backstory}),
right-stripped. Every input is given the value "<name>".

Usage: python3 crewai_reference.py FILE... ; prints JSON {file: {agent: {prompt, inputs}}}.
"""

import json
import re
import sys

import yaml

PATTERN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_\-]*)}")
ROLE_PLAYING = "You are {role}. {backstory}\nYour personal goal is: {goal}"


def interpolate_only(text, inputs):
    if not text:
        return ""
    if "{" not in text and "}" not in text:
        return text
    result = text
    for var in PATTERN.findall(text):
        if var in inputs:
            result = result.replace("{" + var + "}", str(inputs[var]))
    return result


def agents_of(path):
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    out = {}
    if not isinstance(doc, dict):
        return out
    for key, rec in doc.items():
        if not isinstance(key, str) or not isinstance(rec, dict):
            continue
        fields = [rec.get(k) for k in ("role", "goal", "backstory")]
        if not all(isinstance(v, str) for v in fields):
            continue
        names = sorted({n for v in fields for n in PATTERN.findall(v)})
        inputs = {n: f"<{n}>" for n in names}
        role, goal, backstory = (interpolate_only(v, inputs) for v in fields)
        prompt = ROLE_PLAYING.replace("{goal}", goal).replace("{role}", role).replace("{backstory}", backstory)
        out[key] = {"prompt": prompt.rstrip(), "inputs": inputs}
    return out


if __name__ == "__main__":
    result = {}
    for path in sys.argv[1:]:
        try:
            result[path] = agents_of(path)
        except (yaml.YAMLError, ValueError) as e:  # ValueError: a date PyYAML cannot build
            result[path] = {"__error__": str(e)}
    json.dump(result, sys.stdout)
