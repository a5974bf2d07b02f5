"""Two tiny Inspect AI tasks run on two mock models, written as .eval and as .json logs.

    python inspect_tasks.py OUTDIR      # with inspect-ai installed (see ../README.md)

writes OUTDIR/eval/*.eval (Inspect's default format: a zip of zstd-compressed JSON members),
one log per (task, model): tasks ``arithmetic`` (12 samples, scorer ``match``) and
``capitals`` (10 samples, scorers ``includes`` and ``f1``) x models ``mockllm/model-a`` and
``mockllm/model-b``, 3 epochs; and OUTDIR/json/*.json (``log_format="json"``): task
``arithmetic`` limited to its first 2 samples, 3 epochs, the same two models.

The questions are our own (simple arithmetic and capital cities), written for these tests.
The models are Inspect's ``mockllm`` provider with ``custom_outputs``: a function that answers
right with a per-model probability, from a RNG seeded by (model, question, n-th call), so
each epoch can differ and the runs are reproducible up to the order of the epochs.
"""

import random
import sys
from collections import Counter
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import f1, includes, match
from inspect_ai.solver import generate

ARITHMETIC = [
    ("What is 7 + 5?", "12", "easy"), ("What is 9 * 8?", "72", "easy"),
    ("What is 15 - 6?", "9", "easy"), ("What is 144 / 12?", "12", "easy"),
    ("What is 23 + 19?", "42", "easy"), ("What is 81 / 9?", "9", "easy"),
    ("What is 17 * 13?", "221", "hard"), ("What is 256 + 512?", "768", "hard"),
    ("What is 1000 - 273?", "727", "hard"), ("What is 35 * 24?", "840", "hard"),
    ("What is 625 / 25?", "25", "hard"), ("What is 19 * 19?", "361", "hard"),
]  # fmt: skip
CAPITALS = [
    ("France", "Paris", "Europe"), ("Germany", "Berlin", "Europe"),
    ("Italy", "Rome", "Europe"), ("Spain", "Madrid", "Europe"),
    ("Japan", "Tokyo", "Asia"), ("India", "New Delhi", "Asia"),
    ("Thailand", "Bangkok", "Asia"), ("Vietnam", "Hanoi", "Asia"),
    ("Kenya", "Nairobi", "Africa"), ("Egypt", "Cairo", "Africa"),
]  # fmt: skip
WRONG_CITIES = ["Lyon", "Munich", "Milan", "Osaka", "Mumbai", "Lagos", "Cusco", "Alexandria"]


@task
def arithmetic():
    samples = [Sample(input=q, target=a, id=f"arith-{i:02d}", metadata={"difficulty": d})
               for i, (q, a, d) in enumerate(ARITHMETIC, 1)]  # fmt: skip
    return Task(dataset=MemoryDataset(samples, name="arithmetic"), solver=generate(),
                scorer=match(numeric=True), epochs=3)  # fmt: skip


@task
def capitals():
    samples = [Sample(input=f"What is the capital of {c}?", target=city, id=f"cap-{c.lower()}",
                      metadata={"continent": cont}) for c, city, cont in CAPITALS]  # fmt: skip
    return Task(dataset=MemoryDataset(samples, name="capitals"), solver=generate(),
                scorer=[includes(), f1()], epochs=3)  # fmt: skip


def mock(name: str, p_right: float):
    calls: Counter[str] = Counter()
    answers = {q: a for q, a, _ in ARITHMETIC}
    answers |= {f"What is the capital of {c}?": city for c, city, _ in CAPITALS}

    def outputs(input, tools, tool_choice, config):
        question = input[-1].text
        calls[question] += 1
        rng = random.Random(f"{name}/{question}/{calls[question]}")
        right = answers[question]
        if question.startswith("What is the capital"):
            city = right if rng.random() < p_right else rng.choice(WRONG_CITIES)
            text = rng.choice([city, f"The capital is {city}.", f"I believe it is {city}."])
        else:
            n = int(right) if rng.random() < p_right else int(right) + rng.choice([-10, -1, 1, 2])
            text = rng.choice([f"{n}", f"The answer is {n}", f"Let me compute: {n}"])
        out = ModelOutput.from_content(model=name, content=text)
        # token counts given here, so that Inspect does not count them with tiktoken (whose
        # encoding files it would download)
        n_in, n_out = len(question.split()), len(text.split())
        out.usage = ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)
        return out

    return get_model(f"mockllm/{name}", custom_outputs=outputs)


def main(out: Path) -> None:
    # the default format (.eval): both tasks, every sample, 3 epochs
    models = [mock("model-a", 0.75), mock("model-b", 0.5)]
    eval([arithmetic(), capitals()], model=models, log_dir=str(out / "eval"), display="plain")
    # the JSON format is ~10 KB per sample and epoch (indented, with the sample's events):
    # arithmetic's first 2 samples only, 3 epochs, to keep the files near 100 KB
    models = [mock("model-a", 0.75), mock("model-b", 0.5)]
    eval(arithmetic(), model=models, log_dir=str(out / "json"), log_format="json", limit=2,
         display="plain")  # fmt: skip


if __name__ == "__main__":
    main(Path(sys.argv[1]))
